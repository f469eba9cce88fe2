// Online promotion in the placement simulation (bench/placement_online_sim.h):
// with the shipped docs/examples/shifting_hot_set.xml run online, the first
// period of each new hot set must be served far better than by the periodic
// enforce alone (at least half the oracle's share), seen periods no worse, the
// class never past its PERCENT, and a stable hot set not churned by the online
// path. Behaviour only, no timing.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "bench/placement_sim.h"
#include "policy/loader.h"
#include "tests/policy/test_util.h"

namespace tierfs::policy {
namespace {

PlacementPolicy ShippedExample(bool online) {
  std::ifstream in(std::string(TIERFS_SOURCE_DIR) + "/docs/examples/shifting_hot_set.xml");
  std::stringstream text;
  text << in.rdbuf();
  std::string xml = text.str();
  if (online) xml = testing::ReplaceAll(xml, "<RELOCATE>", "<RELOCATE Online=\"yes\">");
  LoadResult r = LoadPolicy(xml);
  EXPECT_TRUE(r.ok() && r.warnings.empty()) << testing::Dump(r);
  return r.policy ? *r.policy : PlacementPolicy{};
}

bench::WorkloadOptions Workload(bool online) {
  bench::WorkloadOptions w;  // 2,000 files of 4 KiB-1 MiB, ssd 10% of the bytes
  w.zipf_s = 1.1;
  w.shift_every = 2;
  w.periods = 12;
  w.online = online;
  return w;
}

// Read-byte-weighted shares of the first periods of new hot sets (not period 0).
struct NewHotSets {
  double served = 0, oracle = 0;
};
NewHotSets FirstPeriods(const bench::RunResult& r) {
  double served = 0, oracle = 0, total = 0;
  for (size_t p = 1; p < r.periods.size(); ++p) {
    const bench::PeriodResult& x = r.periods[p];
    if (x.hot_set_seen) continue;
    served += x.served * x.read_bytes;
    oracle += x.oracle * x.read_bytes;
    total += x.read_bytes;
  }
  return {total > 0 ? served / total : 0, total > 0 ? oracle / total : 0};
}

TEST(PlacementOnlineSimulation, ANewHotSetIsServedFromTheFastClassInItsFirstPeriod) {
  const bench::RunResult periodic =
      bench::RunShiftingHotSet(ShippedExample(false), Workload(false), PlanOptions{});
  const bench::RunResult online =
      bench::RunShiftingHotSet(ShippedExample(true), Workload(true), PlanOptions{});
  const NewHotSets p = FirstPeriods(periodic), o = FirstPeriods(online);
  EXPECT_LT(p.served, 0.25 * p.oracle);  // what online promotion is for
  EXPECT_GE(o.served, 0.5 * o.oracle);
  EXPECT_GE(online.served, 0.95 * online.prev_oracle);
  EXPECT_GT(online.served, periodic.served + 0.1);
  EXPECT_GE(online.served_seen, periodic.served_seen - 0.02);
  uint64_t promotions = 0;
  const double limit = 0.95 * static_cast<double>(online.ssd_capacity);
  for (size_t i = 0; i < online.periods.size(); ++i) {
    promotions += online.periods[i].online_promotions;
    EXPECT_LE(static_cast<double>(online.periods[i].ssd_used), limit) << "period " << i;
  }
  EXPECT_GT(promotions, 0u);
}

TEST(PlacementOnlineSimulation, AStableHotSetIsNotChurnedOnline) {
  bench::WorkloadOptions w = Workload(true);
  w.shift_every = 1000;  // one hot set for the whole run
  const bench::RunResult r = bench::RunShiftingHotSet(ShippedExample(true), w, PlanOptions{});
  // Once the first periods have placed it, the online path moves little:
  // hysteresis and holds keep files of like heat where they are.
  for (size_t p = 3; p < r.periods.size(); ++p) {
    EXPECT_LE(static_cast<double>(r.periods[p].online_moved),
              0.15 * static_cast<double>(r.ssd_capacity))
        << "period " << p;
  }
}

}  // namespace
}  // namespace tierfs::policy
