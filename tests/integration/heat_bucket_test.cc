// The heat resolution on a mounted tierfs: mkdstfs --heat-bucket,
// fsppadm status showing it, assign refusing a PERIOD shorter than a bucket, and
// fsppadm heatbucket changing it (refused while the assigned policy would become
// invalid; otherwise the counts restart).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/integration/test_policies.h"
#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

class HeatBucketTest : public TierfsFixture {
 protected:
  std::vector<std::string> MkdstfsOptions() const override { return {"--heat-bucket", "60"}; }

  int64_t BucketFromStatus() {
    CommandResult r = Tool("fsppadm", {"status", "--json", mnt_});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    nlohmann::json doc = nlohmann::json::parse(r.output, nullptr, false);
    if (!doc.is_object() || !doc.contains("heat_bucket_seconds")) {
      ADD_FAILURE() << r.output;
      return -1;
    }
    return doc["heat_bucket_seconds"].get<int64_t>();
  }

  CommandResult TryAssign(const std::string& xml) {
    const std::string file = root_ + "/try.xml";
    WriteFile(file, xml);
    return Tool("fsppadm", {"assign", mnt_, file});
  }
};

TEST_F(HeatBucketTest, MkdstfsStoresTheBucketAndStatusShowsIt) {
  EXPECT_EQ(BucketFromStatus(), 60);
  CommandResult r = Tool("fsppadm", {"status", mnt_});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Heat bucket : 60 s\n"), std::string::npos) << r.output;
  // The length survives a remount (it is in the database).
  Remount();
  EXPECT_EQ(BucketFromStatus(), 60);
}

TEST_F(HeatBucketTest, AssignRefusesAPeriodShorterThanABucket) {
  AssignPolicy(PeriodPolicy("three_minutes", "0.05"));  // 180 s >= 60 s
  AssignPolicy(PeriodPolicy("one_hour", "1"));
  ASSERT_EQ(Tool("fsppadm", {"heatbucket", mnt_, "600"}).exit_code, 0);
  CommandResult r = TryAssign(PeriodPolicy("three_minutes", "0.05"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("try.xml:8: <IOTEMP>: PERIOD of 180 s is shorter than this file "
                          "system's heat bucket of 600 s"),
            std::string::npos)
      << r.output;
  // validate against the mount says the same and assigns nothing.
  const std::string file = root_ + "/try.xml";
  r = Tool("fsppadm", {"validate", mnt_, file});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = Tool("fsppadm", {"print", mnt_});
  EXPECT_NE(r.output.find("one_hour"), std::string::npos) << r.output;
}

TEST_F(HeatBucketTest, HeatbucketRefusesWhileThePolicyWouldBreakThenRestarts) {
  AssignPolicy(PeriodPolicy("three_minutes", "0.05"));
  CommandResult r = Tool("fsppadm", {"heatbucket", mnt_, "600"});
  ASSERT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("would not be valid with a heat bucket of 600 s"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("PERIOD of 180 s is shorter"), std::string::npos) << r.output;
  EXPECT_EQ(BucketFromStatus(), 60);  // nothing changed

  // Counts so far: one file read, flushed into a 60 s bucket.
  WriteFile(Path("f"), RandomBytes(4096, 1));
  Remount();  // the next read reaches the daemon, not the page cache
  EXPECT_EQ(ReadFile(Path("f")).size(), 4096u);

  AssignPolicy(PeriodPolicy("one_hour", "1"));
  r = Tool("fsppadm", {"heatbucket", mnt_, "1800"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("heat bucket 60 s -> 1800 s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("counts restarted"), std::string::npos) << r.output;
  EXPECT_EQ(BucketFromStatus(), 1800);
  // The read counted before is gone: the hot rule finds nothing to promote.
  EXPECT_EQ(ClassOf("f"), "hdd");
  r = Tool("fsppadm", {"enforce", mnt_});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(ClassOf("f"), "hdd");

  // Out of range and malformed lengths are usage errors.
  EXPECT_EQ(Tool("fsppadm", {"heatbucket", mnt_, "0"}).exit_code, 2);
  EXPECT_EQ(Tool("fsppadm", {"heatbucket", mnt_, "86401"}).exit_code, 2);
  EXPECT_EQ(Tool("fsppadm", {"heatbucket", mnt_, "1h"}).exit_code, 2);
  EXPECT_EQ(BucketFromStatus(), 1800);
}

TEST(HeatBucketArgs, MkdstfsRefusesABucketOutOfRange) {
  for (const char* bad : {"0", "86401", "-5", "1.5", "x"}) {
    CommandResult r = RunCommand({testing::Tool("mkdstfs"), "--heat-bucket", bad, "--no-mount",
                                  "/nonexistent-mnt", "fs", "/nonexistent-dir:ssd"});
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.output;
    EXPECT_NE(r.output.find("--heat-bucket"), std::string::npos) << r.output;
  }
}

}  // namespace
}  // namespace tierfs::testing
