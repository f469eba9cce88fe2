// MIN/MAX comparisons on real numbers (docs/policies.md "WHEN criteria"; eq uses
// a relative epsilon of 1e-9).
#include "policy/criteria.h"

#include <gtest/gtest.h>

namespace tierfs::policy {
namespace {

TEST(NearlyEqual, RelativeEpsilon) {
  EXPECT_TRUE(NearlyEqual(0.1 + 0.2, 0.3));
  EXPECT_TRUE(NearlyEqual(0, 0));
  EXPECT_TRUE(NearlyEqual(1e12, 1e12 + 1));  // 1e-12 relative
  EXPECT_FALSE(NearlyEqual(1, 1 + 1e-6));
  EXPECT_FALSE(NearlyEqual(0, 1e-300));      // relative: nothing is near 0 but 0
}

TEST(MinHolds, Flags) {
  MinBound gt{1.5, MinFlag::kGt};
  MinBound gteq{1.5, MinFlag::kGtEq};
  MinBound eq{1.5, MinFlag::kEq};
  EXPECT_TRUE(MinHolds(gt, 1.6));
  EXPECT_FALSE(MinHolds(gt, 1.5));
  EXPECT_FALSE(MinHolds(gt, 1.5 + 1e-12));  // within the eq band: not greater
  EXPECT_TRUE(MinHolds(gteq, 1.5));
  EXPECT_TRUE(MinHolds(gteq, 1.5 - 1e-12));  // a rounding error below still counts
  EXPECT_FALSE(MinHolds(gteq, 1.4));
  EXPECT_TRUE(MinHolds(eq, 0.5 + 1.0));
  EXPECT_FALSE(MinHolds(eq, 1.6));
  // Scaled by an average: 1.5 x 2.0.
  EXPECT_TRUE(MinHolds(gteq, 3.0, 2.0));
  EXPECT_FALSE(MinHolds(gt, 3.0, 2.0));
}

TEST(MaxHolds, Flags) {
  MaxBound lt{0.5, MaxFlag::kLt};
  MaxBound lteq{0.5, MaxFlag::kLtEq};
  EXPECT_TRUE(MaxHolds(lt, 0.4));
  EXPECT_FALSE(MaxHolds(lt, 0.5));
  EXPECT_FALSE(MaxHolds(lt, 0.5 - 1e-13));
  EXPECT_TRUE(MaxHolds(lteq, 0.5));
  EXPECT_TRUE(MaxHolds(lteq, 0.0));
  EXPECT_FALSE(MaxHolds(lteq, 0.6));
  EXPECT_TRUE(MaxHolds(lt, 0.9, 2.0));
  EXPECT_FALSE(MaxHolds(lt, 1.0, 2.0));
}

}  // namespace
}  // namespace tierfs::policy
