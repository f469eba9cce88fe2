#include "cli/fsppadm/scan_report.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <time.h>

namespace tierfs::cli {
namespace {

using nlohmann::json;

// A scan result as the daemon sends it (fs/control/control_protocol.md "scan").
json SampleResult() {
  return json::parse(R"({
    "policy": "ssd_policy", "mode": "enforce", "started_ns": 1795341600000000000, "seconds": 1.5,
    "rows": [
      {"path": "/db/hot.dat", "ino": 12, "rule": "hot_in", "statement": "RELOCATE 2",
       "action": "relocate", "from_class": "hdd", "from_volume": "vol2", "to_class": "ssd",
       "to_volume": "vol1", "temperature": 3.2, "temperature_kind": "IOTEMP nrbytes 6h",
       "bytes": 1048576, "outcome": "moved",
       "atime_ns": 1795338900000000000, "mtime_ns": 1795249800000000000},
      {"path": "/logs/old.log", "ino": 13, "rule": "cold_out", "statement": "RELOCATE 1",
       "action": "relocate", "from_class": "ssd", "from_volume": "vol1", "to_class": "hdd",
       "to_volume": "", "temperature": 0.0012, "temperature_kind": "IOTEMP nwbytes 24h",
       "bytes": 4096, "outcome": "nospace",
       "atime_ns": 1795338900000000000, "mtime_ns": 1795249800000000000},
      {"path": "/tmp/scratch\tfile", "ino": 14, "rule": "cleanup", "statement": "DELETE 1",
       "action": "delete", "from_class": "hdd", "from_volume": "vol2", "to_class": "",
       "to_volume": "", "temperature": 0, "temperature_kind": "", "bytes": 10,
       "outcome": "error: Input/output error"}
    ],
    "summary": {"sweep_paths": ["/db", "/logs"], "files_scanned": 120, "files_moved": 1,
                "bytes_moved": 1048576, "files_skipped": {"nospace": 1, "busy": 0, "error": 1}},
    "classes": [
      {"class": "ssd", "size_bytes": 1073741824, "free_before": 536870912, "free_after": 535822336},
      {"class": "hdd", "size_bytes": 4294967296, "free_before": 1073741824, "free_after": 1074790400}
    ],
    "notes": ["-C: files without activity in the last 6 hours are not seen"]
  })");
}

class ReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tz = getenv("TZ");
    saved_tz_ = tz == nullptr ? "" : tz;
    had_tz_ = tz != nullptr;
    setenv("TZ", "UTC", 1);
    tzset();
  }
  void TearDown() override {
    if (had_tz_) {
      setenv("TZ", saved_tz_.c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
  }

 private:
  std::string saved_tz_;
  bool had_tz_ = false;
};

TEST_F(ReportTest, TextReportMatchesGolden) {
  ScanReportOptions options;
  options.mount_point = "/mnt/tier";
  // clang-format off
  const std::string golden =
      "Current Class  Current Volume  New Class  New Volume  Rule      Statement       Temp  Temp Type              Size  Outcome                    File\n"
      "hdd            vol2            ssd        vol1        hot_in    RELOCATE 2      3.20  IOTEMP nrbytes 6h   1048576  moved                      /mnt/tier/db/hot.dat\n"
      "ssd            vol1            hdd        -           cold_out  RELOCATE 1  1.20e-03  IOTEMP nwbytes 24h     4096  nospace                    /mnt/tier/logs/old.log\n"
      "hdd            vol2            -          -           cleanup   DELETE 1           -  -                        10  error: Input/output error  /mnt/tier/tmp/scratch?file\n"
      "\n"
      "Policy         : ssd_policy (enforce)\n"
      "Started        : 2026-11-22T10:00:00\n"
      "Sweep path     : /mnt/tier/db\n"
      "Sweep path     : /mnt/tier/logs\n"
      "Files scanned  : 120\n"
      "Files moved    : 1\n"
      "Bytes moved    : 1048576 (1.0M)\n"
      "Files skipped  : busy 0, error 1, nospace 1\n"
      "Time           : 1.50 s\n"
      "Note: -C: files without activity in the last 6 hours are not seen\n"
      "\n"
      "Class  Size (KB)  Free Before (KB)  Free After (KB)\n"
      "ssd      1048576            524288           523264\n"
      "hdd      4194304           1048576          1049600\n";
  // clang-format on
  EXPECT_EQ(FormatScanReport(SampleResult(), options), golden);
}

TEST_F(ReportTest, AClassOnAnObjectStoreShowsNoSize) {
  // The daemon sends no size for a class with an object volume (its capacity
  // is unknown), rather than the planner's 1 PiB of room.
  json result = SampleResult();
  result["classes"].push_back({{"class", "cloud"}, {"object_store", true}});
  ScanReportOptions options;
  options.mount_point = "/mnt/tier";
  const std::string text = FormatScanSummary(result, options);
  EXPECT_NE(text.find("hdd      4194304           1048576          1049600\n"
                      "cloud          -                 -                -\n"),
            std::string::npos)
      << text;
}

TEST_F(ReportTest, TimesColumnsWithA) {
  ScanReportOptions options;
  options.mount_point = "/mnt/tier";
  options.times = true;
  std::string rows = FormatScanRows(SampleResult(), options);
  EXPECT_NE(rows.find("Access Time          Modify Time          File\n"), std::string::npos)
      << rows;
  EXPECT_NE(rows.find("2026-11-22T09:15:00  2026-11-21T08:30:00  /mnt/tier/db/hot.dat"),
            std::string::npos)
      << rows;
}

TEST_F(ReportTest, ParsableReportMatchesGolden) {
  ScanReportOptions options;
  options.mount_point = "/mnt/tier";
  options.parsable = true;
  options.times = true;
  // clang-format off
  const std::string golden =
      "file\thdd\tvol2\tssd\tvol1\thot_in\tRELOCATE 2\t3.2\tIOTEMP nrbytes 6h\t1048576\tmoved\t1795338900\t1795249800\t/mnt/tier/db/hot.dat\n"
      "file\tssd\tvol1\thdd\t\tcold_out\tRELOCATE 1\t0.0012\tIOTEMP nwbytes 24h\t4096\tnospace\t1795338900\t1795249800\t/mnt/tier/logs/old.log\n"
      "file\thdd\tvol2\t-\t-\tcleanup\tDELETE 1\t\t\t10\terror: Input/output error\t\t\t/mnt/tier/tmp/scratch\\tfile\n"
      "summary\tpolicy\tssd_policy\n"
      "summary\tmode\tenforce\n"
      "summary\tsweep_path\t/mnt/tier/db\n"
      "summary\tsweep_path\t/mnt/tier/logs\n"
      "summary\tfiles_scanned\t120\n"
      "summary\tfiles_moved\t1\n"
      "summary\tbytes_moved\t1048576\n"
      "summary\tskipped_busy\t0\n"
      "summary\tskipped_error\t1\n"
      "summary\tskipped_nospace\t1\n"
      "summary\tseconds\t1.5\n"
      "class\tssd\t1073741824\t536870912\t535822336\n"
      "class\thdd\t4294967296\t1073741824\t1074790400\n"
      "note\t-C: files without activity in the last 6 hours are not seen\n";
  // clang-format on
  EXPECT_EQ(FormatScanReport(SampleResult(), options), golden);
}

TEST_F(ReportTest, AnalyzeCountsPlannedRows) {
  json result = json::parse(R"({"policy":"p","mode":"analyze","seconds":0,
    "rows":[{"path":"/a","action":"relocate","from_class":"hdd","to_class":"ssd","bytes":100,
             "outcome":"planned"},
            {"path":"/b","action":"relocate","from_class":"hdd","to_class":"ssd","bytes":50,
             "outcome":"planned"},
            {"path":"/c","action":"stay","from_class":"hdd","bytes":7,"outcome":"no rule"}],
    "summary":{"sweep_paths":["/"],"files_scanned":3,"files_moved":0,"bytes_moved":0}})");
  std::string text = FormatScanSummary(result, {});
  EXPECT_NE(text.find("Files to move  : 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Bytes to move  : 150\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Sweep path     : /\n"), std::string::npos) << text;
}

TEST_F(ReportTest, EmptyAndOddResultsDoNotThrow) {
  EXPECT_EQ(FormatScanRows(json::object(), {}), "No files selected.\n");
  EXPECT_NO_THROW(FormatScanReport(json::array(), {}));
  EXPECT_NO_THROW(FormatScanReport(json(nullptr), {}));
  json odd = json::parse(R"({"rows":[{"path":5,"bytes":"x","temperature":"hot"}],
                             "summary":{"files_scanned":-3},"classes":"none"})");
  ScanReportOptions parsable;
  parsable.parsable = true;
  EXPECT_NO_THROW(FormatScanReport(odd, {}));
  EXPECT_NO_THROW(FormatScanReport(odd, parsable));
}

TEST_F(ReportTest, ErrorsMakeExitStatusOne) {
  EXPECT_TRUE(ScanHadErrors(SampleResult()));
  json ok = SampleResult();
  ok["summary"]["files_skipped"]["error"] = 0;
  ok["rows"][2]["outcome"] = "deleted";
  EXPECT_FALSE(ScanHadErrors(ok));
  ok["rows"][0]["outcome"] = "error: EIO";
  EXPECT_TRUE(ScanHadErrors(ok));
}

TEST(FormatTemperature, Ranges) {
  EXPECT_EQ(FormatTemperature(0), "0");
  EXPECT_EQ(FormatTemperature(3.2), "3.20");
  EXPECT_EQ(FormatTemperature(0.0012), "1.20e-03");
  EXPECT_EQ(FormatTemperature(1500), "1500.00");
}

}  // namespace
}  // namespace tierfs::cli
