#include "fs/control/scan_request_json.h"
#include "fs/tiering/scan_service.h"

#include <gtest/gtest.h>

namespace tierfs {
namespace {

TEST(RelocationWorkers, FollowsTheVxfsScale) {
  // docs/commands.md "fsppadm": -p 1 -> one worker, 50 (the default) -> 16, 100 -> 32.
  EXPECT_EQ(RelocationWorkers(1), 1);
  EXPECT_EQ(RelocationWorkers(50), 16);
  EXPECT_EQ(RelocationWorkers(100), 32);
  EXPECT_EQ(RelocationWorkers(0), 1);     // clamped
  EXPECT_EQ(RelocationWorkers(500), 32);  // clamped
  for (int n = 1; n < 100; ++n) EXPECT_LE(RelocationWorkers(n), RelocationWorkers(n + 1)) << n;
}

TEST(ScanRequest, IoNiceIsParsedAndChecked) {
  auto r = ParseScanRequest({{"mode", "enforce"}, {"io_nice", 7}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->io_nice, 7);
  EXPECT_EQ(ParseScanRequest({{"mode", "enforce"}}).value().io_nice, 50);
  auto bad = ParseScanRequest({{"mode", "enforce"}, {"io_nice", 0}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), EINVAL);
  EXPECT_FALSE(ParseScanRequest({{"mode", "sweep"}}).ok());
}

}  // namespace
}  // namespace tierfs
