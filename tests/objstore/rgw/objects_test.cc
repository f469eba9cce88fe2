// Single objects against the real gateway: put from an fd range with metadata,
// head, ranged reads into a buffer and into an fd (the edges included), delete.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "fs/objstore/s3_client.h"
#include "tests/objstore/rgw/rgw_fixture.h"

namespace tierfs::testing {
namespace {

using ObjectsTest = RgwTest;

TEST_F(ObjectsTest, PutFromAnFdRangeThenHeadGetAndDelete) {
  const uint64_t kOffset = 4096 + 17, kLength = (1 << 20) + 123;
  int fd = RandomFile(kOffset + kLength + 999, 1);
  ASSERT_EQ(lseek(fd, 77, SEEK_SET), 77);
  const S3Metadata meta = {{"xxh3", "0123456789abcdef"}, {"tierfs-ino", "42"}};
  Result<std::string> etag = client_->PutObject(bucket_, "objects/2a/42.1", fd, kOffset, kLength,
                                                meta);
  ASSERT_S3_OK(etag);
  EXPECT_EQ(etag->size(), 32u) << *etag;          // the MD5, checked against the bytes sent
  EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 77);          // pread: the fd's offset stays

  Result<S3ObjectInfo> info = client_->HeadObject(bucket_, "objects/2a/42.1");
  ASSERT_S3_OK(info);
  EXPECT_EQ(info->size, kLength);
  EXPECT_EQ(info->etag, *etag);
  EXPECT_EQ(info->metadata, meta);
  EXPECT_GT(info->last_modified, 1700000000);

  std::vector<char> got(kLength), want(kLength);
  ASSERT_EQ(pread(fd, want.data(), kLength, kOffset), static_cast<ssize_t>(kLength));
  Result<size_t> n = client_->GetObject(bucket_, "objects/2a/42.1", 0, kLength, got.data());
  ASSERT_S3_OK(n);
  EXPECT_EQ(*n, kLength);
  EXPECT_TRUE(got == want);

  ASSERT_S3_OK(client_->DeleteObject(bucket_, "objects/2a/42.1"));
  EXPECT_EQ(client_->HeadObject(bucket_, "objects/2a/42.1").status().code(), ENOENT);
  // Deleting what is gone succeeds, so a retried delete is harmless.
  ASSERT_S3_OK(client_->DeleteObject(bucket_, "objects/2a/42.1"));
  close(fd);
}

TEST_F(ObjectsTest, RangedReadsAtTheEdgesReadLikePread) {
  int fd = RandomFile(1000, 2);
  ASSERT_S3_OK(client_->PutObject(bucket_, "k", fd, 0, 1000, {}));
  std::vector<char> all(1000);
  ASSERT_EQ(pread(fd, all.data(), 1000, 0), 1000);
  char buf[64];
  // The last byte.
  Result<size_t> n = client_->GetObject(bucket_, "k", 999, 1, buf);
  ASSERT_S3_OK(n);
  ASSERT_EQ(*n, 1u);
  EXPECT_EQ(buf[0], all[999]);
  // A range across the end: short.
  n = client_->GetObject(bucket_, "k", 995, 10, buf);
  ASSERT_S3_OK(n);
  ASSERT_EQ(*n, 5u);
  EXPECT_EQ(std::string(buf, 5), std::string(all.data() + 995, 5));
  // At and beyond the end: 0 bytes (S3's 416), not an error.
  n = client_->GetObject(bucket_, "k", 1000, 10, buf);
  ASSERT_S3_OK(n);
  EXPECT_EQ(*n, 0u);
  n = client_->GetObject(bucket_, "k", 1 << 30, 10, buf);
  ASSERT_S3_OK(n);
  EXPECT_EQ(*n, 0u);
  // The first byte, and nothing at all.
  n = client_->GetObject(bucket_, "k", 0, 1, buf);
  ASSERT_S3_OK(n);
  ASSERT_EQ(*n, 1u);
  EXPECT_EQ(buf[0], all[0]);
  n = client_->GetObject(bucket_, "k", 0, 0, buf);
  ASSERT_S3_OK(n);
  EXPECT_EQ(*n, 0u);
  // A missing key is ENOENT, at any offset.
  EXPECT_EQ(client_->GetObject(bucket_, "nothing", 0, 10, buf).status().code(), ENOENT);
  EXPECT_EQ(client_->GetObject(bucket_, "nothing", 5000, 10, buf).status().code(), ENOENT);
  close(fd);
}

TEST_F(ObjectsTest, GetIntoAnFdWholeOrARange) {
  const uint64_t kSize = 3 * (1 << 20) + 5;
  int src = RandomFile(kSize, 3);
  ASSERT_S3_OK(client_->PutObject(bucket_, "obj", src, 0, kSize, {}));
  int dst = EmptyFile();
  Result<uint64_t> n = client_->GetObjectToFd(bucket_, "obj", 0, S3Client::kToEnd, dst, 100);
  ASSERT_S3_OK(n);
  EXPECT_EQ(*n, kSize);
  EXPECT_EQ(lseek(dst, 0, SEEK_END), static_cast<off_t>(100 + kSize));
  EXPECT_EQ(CompareFiles(src, 0, dst, 100, kSize), "");
  // A range from the middle to the end, into the start of another file.
  int part = EmptyFile();
  n = client_->GetObjectToFd(bucket_, "obj", kSize - 4096, S3Client::kToEnd, part, 0);
  ASSERT_S3_OK(n);
  EXPECT_EQ(*n, 4096u);
  EXPECT_EQ(CompareFiles(src, kSize - 4096, part, 0, 4096), "");
  n = client_->GetObjectToFd(bucket_, "obj", 10, 20, part, 0);
  ASSERT_S3_OK(n);
  EXPECT_EQ(*n, 20u);
  EXPECT_EQ(CompareFiles(src, 10, part, 0, 20), "");
  n = client_->GetObjectToFd(bucket_, "obj", kSize, S3Client::kToEnd, part, 0);
  ASSERT_S3_OK(n);
  EXPECT_EQ(*n, 0u);
  EXPECT_EQ(client_->GetObjectToFd(bucket_, "none", 0, 10, part, 0).status().code(), ENOENT);
  close(src);
  close(dst);
  close(part);
}

TEST_F(ObjectsTest, EmptyObjectsAndKeysThatNeedEncoding) {
  int empty = EmptyFile();
  int fd = RandomFile(100, 4);
  // Spaces, '+', '%', '~', '=', '&', '?', a multi-byte character: each must be
  // encoded alike in the URL and in the signature.
  const std::vector<std::string> keys = {"a b/c+d%e~f=g&h?i", "dir/\xc3\xa9t\xc3\xa9", "x/.y/z"};
  for (const std::string& key : keys) {
    ASSERT_S3_OK(client_->PutObject(bucket_, key, fd, 0, 100, {{"k", "v w"}}));
    Result<S3ObjectInfo> info = client_->HeadObject(bucket_, key);
    ASSERT_S3_OK(info);
    EXPECT_EQ(info->size, 100u) << key;
  }
  Result<S3ObjectPage> page = client_->ListObjects(bucket_, "", "");
  ASSERT_S3_OK(page);
  std::vector<std::string> listed;
  for (const S3ListedObject& o : page->objects) listed.push_back(o.key);
  std::vector<std::string> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(listed, sorted);

  ASSERT_S3_OK(client_->PutObject(bucket_, "empty", empty, 0, 0, {}));
  Result<S3ObjectInfo> info = client_->HeadObject(bucket_, "empty");
  ASSERT_S3_OK(info);
  EXPECT_EQ(info->size, 0u);
  char buf[4];
  Result<size_t> n = client_->GetObject(bucket_, "empty", 0, 4, buf);
  ASSERT_S3_OK(n);
  EXPECT_EQ(*n, 0u);
  close(empty);
  close(fd);
}

TEST_F(ObjectsTest, ABodyFileShorterThanTheRangeIsAnErrorAndStoresNothing) {
  int fd = RandomFile(1000, 5);
  Result<std::string> r = client_->PutObject(bucket_, "short", fd, 500, 1000, {});
  EXPECT_EQ(r.status().code(), EIO);
  EXPECT_NE(r.status().message().find("ended"), std::string::npos) << r.status().message();
  EXPECT_EQ(client_->HeadObject(bucket_, "short").status().code(), ENOENT);
  // A closed fd: its errno.
  close(fd);
  r = client_->PutObject(bucket_, "badfd", fd, 0, 10, {});
  EXPECT_EQ(r.status().code(), EBADF);
}

TEST_F(ObjectsTest, ManyThreadsAtOnce) {
  int fd = RandomFile(256 << 10, 6);
  std::vector<std::thread> threads;
  std::vector<std::string> errors(8);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i) {
        std::string key = "t" + std::to_string(t) + "/" + std::to_string(i);
        uint64_t off = static_cast<uint64_t>(t * 1000 + i);
        Result<std::string> put = client_->PutObject(bucket_, key, fd, off, 100000, {});
        if (!put.ok()) {
          errors[t] = put.status().message();
          return;
        }
        std::vector<char> got(100000), want(100000);
        Result<size_t> n = client_->GetObject(bucket_, key, 0, got.size(), got.data());
        pread(fd, want.data(), want.size(), static_cast<off_t>(off));
        if (!n.ok() || *n != got.size() || got != want) {
          errors[t] = "read back of " + key + " differs";
          return;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& e : errors) EXPECT_EQ(e, "");
  close(fd);
}

TEST_F(ObjectsTest, RefusedBeforeSending) {
  int fd = RandomFile(10, 7);
  EXPECT_EQ(client_->PutObject(bucket_, "k", fd, 0, 10, {{"Bad Name", "v"}}).status().code(),
            EINVAL);
  EXPECT_EQ(client_->PutObject(bucket_, "k", fd, 0, 10, {{"x", "a\nb"}}).status().code(), EINVAL);
  EXPECT_EQ(client_->PutObject("BadBucket", "k", fd, 0, 10, {}).status().code(), EINVAL);
  EXPECT_EQ(client_->PutObject(bucket_, "", fd, 0, 10, {}).status().code(), EINVAL);
  EXPECT_EQ(client_->ListObjects(bucket_, "", "", 0).status().code(), EINVAL);
  EXPECT_EQ(client_->HeadObject(bucket_, "k").status().code(), ENOENT);  // nothing was sent
  close(fd);
}

}  // namespace
}  // namespace tierfs::testing
