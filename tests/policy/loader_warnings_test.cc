// Warnings (the policy still loads) and CheckClasses.
#include <gtest/gtest.h>

#include "policy/loader.h"
#include "tests/policy/test_util.h"

namespace tierfs::policy {
namespace {

using testing::Dump;
using testing::Has;
using testing::PolicyXml;

TEST(LoadPolicyWarnings, UnimplementedGrammarIsAcceptedWithWarnings) {
  LoadResult r = LoadPolicy(PolicyXml(R"(<RULE Flags="data" Name="r">
  <SELECT/>
  <CREATE><ON>
    <DESTINATION Flags="disallow"><CLASS>a</CLASS><PERCENT>50</PERCENT></DESTINATION>
  </ON></CREATE>
  <RELOCATE>
    <FROM><SOURCE><CLASS>a</CLASS><PERCENT>10</PERCENT></SOURCE></FROM>
    <TO><DESTINATION Flags="any"><CLASS>b</CLASS></DESTINATION></TO>
  </RELOCATE>
</RULE>)"));
  ASSERT_TRUE(r.ok()) << Dump(r);
  EXPECT_TRUE(Has(r.warnings, 6, "DESTINATION", "Flags=\"disallow\" is not implemented"))
      << Dump(r);
  EXPECT_TRUE(Has(r.warnings, 6, "PERCENT", "PERCENT limits relocations only; ignored in CREATE"));
  EXPECT_FALSE(Has(r.warnings, 9, "PERCENT", ""));  // a tierfs extension in SOURCE and TO
  EXPECT_TRUE(Has(r.warnings, 10, "DESTINATION", "ignored in TO"));
  EXPECT_FALSE(r.policy->rules[0].create->any);  // disallow is not any
  EXPECT_FALSE(r.policy->rules[0].create->destinations[0].percent.has_value());
}

TEST(LoadPolicyWarnings, PercentIsReadInSourceAndDestination) {
  LoadResult r = LoadPolicy(PolicyXml(R"(<RULE Flags="data" Name="r">
  <SELECT/>
  <RELOCATE>
    <FROM><SOURCE><CLASS>a</CLASS><PERCENT>0</PERCENT></SOURCE><SOURCE><CLASS>c</CLASS></SOURCE></FROM>
    <TO><DESTINATION><CLASS>b</CLASS><PERCENT> 92.5 </PERCENT></DESTINATION>
        <DESTINATION><CLASS>c</CLASS></DESTINATION></TO>
  </RELOCATE>
</RULE>)"));
  ASSERT_TRUE(r.ok()) << Dump(r);
  EXPECT_TRUE(r.warnings.empty()) << Dump(r);
  const Statement& st = r.policy->rules[0].statements[0];
  ASSERT_EQ(st.from_limits.size(), 1u);
  EXPECT_EQ(st.from_limits[0].class_name, "a");
  EXPECT_EQ(st.from_limits[0].line, 6);
  EXPECT_EQ(st.SourcePercent("a"), 0.0);
  EXPECT_FALSE(st.SourcePercent("c").has_value());
  EXPECT_EQ(st.to_classes[0].percent, 92.5);
  EXPECT_FALSE(st.to_classes[1].percent.has_value());
}

TEST(LoadPolicyWarnings, SwapHysteresisBelowOneIsAnError) {
  const char* rule = "<RULE Flags=\"data\" Name=\"r\"><SELECT/></RULE>";
  LoadResult r = LoadPolicy(PolicyXml(rule, "SwapHysteresis=\"0.9\""));
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(Has(r.errors, 2, "PLACEMENT_POLICY",
                  "SwapHysteresis must be a number from 1 to 1000, got \"0.9\""))
      << Dump(r);
  r = LoadPolicy(PolicyXml(rule));
  ASSERT_TRUE(r.ok()) << Dump(r);
  EXPECT_DOUBLE_EQ(r.policy->swap_hysteresis, kDefaultSwapHysteresis);
}

TEST(LoadPolicyWarnings, ClassLimitsAreReadAndChecked) {
  const std::string body = R"(<CLASS_LIMIT><CLASS>ssd</CLASS><PERCENT>90</PERCENT></CLASS_LIMIT>
<CLASS_LIMIT><CLASS>nvme</CLASS><PERCENT>80</PERCENT></CLASS_LIMIT>
<RULE Flags="data" Name="r"><SELECT/>
  <RELOCATE><TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION>
    <DESTINATION><CLASS>hdd</CLASS><PERCENT>70</PERCENT></DESTINATION></TO></RELOCATE>
</RULE>)";
  LoadResult r = LoadPolicy(PolicyXml(body));
  ASSERT_TRUE(r.ok()) << Dump(r);
  ASSERT_EQ(r.policy->class_limits.size(), 2u);
  EXPECT_EQ(r.policy->class_limits[1].class_name, "nvme");
  EXPECT_EQ(r.policy->class_limits[1].line, 4);
  const Statement& st = r.policy->rules[0].statements[0];
  EXPECT_EQ(r.policy->DestinationPercent(st.to_classes[0]), 90.0);  // the CLASS_LIMIT
  EXPECT_EQ(r.policy->DestinationPercent(st.to_classes[1]), 70.0);  // its own PERCENT
  // A CLASS_LIMIT names a class like any other: it must have a volume.
  CheckClasses(*r.policy, {"ssd", "hdd"}, /*force=*/false, &r);
  EXPECT_TRUE(Has(r.errors, 4, "CLASS", "class \"nvme\" has no volume")) << Dump(r);

  r = LoadPolicy(PolicyXml(R"(<CLASS_LIMIT><CLASS>ssd</CLASS><PERCENT>90</PERCENT></CLASS_LIMIT>
<CLASS_LIMIT><CLASS>ssd</CLASS><PERCENT>0</PERCENT></CLASS_LIMIT>
<RULE Flags="data" Name="r"><SELECT/></RULE>)"));
  EXPECT_TRUE(Has(r.errors, 4, "CLASS_LIMIT", "class \"ssd\" already has a CLASS_LIMIT (line 3)"))
      << Dump(r);
  EXPECT_TRUE(Has(r.errors, 4, "PERCENT", "PERCENT must be greater than 0 to 100")) << Dump(r);
  // After the rules, it is not the grammar.
  r = LoadPolicy(PolicyXml(R"(<RULE Flags="data" Name="r"><SELECT/></RULE>
<CLASS_LIMIT><CLASS>ssd</CLASS><PERCENT>90</PERCENT></CLASS_LIMIT>)"));
  EXPECT_FALSE(r.ok());
}

TEST(LoadPolicyWarnings, PercentOutOfRangeIsAnError) {
  LoadResult r = LoadPolicy(PolicyXml(R"(<RULE Flags="data" Name="r">
  <SELECT/>
  <RELOCATE>
    <FROM><SOURCE><CLASS>a</CLASS><PERCENT>101</PERCENT></SOURCE></FROM>
    <TO><DESTINATION><CLASS>b</CLASS><PERCENT>0</PERCENT></DESTINATION></TO>
  </RELOCATE>
  <RELOCATE>
    <TO><DESTINATION><CLASS>b</CLASS><PERCENT>half</PERCENT></DESTINATION></TO>
  </RELOCATE>
</RULE>)"));
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(Has(r.errors, 6, "PERCENT", "PERCENT must be from 0 to 100, got \"101\""))
      << Dump(r);
  EXPECT_TRUE(Has(r.errors, 7, "PERCENT", "PERCENT must be greater than 0 to 100, got \"0\""))
      << Dump(r);
  EXPECT_TRUE(Has(r.errors, 10, "PERCENT", "expected a percentage, got \"half\"")) << Dump(r);
}

TEST(LoadPolicyWarnings, UnreachableStatementsAndRules) {
  LoadResult r = LoadPolicy(PolicyXml(R"(<RULE Flags="data" Name="r">
  <SELECT/>
  <RELOCATE><FROM><SOURCE><CLASS>a</CLASS></SOURCE><SOURCE><CLASS>b</CLASS></SOURCE></FROM>
    <TO><DESTINATION><CLASS>c</CLASS></DESTINATION></TO></RELOCATE>
  <DELETE><FROM><SOURCE><CLASS>a</CLASS></SOURCE></FROM></DELETE>
  <DELETE><FROM><SOURCE><CLASS>c</CLASS></SOURCE></FROM></DELETE>
  <DELETE/>
  <RELOCATE><TO><DESTINATION><CLASS>c</CLASS></DESTINATION></TO></RELOCATE>
</RULE>
<RULE Flags="data" Name="later"><SELECT><PATTERN>*.log</PATTERN></SELECT></RULE>
<RULE Flags="data" Name="r"><SELECT/></RULE>)"));
  ASSERT_TRUE(r.ok()) << Dump(r);
  EXPECT_TRUE(Has(r.warnings, 7, "DELETE", "DELETE 1 of rule \"r\" is never reached: RELOCATE 1"))
      << Dump(r);
  EXPECT_FALSE(Has(r.warnings, 8, "DELETE", "never reached"));   // FROM c is not covered
  EXPECT_FALSE(Has(r.warnings, 9, "DELETE", "never reached"));   // no FROM: not covered by a,b
  EXPECT_TRUE(
      Has(r.warnings, 10, "RELOCATE", "RELOCATE 2 of rule \"r\" is never reached: DELETE 3"));
  EXPECT_TRUE(Has(r.warnings, 12, "RULE", "rule \"later\" is never used: rule \"r\" (line 3)"));
  EXPECT_TRUE(Has(r.warnings, 13, "RULE", "another rule is also named \"r\""));
}

TEST(LoadPolicyWarnings, CriteriaThatAlwaysOrNeverHoldAndPreferMisuse) {
  LoadResult r = LoadPolicy(PolicyXml(R"(<RULE Flags="data" Name="r">
  <SELECT/>
  <DELETE><WHEN>
    <IOTEMP Type="nrbytes" Prefer="high"><MAX Flags="lt">1</MAX><PERIOD>1</PERIOD></IOTEMP>
  </WHEN></DELETE>
  <RELOCATE><TO><DESTINATION><CLASS>c</CLASS></DESTINATION></TO><WHEN>
    <SIZE Units="MB"><MIN Flags="gt">10</MIN><MAX Flags="lt">5</MAX></SIZE>
    <ACCAGE Units="days"><MIN Flags="gteq">1</MIN><MAX Flags="lt">1</MAX></ACCAGE>
    <IOTEMP Type="nrbytes"><PERIOD>1</PERIOD></IOTEMP>
    <IOTEMP Type="nrbytes" Prefer="high"><MIN Flags="gt">1</MIN><PERIOD>30</PERIOD></IOTEMP>
    <ACCESSTEMP Type="nrws" Prefer="low"><MIN Flags="gt">1</MIN><PERIOD>1</PERIOD></ACCESSTEMP>
  </WHEN></RELOCATE>
</RULE>)"));
  ASSERT_TRUE(r.ok()) << Dump(r);
  EXPECT_TRUE(Has(r.warnings, 6, "IOTEMP", "Prefer has no effect in DELETE")) << Dump(r);
  EXPECT_TRUE(Has(r.warnings, 9, "SIZE", "MIN 10 and MAX 5 leave no value: it never holds"));
  EXPECT_TRUE(Has(r.warnings, 10, "ACCAGE", "it never holds"));
  EXPECT_TRUE(Has(r.warnings, 11, "IOTEMP", "neither MIN nor MAX nor Prefer: it always holds"));
  EXPECT_TRUE(Has(r.warnings, 12, "PERIOD", "a PERIOD of 720 hours needs I/O statistics"));
  EXPECT_TRUE(Has(r.warnings, 13, "ACCESSTEMP", "only the first Prefer"));
}

TEST(LoadPolicyWarnings, DoctypeWithAnotherName) {
  LoadResult r = LoadPolicy(
      "<?xml version=\"1.0\"?>\n<!DOCTYPE FILE_PLACEMENT_POLICY SYSTEM \"placement.dtd\">\n"
      "<PLACEMENT_POLICY Name=\"p\" Version=\"5.1\"><RULE Flags=\"data\" Name=\"r\"><SELECT/>"
      "</RULE></PLACEMENT_POLICY>");
  ASSERT_TRUE(r.ok()) << Dump(r);
  EXPECT_TRUE(Has(r.warnings, 2, "", "the DOCTYPE names FILE_PLACEMENT_POLICY")) << Dump(r);
}

const char* kClassesPolicy = R"(<RULE Flags="data" Name="r">
  <SELECT/>
  <CREATE><ON Flags="any"><DESTINATION><CLASS>ssd</CLASS></DESTINATION><DESTINATION/></ON></CREATE>
  <RELOCATE>
    <FROM><SOURCE><CLASS>tape</CLASS></SOURCE></FROM>
    <TO><DESTINATION><CLASS>hdd</CLASS></DESTINATION><DESTINATION><CLASS>cloud</CLASS></DESTINATION></TO>
  </RELOCATE>
</RULE>
<RULE Flags="checkpoint" Name="c"><SELECT/>
  <CREATE><ON><DESTINATION><CLASS>nowhere</CLASS></DESTINATION></ON></CREATE></RULE>)";

TEST(CheckClasses, UnknownClassIsAnErrorNamingTheLine) {
  LoadResult r = LoadPolicy(PolicyXml(kClassesPolicy));
  ASSERT_TRUE(r.ok()) << Dump(r);
  size_t warnings = r.warnings.size();
  CheckClasses(*r.policy, {"ssd", "hdd"}, /*force=*/false, &r);
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.policy.has_value());
  ASSERT_EQ(r.errors.size(), 2u) << Dump(r);  // checkpoint rules are not checked
  EXPECT_EQ(r.errors[0].ToString(),
            "line 7: <CLASS>: class \"tape\" has no volume in this file system (use -f to assign "
            "anyway)");
  EXPECT_TRUE(Has(r.errors, 8, "CLASS", "class \"cloud\""));
  EXPECT_EQ(r.warnings.size(), warnings);
}

TEST(CheckClasses, ForceTurnsErrorsIntoWarnings) {
  LoadResult r = LoadPolicy(PolicyXml(kClassesPolicy));
  ASSERT_TRUE(r.ok()) << Dump(r);
  CheckClasses(*r.policy, {"ssd", "hdd"}, /*force=*/true, &r);
  EXPECT_TRUE(r.ok()) << Dump(r);
  EXPECT_TRUE(Has(r.warnings, 7, "CLASS", "forced")) << Dump(r);
  EXPECT_TRUE(Has(r.warnings, 8, "CLASS", "class \"cloud\""));
}

TEST(CheckClasses, AllKnownAddsNothing) {
  LoadResult r = LoadPolicy(PolicyXml(kClassesPolicy));
  ASSERT_TRUE(r.ok()) << Dump(r);
  CheckClasses(*r.policy, {"ssd", "hdd", "tape", "cloud"}, false, &r);
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.errors.empty());
}

TEST(CheckHeatResolution, WindowsShorterThanABucketAreErrors) {
  const char* body = R"(<RULE Flags="data" Name="r"><SELECT/>
  <RELOCATE><TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO>
    <WHEN><IOTEMP Type="nrbytes" Average="*"><MIN Flags="gteq">2</MIN><PERIOD Units="hours">0.5</PERIOD></IOTEMP>
      <ACCESSTEMP Type="nreads"><MIN Flags="gteq">1</MIN><PERIOD Units="hours">1</PERIOD></ACCESSTEMP></WHEN>
  </RELOCATE></RULE>
<RULE Flags="checkpoint" Name="c"><SELECT/>
  <RELOCATE><TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO>
    <WHEN><IOTEMP Type="nrbytes"><MIN Flags="gteq">2</MIN><PERIOD Units="hours">0.01</PERIOD></IOTEMP></WHEN>
  </RELOCATE></RULE>)";
  LoadResult r = LoadPolicy(PolicyXml(body, "AveragePeriod=\"0.25\""));
  ASSERT_TRUE(r.ok()) << Dump(r);
  // One-minute buckets measure all of it (checkpoint rules are not checked).
  CheckHeatResolution(*r.policy, 60, &r);
  EXPECT_TRUE(r.ok()) << Dump(r);
  // Hour buckets: the 30-minute PERIOD and the 15-minute AveragePeriod cannot be measured.
  CheckHeatResolution(*r.policy, 3600, &r);
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.policy.has_value());
  ASSERT_EQ(r.errors.size(), 2u) << Dump(r);
  EXPECT_EQ(r.errors[0].ToString(),
            "line 2: <PLACEMENT_POLICY>: AveragePeriod of 900 s is shorter than this file "
            "system's heat bucket of 1 h: I/O is counted per bucket, so it cannot be measured "
            "(use at least 1 h, or a shorter bucket)");
  EXPECT_TRUE(Has(r.errors, 5, "IOTEMP", "PERIOD of 1800 s is shorter than")) << Dump(r);
}

}  // namespace
}  // namespace tierfs::policy
