// The vendor templates and the mkdstfs default policy, verbatim from the
// Veritas SSD paper (tests/policy/data/): they validate cleanly, load into
// the expected model, and behave as the paper describes over two simulated
// days of hourly scans.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "policy/loader.h"
#include "tests/policy/simulation.h"
#include "tests/policy/test_util.h"

namespace tierfs::policy {
namespace {

using testing::kGiB;
using testing::kMiB;
using testing::ReadTestData;
using testing::Simulation;

LoadResult LoadData(const std::string& name) { return LoadPolicy(ReadTestData(name)); }

TEST(Templates, AllValidateWithoutErrorsOrWarnings) {
  for (const char* name : {"mkdstfs_default.xml", "ssd_read_intensive_template.xml",
                           "ssd_dbdata_and_index_template.xml", "ssd_dblog_and_tmp_template.xml"}) {
    LoadResult r = LoadData(name);
    EXPECT_TRUE(r.ok()) << name << "\n" << testing::Dump(r);
    EXPECT_TRUE(r.warnings.empty()) << name << "\n" << testing::Dump(r);
  }
}

// Every PERIOD of the templates and of the shipped examples is at least 3 hours,
// so they assign on a default file system (3600 s buckets).
TEST(Templates, TemplatesAndExamplesFitTheDefaultHeatBucket) {
  std::vector<std::string> texts;
  for (const char* name : {"mkdstfs_default.xml", "ssd_read_intensive_template.xml",
                           "ssd_dbdata_and_index_template.xml", "ssd_dblog_and_tmp_template.xml"}) {
    texts.push_back(ReadTestData(name));
  }
  for (const char* name : {"hot_reads.xml", "shifting_hot_set.xml", "online_hot_set.xml",
                           "cold_tree_to_store.xml"}) {
    std::ifstream in(std::string(TIERFS_SOURCE_DIR) + "/docs/examples/" + name);
    ASSERT_TRUE(in) << name;
    std::stringstream text;
    text << in.rdbuf();
    texts.push_back(text.str());
  }
  for (const std::string& text : texts) {
    LoadResult r = LoadPolicy(text);
    ASSERT_TRUE(r.ok()) << testing::Dump(r);
    CheckHeatResolution(*r.policy, 3600, &r);
    EXPECT_TRUE(r.ok()) << testing::Dump(r);
  }
  // The read-intensive template's 3-hour PERIODs need buckets of 3 hours at most.
  LoadResult r = LoadData("ssd_read_intensive_template.xml");
  CheckHeatResolution(*r.policy, 4 * 3600, &r);
  EXPECT_FALSE(r.ok());
}

TEST(Templates, MkdstfsDefaultModel) {
  PlacementPolicy p = *LoadData("mkdstfs_default.xml").policy;
  EXPECT_EQ(p.name, "IOTEMP_Policy");
  EXPECT_EQ(p.version, "5.1");
  ASSERT_EQ(p.rules.size(), 1u);
  EXPECT_EQ(p.rules[0].name, "ssdfs_policy");
  EXPECT_EQ(p.rules[0].selects[0].patterns[0].glob, "*");  // "<PATTERN> * </PATTERN>"
  ASSERT_EQ(p.rules[0].create->destinations.size(), 2u);
  EXPECT_EQ(p.rules[0].create->destinations[0].class_name, "hdd");
  EXPECT_EQ(p.rules[0].create->destinations[1].class_name, "ssdmetadata");
  EXPECT_FALSE(p.rules[0].create->any);
  EXPECT_TRUE(p.rules[0].statements.empty());
}

TEST(Templates, ReadIntensiveModel) {
  PlacementPolicy p = *LoadData("ssd_read_intensive_template.xml").policy;
  EXPECT_EQ(p.version, "5.0");
  EXPECT_EQ(p.WindowHours(), (std::vector<double>{3, 6, 24}));
  const Rule& r = p.rules.at(0);
  EXPECT_EQ(r.name, "all_files");
  EXPECT_TRUE(r.create->any);
  ASSERT_EQ(r.statements.size(), 3u);
  const Criterion& w = r.statements[0].criteria.at(0);
  EXPECT_EQ(r.statements[0].from_classes.at(0).value, "ssdtier");
  EXPECT_EQ(w.type, TempType::kNwBytes);
  EXPECT_EQ(w.min->flag, MinFlag::kGt);
  EXPECT_DOUBLE_EQ(w.min->value, 1.5);
  EXPECT_TRUE(w.average);
  EXPECT_DOUBLE_EQ(w.period_hours, 3);
  EXPECT_EQ(r.statements[1].criteria.at(0).max->flag, MaxFlag::kLt);
  const Statement& in = r.statements[2];
  EXPECT_TRUE(in.from_classes.empty());
  EXPECT_EQ(in.to_classes.at(0).class_name, "ssdtier");
  ASSERT_EQ(in.criteria.size(), 2u);  // two IOTEMPs in one WHEN
  EXPECT_EQ(in.OrderingPrefer(), Prefer::kHigh);
  EXPECT_EQ(in.criteria[1].type, TempType::kNwBytes);
}

TEST(Templates, DbdataAndDblogModels) {
  PlacementPolicy db = *LoadData("ssd_dbdata_and_index_template.xml").policy;
  ASSERT_EQ(db.rules.size(), 2u);
  EXPECT_EQ(db.rules[0].selects[0].patterns[0].glob, "file_name_pattern_of_index_files");
  EXPECT_EQ(db.rules[0].statements[1].criteria[0].kind, CriterionKind::kAccessTemp);
  EXPECT_EQ(db.rules[0].statements[1].criteria[0].type, TempType::kNrws);
  EXPECT_EQ(db.rules[1].name, "rest_of_the_files_including_data_files");
  EXPECT_EQ(db.rules[1].statements[0].criteria[0].type, TempType::kNrwBytes);
  PlacementPolicy log = *LoadData("ssd_dblog_and_tmp_template.xml").policy;
  ASSERT_EQ(log.rules.size(), 1u);
  EXPECT_FALSE(log.rules[0].create.has_value());
  ASSERT_EQ(log.rules[0].statements.size(), 1u);
  EXPECT_TRUE(log.rules[0].statements[0].criteria.empty());  // unconditional
  EXPECT_TRUE(log.WindowHours().empty());
}

// Read-intensive template over 48 hourly scans. All files are 4 MiB.
//   steady_hot    read 40 MiB/h throughout                -> in once, stays
//   background_N  read 1 MiB/h throughout (the average)   -> never moves
//   cold_N        idle, created on ssdtier                -> evacuated at once
//   cools         read 40 MiB/h until hour 16, then idle  -> in, out ~6 h later, stays out
//   gets_written  read 40 MiB/h; writes 20 MiB/h from 24  -> in, out at once when written
//   late_hot      idle until hour 30, then 40 MiB/h read  -> in within 3 h
TEST(TemplateBehaviour, ReadIntensiveMovesHotFilesInAndCoolingOrWrittenFilesOut) {
  PlacementPolicy p = *LoadData("ssd_read_intensive_template.xml").policy;
  Simulation sim(p, {VolumeState{1, "ssd1", {"ssdtier"}, 64 * kMiB, 64 * kMiB, 0},
                     VolumeState{2, "hdd1", {"nonssdtier"}, 10 * kGiB, 10 * kGiB, 0}});
  const uint64_t size = 4 * kMiB;
  sim.AddFile("/data/steady_hot", size, 2, testing::Reads(40));
  for (int i = 0; i < 10; ++i) {
    sim.AddFile("/data/background_" + std::to_string(i), size, 2, testing::Reads(1));
  }
  for (int i = 0; i < 4; ++i) {
    sim.AddFile("/data/cold_" + std::to_string(i), size, 1, testing::Idle());
  }
  sim.AddFile("/data/cools", size, 2, testing::Reads(40, 0, 16));
  sim.AddFile("/data/gets_written", size, 2,
              testing::Both(testing::Reads(40), testing::Writes(20, 24)));
  sim.AddFile("/data/late_hot", size, 2, testing::Reads(40, 30));
  for (int h = 0; h < 48; ++h) sim.Step();

  EXPECT_EQ(sim.FirstOn("/data/steady_hot", "ssdtier"), 0);
  EXPECT_EQ(sim.Moves("/data/steady_hot"), 1);  // no thrashing
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(sim.Moves("/data/background_" + std::to_string(i)), 0);
  }
  for (int i = 0; i < 4; ++i) {
    std::string cold = "/data/cold_" + std::to_string(i);
    EXPECT_EQ(sim.Timeline(cold).front(), "nonssdtier") << cold;
    EXPECT_EQ(sim.Moves(cold), 1) << cold;
  }
  // cools: in at once, still in at hour 18, out by hour 16 + 6, never back.
  const auto& cools = sim.Timeline("/data/cools");
  EXPECT_EQ(cools[0], "ssdtier");
  EXPECT_EQ(cools[17], "ssdtier");  // a 6-hour window keeps it in for a while
  EXPECT_EQ(cools[22], "nonssdtier");
  EXPECT_EQ(sim.Moves("/data/cools"), 2);
  // gets_written: in, then out at the first scan after writes start.
  const auto& written = sim.Timeline("/data/gets_written");
  EXPECT_EQ(written[0], "ssdtier");
  EXPECT_EQ(written[23], "ssdtier");
  EXPECT_EQ(written[24], "nonssdtier");
  EXPECT_EQ(sim.Moves("/data/gets_written"), 2);
  // late_hot: in within three scans of heating up, then stays.
  int in = sim.FirstOn("/data/late_hot", "ssdtier");
  EXPECT_GE(in, 30);
  EXPECT_LE(in, 32);
  EXPECT_EQ(sim.Moves("/data/late_hot"), 1);
}

TEST(TemplateBehaviour, ReadIntensivePrefersTheHottestWhenSsdIsSmall) {
  PlacementPolicy p = *LoadData("ssd_read_intensive_template.xml").policy;
  // Room for two 4 MiB files on ssd.
  Simulation sim(p, {VolumeState{1, "ssd1", {"ssdtier"}, 8 * kMiB, 8 * kMiB, 0},
                     VolumeState{2, "hdd1", {"nonssdtier"}, 10 * kGiB, 10 * kGiB, 0}});
  for (int i = 0; i < 10; ++i) {
    sim.AddFile("/bg_" + std::to_string(i), 4 * kMiB, 2, testing::Reads(1));
  }
  sim.AddFile("/hot_a", 4 * kMiB, 2, testing::Reads(20));
  sim.AddFile("/hot_b", 4 * kMiB, 2, testing::Reads(60));
  sim.AddFile("/hot_c", 4 * kMiB, 2, testing::Reads(40));
  ScanPlan first = sim.Step();
  ASSERT_EQ(first.moves.size(), 2u);
  EXPECT_EQ(first.moves[0].path, "/hot_b");
  EXPECT_EQ(first.moves[1].path, "/hot_c");
  ASSERT_EQ(first.skipped.size(), 1u);
  EXPECT_EQ(first.skipped[0].path, "/hot_a");
  EXPECT_EQ(first.skipped[0].skip_reason, "nospace");
  for (int h = 1; h < 24; ++h) sim.Step();
  EXPECT_EQ(sim.Moves("/hot_a"), 0);
  EXPECT_EQ(sim.Moves("/hot_b"), 1);
  EXPECT_EQ(sim.Moves("/hot_c"), 1);
}

// dbdata template with its fillers replaced by *.idx: index files follow
// ACCESSTEMP (calls), the rest IOTEMP (bytes).
TEST(TemplateBehaviour, DbdataMovesBusyIndexesAndDataFiles) {
  std::string xml = testing::ReplaceAll(ReadTestData("ssd_dbdata_and_index_template.xml"),
                                        "file_name_pattern_of_index_files", "*.idx");
  PlacementPolicy p = testing::MustLoad(xml);
  Simulation sim(p, {VolumeState{1, "ssd1", {"ssdtier"}, 1 * kGiB, 1 * kGiB, 0},
                     VolumeState{2, "hdd1", {"nonssdtier"}, 10 * kGiB, 10 * kGiB, 0}});
  // A big index read in many small calls: few bytes per byte of file.
  sim.AddFile("/db/orders.idx", 256 * kMiB, 2, testing::Reads(8, 0, 1 << 30, 20000));
  sim.AddFile("/db/old.idx", 16 * kMiB, 1, testing::Idle());
  for (int i = 0; i < 8; ++i) {
    sim.AddFile("/db/t" + std::to_string(i) + ".dbf", 64 * kMiB, 2,
                testing::Reads(8, 0, 1 << 30, 100));
  }
  sim.AddFile("/db/hot.dbf", 64 * kMiB, 2, testing::Reads(512, 0, 1 << 30, 500));
  for (int h = 0; h < 24; ++h) sim.Step();
  EXPECT_EQ(sim.FirstOn("/db/orders.idx", "ssdtier"), 0);
  EXPECT_EQ(sim.Moves("/db/orders.idx"), 1);
  EXPECT_EQ(sim.Timeline("/db/old.idx").front(), "nonssdtier");
  EXPECT_EQ(sim.FirstOn("/db/hot.dbf", "ssdtier"), 0);
  EXPECT_EQ(sim.Moves("/db/hot.dbf"), 1);
  EXPECT_EQ(sim.Moves("/db/t0.dbf"), 0);
}

// dblog template with its filler replaced by *.log: logs go to ssdtier
// unconditionally and stay; other files are governed by no rule.
TEST(TemplateBehaviour, DblogMovesLogsToSsdAndLeavesTheRest) {
  std::string xml = testing::ReplaceAll(ReadTestData("ssd_dblog_and_tmp_template.xml"),
                                        "file_name_pattern_of_relevant_files", "*.log");
  PlacementPolicy p = testing::MustLoad(xml);
  Simulation sim(p, {VolumeState{1, "ssd1", {"ssdtier"}, 1 * kGiB, 1 * kGiB, 0},
                     VolumeState{2, "hdd1", {"nonssdtier"}, 10 * kGiB, 10 * kGiB, 0}});
  sim.AddFile("/redo/redo01.log", 64 * kMiB, 2, testing::Writes(100));
  sim.AddFile("/redo/notes.txt", kMiB, 2, testing::Reads(100));
  sim.AddFile("/undo/undo.log", 64 * kMiB, 1, testing::Idle());
  ScanPlan first = sim.Step();
  ASSERT_EQ(first.moves.size(), 1u);
  EXPECT_EQ(first.moves[0].path, "/redo/redo01.log");
  EXPECT_EQ(first.moves[0].rule, "redo_or_undo_or_temp_files");
  ASSERT_EQ(first.stays.size(), 1u);
  EXPECT_EQ(first.stays[0].path, "/undo/undo.log");
  for (int h = 1; h < 12; ++h) {
    ScanPlan plan = sim.Step();
    EXPECT_TRUE(plan.moves.empty());
    EXPECT_EQ(plan.stays.size(), 2u);
  }
  EXPECT_EQ(sim.Moves("/redo/notes.txt"), 0);
}

}  // namespace
}  // namespace tierfs::policy
