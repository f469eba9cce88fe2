// The advisor's pieces (docs/policies.md "Advisor"): the oracle share,
// applying a plan, rewriting a policy into variants, cutting the history into
// periods, replaying a policy over recorded buckets with the real planner, and
// ranking the variants.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "policy/advisor.h"
#include "policy/loader.h"
#include "policy/oracle_placement.h"
#include "policy/plan_apply.h"
#include "policy/policy_variants.h"
#include "policy/replay.h"
#include "tests/policy/test_util.h"

namespace tierfs::policy::testing {
namespace {

constexpr int64_t kT0 = 1'700'000'000 / kHour * kHour;
constexpr uint32_t kSsd = 1, kHdd = 2;

// Promote what was read or written more than half its size per hour over the
// last PERIOD, hottest first; the planner swaps colder residents out.
const char kFollow[] = R"(<?xml version="1.0"?>
<PLACEMENT_POLICY Version="5.1" Name="follow">
  <RULE Flags="data" Name="all">
    <SELECT><PATTERN>*</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>hdd</CLASS></DESTINATION></ON></CREATE>
    <RELOCATE>
      <TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO>
      <WHEN><IOTEMP Type="nrwbytes" Prefer="high"><MIN Flags="gt">0.5</MIN>
        <PERIOD Units="hours">1</PERIOD></IOTEMP></WHEN>
    </RELOCATE>
  </RULE>
</PLACEMENT_POLICY>
)";

HistoryFile File(uint64_t ino, const std::string& path, uint64_t size, uint32_t volume) {
  HistoryFile f;
  f.record.ino = ino;
  f.record.path = path;
  f.record.size = size;
  f.record.volume_id = volume;
  f.record.atime_s = f.record.mtime_s = kT0 - 100;
  return f;
}

void Read(HistoryFile* f, int hour, double bytes) {
  f->buckets.push_back({kT0 + hour * kHour, IoCounters{bytes, 0, 1, 0}});
}

// Two 1 MiB files and an ssd class with room for one: /a is read in hours 0 and
// 1, /b in hours 2 and 3. The real policy moved /a to ssd 5 s into hour 1.
IoHistory ShiftingHistory() {
  IoHistory h;
  h.bucket_seconds = kHour;
  h.now_s = kT0 + 4 * kHour - 10;
  h.volumes = {{kSsd, "vol1", {"ssd"}, 3 * kMiB / 2, kMiB / 2, 0},
               {kHdd, "vol2", {"hdd"}, 100 * kMiB, 99 * kMiB, 0}};
  HistoryFile a = File(2, "/a", kMiB, kSsd);
  HistoryFile b = File(3, "/b", kMiB, kHdd);
  Read(&a, 0, 10 * kMiB);
  Read(&a, 1, 10 * kMiB);
  Read(&b, 2, 10 * kMiB);
  Read(&b, 3, 10 * kMiB);
  h.files = {a, b};
  h.relocations = {{2, kT0 + kHour + 5, kHdd, kSsd}};
  return h;
}

PlacementPolicy Load(const std::string& xml) {
  LoadResult r = LoadPolicy(xml);
  EXPECT_TRUE(r.ok()) << (r.errors.empty() ? "" : r.errors.front().ToString());
  return r.ok() ? *r.policy : PlacementPolicy{};
}

TEST(OracleShareTest, TakesTheHottestPerByteThatFit) {
  // Heat per byte 5, 4, 3; the 2-byte file does not fit after the first; the third does.
  const std::vector<double> heat = {5, 4, 3, 0};
  const std::vector<double> bytes = {50, 80, 30, 40};
  const std::vector<uint64_t> sizes = {10, 20, 5, 1};
  EXPECT_DOUBLE_EQ(OracleShare(heat, bytes, sizes, 16), (50.0 + 30.0) / 200.0);
  EXPECT_DOUBLE_EQ(OracleShare(heat, bytes, sizes, 0), 0);
  EXPECT_DOUBLE_EQ(OracleShare({0, 0}, {0, 0}, {1, 1}, 10), 0);
}

TEST(ApplyPlanTest, MovesSpaceAndCountsSwaps) {
  ScanPlan plan;
  PlannedMove in;
  in.ino = 7;
  in.action = FileVerdict::kRelocate;
  in.from_volume = kHdd;
  in.to_volume = kSsd;
  in.bytes = 100;
  in.swap = PlannedMove::kSwapIn;
  PlannedMove gone;
  gone.ino = 8;
  gone.action = FileVerdict::kDelete;
  gone.from_volume = kSsd;
  gone.bytes = 30;
  plan.moves = {in, gone};
  std::vector<VolumeState> volumes = {{kSsd, "s", {"ssd"}, 1000, 500, 0},
                                      {kHdd, "h", {"hdd"}, 1000, 900, 0}};
  std::vector<uint64_t> seen;
  AppliedPlan applied =
      ApplyPlan(plan, &volumes, [&](const PlannedMove& m) { seen.push_back(m.ino); });
  EXPECT_EQ(applied.bytes_moved, 100u);
  EXPECT_EQ(applied.files_moved, 1u);
  EXPECT_EQ(applied.files_deleted, 1u);
  EXPECT_EQ(applied.swaps, 1u);
  EXPECT_EQ(volumes[0].free_bytes, 500u - 100u + 30u);
  EXPECT_EQ(volumes[1].free_bytes, 1000u);
  EXPECT_EQ(seen, (std::vector<uint64_t>{7, 8}));
}

TEST(PolicyVariantsTest, ScalesPeriodsAndThresholdsAndSetsTheLimit) {
  Result<std::string> xml = RewritePolicyXml(kFollow, VariantSpec{2, 0.5, 90}, "ssd");
  ASSERT_TRUE(xml.ok()) << xml.status().message();
  EXPECT_NE(xml->find("<PERIOD Units=\"hours\">2</PERIOD>"), std::string::npos) << *xml;
  EXPECT_NE(xml->find("<MIN Flags=\"gt\">0.25</MIN>"), std::string::npos) << *xml;
  EXPECT_NE(xml->find("<CLASS_LIMIT><CLASS>ssd</CLASS><PERCENT>90</PERCENT></CLASS_LIMIT>"),
            std::string::npos)
      << *xml;
  EXPECT_NE(xml->find("Name=\"follow-p2-t0.5-l90\""), std::string::npos) << *xml;
  PlacementPolicy p = Load(*xml);
  ASSERT_EQ(p.rules.size(), 1u);
  const Criterion& c = p.rules[0].statements[0].criteria[0];
  EXPECT_DOUBLE_EQ(c.period_hours, 2);
  EXPECT_DOUBLE_EQ(c.min->value, 0.25);
  ASSERT_EQ(p.class_limits.size(), 1u);
  EXPECT_DOUBLE_EQ(p.class_limits[0].percent, 90);
  EXPECT_EQ(VariantSpec({2, 0.5, 90}).Label("ssd"), "periods x2, thresholds x0.5, ssd limit 90%");
}

TEST(PolicyVariantsTest, UpdatesExistingLimitsAndKeepsTheRest) {
  const std::string base = ReplaceAll(
      ReplaceAll(kFollow, "<RULE Flags=\"data\"",
                 "<CLASS_LIMIT><CLASS>ssd</CLASS><PERCENT>70</PERCENT></CLASS_LIMIT>\n  "
                 "<RULE Flags=\"data\""),
      "<CLASS>ssd</CLASS></DESTINATION></TO>",
      "<CLASS>ssd</CLASS><PERCENT>60</PERCENT></DESTINATION></TO>");
  Result<std::string> xml = RewritePolicyXml(base, VariantSpec{1, 1, 95}, "ssd");
  ASSERT_TRUE(xml.ok()) << xml.status().message();
  PlacementPolicy p = Load(*xml);
  ASSERT_EQ(p.class_limits.size(), 1u);
  EXPECT_DOUBLE_EQ(p.class_limits[0].percent, 95);
  EXPECT_DOUBLE_EQ(*p.rules[0].statements[0].to_classes[0].percent, 95);
  EXPECT_DOUBLE_EQ(p.rules[0].statements[0].criteria[0].period_hours, 1);
  // The identity is the same policy under the same name.
  Result<std::string> same = RewritePolicyXml(base, VariantSpec{}, "ssd");
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(Load(*same).name, "follow");
  // Bad input.
  EXPECT_EQ(RewritePolicyXml("<nope", VariantSpec{}, "ssd").status().code(), EINVAL);
  EXPECT_EQ(RewritePolicyXml(kFollow, VariantSpec{0, 1, std::nullopt}, "ssd").status().code(),
            EINVAL);
  EXPECT_EQ(RewritePolicyXml(kFollow, VariantSpec{1, 1, 120}, "ssd").status().code(), EINVAL);
  EXPECT_EQ(FormatPolicyNumber(0.025), "0.025");
  EXPECT_EQ(FormatPolicyNumber(90), "90");
}

TEST(ReplayWindowTest, CutsWholeIntervalsEndingAtTheNewestBucket) {
  IoHistory h = ShiftingHistory();
  Result<ReplayWindow> w = ChooseReplayWindow(h, kHour);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->periods, 4);
  EXPECT_EQ(w->start_s, kT0);
  EXPECT_EQ(w->end_s(), kT0 + 4 * kHour);
  w = ChooseReplayWindow(h, 3 * kHour);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->periods, 1);
  EXPECT_EQ(w->start_s, kT0 + kHour);
  EXPECT_EQ(ChooseReplayWindow(h, 1800).status().code(), EINVAL);
  EXPECT_EQ(ChooseReplayWindow(h, 0).status().code(), EINVAL);
  h.files.clear();
  w = ChooseReplayWindow(h, kHour);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->periods, 0);
}

TEST(ReplayTest, FollowsAShiftingHotSetWithTheRealPlanner) {
  const IoHistory h = ShiftingHistory();
  ReplayOptions o;
  o.window = *ChooseReplayWindow(h, kHour);
  o.fast_classes = {"ssd"};
  ReplayResult r = ReplayPolicy(Load(kFollow), h, o);
  ASSERT_EQ(r.periods.size(), 3u);
  // Hour 1: /a was promoted at its start (the relocation undone, it starts on hdd).
  EXPECT_DOUBLE_EQ(r.periods[0].served_bytes, 10.0 * kMiB);
  EXPECT_EQ(r.periods[0].bytes_moved, kMiB);
  // Hour 2: /b is hot but was not yet; nothing moves.
  EXPECT_DOUBLE_EQ(r.periods[1].served_bytes, 0);
  EXPECT_EQ(r.periods[1].bytes_moved, 0u);
  // Hour 3: /b swapped in for /a.
  EXPECT_DOUBLE_EQ(r.periods[2].served_bytes, 10.0 * kMiB);
  EXPECT_EQ(r.periods[2].swaps, 1u);
  EXPECT_EQ(r.periods[2].bytes_moved, 2 * kMiB);
  EXPECT_EQ(r.periods[2].fast_used_bytes, kMiB);
  EXPECT_DOUBLE_EQ(r.io_bytes, 30.0 * kMiB);
  EXPECT_NEAR(r.served_share, 2.0 / 3, 1e-12);
  EXPECT_EQ(r.bytes_moved, 3 * kMiB);

  OracleReplay oracles = ReplayOracles(h, o);
  EXPECT_EQ(oracles.fast_room_bytes, 3 * kMiB / 2);
  EXPECT_DOUBLE_EQ(oracles.oracle, 1.0);
  EXPECT_NEAR(oracles.prev_oracle, 2.0 / 3, 1e-12);
}

TEST(ReplayTest, AFileTakesPartOnceItExists) {
  IoHistory h = ShiftingHistory();
  // /b was created in hour 2: the enforce at the start of hour 2 cannot see it.
  h.files[1].record.mtime_s = kT0 + 2 * kHour + 10;
  h.files[1].record.atime_s = kT0 + 3 * kHour + 10;
  ReplayOptions o;
  o.window = *ChooseReplayWindow(h, kHour);
  o.fast_classes = {"ssd"};
  ReplayResult r = ReplayPolicy(Load(kFollow), h, o);
  ASSERT_EQ(r.periods.size(), 3u);
  EXPECT_NEAR(r.served_share, 2.0 / 3, 1e-12);
  EXPECT_EQ(r.periods[2].swaps, 1u);
}

TEST(AdvisorTest, RanksVariantsBestFirst) {
  const IoHistory h = ShiftingHistory();
  AdviseOptions o;
  o.period_factors = {0.5, 1};  // half an hour is shorter than the bucket: skipped
  o.threshold_factors = {1, 100};
  o.limits = {};
  Result<Advice> advice = Advise(kFollow, h, o);
  ASSERT_TRUE(advice.ok()) << advice.status().message();
  EXPECT_EQ(advice->window.interval_s, kHour);  // the policy's PERIOD
  EXPECT_EQ(advice->window.periods, 4);
  ASSERT_EQ(advice->ranked.size(), 2u);
  EXPECT_TRUE(advice->ranked[0].as_written);
  EXPECT_NEAR(advice->ranked[0].replay.served_share, 2.0 / 3, 1e-12);
  EXPECT_EQ(advice->ranked[0].xml, kFollow);
  EXPECT_EQ(advice->ranked[1].label, "thresholds x100");
  EXPECT_EQ(advice->ranked[1].name, "follow-t100");
  EXPECT_DOUBLE_EQ(advice->ranked[1].replay.served_share, 0);
  ASSERT_EQ(advice->skipped.size(), 2u);
  EXPECT_NE(advice->skipped[0].find("periods x0.5"), std::string::npos) << advice->skipped[0];
  EXPECT_NE(advice->skipped[0].find("heat bucket"), std::string::npos) << advice->skipped[0];
  EXPECT_NEAR(advice->oracles.prev_oracle, 2.0 / 3, 1e-12);
}

TEST(AdvisorTest, ALowerThresholdWinsWhenItPromotesWhatTheWrittenOneMisses) {
  IoHistory h = ShiftingHistory();
  // /b's reads are lukewarm (0.4 of its size per hour): under the written 0.5.
  h.files[1].buckets = {{kT0 + 2 * kHour, IoCounters{0.4 * kMiB, 0, 1, 0}},
                        {kT0 + 3 * kHour, IoCounters{0.4 * kMiB, 0, 1, 0}}};
  AdviseOptions o;
  o.period_factors = {1};
  o.threshold_factors = {0.5, 1};
  o.limits = {};
  Result<Advice> advice = Advise(kFollow, h, o);
  ASSERT_TRUE(advice.ok()) << advice.status().message();
  ASSERT_EQ(advice->ranked.size(), 2u);
  EXPECT_EQ(advice->ranked[0].label, "thresholds x0.5");
  EXPECT_GT(advice->ranked[0].replay.served_share, advice->ranked[1].replay.served_share);
  EXPECT_TRUE(advice->ranked[1].as_written);
}

TEST(AdvisorTest, RefusesAShortHistoryAndBadInput) {
  IoHistory h = ShiftingHistory();
  for (HistoryFile& f : h.files) f.buckets.resize(1);  // hour 0 only for /a, hour 2 for /b
  h.files[1].buckets.clear();
  Result<Advice> advice = Advise(kFollow, h, AdviseOptions{});
  ASSERT_EQ(advice.status().code(), kAdviseTooShort);
  EXPECT_NE(advice.status().message().find("history too short"), std::string::npos)
      << advice.status().message();
  EXPECT_NE(advice.status().message().find("at least 2 enforce intervals of 1 h"),
            std::string::npos)
      << advice.status().message();

  h = ShiftingHistory();
  AdviseOptions o;
  o.fast_class = "nvme";
  EXPECT_EQ(Advise(kFollow, h, o).status().code(), EINVAL);
  o = AdviseOptions{};
  o.limits = {0};
  EXPECT_EQ(Advise(kFollow, h, o).status().code(), EINVAL);
  o = AdviseOptions{};
  o.interval_s = 1800;
  EXPECT_EQ(Advise(kFollow, h, o).status().code(), EINVAL);
  EXPECT_EQ(Advise("<PLACEMENT_POLICY/>", h, AdviseOptions{}).status().code(), EINVAL);
}

}  // namespace
}  // namespace tierfs::policy::testing
