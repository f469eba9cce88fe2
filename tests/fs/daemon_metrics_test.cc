// DaemonMetrics: counts from many threads at once add up exactly, whichever
// stripe each thread's requests, reads and writes land in.
#include "fs/core/daemon_metrics.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace tierfs {
namespace {

TEST(DaemonMetricsTest, CountsFromManyThreadsAddUpExactly) {
  DaemonMetrics metrics;
  constexpr int kThreads = 40;  // more than the stripes: some share one
  constexpr int kEach = 2000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&metrics, t] {
      for (int i = 0; i < kEach; ++i) {
        metrics.RecordRequest(FuseOp::kGetattr, 0.00002);
        metrics.RecordRead(2, 4096);
        metrics.RecordWrite(3, 100, /*direct=*/t % 2 == 0);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const DaemonMetrics::Requests r = metrics.RequestsOf(FuseOp::kGetattr);
  EXPECT_EQ(r.count, uint64_t{kThreads} * kEach);
  EXPECT_EQ(r.timed, uint64_t{kThreads} * kEach);
  EXPECT_EQ(r.buckets[1], uint64_t{kThreads} * kEach);  // 20 µs: the 50 µs bucket
  EXPECT_NEAR(r.seconds_sum, kThreads * kEach * 0.00002, 1e-6);
  EXPECT_EQ(metrics.RequestsOf(FuseOp::kLookup).count, 0u);
  EXPECT_EQ(metrics.ReadBytes(2), uint64_t{kThreads} * kEach * 4096);
  EXPECT_EQ(metrics.WrittenBytes(3), uint64_t{kThreads} * kEach * 100);
  EXPECT_EQ(metrics.DirectWrittenBytes(3), uint64_t{kThreads / 2} * kEach * 100);
  EXPECT_EQ(metrics.ReadBytes(3), 0u);
}

}  // namespace
}  // namespace tierfs
