#include "tests/objstore/rgw/rgw_fixture.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <random>
#include <vector>

#include "tests/support/ceph_s3_options.h"

namespace tierfs::testing {

void RgwTest::SetUp() {
  std::string why;
  cluster_ = CephEnvironment::Cluster(&why);
  ASSERT_NE(cluster_, nullptr) << why;
  client_ = MakeClient(Options());
  ASSERT_NE(client_, nullptr);
  // A bucket per test, named after it: bucket names are lower case, 3-63 chars.
  static int counter = 0;
  std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::string cleaned;
  for (char c : name) cleaned += std::isalnum(static_cast<unsigned char>(c)) ? std::tolower(c) : '-';
  bucket_ = ("t" + std::to_string(++counter) + "-" + cleaned).substr(0, 63);
  while (!std::isalnum(static_cast<unsigned char>(bucket_.back()))) bucket_.pop_back();
  ASSERT_S3_OK(client_->CreateBucket(bucket_));
}

void RgwTest::TearDown() {
  if (cluster_ == nullptr || client_ == nullptr || bucket_.empty()) return;
  // Empty and remove the bucket: the OSD keeps its data in memory.
  Result<std::vector<S3MultipartUpload>> uploads = client_->ListMultipartUploads(bucket_, "");
  if (uploads.ok()) {
    for (const S3MultipartUpload& u : *uploads) {
      client_->AbortMultipartUpload(bucket_, u.key, u.upload_id);
    }
  }
  std::string token;
  do {
    Result<S3ObjectPage> page = client_->ListObjects(bucket_, "", token);
    if (!page.ok()) break;
    for (const S3ListedObject& o : page->objects) client_->DeleteObject(bucket_, o.key);
    token = page->next_continuation_token;
  } while (!token.empty());
  Status st = client_->DeleteBucket(bucket_);
  EXPECT_TRUE(st.ok()) << st.message();
}

S3ClientOptions RgwTest::Options() const { return CephS3ClientOptions(*cluster_); }

std::unique_ptr<S3Client> RgwTest::MakeClient(const S3ClientOptions& options) const {
  Result<std::unique_ptr<S3Client>> client = S3Client::Create(options);
  EXPECT_TRUE(client.ok()) << client.status().message();
  return client.ok() ? std::move(*client) : nullptr;
}

int RgwTest::EmptyFile() {
  int fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  EXPECT_GE(fd, 0) << "O_TMPFILE in /tmp";
  return fd;
}

int RgwTest::RandomFile(uint64_t size, uint32_t seed) {
  int fd = EmptyFile();
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> chunk(1 << 17);  // 1 MiB
  for (uint64_t done = 0; done < size;) {
    for (uint64_t& w : chunk) w = rng();
    size_t n = static_cast<size_t>(std::min<uint64_t>(size - done, chunk.size() * 8));
    EXPECT_EQ(pwrite(fd, chunk.data(), n, static_cast<off_t>(done)), static_cast<ssize_t>(n));
    done += n;
  }
  return fd;
}

std::string RgwTest::CompareFiles(int a, uint64_t a_offset, int b, uint64_t b_offset,
                                  uint64_t size) {
  std::vector<char> x(1 << 20), y(1 << 20);
  for (uint64_t done = 0; done < size;) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(size - done, x.size()));
    ssize_t ra = pread(a, x.data(), n, static_cast<off_t>(a_offset + done));
    ssize_t rb = pread(b, y.data(), n, static_cast<off_t>(b_offset + done));
    if (ra != static_cast<ssize_t>(n) || rb != static_cast<ssize_t>(n)) {
      return "short read at " + std::to_string(done);
    }
    if (std::memcmp(x.data(), y.data(), n) != 0) {
      size_t i = 0;
      while (x[i] == y[i]) ++i;
      return "first difference at byte " + std::to_string(done + i);
    }
    done += n;
  }
  return "";
}

void ProxiedRgwTest::SetUp() {
  RgwTest::SetUp();
  if (HasFatalFailure()) return;
  proxy_ = FlakyProxy::InFrontOf(cluster_->endpoint());
}

void ProxiedRgwTest::TearDown() {
  proxy_.reset();
  RgwTest::TearDown();
}

std::unique_ptr<S3Client> ProxiedRgwTest::ProxiedClient(S3ClientOptions options) {
  options.endpoint = proxy_->endpoint();
  return MakeClient(options);
}

}  // namespace tierfs::testing
