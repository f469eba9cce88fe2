// PlanScan: Prefer ordering, projected free space, "nospace" skips and
// execution order (docs/policies.md "What a scan does" and "Prefer").
#include "policy/planner.h"

#include <gtest/gtest.h>

#include "tests/policy/test_util.h"

namespace tierfs::policy {
namespace {

using testing::kHour;
using testing::kMiB;
using testing::MustLoad;
using testing::PolicyXml;
using testing::Volume;

constexpr int64_t kNow = 500'000 * kHour;

// Evacuate cold files from ssd, then promote hot ones (hottest first).
const char* kTwoTier = R"(<RULE Flags="data" Name="tier">
  <SELECT/>
  <RELOCATE>
    <FROM><SOURCE><CLASS>ssd</CLASS></SOURCE></FROM>
    <TO><DESTINATION><CLASS>hdd</CLASS></DESTINATION></TO>
    <WHEN><IOTEMP Type="nrbytes"><MAX Flags="lt">1</MAX><PERIOD Units="hours">1</PERIOD></IOTEMP></WHEN>
  </RELOCATE>
  <RELOCATE>
    <TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO>
    <WHEN><IOTEMP Type="nrbytes" Prefer="high"><MIN Flags="gteq">1</MIN><PERIOD Units="hours">1</PERIOD></IOTEMP></WHEN>
  </RELOCATE>
</RULE>)";

// A file whose 1-hour read IOTEMP is `temp` (sizes below 4096 count as 4096).
FileRecord Hot(uint64_t ino, const std::string& path, uint64_t size, uint32_t vol, double temp) {
  FileRecord f = testing::File(ino, path, size, vol);
  f.windows = {IoCounters{temp * static_cast<double>(std::max<uint64_t>(size, 4096)), 0, 0, 0}};
  return f;
}

// A file for policies without temperatures (no windows).
FileRecord Plain(uint64_t ino, const std::string& path, uint64_t size, uint32_t vol) {
  return testing::File(ino, path, size, vol);
}

std::vector<std::string> Paths(const std::vector<PlannedMove>& moves) {
  std::vector<std::string> out;
  for (const PlannedMove& m : moves) out.push_back(m.path);
  return out;
}

ScanPlan Plan(const std::string& rules, const std::vector<FileRecord>& files,
              const std::vector<VolumeState>& vols, const PlanOptions& options = {}) {
  PlacementPolicy p = MustLoad(PolicyXml(rules));
  return PlanScan(p, files, vols, ActivityTotals{}, kNow, options);
}

TEST(PlanScan, PreferHighMovesTheHottestFirstAndSkipsTheRestForNoSpace) {
  std::vector<VolumeState> vols{Volume(1, "ssd", 100 * kMiB, 25 * kMiB),
                                Volume(2, "hdd", 1000 * kMiB, 500 * kMiB)};
  std::vector<FileRecord> files{Hot(1, "/a", 10 * kMiB, 2, 2), Hot(2, "/b", 10 * kMiB, 2, 5),
                                Hot(3, "/c", 10 * kMiB, 2, 3), Hot(4, "/d", 10 * kMiB, 2, 4)};
  ScanPlan plan = Plan(kTwoTier, files, vols);
  EXPECT_EQ(plan.files_scanned, 4u);
  EXPECT_EQ(Paths(plan.moves), (std::vector<std::string>{"/b", "/d"}));
  EXPECT_EQ(Paths(plan.skipped), (std::vector<std::string>{"/c", "/a"}));
  const PlannedMove& m = plan.moves[0];
  EXPECT_EQ(m.ino, 2u);
  EXPECT_EQ(m.rule, "tier");
  EXPECT_EQ(m.statement, "RELOCATE 2");
  EXPECT_EQ(m.action, FileVerdict::kRelocate);
  EXPECT_EQ(m.from_volume, 2u);
  EXPECT_EQ(m.from_class, "hdd");
  EXPECT_EQ(m.to_volume, 1u);
  EXPECT_EQ(m.to_class, "ssd");
  EXPECT_DOUBLE_EQ(m.temperature, 5);
  EXPECT_EQ(m.temperature_kind, "IOTEMP nrbytes 1h");
  EXPECT_EQ(m.bytes, 10 * kMiB);
  EXPECT_EQ(m.skip_reason, "");
  EXPECT_EQ(plan.skipped[0].skip_reason, "nospace");
  EXPECT_EQ(plan.skipped[0].to_class, "ssd");
  EXPECT_EQ(plan.skipped[0].to_volume, 0u);
}

TEST(PlanScan, PreferLowMovesTheColdestFirst) {
  const char* rules = R"(<RULE Flags="data" Name="out">
  <SELECT/>
  <RELOCATE><TO><DESTINATION><CLASS>hdd</CLASS></DESTINATION></TO>
    <WHEN><IOTEMP Type="nrbytes" Prefer="low"><MAX Flags="lt">10</MAX><PERIOD Units="hours">1</PERIOD></IOTEMP></WHEN>
  </RELOCATE>
</RULE>)";
  std::vector<VolumeState> vols{Volume(1, "ssd", 100, 0), Volume(2, "hdd", 100, 20)};
  std::vector<FileRecord> files{Hot(1, "/a", 10, 1, 3), Hot(2, "/b", 10, 1, 1),
                                Hot(3, "/c", 10, 1, 2)};
  ScanPlan plan = Plan(rules, files, vols);
  EXPECT_EQ(Paths(plan.moves), (std::vector<std::string>{"/b", "/c"}));
  EXPECT_EQ(Paths(plan.skipped), std::vector<std::string>{"/a"});
}

TEST(PlanScan, TiesKeepScanOrderAndNoPreferMeansScanOrder) {
  std::vector<VolumeState> vols{Volume(1, "ssd", 100, 20), Volume(2, "hdd", 1000, 500)};
  std::vector<FileRecord> files{Hot(1, "/a", 10, 2, 4), Hot(2, "/b", 10, 2, 4),
                                Hot(3, "/c", 10, 2, 4)};
  EXPECT_EQ(Paths(Plan(kTwoTier, files, vols).moves), (std::vector<std::string>{"/a", "/b"}));
  const char* no_prefer = R"(<RULE Flags="data" Name="in"><SELECT/>
  <RELOCATE><TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO>
    <WHEN><IOTEMP Type="nrbytes"><MIN Flags="gteq">1</MIN><PERIOD Units="hours">1</PERIOD></IOTEMP></WHEN>
  </RELOCATE></RULE>)";
  files = {Hot(1, "/a", 10, 2, 1), Hot(2, "/b", 10, 2, 9), Hot(3, "/c", 10, 2, 5)};
  ScanPlan plan = Plan(no_prefer, files, vols);
  EXPECT_EQ(Paths(plan.moves), (std::vector<std::string>{"/a", "/b"}));
  EXPECT_EQ(Paths(plan.skipped), std::vector<std::string>{"/c"});
}

TEST(PlanScan, ReservesAreKept) {
  std::vector<VolumeState> vols{Volume(1, "ssd", 100, 30, 15), Volume(2, "hdd", 1000, 500)};
  std::vector<FileRecord> files{Hot(1, "/a", 10, 2, 4), Hot(2, "/b", 10, 2, 3)};
  ScanPlan plan = Plan(kTwoTier, files, vols);
  EXPECT_EQ(Paths(plan.moves), std::vector<std::string>{"/a"});  // 30 - 10 = 20 >= 15; not twice
  EXPECT_EQ(Paths(plan.skipped), std::vector<std::string>{"/b"});
}

TEST(PlanScan, EvacuationsMakeRoomForLaterPromotionsAndRunFirst) {
  std::vector<VolumeState> vols{Volume(1, "ssd", 100, 5), Volume(2, "hdd", 1000, 500)};
  std::vector<FileRecord> files{Hot(1, "/cold_on_ssd", 10, 1, 0), Hot(2, "/hot1", 10, 2, 3),
                                Hot(3, "/hot2", 10, 2, 7), Hot(4, "/warm_on_ssd", 10, 1, 2)};
  // Without swapping: DST's reference algorithm (with it, /hot1 would
  // displace /warm_on_ssd, see SwapTest below).
  ScanPlan plan = Plan(kTwoTier, files, vols, PlanOptions{.swap = false});
  // ssd: 5 free + 10 credited by the evacuation = room for the hotter file only.
  EXPECT_EQ(Paths(plan.moves), (std::vector<std::string>{"/cold_on_ssd", "/hot2"}));
  EXPECT_EQ(Paths(plan.skipped), std::vector<std::string>{"/hot1"});
  ASSERT_EQ(plan.stays.size(), 1u);
  EXPECT_EQ(plan.stays[0].path, "/warm_on_ssd");
  EXPECT_EQ(plan.stays[0].action, FileVerdict::kStay);
  EXPECT_EQ(plan.stays[0].to_volume, 1u);
  EXPECT_EQ(plan.stays[0].to_class, "ssd");
  EXPECT_EQ(plan.stays[0].statement, "RELOCATE 2");
}

TEST(PlanScan, APromotionListedBeforeTheEvacuationCannotUseItsSpace) {
  const char* promote_first = R"(<RULE Flags="data" Name="tier"><SELECT/>
  <RELOCATE><FROM><SOURCE><CLASS>hdd</CLASS></SOURCE></FROM>
    <TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO>
    <WHEN><IOTEMP Type="nrbytes"><MIN Flags="gteq">1</MIN><PERIOD Units="hours">1</PERIOD></IOTEMP></WHEN></RELOCATE>
  <RELOCATE><FROM><SOURCE><CLASS>ssd</CLASS></SOURCE></FROM>
    <TO><DESTINATION><CLASS>hdd</CLASS></DESTINATION></TO>
    <WHEN><IOTEMP Type="nrbytes"><MAX Flags="lt">1</MAX><PERIOD Units="hours">1</PERIOD></IOTEMP></WHEN></RELOCATE>
</RULE>)";
  std::vector<VolumeState> vols{Volume(1, "ssd", 100, 5), Volume(2, "hdd", 1000, 500)};
  std::vector<FileRecord> files{Hot(1, "/cold", 10, 1, 0), Hot(2, "/hot", 10, 2, 3)};
  ScanPlan plan = Plan(promote_first, files, vols);
  EXPECT_EQ(Paths(plan.moves), std::vector<std::string>{"/cold"});
  EXPECT_EQ(Paths(plan.skipped), std::vector<std::string>{"/hot"});
}

TEST(PlanScan, ExecutionRunsMovesOutOfTheScarceTierBeforeMovesIntoIt) {
  // Promotions are planned first (document order) and fit in the initial
  // space; execution still empties ssd's outgoing moves first.
  const char* promote_first = R"(<RULE Flags="data" Name="tier"><SELECT/>
  <RELOCATE><FROM><SOURCE><CLASS>hdd</CLASS></SOURCE></FROM>
    <TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO>
    <WHEN><IOTEMP Type="nrbytes"><MIN Flags="gteq">1</MIN><PERIOD Units="hours">1</PERIOD></IOTEMP></WHEN></RELOCATE>
  <RELOCATE><FROM><SOURCE><CLASS>ssd</CLASS></SOURCE></FROM>
    <TO><DESTINATION><CLASS>hdd</CLASS></DESTINATION></TO>
    <WHEN><IOTEMP Type="nrbytes"><MAX Flags="lt">1</MAX><PERIOD Units="hours">1</PERIOD></IOTEMP></WHEN></RELOCATE>
  <DELETE><WHEN><SIZE Units="bytes"><MAX Flags="lt">1</MAX></SIZE></WHEN></DELETE>
</RULE>)";
  std::vector<VolumeState> vols{Volume(1, "ssd", 100, 30), Volume(2, "hdd", 1000, 500)};
  std::vector<FileRecord> files{Hot(1, "/c1", 10, 1, 0), Hot(2, "/c2", 10, 1, 0.5),
                                Hot(3, "/h1", 10, 2, 3), Hot(4, "/h2", 10, 2, 2),
                                Hot(5, "/empty", 0, 2, 0)};
  files[4].windows.clear();
  ScanPlan plan = Plan(promote_first, files, vols);
  EXPECT_TRUE(plan.skipped.empty());
  EXPECT_EQ(Paths(plan.moves), (std::vector<std::string>{"/empty", "/c1", "/c2", "/h1", "/h2"}));
  EXPECT_EQ(plan.moves[0].action, FileVerdict::kDelete);
  EXPECT_EQ(plan.moves[0].to_volume, 0u);
  EXPECT_EQ(plan.moves[0].to_class, "");
}

TEST(PlanScan, HardLinksAreEvaluatedOnceByTheirFirstPath) {
  std::vector<VolumeState> vols{Volume(1, "ssd", 100, 50), Volume(2, "hdd", 1000, 500)};
  std::vector<FileRecord> files{Hot(7, "/a/link1", 10, 2, 3), Hot(8, "/b", 10, 2, 0.1),
                                Hot(7, "/z/link2", 10, 2, 3)};
  ScanPlan plan = Plan(kTwoTier, files, vols);
  EXPECT_EQ(plan.files_scanned, 2u);
  EXPECT_EQ(Paths(plan.moves), std::vector<std::string>{"/a/link1"});
  EXPECT_TRUE(plan.stays.empty());  // /b: no statement holds, not reported
}

TEST(PlanScan, FirstToClassWithRoomAndClassesWithoutVolumes) {
  const char* rules = R"(<RULE Flags="data" Name="r"><SELECT/>
  <RELOCATE><FROM><SOURCE><CLASS>hdd</CLASS></SOURCE></FROM>
    <TO><DESTINATION><CLASS>nvme</CLASS></DESTINATION><DESTINATION><CLASS>ssd</CLASS></DESTINATION>
      <DESTINATION><CLASS>mixed</CLASS></DESTINATION></TO></RELOCATE></RULE>)";
  std::vector<VolumeState> vols{Volume(1, "ssd", 100, 15), Volume(2, "hdd", 1000, 500),
                                Volume(3, "mixed", 100, 10)};
  std::vector<FileRecord> files{Plain(1, "/a", 10, 2), Plain(2, "/b", 10, 2),
                                Plain(3, "/c", 10, 2)};
  ScanPlan plan = Plan(rules, files, vols);
  ASSERT_EQ(plan.moves.size(), 2u);
  EXPECT_EQ(plan.moves[0].to_class, "ssd");  // nvme has no volume: skipped
  EXPECT_EQ(plan.moves[1].to_class, "mixed");
  EXPECT_EQ(Paths(plan.skipped), std::vector<std::string>{"/c"});
  EXPECT_EQ(plan.skipped[0].to_class, "nvme");
}

TEST(PlanScan, InsideAClassMostFreeOrLeastUsedWithBalanceSize) {
  auto rules = [](const std::string& balance) {
    return R"(<RULE Flags="data" Name="r"><SELECT/>
  <RELOCATE><FROM><SOURCE><CLASS>ssd</CLASS></SOURCE></FROM>
    <TO><DESTINATION><CLASS>hdd</CLASS>)" + balance + R"(</DESTINATION></TO></RELOCATE></RULE>)";
  };
  std::vector<VolumeState> vols{Volume(1, "ssd", 100, 0), Volume(2, "hdd", 1000, 400),
                                Volume(3, "hdd", 100, 90)};
  std::vector<FileRecord> files{Plain(1, "/a", 10, 1), Plain(2, "/b", 10, 1)};
  ScanPlan plan = Plan(rules(""), files, vols);
  EXPECT_EQ(plan.moves[0].to_volume, 2u);
  EXPECT_EQ(plan.moves[1].to_volume, 2u);
  plan = Plan(rules(R"(<BALANCE_SIZE Units="MB">1</BALANCE_SIZE>)"), files, vols);
  EXPECT_EQ(plan.moves[0].to_volume, 3u);  // 10% used vs 60% used
  EXPECT_EQ(plan.moves[1].to_volume, 3u);  // 20% used vs 60%
}

TEST(PlanScan, ClassTableShowsSpaceBeforeAndAfter) {
  std::vector<VolumeState> vols{Volume(1, "ssd", 100, 25), Volume(2, "hdd", 1000, 500),
                                Volume(3, "hdd", 1000, 100)};
  std::vector<FileRecord> files{Hot(1, "/cold", 10, 1, 0), Hot(2, "/hot", 20, 3, 5)};
  ScanPlan plan = Plan(kTwoTier, files, vols);
  ASSERT_EQ(plan.classes.size(), 2u);
  EXPECT_EQ(plan.classes[0].name, "ssd");
  EXPECT_EQ(plan.classes[0].size_bytes, 100u);
  EXPECT_EQ(plan.classes[0].free_before, 25u);
  EXPECT_EQ(plan.classes[0].free_after, 25u + 10 - 20);
  EXPECT_EQ(plan.classes[1].name, "hdd");
  EXPECT_EQ(plan.classes[1].size_bytes, 2000u);
  EXPECT_EQ(plan.classes[1].free_before, 600u);
  EXPECT_EQ(plan.classes[1].free_after, 600u - 10 + 20);
}

TEST(PlanScan, DeletesCreditTheirSourceForPromotions) {
  const char* rules = R"(<RULE Flags="data" Name="r"><SELECT/>
  <DELETE><FROM><SOURCE><CLASS>ssd</CLASS></SOURCE></FROM>
    <WHEN><ACCAGE Units="days"><MIN Flags="gt">30</MIN></ACCAGE></WHEN></DELETE>
  <RELOCATE><TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO></RELOCATE></RULE>)";
  std::vector<VolumeState> vols{Volume(1, "ssd", 100, 0), Volume(2, "hdd", 1000, 500)};
  FileRecord old = Plain(1, "/old", 10, 1);
  old.atime_s = kNow - 40 * 24 * kHour;
  FileRecord fresh = Plain(2, "/new", 10, 2);
  fresh.atime_s = kNow;
  ScanPlan plan = Plan(rules, {fresh, old}, vols);
  EXPECT_EQ(Paths(plan.moves), (std::vector<std::string>{"/old", "/new"}));
  EXPECT_EQ(plan.moves[0].action, FileVerdict::kDelete);
  EXPECT_EQ(plan.moves[1].to_volume, 1u);
}

}  // namespace
}  // namespace tierfs::policy
