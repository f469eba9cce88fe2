// S3ClientStats through a real gateway: each call counted once under its
// operation however many attempts it took, its errors by kind, the body bytes
// that crossed the network, and a latency histogram whose buckets add up. What
// the object volume's metrics (fs/metrics/store_metrics.cc) are made of.
#include <unistd.h>

#include <cstdlib>
#include <numeric>

#include "tests/objstore/rgw/flaky_proxy.h"
#include "tests/objstore/rgw/rgw_fixture.h"

namespace tierfs::testing {
namespace {

using StatsTest = RgwTest;

uint64_t Errors(const S3ClientStats::Calls& c, S3ErrorKind kind) {
  return c.errors[static_cast<size_t>(kind)];
}
uint64_t AllErrors(const S3ClientStats::Calls& c) {
  return std::accumulate(c.errors.begin(), c.errors.end(), uint64_t{0});
}
uint64_t BucketTotal(const S3ClientStats::Calls& c) {
  return std::accumulate(c.buckets.begin(), c.buckets.end(), uint64_t{0});
}

TEST_F(StatsTest, CallsBytesErrorsAndLatencyAreCountedPerOperation) {
  std::unique_ptr<S3Client> client = MakeClient(Options());
  constexpr uint64_t kSize = 3 << 20;
  int fd = RandomFile(kSize, 7);
  ASSERT_S3_OK(client->PutObject(bucket_, "k", fd, 0, kSize, {}));
  int back = EmptyFile();
  ASSERT_S3_OK(client->GetObjectToFd(bucket_, "k", 0, S3Client::kToEnd, back, 0));
  EXPECT_EQ(client->HeadObject(bucket_, "missing").status().code(), ENOENT);
  EXPECT_EQ(client->HeadObject(bucket_, "missing-too").status().code(), ENOENT);
  ASSERT_S3_OK(client->HeadObject(bucket_, "k"));

  const S3ClientStats& s = client->stats();
  const S3ClientStats::Calls put = s.CallsOf(S3Op::kPutObject);
  EXPECT_EQ(put.count, 1u);
  EXPECT_EQ(put.attempts, 1u);
  EXPECT_EQ(AllErrors(put), 0u);
  EXPECT_GT(put.seconds_sum, 0);
  // Every call falls in a bucket: none took a minute on the same machine.
  EXPECT_EQ(BucketTotal(put), 1u);
  EXPECT_EQ(s.CallsOf(S3Op::kGetObject).count, 1u);
  const S3ClientStats::Calls head = s.CallsOf(S3Op::kHeadObject);
  EXPECT_EQ(head.count, 3u);
  EXPECT_EQ(Errors(head, S3ErrorKind::kNotFound), 2u);
  EXPECT_EQ(AllErrors(head), 2u);
  EXPECT_EQ(BucketTotal(head), 3u);
  EXPECT_EQ(s.CallsOf(S3Op::kDeleteObject).count, 0u);
  // The body both ways, plus the few bytes of the 404s' bodies (HEAD has none).
  EXPECT_EQ(s.SentBytes(), kSize);
  EXPECT_GE(s.ReceivedBytes(), kSize);
  EXPECT_LT(s.ReceivedBytes(), kSize + 4096);
  close(fd);
  close(back);
}

TEST_F(StatsTest, RetriesAreAttemptsOfOneCallAndTheirBytesCountEachTime) {
  std::unique_ptr<FlakyProxy> proxied = FlakyProxy::InFrontOf(cluster_->endpoint());
  FlakyProxy& proxy = *proxied;
  S3ClientOptions o = Options();
  o.endpoint = proxy.endpoint();
  std::unique_ptr<S3Client> client = MakeClient(o);
  constexpr uint64_t kSize = 1 << 20;
  int fd = RandomFile(kSize, 8);
  proxy.FailNext(2, FlakyProxy::Fault::kSlowDown503);
  ASSERT_S3_OK(client->PutObject(bucket_, "k", fd, 0, kSize, {}));
  const S3ClientStats::Calls put = client->stats().CallsOf(S3Op::kPutObject);
  EXPECT_EQ(put.count, 1u);
  EXPECT_EQ(put.attempts, 3u);
  EXPECT_EQ(AllErrors(put), 0u);  // it succeeded in the end
  // The proxy answers 503 once it has read the request; the body may have gone
  // out in part or whole before: at least the last attempt's, at most three.
  EXPECT_GE(client->stats().SentBytes(), kSize);
  EXPECT_LE(client->stats().SentBytes(), 3 * kSize);

  // The proxy fails new connections: a new client has none yet.
  std::unique_ptr<S3Client> other = MakeClient(o);
  proxy.FailNext(100, FlakyProxy::Fault::kSlowDown503);
  EXPECT_EQ(other->HeadObject(bucket_, "k").status().code(), EAGAIN);
  const S3ClientStats::Calls head = other->stats().CallsOf(S3Op::kHeadObject);
  EXPECT_EQ(head.count, 1u);
  // SlowDown is retried for the retry budget, however many attempts that is:
  // one per connection the proxy failed.
  EXPECT_EQ(head.attempts, static_cast<uint64_t>(proxy.failed() - 2));
  EXPECT_GT(head.attempts, 1u);
  EXPECT_EQ(Errors(head, S3ErrorKind::kSlowDown), 1u);
  close(fd);
}

TEST_F(StatsTest, AStoppedGatewayIsCountedAsUnreachable) {
  S3ClientOptions o = Options();
  o.max_attempts = 2;
  o.backoff_initial_seconds = 0.01;
  std::unique_ptr<S3Client> client = MakeClient(o);
  ASSERT_S3_OK(client->HeadBucket(bucket_));
  ASSERT_TRUE(cluster_->StopGateway().ok());
  Status down = client->HeadBucket(bucket_);
  Status back = cluster_->StartGateway();
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(down.code(), ECONNREFUSED) << down.message();
  const S3ClientStats::Calls calls = client->stats().CallsOf(S3Op::kHeadBucket);
  EXPECT_EQ(calls.count, 2u);
  EXPECT_EQ(calls.attempts, 3u);
  EXPECT_EQ(Errors(calls, S3ErrorKind::kUnreachable), 1u);
}

}  // namespace
}  // namespace tierfs
