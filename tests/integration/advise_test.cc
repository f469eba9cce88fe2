// fsppadm advise on a mounted tierfs (docs/policies.md "Advisor"): a
// workload whose hot file changes is recorded in 1 s heat buckets, then the
// advisor replays it against the assigned policy and variants, ranks them, prints
// and writes the best policy's text, which assign accepts; a history shorter than
// two intervals and bad options are refused with messages naming the cause.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

// Promote a file read more than once its size per hour over the last 3.6 s,
// hottest first.
const char kPolicy[] = R"(<?xml version="1.0"?>
<PLACEMENT_POLICY Version="5.1" Name="follow">
  <RULE Flags="data" Name="all">
    <SELECT><PATTERN>*</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>hdd</CLASS></DESTINATION></ON></CREATE>
    <RELOCATE>
      <TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO>
      <WHEN><IOTEMP Type="nrbytes" Prefer="high"><MIN Flags="gt">1</MIN>
        <PERIOD Units="hours">0.001</PERIOD></IOTEMP></WHEN>
    </RELOCATE>
  </RULE>
</PLACEMENT_POLICY>
)";

// Reads `path` every 50 ms for `seconds`.
void KeepReading(const std::string& path, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    ReadFileDirect(path);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

class AdviseTest : public TierfsFixture {
 protected:
  // The daemon's data path: the advisor replays the I/O history the daemon counted; with
  // passthrough the
  // test's re-reads of cached files reach no volume and earn no heat.
  std::vector<std::string> FixtureMountArgs() const override { return {"--passthrough=off"}; }

 protected:
  std::vector<std::string> MkdstfsOptions() const override { return {"--heat-bucket", "1"}; }

  // /a is hot for 3 s, then /b for 3 s; both were created on hdd.
  void RunShiftingWorkload() {
    AssignPolicy(kPolicy);
    WriteFile(Path("a"), RandomBytes(64 * 1024, 1));
    WriteFile(Path("b"), RandomBytes(64 * 1024, 2));
    ASSERT_EQ(ClassOf("a"), "hdd");
    ASSERT_EQ(ClassOf("b"), "hdd");
    KeepReading(Path("a"), 3);
    KeepReading(Path("b"), 3);
  }
};

TEST_F(AdviseTest, RanksVariantsOfTheAssignedPolicyAndWritesTheChosenOne) {
  RunShiftingWorkload();
  const std::vector<std::string> grid = {"--interval", "1s",           "--periods", "1",
                                         "--thresholds", "1,1000000", "--limits",  "100"};
  std::vector<std::string> args = {"advise", "--json"};
  args.insert(args.end(), grid.begin(), grid.end());
  args.push_back(mnt_);
  CommandResult r = Tool("fsppadm", args);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json doc = nlohmann::json::parse(r.output, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << r.output;
  EXPECT_EQ(doc["policy"], "follow");
  EXPECT_EQ(doc["policy_source"], "assigned");
  EXPECT_EQ(doc["class"], "ssd");
  EXPECT_EQ(doc["heat_bucket_seconds"], 1);
  EXPECT_EQ(doc["interval_seconds"], 1);
  EXPECT_GE(doc["periods"].get<int>(), 5) << r.output;
  EXPECT_EQ(doc["scored_periods"].get<int>(), doc["periods"].get<int>() - 1);
  const nlohmann::json& variants = doc["variants"];
  // As written, and thresholds x1 or x1000000 with ssd limit as written or 100%.
  ASSERT_EQ(variants.size(), 4u) << r.output;
  for (size_t i = 0; i + 1 < variants.size(); ++i) {
    EXPECT_GE(variants[i]["served_share"].get<double>(),
              variants[i + 1]["served_share"].get<double>());
    EXPECT_EQ(variants[i]["rank"], i + 1);
  }
  // The policy as written follows the hot file: /a, then /b, served from ssd.
  EXPECT_TRUE(variants[0]["as_written"].get<bool>()) << variants[0].dump();
  EXPECT_GT(variants[0]["served_share"].get<double>(), 0.3) << variants[0].dump();
  EXPECT_GE(variants[0]["bytes_moved"].get<uint64_t>(), 2u * 64 * 1024) << variants[0].dump();
  EXPECT_GT(variants[0]["io_bytes"].get<double>(), 0);
  // A limit of 100% changes nothing here: the same share, second (the policy as
  // written wins ties).
  EXPECT_EQ(variants[1]["label"], "ssd limit 100%") << variants[1].dump();
  EXPECT_EQ(variants[1]["served_share"], variants[0]["served_share"]);
  // A threshold nothing reaches promotes nothing and serves nothing.
  const nlohmann::json& third = variants[2];
  EXPECT_EQ(third["label"], "thresholds x1000000") << third.dump();
  EXPECT_EQ(third["served_share"].get<double>(), 0);
  EXPECT_EQ(third["bytes_moved"].get<uint64_t>(), 0u);
  EXPECT_TRUE(Contains(third["xml"].get<std::string>(), "<MIN Flags=\"gt\">1000000</MIN>"));
  EXPECT_LE(doc["previous_period_oracle_share"].get<double>(), doc["oracle_share"].get<double>());
  // The replay moved nothing for real.
  EXPECT_EQ(ClassOf("a"), "hdd");
  EXPECT_EQ(ClassOf("b"), "hdd");

  // Text: the table, then the text of the chosen rank, also written with -o.
  const std::string chosen = root_ + "/advised.xml";
  args = {"advise", "--show", "3", "-o", chosen};
  args.insert(args.end(), grid.begin(), grid.end());
  args.push_back(mnt_);
  r = Tool("fsppadm", args);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "Rank  Served")) << r.output;
  EXPECT_TRUE(Contains(r.output, "as written (assigned)")) << r.output;
  EXPECT_TRUE(Contains(r.output, "intervals of 1 s replayed")) << r.output;
  EXPECT_TRUE(Contains(r.output, "Policy text of rank 3 (thresholds x1000000)")) << r.output;
  EXPECT_TRUE(Contains(r.output, "Name=\"follow-t1000000\"")) << r.output;
  const std::string written = ReadFile(chosen);
  EXPECT_TRUE(Contains(written, "Name=\"follow-t1000000\"")) << written;
  r = Tool("fsppadm", {"assign", mnt_, chosen});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = Tool("fsppadm", {"print", mnt_});
  EXPECT_TRUE(Contains(r.output, "follow-t1000000")) << r.output;

  // The default grid over a POLICY file: periods x0.5 (1.8 s) still fits the bucket.
  const std::string file = root_ + "/follow.xml";
  WriteFile(file, kPolicy);
  r = Tool("fsppadm", {"advise", "--json", "--interval", "1", mnt_, file});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  doc = nlohmann::json::parse(r.output, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << r.output;
  EXPECT_EQ(doc["policy_source"], file);
  EXPECT_EQ(doc["variants"].size(), 36u) << r.output;  // 3 x 3 x (as written + 3 limits)
  EXPECT_TRUE(doc["skipped"].empty()) << r.output;
}

TEST_F(AdviseTest, BadOptionsNameTheOption) {
  RunShiftingWorkload();
  CommandResult r = Tool("fsppadm", {"advise", "--limits", "0", mnt_});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r.output, "--limits")) << r.output;
  r = Tool("fsppadm", {"advise", "--periods", "x", mnt_});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r.output, "--periods")) << r.output;
  r = Tool("fsppadm", {"advise", "--interval", "0", mnt_});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r.output, "--interval")) << r.output;
  r = Tool("fsppadm", {"advise", "--class", "nvme", mnt_});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r.output, "--class: no volume")) << r.output;
  r = Tool("fsppadm", {"advise", "--show", "99", "--interval", "1s", mnt_});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r.output, "--show")) << r.output;
  r = Tool("fsppadm", {"advise", mnt_, root_ + "/missing.xml"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = Tool("fsppadm", {"advise"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r.output, "MOUNT [POLICY.xml]")) << r.output;
}

TEST_F(AdviseTest, AHistoryShorterThanTwoIntervalsIsRefused) {
  AssignPolicy(kPolicy);
  CommandResult r = Tool("fsppadm", {"advise", mnt_});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r.output, "history too short: no I/O has been recorded")) << r.output;
  WriteFile(Path("a"), RandomBytes(64 * 1024, 1));
  ReadFileDirect(Path("a"));
  r = Tool("fsppadm", {"advise", "--interval", "1h", mnt_});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r.output, "at least 2 enforce intervals of 1 h")) << r.output;
}

}  // namespace
}  // namespace tierfs::testing
