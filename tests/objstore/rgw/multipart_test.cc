// Multipart uploads against the real gateway: a 64 MiB round trip byte for
// byte, uploads in progress listed (the orphans a crash leaves), aborts, and
// the errors of a wrong part.
#include <unistd.h>

#include "fs/objstore/object_upload.h"
#include "tests/objstore/rgw/rgw_fixture.h"

namespace tierfs::testing {
namespace {

using MultipartTest = RgwTest;

constexpr uint64_t kMiB = 1 << 20;

TEST_F(MultipartTest, A64MiBObjectRoundTripsByteForByte) {
  const uint64_t kSize = 64 * kMiB;
  int src = RandomFile(kSize + 4096, 64);
  UploadOptions options;
  options.multipart_threshold = 8 * kMiB;
  options.part_size = 10 * kMiB;  // 6 parts of 10 MiB and one of 4
  const S3Metadata meta = {{"xxh3", "feedfacecafebeef"}};
  Result<UploadResult> up = UploadObject(*client_, bucket_, "big", src, 4096, kSize, meta, options);
  ASSERT_S3_OK(up);
  EXPECT_EQ(up->parts, 7);
  EXPECT_TRUE(up->etag.size() > 2 && up->etag.substr(up->etag.size() - 2) == "-7") << up->etag;

  Result<S3ObjectInfo> info = client_->HeadObject(bucket_, "big");
  ASSERT_S3_OK(info);
  EXPECT_EQ(info->size, kSize);
  EXPECT_EQ(info->metadata, meta);

  int dst = EmptyFile();
  Result<uint64_t> n = client_->GetObjectToFd(bucket_, "big", 0, S3Client::kToEnd, dst, 0);
  ASSERT_S3_OK(n);
  EXPECT_EQ(*n, kSize);
  EXPECT_EQ(CompareFiles(src, 4096, dst, 0, kSize), "");
  // A range across the boundary of parts 1 and 2, and the last bytes.
  std::vector<char> buf(20), want(20);
  Result<size_t> r = client_->GetObject(bucket_, "big", 10 * kMiB - 10, 20, buf.data());
  ASSERT_S3_OK(r);
  ASSERT_EQ(*r, 20u);
  pread(src, want.data(), 20, 4096 + 10 * kMiB - 10);
  EXPECT_TRUE(buf == want);
  r = client_->GetObject(bucket_, "big", kSize - 7, 20, buf.data());
  ASSERT_S3_OK(r);
  ASSERT_EQ(*r, 7u);
  pread(src, want.data(), 7, 4096 + kSize - 7);
  EXPECT_EQ(std::string(buf.data(), 7), std::string(want.data(), 7));
  // Nothing left in progress.
  Result<std::vector<S3MultipartUpload>> uploads = client_->ListMultipartUploads(bucket_, "");
  ASSERT_S3_OK(uploads);
  EXPECT_TRUE(uploads->empty());
  close(src);
  close(dst);
}

TEST_F(MultipartTest, SmallObjectsGoByOnePut) {
  int src = RandomFile(kMiB, 1);
  Result<UploadResult> up = UploadObject(*client_, bucket_, "small", src, 0, kMiB, {});
  ASSERT_S3_OK(up);
  EXPECT_EQ(up->parts, 0);
  EXPECT_EQ(up->etag.size(), 32u);
  UploadOptions tiny;
  tiny.part_size = kMiB;
  EXPECT_EQ(UploadObject(*client_, bucket_, "x", src, 0, kMiB, {}, tiny).status().code(), EINVAL);
  close(src);
}

TEST_F(MultipartTest, UploadsInProgressAreListedUntilAbortedOrCompleted) {
  int src = RandomFile(6 * kMiB, 2);
  Result<std::string> a = client_->CreateMultipartUpload(bucket_, "objects/1.1", {});
  Result<std::string> b = client_->CreateMultipartUpload(bucket_, "objects/2.1", {{"xxh3", "ab"}});
  Result<std::string> c = client_->CreateMultipartUpload(bucket_, "other/3.1", {});
  ASSERT_S3_OK(a);
  ASSERT_S3_OK(b);
  ASSERT_S3_OK(c);
  Result<std::string> part = client_->UploadPart(bucket_, "objects/1.1", *a, 1, src, 0, 5 * kMiB);
  ASSERT_S3_OK(part);
  EXPECT_EQ(part->size(), 32u);

  Result<std::vector<S3MultipartUpload>> listed =
      client_->ListMultipartUploads(bucket_, "objects/");
  ASSERT_S3_OK(listed);
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].key, "objects/1.1");
  EXPECT_EQ((*listed)[0].upload_id, *a);
  EXPECT_EQ((*listed)[1].key, "objects/2.1");
  EXPECT_GT((*listed)[0].initiated, 1700000000);

  ASSERT_S3_OK(client_->AbortMultipartUpload(bucket_, "objects/1.1", *a));
  EXPECT_EQ(client_->AbortMultipartUpload(bucket_, "objects/1.1", *a).code(), ENOENT);
  EXPECT_EQ(client_->UploadPart(bucket_, "objects/1.1", *a, 2, src, 0, kMiB).status().code(),
            ENOENT);
  EXPECT_EQ(client_->HeadObject(bucket_, "objects/1.1").status().code(), ENOENT);

  // Completing with a part that was never uploaded, or a wrong ETag: EINVAL.
  Result<std::string> p1 = client_->UploadPart(bucket_, "objects/2.1", *b, 1, src, 0, 5 * kMiB);
  ASSERT_S3_OK(p1);
  Result<std::string> bad = client_->CompleteMultipartUpload(
      bucket_, "objects/2.1", *b, {{1, *p1}, {2, "00000000000000000000000000000000"}});
  EXPECT_EQ(bad.status().code(), EINVAL) << bad.status().message();
  bad = client_->CompleteMultipartUpload(bucket_, "objects/2.1", *b,
                                         {{1, "00000000000000000000000000000000"}});
  EXPECT_EQ(bad.status().code(), EINVAL) << bad.status().message();
  // A part below 5 MiB that is not the last: EINVAL (EntityTooSmall).
  Result<std::string> p2 = client_->UploadPart(bucket_, "objects/2.1", *b, 2, src, 0, kMiB);
  Result<std::string> p3 = client_->UploadPart(bucket_, "objects/2.1", *b, 3, src, 0, kMiB);
  ASSERT_S3_OK(p2);
  ASSERT_S3_OK(p3);
  bad = client_->CompleteMultipartUpload(bucket_, "objects/2.1", *b,
                                         {{1, *p1}, {2, *p2}, {3, *p3}});
  EXPECT_EQ(bad.status().code(), EINVAL) << bad.status().message();
  // Part 2 sent again, of 5 MiB: the parts complete the object, with the
  // upload's metadata.
  p2 = client_->UploadPart(bucket_, "objects/2.1", *b, 2, src, kMiB, 5 * kMiB);
  ASSERT_S3_OK(p2);
  Result<std::string> done =
      client_->CompleteMultipartUpload(bucket_, "objects/2.1", *b, {{1, *p1}, {2, *p2}, {3, *p3}});
  ASSERT_S3_OK(done);
  EXPECT_TRUE(done->size() > 2 && done->substr(done->size() - 2) == "-3") << *done;
  Result<S3ObjectInfo> info = client_->HeadObject(bucket_, "objects/2.1");
  ASSERT_S3_OK(info);
  EXPECT_EQ(info->size, 11 * kMiB);
  EXPECT_EQ(info->etag, *done);
  EXPECT_EQ(info->metadata, (S3Metadata{{"xxh3", "ab"}}));

  listed = client_->ListMultipartUploads(bucket_, "");
  ASSERT_S3_OK(listed);
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].key, "other/3.1");
  close(src);
}

TEST_F(MultipartTest, AFailedPartAbortsTheUpload) {
  int src = RandomFile(12 * kMiB, 3);
  UploadOptions options;
  options.multipart_threshold = 5 * kMiB;
  options.part_size = 5 * kMiB;
  // The file ends in the third part: that part fails, the upload is aborted.
  Result<UploadResult> up =
      UploadObject(*client_, bucket_, "torn", src, 0, 16 * kMiB, {}, options);
  EXPECT_EQ(up.status().code(), EIO) << up.status().message();
  Result<std::vector<S3MultipartUpload>> listed = client_->ListMultipartUploads(bucket_, "");
  ASSERT_S3_OK(listed);
  EXPECT_TRUE(listed->empty());
  EXPECT_EQ(client_->HeadObject(bucket_, "torn").status().code(), ENOENT);
  close(src);
}

}  // namespace
}  // namespace tierfs::testing
