// The File Change Log keeps to its retention bounds (tierfs --fcl_max_records,
// --fcl_keep_hours), applied when the file system is mounted and every minute.
#include <nlohmann/json.hpp>

#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

class FclRetentionTest : public TierfsFixture {
 protected:
  nlohmann::json State() {
    CommandResult r = Tool("fcladm", {"state", "--json", mnt_});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return nlohmann::json::parse(r.output, nullptr, false);
  }
};

TEST_F(FclRetentionTest, MaxRecordsDropsTheOldestAtMount) {
  for (int i = 0; i < 20; ++i) WriteFile(Path("f" + std::to_string(i)), "x");
  nlohmann::json before = State();
  ASSERT_TRUE(before.is_object()) << before;
  ASSERT_GE(before["records"].get<int64_t>(), 40);  // a create and a write per file
  const int64_t last_seq = before["last_seq"].get<int64_t>();

  Unmount();
  Mount({"--fcl_max_records=5"});
  nlohmann::json after = State();
  EXPECT_LE(after["records"].get<int64_t>(), 5) << after;
  // The newest records are the ones kept; sequence numbers are never reused.
  EXPECT_GE(after["last_seq"].get<int64_t>(), last_seq);
  EXPECT_GT(after["first_seq"].get<int64_t>(), last_seq - 5);
}

TEST_F(FclRetentionTest, ZeroKeepsEverything) {
  for (int i = 0; i < 5; ++i) WriteFile(Path("f" + std::to_string(i)), "x");
  const int64_t records = State()["records"].get<int64_t>();
  Unmount();
  Mount({"--fcl_max_records=0", "--fcl_keep_hours=0"});
  EXPECT_GE(State()["records"].get<int64_t>(), records);
}

}  // namespace
}  // namespace tierfs::testing
