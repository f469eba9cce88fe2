// The workload options of the placement simulation (bench/placement_sim.h)
// beyond whole-file Zipf reads: the 80-20 and 95-5 skews, writes, partial
// extents, the access trace and the FILE_HEAT model. Behaviour of the
// model only; the placement targets are placement_sim_test.cc's.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>

#include "bench/placement_sim.h"
#include "policy/loader.h"
#include "tests/policy/test_util.h"

namespace tierfs::policy {
namespace {

// A one-rule promotion policy like docs/examples/shifting_hot_set.xml.
PlacementPolicy Promote() {
  LoadResult r = LoadPolicy(R"(<?xml version="1.0"?>
<PLACEMENT_POLICY Version="5.1" Name="p" SwapHysteresis="2">
  <RULE Flags="data" Name="all">
    <SELECT><PATTERN> * </PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS> hdd </CLASS></DESTINATION></ON></CREATE>
    <RELOCATE>
      <FROM><SOURCE><CLASS> hdd </CLASS></SOURCE></FROM>
      <TO><DESTINATION><CLASS> ssd </CLASS><PERCENT> 95 </PERCENT></DESTINATION></TO>
      <WHEN><IOTEMP Type="nrbytes" Prefer="high" Average="*">
        <MIN Flags="gteq"> 1 </MIN><PERIOD Units="hours"> 6 </PERIOD>
      </IOTEMP></WHEN>
    </RELOCATE>
  </RULE>
</PLACEMENT_POLICY>)");
  EXPECT_TRUE(r.ok()) << testing::Dump(r);
  return r.policy ? *r.policy : PlacementPolicy{};
}

bench::WorkloadOptions Small() {
  bench::WorkloadOptions w;
  w.files = 300;
  w.reads_per_period = 3000;
  w.periods = 6;
  return w;
}

TEST(PlacementSimulationMix, SkewedDistributionsSendTheirShareToTheHotRanks) {
  std::vector<double> cdf(1000);
  for (size_t k = 0; k < cdf.size(); ++k) cdf[k] = static_cast<double>(k + 1);
  for (const auto& [name, hot_files, hot_access] :
       {std::tuple{"80-20", 200u, 0.80}, std::tuple{"95-5", 50u, 0.95}}) {
    std::mt19937_64 rng(7);
    int hot = 0;
    const int draws = 100000;
    for (int i = 0; i < draws; ++i) {
      const size_t k = bench::DrawRank(name, cdf, rng);
      ASSERT_LT(k, cdf.size());
      if (k < hot_files) ++hot;
    }
    EXPECT_NEAR(static_cast<double>(hot) / draws, hot_access, 0.01) << name;
  }
}

TEST(PlacementSimulationMix, WritesAndExtentsAreCountedApart) {
  bench::WorkloadOptions w = Small();
  w.write_fraction = 0.3;
  w.partial = true;
  int accesses = 0, writes = 0;
  std::vector<uint64_t> sizes;
  bool inside = true;
  w.on_access = [&](int, size_t file, uint64_t offset, uint64_t length, bool write) {
    ++accesses;
    writes += write ? 1 : 0;
    if (!sizes.empty() && (length == 0 || offset + length > sizes[file])) inside = false;
  };
  bench::WorkloadOptions shape = w;
  shape.periods = 0;
  shape.on_access = nullptr;
  sizes = bench::RunShiftingHotSet(Promote(), shape, PlanOptions{}).sizes;
  ASSERT_EQ(sizes.size(), 300u);

  const bench::RunResult r = bench::RunShiftingHotSet(Promote(), w, PlanOptions{});
  EXPECT_EQ(accesses, w.reads_per_period * w.periods);
  EXPECT_NEAR(static_cast<double>(writes) / accesses, 0.3, 0.02);
  EXPECT_TRUE(inside) << "an extent ran past its file's end";
  double read = 0, written = 0;
  for (const bench::PeriodResult& p : r.periods) {
    read += p.read_bytes;
    written += p.write_bytes;
    EXPECT_GE(p.served_rw.all, std::min(p.served_rw.read, p.served_rw.write) - 1e-9);
    EXPECT_LE(p.served_rw.all, std::max(p.served_rw.read, p.served_rw.write) + 1e-9);
    EXPECT_LE(p.served_rw.all, p.oracle_rw.all + 1e-9);  // nothing beats the oracle
  }
  EXPECT_GT(written, 0);
  EXPECT_GT(read, written);
  EXPECT_GT(r.served_rw_seen.write, 0.3);  // writes follow the same hot set
}

TEST(PlacementSimulationMix, ReadsOnlyHaveNoWriteShare) {
  const bench::RunResult r = bench::RunShiftingHotSet(Promote(), Small(), PlanOptions{});
  EXPECT_EQ(r.served_rw.write, 0);
  EXPECT_DOUBLE_EQ(r.served_rw.all, r.served_rw.read);
  EXPECT_DOUBLE_EQ(r.served, r.served_rw.read);
}

TEST(PlacementSimulationMix, FileHeatWithATinyHalfLifeIsTheLastPeriod) {
  bench::WorkloadOptions w = Small();
  w.heat_half_life = 0.01;  // 2^-100: nothing but the last period remains
  const bench::RunResult r = bench::RunShiftingHotSet(Promote(), w, PlanOptions{});
  for (size_t p = 0; p < r.periods.size(); ++p) {
    EXPECT_EQ(r.periods[p].heat_moved, r.periods[p].window_moved) << "period " << p;
    EXPECT_NEAR(r.periods[p].heat_rw.read, r.periods[p].prev_oracle, 1e-9) << "period " << p;
  }
}

}  // namespace
}  // namespace tierfs::policy
