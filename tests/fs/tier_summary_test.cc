// SummaryDirectory (fs/control/tier_summary.h): which directory row a file counts in.
#include "fs/control/tier_summary.h"

#include <gtest/gtest.h>

namespace tierfs {
namespace {

TEST(SummaryDirectory, CutsTheParentToDepthComponents) {
  EXPECT_EQ(SummaryDirectory("/a/b/c/f", 2), "/a/b");
  EXPECT_EQ(SummaryDirectory("/a/b/c/f", 3), "/a/b/c");
  EXPECT_EQ(SummaryDirectory("/a/b/c/f", 9), "/a/b/c");  // not past the parent
  EXPECT_EQ(SummaryDirectory("/a/b/c/f", 1), "/a");
  EXPECT_EQ(SummaryDirectory("/a/b/c/f", 0), "/");
  EXPECT_EQ(SummaryDirectory("/a/f", 2), "/a");  // higher up: its own directory
  EXPECT_EQ(SummaryDirectory("/f", 2), "/");     // the root
  EXPECT_EQ(SummaryDirectory("/a b/<x>/f", 2), "/a b/<x>");
}

TEST(TierSummaryRequest, DefaultsAndRanges) {
  using nlohmann::json;
  auto r = ParseTierSummaryRequest({{"op", "tier_summary"}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->depth, 2);
  EXPECT_DOUBLE_EQ(r->hours, 24);
  r = ParseTierSummaryRequest({{"depth", 0}, {"hours", 0.5}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->depth, 0);
  EXPECT_DOUBLE_EQ(r->hours, 0.5);
  for (const json& bad : {json{{"depth", -1}}, json{{"depth", 1001}}, json{{"depth", "2"}},
                          json{{"depth", 1.5}}, json{{"hours", 0}}, json{{"hours", -1}},
                          json{{"hours", 9000}}, json{{"hours", "24"}}, json{{"hours", 1e300}}}) {
    auto parsed = ParseTierSummaryRequest(bad);
    ASSERT_FALSE(parsed.ok()) << bad.dump();
    EXPECT_EQ(parsed.status().code(), EINVAL) << bad.dump();
    EXPECT_NE(parsed.status().message().find(bad.begin().key()), std::string::npos)
        << parsed.status().message();
  }
}

}  // namespace
}  // namespace tierfs
