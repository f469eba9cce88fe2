// Retries: 503 SlowDown, 500 InternalError and a connection cut before the
// reply are retried with backoff until they pass, or end as an errno when the
// retry budget is spent; bodies are sent again whole. A Retry-After is
// honoured; a RequestTimeTooSkewed is retried at once at the store's time; keys
// refused are not retried. The failures come from a proxy in front of the real
// gateway (flaky_proxy.h); every other answer is the store's.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

#include "fs/objstore/s3_errors.h"

#include "tests/objstore/rgw/flaky_proxy.h"
#include "tests/objstore/rgw/rgw_fixture.h"

namespace tierfs::testing {
namespace {

using RetriesTest = ProxiedRgwTest;

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

TEST_F(RetriesTest, SlowDownThroughTheWholeBudgetIsEagain) {
  S3ClientOptions options = Options();
  options.retry_budget_seconds = 1;
  std::unique_ptr<S3Client> client = ProxiedClient(options);
  proxy_->FailNext(1000, FlakyProxy::Fault::kSlowDown503);
  const auto start = std::chrono::steady_clock::now();
  Result<S3ObjectInfo> head = client->HeadObject(bucket_, "k");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(head.status().code(), EAGAIN) << head.status().message();
  EXPECT_EQ(ClassifyS3Errno(head.status().code()), S3Failure::kBusy);
  EXPECT_NE(head.status().message().find("503"), std::string::npos) << head.status().message();
  // More attempts than max_attempts: the budget bounds them, not the count.
  EXPECT_GT(proxy_->failed(), options.max_attempts) << head.status().message();
  EXPECT_LT(seconds, 1.5);
  char buf[8];
  Result<size_t> get = client->GetObject(bucket_, "k", 0, 8, buf);
  EXPECT_EQ(get.status().code(), EAGAIN) << get.status().message();
  EXPECT_NE(get.status().message().find("SlowDown"), std::string::npos) << get.status().message();
}

TEST_F(RetriesTest, ABurstOfSlowDownForTwoSecondsIsWaitedOut) {
  int fd = RandomFile(1 << 20, 7);
  S3ClientOptions options = Options();
  options.retry_budget_seconds = 10;  // as a transfer client's: its call's bound
  std::unique_ptr<S3Client> client = ProxiedClient(options);
  proxy_->FailFor(2.0, FlakyProxy::Fault::kSlowDown503);
  const auto start = std::chrono::steady_clock::now();
  Result<std::string> put = client->PutObject(bucket_, "k", fd, 0, 1 << 20, {});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_S3_OK(put);
  EXPECT_GE(seconds, 1.9);
  EXPECT_GT(proxy_->failed(), options.max_attempts);
  int back = EmptyFile();
  ASSERT_S3_OK(client_->GetObjectToFd(bucket_, "k", 0, S3Client::kToEnd, back, 0));
  EXPECT_EQ(CompareFiles(fd, 0, back, 0, 1 << 20), "");
  close(fd);
  close(back);
}

TEST_F(RetriesTest, RetryAfterIsHonoured) {
  int fd = RandomFile(100, 8);
  ASSERT_S3_OK(client_->PutObject(bucket_, "k", fd, 0, 100, {}));
  std::unique_ptr<S3Client> client = ProxiedClient();
  proxy_->set_retry_after(1);
  proxy_->FailNext(1, FlakyProxy::Fault::kSlowDown503);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_S3_OK(client->HeadObject(bucket_, "k"));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(seconds, 1.0);  // not the 0.05 s of the first backoff
  EXPECT_EQ(proxy_->failed(), 1);
  close(fd);
}

TEST_F(RetriesTest, AClockSkewIsCorrectedFromTheStoresDateAndRetriedAtOnce) {
  int fd = RandomFile(1000, 9);
  std::unique_ptr<S3Client> client = ProxiedClient();
  // Within RGW's 15 minutes: the gateway takes requests signed at that time.
  proxy_->set_skew_seconds(300);
  proxy_->FailNext(1, FlakyProxy::Fault::kSkewed403);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_S3_OK(client->PutObject(bucket_, "k", fd, 0, 1000, {}));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(proxy_->failed(), 1);
  EXPECT_NEAR(static_cast<double>(client->clock_offset_seconds()), 300, 2);
  EXPECT_LT(seconds, 1.0);  // no backoff
  // Later calls are signed at the corrected time too, and the store takes them.
  ASSERT_S3_OK(client->HeadObject(bucket_, "k"));
  EXPECT_EQ(proxy_->failed(), 1);

  // A HEAD's 403 has no code: its Date, 300 s from now, tells the skew.
  client = ProxiedClient();
  proxy_->FailNext(1, FlakyProxy::Fault::kSkewed403);
  ASSERT_S3_OK(client->HeadObject(bucket_, "k"));
  EXPECT_EQ(proxy_->failed(), 2);
  EXPECT_NEAR(static_cast<double>(client->clock_offset_seconds()), 300, 2);

  // A skew the correction does not fix (the store says the same again): EACCES.
  client = ProxiedClient();
  proxy_->FailNext(2, FlakyProxy::Fault::kSkewed403);
  char buf[10];
  Result<size_t> get = client->GetObject(bucket_, "k", 0, sizeof buf, buf);
  EXPECT_EQ(get.status().code(), EACCES) << get.status().message();
  EXPECT_NE(get.status().message().find("RequestTimeTooSkewed"), std::string::npos)
      << get.status().message();
  EXPECT_EQ(proxy_->failed(), 4);
  close(fd);
}

TEST_F(RetriesTest, AMachineWhoseClockIsAnHourOffIsCorrectedByTheRealStore) {
  S3ClientOptions options = Options();
  options.clock_offset_seconds = -3600;  // this machine's clock, as the store sees it
  std::unique_ptr<S3Client> client = MakeClient(options);
  ASSERT_S3_OK(client->HeadBucket(bucket_));  // a 403 without a body, but a Date
  EXPECT_NEAR(static_cast<double>(client->clock_offset_seconds()), 0, 2);
  // And a request with a body: RGW's RequestTimeTooSkewed.
  client = MakeClient(options);
  int fd = RandomFile(100, 10);
  ASSERT_S3_OK(client->PutObject(bucket_, "k", fd, 0, 100, {}));
  EXPECT_NEAR(static_cast<double>(client->clock_offset_seconds()), 0, 2);
  close(fd);
}

TEST_F(RetriesTest, KeysRefusedAreNotRetried) {
  std::unique_ptr<S3Client> client = ProxiedClient();
  proxy_->FailNext(1, FlakyProxy::Fault::kKeysRefused403);
  Status st = client->HeadBucket(bucket_);
  EXPECT_EQ(st.code(), EACCES) << st.message();
  EXPECT_EQ(ClassifyS3Errno(st.code()), S3Failure::kRefused);
  EXPECT_EQ(proxy_->accepted(), 1);
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

  // Through the whole retry budget (3 s): EIO, a failure of a store that
  // answers, not one that is gone.
  client = ProxiedClient();
  proxy_->FailNext(1000, FlakyProxy::Fault::kInternalError500);
  Result<S3ObjectInfo> head = client->HeadObject(bucket_, "k");
  EXPECT_EQ(head.status().code(), EIO) << head.status().message();
  EXPECT_EQ(ClassifyS3Errno(head.status().code()), S3Failure::kFailed);
  client = ProxiedClient();
  proxy_->FailNext(1000, FlakyProxy::Fault::kCloseBeforeReply);
  head = client->HeadObject(bucket_, "k");
  EXPECT_EQ(head.status().code(), EIO) << head.status().message();
  proxy_->FailNext(0, FlakyProxy::Fault::kCloseBeforeReply);
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
