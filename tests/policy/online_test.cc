// The online extension of RELOCATE (Online, OnlineHold) and the policy's
// OnlineBudget: parsing, defaults, errors with their lines, lint warnings,
// and that a policy without them reads exactly as before.
#include <gtest/gtest.h>

#include "policy/loader.h"
#include "tests/policy/test_util.h"

namespace tierfs::policy {
namespace {

using testing::Dump;
using testing::Has;
using testing::PolicyXml;

// Line 3: RULE; line 5: RELOCATE (with `relocate_attrs`); line 7: IOTEMP.
std::string OnlineRule(const std::string& relocate_attrs, const std::string& period = "6") {
  return R"(<RULE Flags="data" Name="r">
  <SELECT><PATTERN>*</PATTERN></SELECT>
  <RELOCATE )" + relocate_attrs + R"(>
    <TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO>
    <WHEN><IOTEMP Type="nrbytes" Prefer="high"><MIN Flags="gteq">1</MIN>
      <PERIOD Units="hours">)" + period + R"(</PERIOD></IOTEMP></WHEN>
  </RELOCATE>
</RULE>)";
}

TEST(OnlinePolicy, OnlineAndHoldAreRead) {
  LoadResult r = LoadPolicy(PolicyXml(OnlineRule(R"(Online="yes" OnlineHold="0.5")"),
                                      R"(OnlineBudget="64")"));
  ASSERT_TRUE(r.ok()) << Dump(r);
  EXPECT_TRUE(r.warnings.empty()) << Dump(r);
  const Statement& st = r.policy->rules[0].statements[0];
  EXPECT_TRUE(st.online);
  ASSERT_TRUE(st.online_hold_hours.has_value());
  EXPECT_DOUBLE_EQ(st.OnlineHoldHours(), 0.5);
  EXPECT_DOUBLE_EQ(r.policy->online_budget_bytes_per_s, 64.0 * 1024 * 1024);
  EXPECT_TRUE(r.policy->HasOnlineStatements());
}

TEST(OnlinePolicy, DefaultsWithoutTheAttributes) {
  LoadResult r = LoadPolicy(PolicyXml(OnlineRule(R"(Online="yes")", "2")));
  ASSERT_TRUE(r.ok()) << Dump(r);
  const Statement& st = r.policy->rules[0].statements[0];
  EXPECT_TRUE(st.online);
  EXPECT_FALSE(st.online_hold_hours.has_value());
  EXPECT_DOUBLE_EQ(st.OnlineHoldHours(), 2);  // the statement's PERIOD
  EXPECT_DOUBLE_EQ(r.policy->online_budget_bytes_per_s, kDefaultOnlineBudgetBytesPerS);
}

TEST(OnlinePolicy, WithoutOnlineNothingChanges) {
  for (const std::string& attrs : {std::string(""), std::string(R"(Online="no")")}) {
    LoadResult r = LoadPolicy(PolicyXml(OnlineRule(attrs)));
    ASSERT_TRUE(r.ok()) << Dump(r);
    EXPECT_TRUE(r.warnings.empty()) << Dump(r);
    EXPECT_FALSE(r.policy->rules[0].statements[0].online);
    EXPECT_FALSE(r.policy->HasOnlineStatements());
  }
}

TEST(OnlinePolicy, BadValuesAreRejectedWithTheirLine) {
  LoadResult r = LoadPolicy(PolicyXml(OnlineRule(R"(Online="maybe")")));
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(Has(r.errors, 5, "RELOCATE", "Online must be yes or no, got \"maybe\"")) << Dump(r);

  r = LoadPolicy(PolicyXml(OnlineRule(R"(Online="yes" OnlineHold="-1")")));
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(Has(r.errors, 5, "RELOCATE",
                  "OnlineHold must be a number of hours from 0 to 876000, got \"-1\""))
      << Dump(r);

  r = LoadPolicy(PolicyXml(OnlineRule(R"(Online="yes")"), R"(OnlineBudget="0")"));
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(Has(r.errors, 2, "PLACEMENT_POLICY", "OnlineBudget must be a number of MB per "
                                                   "second above 0 and at most 1000000, got \"0\""))
      << Dump(r);

  r = LoadPolicy(PolicyXml(OnlineRule(R"(Online="yes")"), R"(OnlineBudget="fast")"));
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(Has(r.errors, 2, "PLACEMENT_POLICY", "OnlineBudget")) << Dump(r);
}

TEST(OnlinePolicy, OnlineIsNotForDelete) {
  LoadResult r = LoadPolicy(PolicyXml(R"(<RULE Flags="data" Name="r">
  <SELECT/>
  <DELETE Online="yes"/>
</RULE>)"));
  EXPECT_FALSE(r.ok()) << Dump(r);
  EXPECT_TRUE(Has(r.errors, 5, "DELETE", "unknown attribute Online")) << Dump(r);
}

TEST(OnlinePolicy, LintWarnsAboutAHoldWithoutOnlineAndAnOnlineRuleWithoutHeat) {
  LoadResult r = LoadPolicy(PolicyXml(OnlineRule(R"(OnlineHold="1")")));
  ASSERT_TRUE(r.ok()) << Dump(r);
  EXPECT_TRUE(Has(r.warnings, 5, "RELOCATE", "OnlineHold has effect only with Online=\"yes\""))
      << Dump(r);

  r = LoadPolicy(PolicyXml(R"(<RULE Flags="data" Name="r">
  <SELECT/>
  <RELOCATE Online="yes">
    <TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO>
  </RELOCATE>
</RULE>)"));
  ASSERT_TRUE(r.ok()) << Dump(r);
  EXPECT_TRUE(Has(r.warnings, 5, "RELOCATE", "without IOTEMP or ACCESSTEMP")) << Dump(r);
  EXPECT_DOUBLE_EQ(r.policy->rules[0].statements[0].OnlineHoldHours(), kDefaultOnlineHoldHours);
}

}  // namespace
}  // namespace tierfs::policy
