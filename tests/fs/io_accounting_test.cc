// IoAccounting: counts per (inode, bucket), and Restart changing the length.
#include "fs/core/io_accounting.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "common/clock.h"

namespace tierfs {
namespace {

constexpr int64_t kNowS = 1'700'000'130;  // inside a 60 s and a 3600 s bucket, at neither start

TEST(IoAccounting, CountsFallInTheBucketOfNow) {
  FakeClock clock(kNowS * kNanosPerSecond);
  IoAccounting io(clock, 3600);
  io.RecordRead(7, 100);
  io.RecordWrite(7, 10);
  std::vector<meta::IoDelta> d = io.Drain();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].bucket_start_s, kNowS - kNowS % 3600);
  EXPECT_EQ(d[0].rbytes, 100u);
  EXPECT_EQ(d[0].wbytes, 10u);
  EXPECT_TRUE(io.Drain().empty());
}

TEST(IoAccounting, RestartDropsCountsAndUsesTheNewLength) {
  FakeClock clock(kNowS * kNanosPerSecond);
  IoAccounting io(clock, 3600);
  io.RecordRead(7, 100);
  io.Restart(60);
  EXPECT_EQ(io.bucket_seconds(), 60);
  EXPECT_TRUE(io.Drain().empty());
  io.RecordRead(7, 5);
  std::vector<meta::IoDelta> d = io.Drain();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].bucket_start_s, kNowS - kNowS % 60);
  EXPECT_EQ(d[0].rbytes, 5u);
  io.Restart(0);  // ignored
  EXPECT_EQ(io.bucket_seconds(), 60);
}

// Counting threads racing Restart: every drained bucket is aligned to the length
// in force after the last Restart (run under TSan to check the locking too).
TEST(IoAccounting, RestartIsAtomicAgainstRecord) {
  FakeClock clock(kNowS * kNanosPerSecond);
  IoAccounting io(clock, 3600);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&io, t] {
      for (int i = 0; i < 20000; ++i) io.RecordRead(static_cast<uint64_t>(t * 100 + i % 50), 1);
    });
  }
  for (int i = 0; i < 50; ++i) io.Restart(i % 2 == 0 ? 7 : 3600);
  io.Restart(7);
  for (std::thread& th : threads) th.join();
  for (const meta::IoDelta& d : io.Drain()) EXPECT_EQ(d.bucket_start_s % 7, 0);
}

}  // namespace
}  // namespace tierfs
