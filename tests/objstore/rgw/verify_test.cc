// Verified uploads against the real gateway through a proxy that damages them
// (flaky_proxy.h): a body damaged on the way is refused by the store, which
// checks the Content-MD5 every PUT and part carries, and sent again; an ETag
// that is not the MD5 of the bytes sent is EIO, also when the reply says the
// object is encrypted with SSE-S3 (AES256), whose ETag is the MD5 all the same.
#include <unistd.h>

#include <cstdlib>

#include "fs/objstore/object_upload.h"
#include "fs/objstore/s3_digest.h"
#include "tests/objstore/rgw/flaky_proxy.h"
#include "tests/objstore/rgw/rgw_fixture.h"

namespace tierfs::testing {
namespace {

constexpr uint64_t kMiB = 1 << 20;

using VerifyTest = ProxiedRgwTest;

TEST_F(VerifyTest, ABodyDamagedOnTheWayIsRefusedByTheStoreAndSentAgain) {
  int fd = RandomFile(2 * kMiB, 11);
  std::unique_ptr<S3Client> client = ProxiedClient();
  proxy_->DamageNextPutBodies(1);
  Result<std::string> put = client->PutObject(bucket_, "k", fd, 0, 2 * kMiB, {});
  ASSERT_S3_OK(put);
  EXPECT_EQ(proxy_->damaged(), 1);
  EXPECT_EQ(*put, Md5OfFdRange(fd, 0, 2 * kMiB)->hex);
  int back = EmptyFile();
  ASSERT_S3_OK(client_->GetObjectToFd(bucket_, "k", 0, S3Client::kToEnd, back, 0));
  EXPECT_EQ(CompareFiles(fd, 0, back, 0, 2 * kMiB), "");

  // Damaged on every attempt: EIO naming the store's BadDigest, and nothing
  // stored under the key.
  client = ProxiedClient();
  proxy_->DamageNextPutBodies(1000);
  put = client->PutObject(bucket_, "never", fd, 0, 2 * kMiB, {});
  EXPECT_EQ(put.status().code(), EIO) << put.status().message();
  EXPECT_NE(put.status().message().find("BadDigest"), std::string::npos)
      << put.status().message();
  EXPECT_EQ(client_->HeadObject(bucket_, "never").status().code(), ENOENT);
  EXPECT_EQ(proxy_->damaged(), 1 + Options().max_attempts);
  proxy_->DamageNextPutBodies(0);
  close(fd);
  close(back);
}

TEST_F(VerifyTest, APartDamagedOnTheWayIsRefusedByTheStore) {
  int fd = RandomFile(5 * kMiB, 12);
  Result<std::string> id = client_->CreateMultipartUpload(bucket_, "big", {});
  ASSERT_S3_OK(id);
  std::unique_ptr<S3Client> client = ProxiedClient();
  proxy_->DamageNextPutBodies(1000);
  Result<std::string> part = client->UploadPart(bucket_, "big", *id, 1, fd, 0, 5 * kMiB);
  EXPECT_EQ(part.status().code(), EIO) << part.status().message();
  EXPECT_NE(part.status().message().find("BadDigest"), std::string::npos)
      << part.status().message();
  // Once the damage stops, the same part passes.
  proxy_->DamageNextPutBodies(0);
  part = client->UploadPart(bucket_, "big", *id, 1, fd, 0, 5 * kMiB);
  ASSERT_S3_OK(part);
  EXPECT_EQ(*part, Md5OfFdRange(fd, 0, 5 * kMiB)->hex);
  EXPECT_S3_OK(client_->AbortMultipartUpload(bucket_, "big", *id));
  close(fd);
}

TEST_F(VerifyTest, AnEtagThatIsNotTheMd5IsEioEvenUnderSseS3) {
  int fd = RandomFile(6 * kMiB, 13);
  std::unique_ptr<S3Client> client = ProxiedClient();
  proxy_->FailNext(1, FlakyProxy::Fault::kRewriteEtag);
  Result<std::string> put = client->PutObject(bucket_, "k", fd, 0, 1000, {});
  EXPECT_EQ(put.status().code(), EIO) << put.status().message();
  EXPECT_NE(put.status().message().find("is not the MD5"), std::string::npos)
      << put.status().message();
  EXPECT_EQ(proxy_->failed(), 1);

  Result<std::string> id = client_->CreateMultipartUpload(bucket_, "big", {});
  ASSERT_S3_OK(id);
  client = ProxiedClient();
  proxy_->FailNext(1, FlakyProxy::Fault::kRewriteEtag);
  Result<std::string> part = client->UploadPart(bucket_, "big", *id, 1, fd, 0, 5 * kMiB);
  EXPECT_EQ(part.status().code(), EIO) << part.status().message();
  EXPECT_S3_OK(client_->AbortMultipartUpload(bucket_, "big", *id));
  close(fd);
}

TEST_F(VerifyTest, AMultipartUploadEndsWithTheEtagOfItsParts) {
  int fd = RandomFile(11 * kMiB, 14);
  UploadOptions options;
  options.multipart_threshold = 5 * kMiB;
  options.part_size = 5 * kMiB;
  Result<UploadResult> up = UploadObject(*client_, bucket_, "big", fd, 0, 11 * kMiB, {}, options);
  ASSERT_S3_OK(up);
  EXPECT_EQ(up->parts, 3);
  std::vector<std::string> parts;
  for (uint64_t at = 0; at < 11 * kMiB; at += 5 * kMiB) {
    parts.push_back(Md5OfFdRange(fd, at, std::min<uint64_t>(5 * kMiB, 11 * kMiB - at))->hex);
  }
  EXPECT_EQ(up->etag, MultipartEtag(parts));
  close(fd);
}

}  // namespace
}  // namespace tierfs::testing
