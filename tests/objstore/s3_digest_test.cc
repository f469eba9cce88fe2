#include "fs/objstore/s3_digest.h"

#include <gtest/gtest.h>
#include <stdio.h>
#include <unistd.h>

#include <string>

namespace tierfs {
namespace {

TEST(S3DigestTest, Md5InHexAndBase64) {
  // RFC 1321's test suite.
  EXPECT_EQ(Md5Of("").hex, "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(Md5Of("").base64, "1B2M2Y8AsgTpgAmY7PhCfg==");
  EXPECT_EQ(Md5Of("abc").hex, "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(Md5Of("abc").base64, "kAFQmDzST7DWlj99KOF/cg==");
}

TEST(S3DigestTest, Md5OfAFileRangeIsTheMd5OfThoseBytes) {
  FILE* f = tmpfile();
  ASSERT_NE(f, nullptr);
  int fd = fileno(f);
  std::string data;
  for (int i = 0; i < (3 << 20) + 17; ++i) data.push_back(static_cast<char>(i * 7 + i / 1000));
  ASSERT_EQ(pwrite(fd, data.data(), data.size(), 0), static_cast<ssize_t>(data.size()));
  Result<BodyMd5> all = Md5OfFdRange(fd, 0, data.size());
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_EQ(all->hex, Md5Of(data).hex);
  Result<BodyMd5> some = Md5OfFdRange(fd, 5, 2 << 20);
  ASSERT_TRUE(some.ok());
  EXPECT_EQ(some->base64, Md5Of(std::string_view(data).substr(5, 2 << 20)).base64);
  Result<BodyMd5> empty = Md5OfFdRange(fd, 3, 0);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->hex, Md5Of("").hex);
  // Past the end: EIO, as a short file is when it is sent.
  EXPECT_EQ(Md5OfFdRange(fd, data.size() - 10, 11).status().code(), EIO);
  EXPECT_EQ(Md5OfFdRange(-1, 0, 1).status().code(), EBADF);
  fclose(f);
}

TEST(S3DigestTest, EtagShapes) {
  EXPECT_TRUE(IsMd5Etag("900150983cd24fb0d6963f7d28e17f72"));
  EXPECT_TRUE(IsMd5Etag("900150983CD24FB0D6963F7D28E17F72"));
  EXPECT_FALSE(IsMd5Etag("900150983cd24fb0d6963f7d28e17f72-2"));
  EXPECT_FALSE(IsMd5Etag("900150983cd24fb0d6963f7d28e17f7"));
  EXPECT_FALSE(IsMd5Etag("g00150983cd24fb0d6963f7d28e17f72"));
}

TEST(S3DigestTest, MultipartEtagIsTheMd5OfThePartsBinaryMd5s) {
  const std::string a = Md5Of("part one").hex, b = Md5Of("part two").hex;
  auto binary = [](const std::string& hex) {
    std::string out;
    for (size_t i = 0; i < hex.size(); i += 2) {
      out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    }
    return out;
  };
  EXPECT_EQ(MultipartEtag({a, b}), Md5Of(binary(a) + binary(b)).hex + "-2");
  EXPECT_EQ(MultipartEtag({a}), Md5Of(binary(a)).hex + "-1");
  // Upper-case hex is the same MD5.
  std::string upper = a;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(MultipartEtag({upper, b}), MultipartEtag({a, b}));
  // A part whose ETag is no MD5 (SSE-KMS): nothing to compare with.
  EXPECT_EQ(MultipartEtag({a, "opaque"}), "");
  EXPECT_EQ(MultipartEtag({}), "");
}

TEST(S3DigestTest, OnlyKmsAndCustomerKeysMakeTheEtagNoMd5) {
  EXPECT_FALSE(EtagIsNotContentMd5({}));
  EXPECT_FALSE(EtagIsNotContentMd5({{"x-amz-server-side-encryption", "AES256"}}));
  EXPECT_TRUE(EtagIsNotContentMd5({{"x-amz-server-side-encryption", "aws:kms"}}));
  EXPECT_TRUE(EtagIsNotContentMd5({{"x-amz-server-side-encryption", "aws:kms:dsse"}}));
  EXPECT_TRUE(EtagIsNotContentMd5({{"x-amz-server-side-encryption-customer-algorithm",
                                    "AES256"}}));
}

}  // namespace
}  // namespace tierfs
