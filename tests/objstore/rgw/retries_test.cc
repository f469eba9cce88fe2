// Retries: 503 SlowDown, 500 InternalError and a connection cut before the
// reply are retried with backoff until they pass, or end as an errno after the
// last attempt; bodies are sent again whole. The failures come from a proxy in
// front of the real gateway (flaky_proxy.h); every other answer is the store's.
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "tests/objstore/rgw/flaky_proxy.h"
#include "tests/objstore/rgw/rgw_fixture.h"

namespace tierfs::testing {
namespace {

class RetriesTest : public RgwTest {
 protected:
  void SetUp() override {
    RgwTest::SetUp();
    if (HasFatalFailure()) return;
    const std::string& e = cluster_->endpoint();
    proxy_ = std::make_unique<FlakyProxy>(std::atoi(e.c_str() + e.rfind(':') + 1));
  }
  void TearDown() override {
    proxy_.reset();
    RgwTest::TearDown();
  }
  // A new client (no connection yet) through the proxy.
  std::unique_ptr<S3Client> ProxiedClient() {
    S3ClientOptions options = Options();
    options.endpoint = proxy_->endpoint();
    return MakeClient(options);
  }
  std::unique_ptr<FlakyProxy> proxy_;
};

TEST_F(RetriesTest, SlowDownIsRetriedUntilItPasses) {
  int fd = RandomFile(3 << 20, 1);
  std::unique_ptr<S3Client> client = ProxiedClient();
  proxy_->FailNext(2, FlakyProxy::Fault::kSlowDown503);
  // An upload: its body is read from the fd again for each attempt.
  Result<std::string> put = client->PutObject(bucket_, "k", fd, 0, 3 << 20, {{"xxh3", "1"}});
  ASSERT_S3_OK(put);
  EXPECT_EQ(proxy_->failed(), 2);
  EXPECT_EQ(proxy_->accepted(), 3);
  int back = EmptyFile();
  proxy_->FailNext(2, FlakyProxy::Fault::kSlowDown503);
  std::unique_ptr<S3Client> reader = ProxiedClient();
  Result<uint64_t> got = reader->GetObjectToFd(bucket_, "k", 0, S3Client::kToEnd, back, 0);
  ASSERT_S3_OK(got);
  EXPECT_EQ(*got, 3u << 20);
  EXPECT_EQ(CompareFiles(fd, 0, back, 0, 3 << 20), "");
  EXPECT_EQ(proxy_->failed(), 4);
  close(fd);
  close(back);
}

TEST_F(RetriesTest, SlowDownOnEveryAttemptIsEagainAfterTheLast) {
  std::unique_ptr<S3Client> client = ProxiedClient();
  proxy_->FailNext(100, FlakyProxy::Fault::kSlowDown503);
  Result<S3ObjectInfo> head = client->HeadObject(bucket_, "k");
  EXPECT_EQ(head.status().code(), EAGAIN) << head.status().message();
  EXPECT_NE(head.status().message().find("503"), std::string::npos) << head.status().message();
  EXPECT_NE(head.status().message().find("4 attempts"), std::string::npos)
      << head.status().message();
  EXPECT_EQ(proxy_->failed(), Options().max_attempts);
  char buf[8];
  Result<size_t> get = client->GetObject(bucket_, "k", 0, 8, buf);
  EXPECT_EQ(get.status().code(), EAGAIN) << get.status().message();
  EXPECT_NE(get.status().message().find("SlowDown"), std::string::npos) << get.status().message();
}

TEST_F(RetriesTest, InternalErrorsAndCutConnectionsAreRetried) {
  int fd = RandomFile(1000, 2);
  ASSERT_S3_OK(client_->PutObject(bucket_, "k", fd, 0, 1000, {}));
  std::unique_ptr<S3Client> client = ProxiedClient();
  proxy_->FailNext(3, FlakyProxy::Fault::kInternalError500);
  EXPECT_S3_OK(client->HeadObject(bucket_, "k"));
  EXPECT_EQ(proxy_->failed(), 3);

  client = ProxiedClient();
  proxy_->FailNext(2, FlakyProxy::Fault::kCloseBeforeReply);
  char buf[1000], want[1000];
  Result<size_t> got = client->GetObject(bucket_, "k", 0, sizeof buf, buf);
  ASSERT_S3_OK(got);
  ASSERT_EQ(*got, 1000u);
  pread(fd, want, sizeof want, 0);
  EXPECT_EQ(std::memcmp(buf, want, sizeof buf), 0);
  EXPECT_EQ(proxy_->failed(), 5);

  client = ProxiedClient();
  proxy_->FailNext(100, FlakyProxy::Fault::kInternalError500);
  Result<S3ObjectInfo> head = client->HeadObject(bucket_, "k");
  EXPECT_EQ(head.status().code(), EIO) << head.status().message();
  client = ProxiedClient();
  proxy_->FailNext(100, FlakyProxy::Fault::kCloseBeforeReply);
  head = client->HeadObject(bucket_, "k");
  EXPECT_EQ(head.status().code(), EIO) << head.status().message();
  close(fd);
}

TEST_F(RetriesTest, ErrorsThatWillNotPassAreNotRetried) {
  std::unique_ptr<S3Client> client = ProxiedClient();
  Result<S3ObjectInfo> head = client->HeadObject(bucket_, "missing");
  EXPECT_EQ(head.status().code(), ENOENT);
  EXPECT_EQ(proxy_->accepted(), 1);
  EXPECT_NE(head.status().message().find("(1 attempt in"), std::string::npos)
      << head.status().message();
}

}  // namespace
}  // namespace tierfs::testing
