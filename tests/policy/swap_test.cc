// PlanScan's tierfs extensions: capacity limits (PERCENT in SOURCE and
// DESTINATION) and swapping cold residents for hot candidates with
// hysteresis (docs/policies.md "Capacity limits" and "Swapping").
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "policy/planner.h"
#include "policy/volume_choice.h"
#include "tests/policy/test_util.h"

namespace tierfs::policy {
namespace {

using testing::kHour;
using testing::MustLoad;
using testing::PolicyXml;
using testing::Volume;

constexpr int64_t kNow = 500'000 * kHour;

// A file whose 1-hour read IOTEMP is `temp`.
FileRecord Hot(uint64_t ino, const std::string& path, uint64_t size, uint32_t vol, double temp) {
  FileRecord f = testing::File(ino, path, size, vol);
  f.windows = {IoCounters{temp * static_cast<double>(std::max<uint64_t>(size, 4096)), 0, 0, 0}};
  return f;
}

// Evacuate ssd files under 1, promote files of at least 1 hottest first.
// `to_ssd` goes inside the promotion's ssd DESTINATION (e.g. a PERCENT).
std::string TwoTier(const std::string& to_ssd = "") {
  return R"(<RULE Flags="data" Name="tier">
  <SELECT/>
  <RELOCATE>
    <FROM><SOURCE><CLASS>ssd</CLASS></SOURCE></FROM>
    <TO><DESTINATION><CLASS>hdd</CLASS></DESTINATION></TO>
    <WHEN><IOTEMP Type="nrbytes"><MAX Flags="lt">1</MAX><PERIOD Units="hours">1</PERIOD></IOTEMP></WHEN>
  </RELOCATE>
  <RELOCATE>
    <TO><DESTINATION><CLASS>ssd</CLASS>)" +
         to_ssd + R"(</DESTINATION></TO>
    <WHEN><IOTEMP Type="nrbytes" Prefer="high"><MIN Flags="gteq">1</MIN><PERIOD Units="hours">1</PERIOD></IOTEMP></WHEN>
  </RELOCATE>
</RULE>)";
}

ScanPlan Plan(const std::string& rules, const std::vector<FileRecord>& files,
              const std::vector<VolumeState>& vols, const PlanOptions& options = {}) {
  PlacementPolicy p = MustLoad(PolicyXml(rules));
  return PlanScan(p, files, vols, ActivityTotals{}, kNow, options);
}

std::vector<std::string> Paths(const std::vector<PlannedMove>& moves) {
  std::vector<std::string> out;
  for (const PlannedMove& m : moves) out.push_back(m.path);
  return out;
}

std::set<std::string> PathsWhere(const std::vector<PlannedMove>& moves, PlannedMove::Swap swap) {
  std::set<std::string> out;
  for (const PlannedMove& m : moves) {
    if (m.swap == swap) out.insert(m.path);
  }
  return out;
}

// `vols` once every move of `plan` has run.
std::vector<VolumeState> Apply(std::vector<VolumeState> vols, const ScanPlan& plan) {
  for (const PlannedMove& m : plan.moves) {
    for (VolumeState& v : vols) {
      if (v.id == m.from_volume) v.free_bytes += m.bytes;
      if (v.id == m.to_volume && m.action == FileVerdict::kRelocate) v.free_bytes -= m.bytes;
    }
  }
  return vols;
}

// ---- Capacity limits ----------------------------------------------------------------

TEST(CapacityLimit, DestinationPercentCapsTheClassOverAllItsVolumes) {
  // ssd: two volumes of 100 bytes, 20 used; PERCENT 50 = 100 bytes: room for 8 files of 10.
  std::vector<VolumeState> vols{Volume(1, "ssd", 100, 90), Volume(2, "ssd", 100, 90),
                                Volume(3, "hdd", 1000, 500)};
  std::vector<FileRecord> files;
  for (int i = 0; i < 10; ++i) {
    files.push_back(Hot(10 + i, "/f" + std::to_string(i), 10, 3, 10 + i));
  }
  ScanPlan plan = Plan(TwoTier("<PERCENT>50</PERCENT>"), files, vols);
  EXPECT_EQ(plan.moves.size(), 8u);
  EXPECT_EQ(Paths(plan.skipped), (std::vector<std::string>{"/f1", "/f0"}));  // the coldest
  EXPECT_EQ(plan.skipped[0].skip_reason, "nospace");
  ClassUsage ssd = UsageOf(Apply(vols, plan), "ssd");
  EXPECT_EQ(ssd.used, 100u);
  // Without the PERCENT all ten fit.
  EXPECT_EQ(Plan(TwoTier(), files, vols).moves.size(), 10u);
}

TEST(CapacityLimit, ClassLimitIsTheDefaultOfDestinationsWithoutPercent) {
  // ssd 100 bytes, empty; CLASS_LIMIT 30% unless the DESTINATION says otherwise.
  const std::string limit =
      "<CLASS_LIMIT><CLASS>ssd</CLASS><PERCENT>30</PERCENT></CLASS_LIMIT>\n";
  std::vector<VolumeState> vols{Volume(1, "ssd", 100, 100), Volume(2, "hdd", 1000, 500)};
  std::vector<FileRecord> files;
  for (int i = 0; i < 6; ++i) files.push_back(Hot(1 + i, "/f" + std::to_string(i), 10, 2, 5 + i));
  EXPECT_EQ(Plan(limit + TwoTier(), files, vols).moves.size(), 3u);
  EXPECT_EQ(Plan(limit + TwoTier("<PERCENT>50</PERCENT>"), files, vols).moves.size(), 5u);
  // It also caps the class a swapped-out resident falls back to: with hdd
  // limited to its current use, the resident has nowhere to go.
  std::vector<FileRecord> full = {Hot(101, "/ssd/r", 10, 1, 1), Hot(1, "/hdd/c", 10, 2, 9)};
  std::vector<VolumeState> tight{Volume(1, "ssd", 10, 0), Volume(2, "hdd", 100, 50)};
  EXPECT_EQ(Plan(TwoTier(), full, tight).moves.size(), 2u);
  const std::string hdd_limit =
      "<CLASS_LIMIT><CLASS>hdd</CLASS><PERCENT>50</PERCENT></CLASS_LIMIT>\n";
  EXPECT_TRUE(Plan(hdd_limit + TwoTier(), full, tight).moves.empty());
}

TEST(CapacityLimit, AClassAlreadyOverItsLimitTakesNothing) {
  std::vector<VolumeState> vols{Volume(1, "ssd", 100, 40), Volume(2, "hdd", 1000, 500)};
  std::vector<FileRecord> files{Hot(1, "/a", 1, 2, 5)};
  ScanPlan plan = Plan(TwoTier("<PERCENT>60</PERCENT>"), files, vols, PlanOptions{.swap = false});
  EXPECT_TRUE(plan.moves.empty());
  EXPECT_EQ(Paths(plan.skipped), std::vector<std::string>{"/a"});
  // 60 used + 1 <= 61: a limit of 61% takes exactly this byte.
  EXPECT_EQ(Plan(TwoTier("<PERCENT>61</PERCENT>"), files, vols).moves.size(), 1u);
}

TEST(CapacityLimit, SourcePercentStopsDrainingAtTheLimit) {
  const char* rules = R"(<RULE Flags="data" Name="out"><SELECT/>
  <RELOCATE>
    <FROM><SOURCE><CLASS>ssd</CLASS><PERCENT>30</PERCENT></SOURCE></FROM>
    <TO><DESTINATION><CLASS>hdd</CLASS></DESTINATION></TO>
    <WHEN><IOTEMP Type="nrbytes" Prefer="low"><MAX Flags="lt">100</MAX><PERIOD Units="hours">1</PERIOD></IOTEMP></WHEN>
  </RELOCATE></RULE>)";
  // ssd 100 bytes, 60 used by six files: draining stops at 30, after three.
  std::vector<VolumeState> vols{Volume(1, "ssd", 100, 40), Volume(2, "hdd", 1000, 500)};
  std::vector<FileRecord> files;
  for (int i = 0; i < 6; ++i) files.push_back(Hot(1 + i, "/s" + std::to_string(i), 10, 1, 6 - i));
  ScanPlan plan = Plan(rules, files, vols);
  EXPECT_EQ(Paths(plan.moves), (std::vector<std::string>{"/s5", "/s4", "/s3"}));  // coldest first
  EXPECT_EQ(Paths(plan.skipped), (std::vector<std::string>{"/s2", "/s1", "/s0"}));
  for (const PlannedMove& m : plan.skipped) EXPECT_EQ(m.skip_reason, "drained") << m.path;
  EXPECT_EQ(UsageOf(Apply(vols, plan), "ssd").used, 30u);
}

TEST(CapacityLimit, SourcePercentZeroDrainsEverything) {
  const char* rules = R"(<RULE Flags="data" Name="out"><SELECT/>
  <RELOCATE>
    <FROM><SOURCE><CLASS>ssd</CLASS><PERCENT>0</PERCENT></SOURCE></FROM>
    <TO><DESTINATION><CLASS>hdd</CLASS></DESTINATION></TO>
  </RELOCATE></RULE>)";
  std::vector<VolumeState> vols{Volume(1, "ssd", 100, 80), Volume(2, "hdd", 1000, 500)};
  std::vector<FileRecord> files{testing::File(1, "/a", 10, 1), testing::File(2, "/b", 10, 1)};
  EXPECT_EQ(Plan(rules, files, vols).moves.size(), 2u);
}

// ---- Swapping -----------------------------------------------------------------------

// ssd (100 bytes) is full of ten 10-byte residents of temperatures 1..10,
// all "stay" by RELOCATE 2; hdd holds candidates.
std::vector<FileRecord> FullSsd() {
  std::vector<FileRecord> files;
  for (int i = 1; i <= 10; ++i) {
    files.push_back(Hot(100 + i, "/ssd/r" + std::to_string(i), 10, 1, i));
  }
  return files;
}

TEST(Swap, AFullClassTradesExactlyTheColdestResidentsForTheHottestCandidates) {
  std::vector<VolumeState> vols{Volume(1, "ssd", 100, 0), Volume(2, "hdd", 1000, 500)};
  std::vector<FileRecord> files = FullSsd();
  // 30 > 1.25*1, 12 > 1.25*2, 3.8 > 1.25*3 = 3.75; 3.7 is not > 1.25*4 = 5: it waits.
  files.push_back(Hot(1, "/hdd/c30", 10, 2, 30));
  files.push_back(Hot(2, "/hdd/c3.7", 10, 2, 3.7));
  files.push_back(Hot(3, "/hdd/c12", 10, 2, 12));
  files.push_back(Hot(4, "/hdd/c3.8", 10, 2, 3.8));
  ScanPlan plan = Plan(TwoTier(), files, vols);
  EXPECT_EQ(PathsWhere(plan.moves, PlannedMove::kSwapOut),
            (std::set<std::string>{"/ssd/r1", "/ssd/r2", "/ssd/r3"}));
  EXPECT_EQ(PathsWhere(plan.moves, PlannedMove::kSwapIn),
            (std::set<std::string>{"/hdd/c30", "/hdd/c12", "/hdd/c3.8"}));
  EXPECT_EQ(plan.moves.size(), 6u);
  EXPECT_EQ(Paths(plan.skipped), std::vector<std::string>{"/hdd/c3.7"});
  // Every swap-out runs before any swap-in: the class is full.
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(plan.moves[i].swap, PlannedMove::kSwapOut) << i;
  const PlannedMove& out = plan.moves[0];
  EXPECT_EQ(out.path, "/ssd/r1");
  EXPECT_EQ(out.rule, "tier");
  EXPECT_EQ(out.statement, "RELOCATE 2 swap-out");
  EXPECT_EQ(out.from_class, "ssd");
  EXPECT_EQ(out.to_class, "hdd");  // the other class its own rule names
  EXPECT_EQ(out.to_volume, 2u);
  EXPECT_DOUBLE_EQ(out.temperature, 1);
  EXPECT_EQ(out.temperature_kind, "IOTEMP nrbytes 1h");
  auto in = std::find_if(plan.moves.begin(), plan.moves.end(),
                         [](const PlannedMove& m) { return m.path == "/hdd/c30"; });
  EXPECT_EQ(in->statement, "RELOCATE 2 swap-in");
  EXPECT_EQ(in->to_class, "ssd");
  // The swapped-out files are no longer reported as staying.
  EXPECT_EQ(plan.stays.size(), 7u);
  for (const PlannedMove& s : plan.stays) EXPECT_NE(s.path, "/ssd/r1");
  EXPECT_EQ(UsageOf(Apply(vols, plan), "ssd").used, 100u);
}

TEST(Swap, HysteresisKeepsNearEqualFilesWhereTheyAre) {
  std::vector<VolumeState> vols{Volume(1, "ssd", 100, 0), Volume(2, "hdd", 1000, 500)};
  std::vector<FileRecord> files = FullSsd();
  files.push_back(Hot(1, "/hdd/c", 10, 2, 1.24));  // not > 1.25 * 1
  ScanPlan plan = Plan(TwoTier(), files, vols);
  EXPECT_TRUE(plan.moves.empty());
  EXPECT_EQ(Paths(plan.skipped), std::vector<std::string>{"/hdd/c"});
  // The factor is the planner's option: at 1.2 the same candidate displaces r1.
  plan = Plan(TwoTier(), files, vols, PlanOptions{.swap_hysteresis = 1.2});
  EXPECT_EQ(Paths(plan.moves), (std::vector<std::string>{"/ssd/r1", "/hdd/c"}));
  // So is the policy's SwapHysteresis.
  PlacementPolicy p = MustLoad(PolicyXml(TwoTier(), "SwapHysteresis=\"1.2\""));
  EXPECT_DOUBLE_EQ(p.swap_hysteresis, 1.2);
  EXPECT_EQ(Paths(PlanScan(p, files, vols, ActivityTotals{}, kNow).moves),
            (std::vector<std::string>{"/ssd/r1", "/hdd/c"}));
  // And the next scan does not swap them back: r1 (1) is not > 1.25 * 1.24.
  files.back().volume_id = 1;
  files.front().volume_id = 2;
  EXPECT_TRUE(Plan(TwoTier(), files, vols).moves.empty());
}

TEST(Swap, WithoutPreferHighOrWithSwapOffNothingIsDisplaced) {
  std::vector<VolumeState> vols{Volume(1, "ssd", 100, 0), Volume(2, "hdd", 1000, 500)};
  std::vector<FileRecord> files = FullSsd();
  files.push_back(Hot(1, "/hdd/c", 10, 2, 50));
  EXPECT_TRUE(Plan(TwoTier(), files, vols, PlanOptions{.swap = false}).moves.empty());
  std::string no_prefer = TwoTier();
  no_prefer.replace(no_prefer.find(" Prefer=\"high\""), 14, "");
  EXPECT_TRUE(Plan(no_prefer, files, vols).moves.empty());
}

TEST(Swap, NothingIsSwappedIntoAVolumeThatTakesNoData) {
  // A full ssd volume that also refuses new data (VolumeState::accepts_data):
  // displacing residents would not make room, so none is displaced.
  std::vector<VolumeState> vols{Volume(1, "ssd", 100, 0), Volume(2, "hdd", 1000, 500)};
  vols[0].accepts_data = false;
  std::vector<FileRecord> files = FullSsd();
  files.push_back(Hot(1, "/hdd/c", 10, 2, 50));
  ScanPlan plan = Plan(TwoTier(), files, vols);
  EXPECT_TRUE(plan.moves.empty());
  EXPECT_EQ(Paths(plan.skipped), std::vector<std::string>{"/hdd/c"});
  // Nor out to a destination that refuses data: with hdd refusing, the
  // resident has nowhere to go and the candidate waits.
  vols[0].accepts_data = true;
  vols[1].accepts_data = false;
  plan = Plan(TwoTier(), files, vols);
  EXPECT_TRUE(plan.moves.empty());
  EXPECT_EQ(Paths(plan.skipped), std::vector<std::string>{"/hdd/c"});
}

TEST(Swap, TheClassFillsToItsLimitAndNoFurther) {
  // ssd 100 bytes with PERCENT 50; 60 used by six residents (over the limit).
  std::vector<VolumeState> vols{Volume(1, "ssd", 100, 40), Volume(2, "hdd", 1000, 500)};
  std::vector<FileRecord> files;
  for (int i = 1; i <= 6; ++i) {
    files.push_back(Hot(100 + i, "/ssd/r" + std::to_string(i), 10, 1, i));
  }
  files.push_back(Hot(1, "/hdd/big", 20, 2, 100));
  ScanPlan plan = Plan(TwoTier("<PERCENT>50</PERCENT>"), files, vols);
  // 60 - r1 - r2 - r3 + 20 = 50: three residents go out for the 20-byte file.
  EXPECT_EQ(PathsWhere(plan.moves, PlannedMove::kSwapOut),
            (std::set<std::string>{"/ssd/r1", "/ssd/r2", "/ssd/r3"}));
  EXPECT_EQ(PathsWhere(plan.moves, PlannedMove::kSwapIn), std::set<std::string>{"/hdd/big"});
  EXPECT_EQ(UsageOf(Apply(vols, plan), "ssd").used, 50u);
}

TEST(Swap, AllOrNothingWhenTheCandidateCannotBeFitted) {
  // A 30-byte candidate of 5 would need r1, r2 and r3 out, but r3 (100) is too hot.
  std::vector<VolumeState> vols{Volume(1, "ssd", 30, 0), Volume(2, "hdd", 1000, 500)};
  std::vector<FileRecord> files{Hot(101, "/ssd/r1", 10, 1, 1), Hot(102, "/ssd/r2", 10, 1, 2),
                                Hot(103, "/ssd/r3", 10, 1, 100), Hot(1, "/hdd/big", 30, 2, 5),
                                Hot(2, "/hdd/small", 10, 2, 4)};
  ScanPlan plan = Plan(TwoTier(), files, vols);
  // The big one fails and displaces nothing; the smaller, cooler one still swaps with r1.
  EXPECT_EQ(Paths(plan.moves), (std::vector<std::string>{"/ssd/r1", "/hdd/small"}));
  EXPECT_EQ(Paths(plan.skipped), std::vector<std::string>{"/hdd/big"});
}

TEST(Swap, PinnedResidentsStayAndDisplacedOnesGoWhereTheirRuleAllows) {
  // Three classes. "pin" keeps *.db on ssd whatever its heat; "arch" files
  // may live on ssd or archive; the rest ("tier") on ssd or hdd.
  const char* rules = R"(<RULE Flags="data" Name="pin"><SELECT><PATTERN>*.db</PATTERN></SELECT>
  <RELOCATE><TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO></RELOCATE></RULE>
<RULE Flags="data" Name="arch"><SELECT><PATTERN>*.old</PATTERN></SELECT>
  <RELOCATE><FROM><SOURCE><CLASS>ssd</CLASS></SOURCE></FROM>
    <TO><DESTINATION><CLASS>archive</CLASS></DESTINATION></TO>
    <WHEN><ACCAGE Units="days"><MIN Flags="gt">1000</MIN></ACCAGE></WHEN></RELOCATE></RULE>
<RULE Flags="data" Name="tier"><SELECT><PATTERN>*.dat</PATTERN></SELECT>
  <RELOCATE><TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO>
    <WHEN><IOTEMP Type="nrbytes" Prefer="high"><MIN Flags="gteq">1</MIN><PERIOD Units="hours">1</PERIOD></IOTEMP></WHEN>
  </RELOCATE></RULE>)";
  std::vector<VolumeState> vols{Volume(1, "ssd", 30, 0), Volume(2, "hdd", 1000, 500),
                                Volume(3, "archive", 1000, 500)};
  std::vector<FileRecord> files{Hot(1, "/a.db", 10, 1, 0), Hot(2, "/b.old", 10, 1, 0),
                                Hot(3, "/c.txt", 10, 1, 0),  // governed by no rule
                                Hot(4, "/hot1.dat", 10, 2, 9), Hot(5, "/hot2.dat", 10, 2, 8),
                                Hot(6, "/hot3.dat", 10, 2, 7)};
  files[0].atime_s = files[1].atime_s = files[2].atime_s = kNow;
  ScanPlan plan = Plan(rules, files, vols);
  EXPECT_EQ(PathsWhere(plan.moves, PlannedMove::kSwapOut),
            (std::set<std::string>{"/b.old", "/c.txt"}));
  EXPECT_EQ(PathsWhere(plan.moves, PlannedMove::kSwapIn),
            (std::set<std::string>{"/hot1.dat", "/hot2.dat"}));
  EXPECT_EQ(Paths(plan.skipped), std::vector<std::string>{"/hot3.dat"});
  for (const PlannedMove& m : plan.moves) {
    if (m.path == "/b.old") {
      EXPECT_EQ(m.to_class, "archive");  // its own rule's class
    } else if (m.path == "/c.txt") {
      EXPECT_EQ(m.to_class, "hdd");  // where the candidate came from
    }
  }
}

// Property: with equal-size files the planned ssd set equals a reference
// greedy written from the documented semantics: evacuations and free slots
// take the hottest candidates, then the k-th next hottest candidate
// displaces the k-th coldest resident while it is hotter by the factor.
TEST(Swap, PropertyMatchesAGreedyReferenceOnRandomTables) {
  std::mt19937 rng(20261123);
  for (int round = 0; round < 300; ++round) {
    const int on_ssd = static_cast<int>(rng() % 12);
    const int on_hdd = static_cast<int>(rng() % 12);
    const int free_slots = static_cast<int>(rng() % 3);
    std::uniform_real_distribution<double> temp(0, 20);
    std::vector<FileRecord> files;
    std::vector<double> residents, candidates;
    int slots = free_slots;
    for (int i = 0; i < on_ssd + on_hdd; ++i) {
      const bool ssd = i < on_ssd;
      double t = temp(rng);
      files.push_back(Hot(1 + i, "/f" + std::to_string(100 + i), 10, ssd ? 1 : 2, t));
      if (ssd && t < 1) ++slots;  // evacuated by RELOCATE 1
      if (ssd && t >= 1) residents.push_back(t);
      if (!ssd && t >= 1) candidates.push_back(t);
    }
    std::vector<VolumeState> vols{
        Volume(1, "ssd", 10 * (on_ssd + free_slots), 10 * free_slots),
        Volume(2, "hdd", 1000, 800)};
    std::sort(candidates.rbegin(), candidates.rend());
    std::sort(residents.begin(), residents.end());
    std::set<double> expect_on_ssd(residents.begin(), residents.end());
    size_t c = 0;
    for (; c < candidates.size() && static_cast<int>(c) < slots; ++c) {
      expect_on_ssd.insert(candidates[c]);
    }
    for (size_t r = 0; c < candidates.size() && r < residents.size(); ++c, ++r) {
      if (!(candidates[c] > kDefaultSwapHysteresis * residents[r])) break;
      expect_on_ssd.erase(residents[r]);
      expect_on_ssd.insert(candidates[c]);
    }

    ScanPlan plan = Plan(TwoTier(), files, vols);
    std::set<double> on;
    for (const FileRecord& f : files) {
      uint32_t vol = f.volume_id;
      for (const PlannedMove& m : plan.moves) {
        if (m.ino == f.ino) vol = m.to_volume;
      }
      if (vol == 1) on.insert(f.windows[0].rbytes / 4096);
    }
    ASSERT_EQ(on, expect_on_ssd) << "round " << round;
    // The plan never overfills ssd, in the end or on the way (execution order).
    std::vector<VolumeState> sim = vols;
    for (const PlannedMove& m : plan.moves) {
      for (VolumeState& v : sim) {
        if (v.id == m.to_volume) {
          ASSERT_GE(v.free_bytes, m.bytes) << "round " << round << " " << m.path;
          v.free_bytes -= m.bytes;
        }
        if (v.id == m.from_volume) v.free_bytes += m.bytes;
      }
    }
  }
}

}  // namespace
}  // namespace tierfs::policy
