// OnlineHeat (the online promoter's in-memory history) and OnlineBudget (its
// rate limit).
#include <gtest/gtest.h>

#include <algorithm>

#include "fs/tiering/online_budget.h"
#include "fs/tiering/online_heat.h"

namespace tierfs {
namespace {

meta::IoDelta Read(uint64_t ino, int64_t bucket, uint64_t bytes) {
  return meta::IoDelta{ino, bucket, bytes, 0, 1, 0};
}

TEST(OnlineHeat, FlushedAndPendingCountsAddUpInTheWindow) {
  OnlineHeat heat;
  heat.Reset(/*bucket_seconds=*/1, /*span_s=*/60);
  heat.AddDrained({Read(7, 100, 1000)});
  std::vector<uint64_t> changed = heat.SetPending({Read(7, 101, 500), Read(8, 101, 10)});
  EXPECT_EQ(changed.size(), 2u);
  // A window of 10 s ending at 102 holds both buckets of inode 7.
  const std::vector<double> window = {10.0 / 3600};
  auto w = heat.Windows(7, window, 102);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_DOUBLE_EQ(w[0].rbytes, 1500);
  EXPECT_DOUBLE_EQ(w[0].rops, 2);
  // The same peek again: nothing changed.
  EXPECT_TRUE(heat.SetPending({Read(7, 101, 500), Read(8, 101, 10)}).empty());
  // A drain of the pending counts moves them, without counting them twice.
  const uint64_t generation = heat.generation();
  heat.AddDrained({Read(7, 101, 500), Read(8, 101, 10)});
  EXPECT_NE(heat.generation(), generation);
  EXPECT_DOUBLE_EQ(heat.Windows(7, window, 102)[0].rbytes, 1500);
  // Outside the window: nothing.
  EXPECT_DOUBLE_EQ(heat.Windows(7, window, 200)[0].rbytes, 0);
}

// Counts that reach IoAccounting and are flushed between two peeks (the
// kernel's passthrough counts arrive in batches, and a scan flushes at once)
// still make their files changed at the next peek, once; counts a peek saw
// before their drain do not again.
TEST(OnlineHeat, CountsDrainedBeforeAnyPeekSawThemAreChangedAtTheNextPeek) {
  OnlineHeat heat;
  heat.Reset(1, 60);
  EXPECT_TRUE(heat.SetPending({}).empty());
  heat.AddDrained({Read(5, 100, 4096), Read(6, 100, 10)});
  std::vector<uint64_t> changed = heat.SetPending({Read(6, 101, 10)});
  std::sort(changed.begin(), changed.end());
  EXPECT_EQ(changed, (std::vector<uint64_t>{5, 6}));
  EXPECT_DOUBLE_EQ(heat.Windows(5, {10.0 / 3600}, 102)[0].rbytes, 4096);
  // Inode 6's pending counts were seen: their drain changes nothing more.
  heat.AddDrained({Read(6, 101, 10)});
  EXPECT_TRUE(heat.SetPending({}).empty());
  // A drain that holds more than the peek saw: changed again.
  EXPECT_EQ(heat.SetPending({Read(6, 102, 10)}), (std::vector<uint64_t>{6}));
  heat.AddDrained({Read(6, 102, 30)});
  EXPECT_EQ(heat.SetPending({}), (std::vector<uint64_t>{6}));
  EXPECT_TRUE(heat.SetPending({}).empty());
  // A new policy judges every file with counts once.
  heat.MarkAllChanged();
  changed = heat.SetPending({});
  std::sort(changed.begin(), changed.end());
  EXPECT_EQ(changed, (std::vector<uint64_t>{5, 6}));
  EXPECT_TRUE(heat.SetPending({}).empty());
}

TEST(OnlineHeat, TotalsCountActiveFilesAndPruneForgetsOldBuckets) {
  OnlineHeat heat;
  heat.Reset(1, 10);
  heat.AddDrained({Read(1, 100, 4096), Read(2, 50, 4096)});
  policy::ActivityTotals t = heat.Totals(5.0 / 3600, 101, [](uint64_t) {
    return std::optional<uint64_t>(8192);
  });
  EXPECT_EQ(t.active_files, 1u);  // inode 2's bucket is outside the 5 s
  EXPECT_DOUBLE_EQ(t.io.rbytes, 4096);
  EXPECT_DOUBLE_EQ(t.size_sum, 8192);
  heat.Prune(101);
  EXPECT_EQ(heat.files(), 1u);  // inode 2 is beyond the span
}

TEST(OnlineBudget, BytesBeyondTheBurstWaitForTheRate) {
  OnlineBudget budget(1000);  // bytes per second; a full bucket of 1000
  EXPECT_DOUBLE_EQ(budget.Reserve(600, 10.0), 0);
  // 400 left: 1000 more bytes wait (1000 - 400) / 1000 s.
  EXPECT_NEAR(budget.Reserve(1000, 10.0), 0.6, 1e-9);
  // The debt is paid by 10.6; a second later the bucket is full again.
  EXPECT_NEAR(budget.Reserve(1000, 11.6), 0, 1e-9);
  // A move larger than the burst is allowed, and delays what follows.
  EXPECT_NEAR(budget.Reserve(3000, 11.6), 3.0, 1e-9);
  EXPECT_NEAR(budget.Reserve(100, 11.6), 3.1, 1e-9);
}

}  // namespace
}  // namespace tierfs
