#include "fs/objstore/s3_names.h"

#include <gtest/gtest.h>

namespace tierfs {
namespace {

TEST(S3NamesTest, UriEncodeKeepsUnreservedAndOptionallySlash) {
  EXPECT_EQ(UriEncode("aZ09-_.~", false), "aZ09-_.~");
  EXPECT_EQ(UriEncode("a b+c/d%e", false), "a%20b%2Bc%2Fd%25e");
  EXPECT_EQ(UriEncode("a b+c/d%e", true), "a%20b%2Bc/d%25e");
  EXPECT_EQ(UriEncode("\xc3\xa9", true), "%C3%A9");  // é in UTF-8, upper-case hex
}

TEST(S3NamesTest, ObjectPathEncodesTheKeyButNotItsSlashes) {
  EXPECT_EQ(ObjectPath("bkt", ""), "/bkt");
  EXPECT_EQ(ObjectPath("bkt", "objects/12/345.1"), "/bkt/objects/12/345.1");
  EXPECT_EQ(ObjectPath("bkt", "a b/c?d"), "/bkt/a%20b/c%3Fd");
}

TEST(S3NamesTest, CanonicalQueryIsSortedWithEveryNameGivenAValue) {
  EXPECT_EQ(CanonicalQuery({}), "");
  EXPECT_EQ(CanonicalQuery({{"uploads", ""}}), "uploads=");
  EXPECT_EQ(CanonicalQuery({{"prefix", "a/b"}, {"list-type", "2"}, {"max-keys", "7"}}),
            "list-type=2&max-keys=7&prefix=a%2Fb");
  EXPECT_EQ(CanonicalQuery({{"uploadId", "2~x+y="}, {"partNumber", "3"}}),
            "partNumber=3&uploadId=2~x%2By%3D");
}

TEST(S3NamesTest, BucketNames) {
  EXPECT_TRUE(CheckBucketName("abc").ok());
  EXPECT_TRUE(CheckBucketName("tierfs-cold.1").ok());
  EXPECT_EQ(CheckBucketName("ab").code(), EINVAL);
  EXPECT_EQ(CheckBucketName("Abc").code(), EINVAL);
  EXPECT_EQ(CheckBucketName("-abc").code(), EINVAL);
  EXPECT_EQ(CheckBucketName("abc-").code(), EINVAL);
  EXPECT_EQ(CheckBucketName("a_bc").code(), EINVAL);
  EXPECT_EQ(CheckBucketName(std::string(64, 'a')).code(), EINVAL);
}

TEST(S3NamesTest, ObjectKeys) {
  EXPECT_TRUE(CheckObjectKey("objects/1.0").ok());
  EXPECT_EQ(CheckObjectKey("").code(), EINVAL);
  EXPECT_EQ(CheckObjectKey(std::string("a\0b", 3)).code(), EINVAL);
  EXPECT_TRUE(CheckObjectKey(std::string(1024, 'k')).ok());
  EXPECT_EQ(CheckObjectKey(std::string(1025, 'k')).code(), ENAMETOOLONG);
}

TEST(S3NamesTest, MetadataNamesAndValues) {
  EXPECT_TRUE(CheckMetadata({{"xxh3", "0123456789abcdef"}, {"tierfs-ino", "42"}}).ok());
  EXPECT_EQ(CheckMetadata({{"XXH3", "1"}}).code(), EINVAL);   // S3 would lower-case it
  EXPECT_EQ(CheckMetadata({{"a b", "1"}}).code(), EINVAL);
  EXPECT_EQ(CheckMetadata({{"", "1"}}).code(), EINVAL);
  EXPECT_EQ(CheckMetadata({{"x", "a\r\nx-amz-acl: public"}}).code(), EINVAL);  // header injection
  EXPECT_EQ(CheckMetadata({{"x", std::string(3000, 'v')}}).code(), EINVAL);
}

TEST(S3NamesTest, Endpoints) {
  EXPECT_EQ(*NormalizeEndpoint("http://127.0.0.1:8080"), "http://127.0.0.1:8080");
  EXPECT_EQ(*NormalizeEndpoint("https://s3.example.org/"), "https://s3.example.org");
  EXPECT_EQ(NormalizeEndpoint("ftp://x").status().code(), EINVAL);
  EXPECT_EQ(NormalizeEndpoint("127.0.0.1:8080").status().code(), EINVAL);
  EXPECT_EQ(NormalizeEndpoint("http://host/bucket").status().code(), EINVAL);
  // Credentials in the URL would end up in messages.
  EXPECT_EQ(NormalizeEndpoint("http://key:secret@host").status().code(), EINVAL);
  EXPECT_EQ(NormalizeEndpoint("http://").status().code(), EINVAL);
}

TEST(S3NamesTest, PathAndVirtualHostedUrls) {
  EXPECT_EQ(RequestUrl("http://127.0.0.1:7480", S3Addressing::kPath, "b", "a/k 1"),
            "http://127.0.0.1:7480/b/a/k%201");
  EXPECT_EQ(RequestUrl("http://127.0.0.1:7480", S3Addressing::kPath, "b", ""),
            "http://127.0.0.1:7480/b");
  EXPECT_EQ(RequestUrl("https://s3.eu-west-1.amazonaws.com", S3Addressing::kVirtual, "b", "a/k 1"),
            "https://b.s3.eu-west-1.amazonaws.com/a/k%201");
  EXPECT_EQ(RequestUrl("http://localhost:9000", S3Addressing::kVirtual, "b", ""),
            "http://b.localhost:9000/");
}

TEST(S3NamesTest, AddressingAndRegionNames) {
  EXPECT_EQ(*ParseS3Addressing("path"), S3Addressing::kPath);
  EXPECT_EQ(*ParseS3Addressing("virtual"), S3Addressing::kVirtual);
  EXPECT_EQ(ParseS3Addressing("vhost").status().code(), EINVAL);
  EXPECT_STREQ(S3AddressingName(S3Addressing::kVirtual), "virtual");
  EXPECT_TRUE(CheckS3Region("eu-west-1").ok());
  EXPECT_TRUE(CheckS3Region("default").ok());
  EXPECT_EQ(CheckS3Region("").code(), EINVAL);
  EXPECT_EQ(CheckS3Region("a:b").code(), EINVAL);  // would break the signature's scope
  EXPECT_EQ(CheckS3Region("EU-WEST-1").code(), EINVAL);
  EXPECT_EQ(CheckS3Region(std::string(65, 'a')).code(), EINVAL);
}

}  // namespace
}  // namespace tierfs
