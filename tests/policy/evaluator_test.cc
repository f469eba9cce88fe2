// EvaluateFile: rule and statement choice and criteria (docs/policies.md
// "Rules", "WHEN criteria" and "Temperatures").
#include "policy/evaluator.h"

#include <gtest/gtest.h>

#include "tests/policy/test_util.h"

namespace tierfs::policy {
namespace {

using testing::File;
using testing::kHour;
using testing::kMiB;
using testing::MustLoad;
using testing::PolicyXml;

constexpr int64_t kNow = 1'000'000 * kHour;

class EvaluatorTest : public ::testing::Test {
 protected:
  std::vector<VolumeState> volumes_{testing::Volume(1, "ssd", 100 * kMiB, 50 * kMiB),
                                    testing::Volume(2, "hdd", 1000 * kMiB, 500 * kMiB)};
  ActivityTotals totals_;

  FileVerdict Eval(const PlacementPolicy& p, const FileRecord& f) {
    return EvaluateFile(p, f, volumes_, totals_, kNow);
  }
};

TEST_F(EvaluatorTest, NoRuleMeansNoAction) {
  PlacementPolicy p = MustLoad(
      PolicyXml(R"(<RULE Flags="data" Name="r"><SELECT><PATTERN>*.log</PATTERN></SELECT></RULE>)"));
  FileVerdict v = Eval(p, File(1, "/a.txt", 10, 2));
  EXPECT_EQ(v.rule_index, -1);
  EXPECT_EQ(v.rule, "");
  EXPECT_EQ(v.action, FileVerdict::kNone);
  EXPECT_EQ(v.statement_index, -1);
}

TEST_F(EvaluatorTest, FirstSelectingRuleGovernsEvenIfItDoesNothing) {
  // docs/policies.md "Rules": the early .dat/30-day rule shadows the later .dat/size rule.
  PlacementPolicy p = MustLoad(PolicyXml(R"(<RULE Flags="data" Name="old_dat">
  <SELECT><PATTERN>*.dat</PATTERN></SELECT>
  <RELOCATE><TO><DESTINATION><CLASS>hdd</CLASS></DESTINATION></TO>
    <WHEN><ACCAGE Units="days"><MIN Flags="gt">30</MIN></ACCAGE></WHEN></RELOCATE>
</RULE>
<RULE Flags="data" Name="big_dat">
  <SELECT><PATTERN>*.dat</PATTERN></SELECT>
  <RELOCATE><TO><DESTINATION><CLASS>hdd</CLASS></DESTINATION></TO>
    <WHEN><SIZE Units="MB"><MIN Flags="gt">1</MIN></SIZE></WHEN></RELOCATE>
</RULE>)"));
  FileRecord f = File(1, "/x.dat", 10 * kMiB, 1);
  f.atime_s = kNow - 2 * 24 * kHour;  // two days: too young for old_dat
  FileVerdict v = Eval(p, f);
  EXPECT_EQ(v.rule_index, 0);
  EXPECT_EQ(v.rule, "old_dat");
  EXPECT_EQ(v.action, FileVerdict::kNone);
  f.atime_s = kNow - 31 * 24 * kHour;
  v = Eval(p, f);
  EXPECT_EQ(v.action, FileVerdict::kRelocate);
  EXPECT_EQ(v.statement, "RELOCATE 1");
  EXPECT_EQ(v.to_classes, std::vector<std::string>{"hdd"});
}

TEST_F(EvaluatorTest, FirstSatisfiedStatementDecidesSoALaterDeleteIsNeverReached) {
  PlacementPolicy p = MustLoad(PolicyXml(R"(<RULE Flags="data" Name="r">
  <SELECT/>
  <RELOCATE><TO><DESTINATION><CLASS>hdd</CLASS></DESTINATION></TO>
    <WHEN><ACCAGE Units="days"><MIN Flags="gt">30</MIN></ACCAGE></WHEN></RELOCATE>
  <DELETE><WHEN><ACCAGE Units="days"><MIN Flags="gt">90</MIN></ACCAGE></WHEN></DELETE>
</RULE>)"));
  FileRecord f = File(1, "/x", 10, 1);
  f.atime_s = kNow - 100 * 24 * kHour;
  EXPECT_EQ(Eval(p, f).action, FileVerdict::kRelocate);
  f.volume_id = 2;  // already on hdd: the RELOCATE still decides (stay), DELETE never runs
  FileVerdict v = Eval(p, f);
  EXPECT_EQ(v.action, FileVerdict::kStay);
  EXPECT_EQ(v.statement, "RELOCATE 1");
  EXPECT_EQ(v.statement_index, 0);
}

TEST_F(EvaluatorTest, FromMismatchFallsThroughToTheNextStatement) {
  PlacementPolicy p = MustLoad(PolicyXml(R"(<RULE Flags="data" Name="r">
  <SELECT/>
  <DELETE><FROM><SOURCE><CLASS>hdd</CLASS></SOURCE></FROM>
    <WHEN><MODAGE Units="hours"><MIN Flags="gteq">10</MIN></MODAGE></WHEN></DELETE>
  <RELOCATE><FROM><SOURCE><CLASS>ssd</CLASS></SOURCE></FROM>
    <TO><DESTINATION><CLASS>hdd</CLASS></DESTINATION></TO></RELOCATE>
</RULE>)"));
  FileRecord f = File(1, "/x", 10, 2);
  f.mtime_s = kNow - 10 * kHour;
  FileVerdict v = Eval(p, f);
  EXPECT_EQ(v.action, FileVerdict::kDelete);
  EXPECT_EQ(v.statement, "DELETE 1");
  EXPECT_TRUE(v.to_classes.empty());
  f.volume_id = 1;  // on ssd: not in the DELETE's FROM
  v = Eval(p, f);
  EXPECT_EQ(v.action, FileVerdict::kRelocate);
  EXPECT_EQ(v.statement, "RELOCATE 1");
  EXPECT_EQ(v.statement_index, 1);
  f.volume_id = 2;
  f.mtime_s = kNow - 9 * kHour;  // too young to delete, and not on ssd
  EXPECT_EQ(Eval(p, f).action, FileVerdict::kNone);
  f.volume_id = 77;  // unknown volume: no FROM can match
  EXPECT_EQ(Eval(p, f).action, FileVerdict::kNone);
}

TEST_F(EvaluatorTest, VolumesWithSeveralClasses) {
  volumes_.push_back(VolumeState{3, "vol3", {"fast", "ssd"}, 10, 10, 0});
  PlacementPolicy p = MustLoad(PolicyXml(R"(<RULE Flags="data" Name="r">
  <SELECT/>
  <RELOCATE><FROM><SOURCE><CLASS>fast</CLASS></SOURCE></FROM>
    <TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO></RELOCATE>
</RULE>)"));
  EXPECT_EQ(Eval(p, File(1, "/x", 1, 3)).action, FileVerdict::kStay);
}

TEST_F(EvaluatorTest, SizeAndAgeUnits) {
  PlacementPolicy p = MustLoad(PolicyXml(R"(<RULE Flags="data" Name="r">
  <SELECT/>
  <DELETE><WHEN>
    <SIZE Units="KB"><MIN Flags="gteq">1.5</MIN><MAX Flags="lt">2</MAX></SIZE>
    <ACCAGE Units="hours"><MAX Flags="lteq">1.5</MAX></ACCAGE>
    <MODAGE Units="days"><MIN Flags="eq">2</MIN></MODAGE>
  </WHEN></DELETE>
</RULE>)"));
  FileRecord f = File(1, "/x", 1536, 2);
  f.atime_s = kNow - 5400;           // 1.5 hours
  f.mtime_s = kNow - 48 * kHour;     // exactly 2 days
  EXPECT_EQ(Eval(p, f).action, FileVerdict::kDelete);
  FileRecord g = f;
  g.size = 2048;                     // not < 2 KB
  EXPECT_EQ(Eval(p, g).action, FileVerdict::kNone);
  g = f;
  g.atime_s -= 1;                    // accessed a second too long ago
  EXPECT_EQ(Eval(p, g).action, FileVerdict::kNone);
  g = f;
  g.mtime_s -= 1;                    // no longer exactly 2 days
  EXPECT_EQ(Eval(p, g).action, FileVerdict::kNone);
  g = f;
  g.size = 1535;
  EXPECT_EQ(Eval(p, g).action, FileVerdict::kNone);
}

TEST_F(EvaluatorTest, TemperaturesUseTheirWindowAndReportTheFirstPreferCriterion) {
  PlacementPolicy p = MustLoad(PolicyXml(R"(<RULE Flags="data" Name="r">
  <SELECT/>
  <RELOCATE><TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO><WHEN>
    <ACCESSTEMP Type="nrws"><MIN Flags="gteq">2</MIN><PERIOD Units="hours">3</PERIOD></ACCESSTEMP>
    <IOTEMP Type="nrbytes" Prefer="high"><MIN Flags="gt">1</MIN><PERIOD Units="hours">6</PERIOD></IOTEMP>
  </WHEN></RELOCATE>
</RULE>)"));
  ASSERT_EQ(p.WindowHours(), (std::vector<double>{3, 6}));
  FileRecord f = File(1, "/x", kMiB, 2);
  f.windows = {IoCounters{0, 0, 4, 2}, IoCounters{12.0 * kMiB, 0, 0, 0}};
  FileVerdict v = Eval(p, f);
  EXPECT_EQ(v.action, FileVerdict::kRelocate);
  EXPECT_DOUBLE_EQ(v.temperature, 2.0);  // 12 MiB / (6 h x 1 MiB)
  EXPECT_EQ(v.temperature_kind, "IOTEMP nrbytes 6h");
  f.windows[0].wops = 1;  // 5 calls in 3 h < 2 per hour
  EXPECT_EQ(Eval(p, f).action, FileVerdict::kNone);
  f.windows.clear();  // no I/O recorded at all
  EXPECT_EQ(Eval(p, f).action, FileVerdict::kNone);
}

TEST_F(EvaluatorTest, WithoutPreferTheFirstTemperatureIsReported) {
  PlacementPolicy p = MustLoad(PolicyXml(R"(<RULE Flags="data" Name="r">
  <SELECT/>
  <RELOCATE><TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO><WHEN>
    <SIZE Units="bytes"><MIN Flags="gt">0</MIN></SIZE>
    <ACCESSTEMP Type="nwrites"><MAX Flags="lt">100</MAX><PERIOD Units="days">0.5</PERIOD></ACCESSTEMP>
  </WHEN></RELOCATE>
</RULE>)"));
  FileRecord f = File(1, "/x", 10, 2);
  f.windows = {IoCounters{0, 0, 0, 24}};
  FileVerdict v = Eval(p, f);
  EXPECT_DOUBLE_EQ(v.temperature, 2.0);
  EXPECT_EQ(v.temperature_kind, "ACCESSTEMP nwrites 12h");
}

TEST_F(EvaluatorTest, AverageThresholdsAreMultiplesOfTheFileSystemAverage) {
  PlacementPolicy p = MustLoad(PolicyXml(R"(<RULE Flags="data" Name="r">
  <SELECT/>
  <RELOCATE><FROM><SOURCE><CLASS>ssd</CLASS></SOURCE></FROM>
    <TO><DESTINATION><CLASS>hdd</CLASS></DESTINATION></TO><WHEN>
    <IOTEMP Type="nrbytes" Average="*"><MAX Flags="lt">0.5</MAX><PERIOD Units="hours">6</PERIOD></IOTEMP>
  </WHEN></RELOCATE>
  <RELOCATE><TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO><WHEN>
    <IOTEMP Type="nrbytes" Average="*" Prefer="high"><MIN Flags="gteq">1.5</MIN><PERIOD Units="hours">6</PERIOD></IOTEMP>
  </WHEN></RELOCATE>
</RULE>)", R"(AveragePeriod="12")"));
  ASSERT_EQ(p.WindowHours(), (std::vector<double>{6, 12}));
  // Average read IOTEMP over 12 h: 24 MiB / (12 h x 2 MiB) = 1.
  totals_.io.rbytes = 24.0 * kMiB;
  totals_.size_sum = 2.0 * kMiB;
  totals_.active_files = 2;
  FileRecord f = File(1, "/x", kMiB, 2);
  f.windows = {IoCounters{9.0 * kMiB, 0, 0, 0}, IoCounters{}};  // 6-h IOTEMP 1.5 = 1.5 x avg
  FileVerdict v = Eval(p, f);
  EXPECT_EQ(v.action, FileVerdict::kRelocate);
  EXPECT_EQ(v.statement, "RELOCATE 2");
  EXPECT_EQ(v.temperature_kind, "IOTEMP nrbytes 6h x1.50 avg");
  f.windows[0].rbytes = 8.9 * kMiB;
  EXPECT_EQ(Eval(p, f).action, FileVerdict::kNone);
  f.volume_id = 1;
  f.windows[0].rbytes = 2.9 * kMiB;  // 0.483 x avg: evacuate
  v = Eval(p, f);
  EXPECT_EQ(v.action, FileVerdict::kRelocate);
  EXPECT_EQ(v.statement, "RELOCATE 1");
  f.windows[0].rbytes = 3.0 * kMiB;  // exactly 0.5 x avg: not < 0.5
  EXPECT_EQ(Eval(p, f).action, FileVerdict::kNone);  // and far below 1.5 x avg
  f.windows[0].rbytes = 20.0 * kMiB;  // hot and already on ssd: stays
  v = Eval(p, f);
  EXPECT_EQ(v.action, FileVerdict::kStay);
  EXPECT_EQ(v.statement, "RELOCATE 2");
}

TEST_F(EvaluatorTest, NoActivityMakesAverageMinFalseAndMaxTrue) {
  PlacementPolicy p = MustLoad(PolicyXml(R"(<RULE Flags="data" Name="r">
  <SELECT/>
  <RELOCATE><TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO><WHEN>
    <ACCESSTEMP Type="nreads" Average="*"><MIN Flags="gteq">0</MIN><PERIOD>1</PERIOD></ACCESSTEMP>
  </WHEN></RELOCATE>
  <RELOCATE><TO><DESTINATION><CLASS>hdd</CLASS></DESTINATION></TO><WHEN>
    <ACCESSTEMP Type="nreads" Average="*"><MAX Flags="lt">0</MAX><PERIOD>1</PERIOD></ACCESSTEMP>
  </WHEN></RELOCATE>
</RULE>)"));
  FileRecord f = File(1, "/x", 10, 1);
  FileVerdict v = Eval(p, f);  // totals_ is empty: average 0
  EXPECT_EQ(v.statement, "RELOCATE 2");
  EXPECT_EQ(v.action, FileVerdict::kRelocate);
  EXPECT_EQ(v.temperature_kind, "ACCESSTEMP nreads 24h avg 0");
}

TEST_F(EvaluatorTest, CheckpointRulesNeverGovern) {
  PlacementPolicy p = MustLoad(PolicyXml(R"(<RULE Flags="ckpt" Name="c"><SELECT/>
  <DELETE/></RULE>)"));
  EXPECT_EQ(Eval(p, File(1, "/x", 1, 1)).rule_index, -1);
}

TEST_F(EvaluatorTest, EvaluatorObjectMatchesEvaluateFile) {
  PlacementPolicy p = MustLoad(PolicyXml(R"(<RULE Flags="data" Name="r"><SELECT/>
  <RELOCATE><TO><DESTINATION><CLASS>hdd</CLASS></DESTINATION></TO></RELOCATE></RULE>)"));
  Evaluator ev(p, volumes_, totals_, kNow);
  EXPECT_EQ(ev.FindVolume(2)->name, "vol2");
  EXPECT_EQ(ev.FindVolume(9), nullptr);
  EXPECT_EQ(ev.Evaluate(File(1, "/x", 1, 1)).action, FileVerdict::kRelocate);
  EXPECT_EQ(ev.Evaluate(File(1, "/x", 1, 2)).action, FileVerdict::kStay);
}

TEST_F(EvaluatorTest, WrongNumberOfWindowsAborts) {
  PlacementPolicy p = MustLoad(PolicyXml(R"(<RULE Flags="data" Name="r"><SELECT/>
  <RELOCATE><TO><DESTINATION><CLASS>hdd</CLASS></DESTINATION></TO><WHEN>
    <IOTEMP Type="nrbytes"><MIN Flags="gt">1</MIN><PERIOD>1</PERIOD></IOTEMP>
  </WHEN></RELOCATE></RULE>)"));
  FileRecord f = File(1, "/x", 1, 1);
  f.windows.resize(2);
  EXPECT_DEATH(Eval(p, f), "has 2 I/O windows, the policy needs 1");
}

}  // namespace
}  // namespace tierfs::policy
