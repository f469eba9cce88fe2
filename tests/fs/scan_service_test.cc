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

// A move whose destination turned out full at run time (a local volume that
// filled since the plan, a bucket over its quota: 403 QuotaExceeded is ENOSPC)
// is "nospace" like a move the planner found no room for, not an error.
TEST(EnforceOutcome, AFullDestinationIsNospaceNotAnError) {
  RelocationOutcome quota{"error: PUT s3://b/tfs/objects/02/2.1: HTTP 403 QuotaExceeded", ENOSPC,
                          0, 0.2};
  EXPECT_EQ(EnforceOutcome(quota), "nospace");
  RelocationOutcome dquot{"error: write: Disk quota exceeded", EDQUOT, 0, 0};
  EXPECT_EQ(EnforceOutcome(dquot), "nospace");
  // Other failures stay errors, with their message; other outcomes as they are.
  RelocationOutcome refused{"error: PUT s3://b/k: Couldn't connect to server", EIO, 0, 0};
  EXPECT_EQ(EnforceOutcome(refused), refused.outcome);
  EXPECT_EQ(EnforceOutcome(RelocationOutcome{"moved", 0, 10, 0}), "moved");
  EXPECT_EQ(EnforceOutcome(RelocationOutcome{"busy", 0, 0, 0}), "busy");
  EXPECT_EQ(EnforceOutcome(Status::Invalid("already on that volume")),
            "error: already on that volume");
}

// A planned move that another mover (the online path, a writer moving off a
// full volume) made first is left alone as "gone", not counted as moved.
TEST(EnforceOutcome, AFileAnotherMoverMovedFirstIsGone) {
  RelocationOutcome skipped{"moved", 0, 0, 0};
  skipped.skipped = true;
  EXPECT_EQ(EnforceOutcome(skipped), "gone");
}

}  // namespace
}  // namespace tierfs
