// LoadPolicy on valid documents: every element and attribute reaches the
// model with its normalised value and its source line.
#include "policy/loader.h"

#include <gtest/gtest.h>

#include "tests/policy/test_util.h"

namespace tierfs::policy {
namespace {

using testing::Has;
using testing::MustLoad;
using testing::PolicyXml;

TEST(LoadPolicy, MinimalPolicyAndDefaults) {
  PlacementPolicy p = MustLoad(PolicyXml(R"(<RULE Flags="data" Name="r">
  <SELECT><PATTERN>*</PATTERN></SELECT>
</RULE>)"));
  EXPECT_EQ(p.name, "test");
  EXPECT_EQ(p.version, "5.1");
  EXPECT_EQ(p.line, 2);
  EXPECT_DOUBLE_EQ(p.average_period_hours, 24);
  ASSERT_EQ(p.rules.size(), 1u);
  EXPECT_EQ(p.rules[0].name, "r");
  EXPECT_EQ(p.rules[0].flags, RuleFlags::kData);
  EXPECT_EQ(p.rules[0].line, 3);
  ASSERT_EQ(p.rules[0].selects.size(), 1u);
  EXPECT_EQ(p.rules[0].selects[0].line, 4);
  EXPECT_FALSE(p.rules[0].create.has_value());
  EXPECT_TRUE(p.rules[0].statements.empty());
  EXPECT_TRUE(p.WindowHours().empty());
}

TEST(LoadPolicy, EveryElementAndAttribute) {
  LoadResult r = LoadPolicy(PolicyXml(R"(<COMMENT>top</COMMENT>
<RULE Flags="data" Name="everything">
  <COMMENT>rule comment</COMMENT>
  <SELECT Name="db">
    <COMMENT>select comment</COMMENT>
    <DIRECTORY Flags="recursive"> /db/data/ </DIRECTORY>
    <DIRECTORY Flags="nonrecursive">logs</DIRECTORY>
    <PATTERN Flags="recursive"> tmp* </PATTERN>
    <PATTERN>*.dbf</PATTERN>
    <USER> oracle </USER>
    <GROUP>dba</GROUP>
    <UID>1001</UID>
    <GID> 54321 </GID>
    <TAG>hot</TAG>
  </SELECT>
  <SELECT><USER>root</USER></SELECT>
  <CREATE>
    <COMMENT>create comment</COMMENT>
    <ON Name="on1" Flags="any">
      <DESTINATION Name="d1">
        <CLASS> ssd </CLASS>
        <BALANCE_SIZE Units="MB">2</BALANCE_SIZE>
      </DESTINATION>
      <DESTINATION><CLASS>hdd</CLASS></DESTINATION>
      <DESTINATION/>
    </ON>
  </CREATE>
  <DELETE>
    <COMMENT>delete comment</COMMENT>
    <FROM><SOURCE><CLASS>hdd</CLASS></SOURCE></FROM>
    <WHEN>
      <SIZE Units="KB"><MIN Flags="gt">1.5</MIN></SIZE>
      <ACCAGE Units="days"><MIN Flags="gteq">90</MIN></ACCAGE>
    </WHEN>
  </DELETE>
  <RELOCATE>
    <COMMENT>relocate comment</COMMENT>
    <FROM>
      <SOURCE><CLASS>hdd</CLASS></SOURCE>
      <SOURCE><CLASS>archive</CLASS></SOURCE>
    </FROM>
    <TO>
      <DESTINATION><CLASS>ssd</CLASS><BALANCE_SIZE Units="KB">64</BALANCE_SIZE></DESTINATION>
      <DESTINATION><CLASS>hdd</CLASS></DESTINATION>
    </TO>
    <WHEN>
      <MODAGE Units="hours"><MIN Flags="eq">2</MIN><MAX Flags="lteq">3</MAX></MODAGE>
      <IOTEMP Type="nrwbytes" Prefer="low" Average="*">
        <MIN Flags="gteq">0.5</MIN>
        <MAX Flags="lt">4</MAX>
        <PERIOD>2</PERIOD>
      </IOTEMP>
      <ACCESSTEMP Type="nwrites">
        <MAX Flags="lteq">10</MAX>
        <PERIOD Units="hours">6</PERIOD>
      </ACCESSTEMP>
      <SIZE Units="GB"><MAX Flags="lt">1</MAX></SIZE>
    </WHEN>
  </RELOCATE>
  <RELOCATE>
    <TO><DESTINATION><CLASS>hdd</CLASS></DESTINATION></TO>
  </RELOCATE>
</RULE>)",
                                      R"(AveragePeriod="30.5")"));
  ASSERT_TRUE(r.ok()) << testing::Dump(r);
  EXPECT_TRUE(r.warnings.empty()) << testing::Dump(r);
  const PlacementPolicy& p = *r.policy;
  EXPECT_DOUBLE_EQ(p.average_period_hours, 30.5);
  const Rule& rule = p.rules.at(0);
  EXPECT_EQ(rule.line, 4);
  ASSERT_EQ(rule.selects.size(), 2u);
  const Select& s = rule.selects[0];
  EXPECT_EQ(s.name, "db");
  ASSERT_EQ(s.directories.size(), 2u);
  EXPECT_EQ(s.directories[0].path, "db/data");
  EXPECT_TRUE(s.directories[0].recursive);
  EXPECT_EQ(s.directories[0].line, 8);
  EXPECT_EQ(s.directories[1].path, "logs");
  EXPECT_FALSE(s.directories[1].recursive);
  ASSERT_EQ(s.patterns.size(), 2u);
  EXPECT_EQ(s.patterns[0].glob, "tmp*");
  EXPECT_TRUE(s.patterns[0].recursive);
  EXPECT_FALSE(s.patterns[1].recursive);
  EXPECT_EQ(s.patterns[1].line, 11);
  EXPECT_EQ(s.users.at(0).value, "oracle");
  EXPECT_EQ(s.users.at(0).line, 12);
  EXPECT_EQ(s.groups.at(0).value, "dba");
  EXPECT_EQ(s.uids.at(0).value, 1001u);
  EXPECT_EQ(s.gids.at(0).value, 54321u);
  EXPECT_EQ(s.tags.at(0).value, "hot");
  EXPECT_EQ(s.tags.at(0).line, 16);
  EXPECT_EQ(rule.selects[1].users.at(0).value, "root");

  ASSERT_TRUE(rule.create.has_value());
  EXPECT_TRUE(rule.create->any);
  EXPECT_EQ(rule.create->line, 19);
  ASSERT_EQ(rule.create->destinations.size(), 3u);
  EXPECT_EQ(rule.create->destinations[0].class_name, "ssd");
  EXPECT_EQ(rule.create->destinations[0].class_line, 23);
  EXPECT_EQ(rule.create->destinations[0].balance_size, 2 * testing::kMiB);
  EXPECT_EQ(rule.create->destinations[1].class_name, "hdd");
  EXPECT_EQ(rule.create->destinations[1].balance_size, 0u);
  EXPECT_EQ(rule.create->destinations[2].class_name, "");
  EXPECT_EQ(rule.create->destinations[2].class_line, 0);

  ASSERT_EQ(rule.statements.size(), 3u);
  const Statement& del = rule.statements[0];
  EXPECT_EQ(del.kind, Statement::kDelete);
  EXPECT_EQ(del.Label(), "DELETE 1");
  EXPECT_EQ(del.line, 30);
  ASSERT_EQ(del.from_classes.size(), 1u);
  EXPECT_EQ(del.from_classes[0].value, "hdd");
  EXPECT_EQ(del.from_classes[0].line, 32);
  ASSERT_EQ(del.criteria.size(), 2u);
  EXPECT_EQ(del.criteria[0].kind, CriterionKind::kSize);
  EXPECT_DOUBLE_EQ(del.criteria[0].min->value, 1.5 * 1024);
  EXPECT_EQ(del.criteria[0].min->flag, MinFlag::kGt);
  EXPECT_EQ(del.criteria[0].min->line, 34);
  EXPECT_FALSE(del.criteria[0].max.has_value());
  EXPECT_EQ(del.criteria[1].kind, CriterionKind::kAccAge);
  EXPECT_DOUBLE_EQ(del.criteria[1].min->value, 90 * 24);
  EXPECT_EQ(del.criteria[1].min->flag, MinFlag::kGtEq);

  const Statement& rel = rule.statements[1];
  EXPECT_EQ(rel.Label(), "RELOCATE 1");
  ASSERT_EQ(rel.from_classes.size(), 2u);
  EXPECT_EQ(rel.from_classes[1].value, "archive");
  ASSERT_EQ(rel.to_classes.size(), 2u);
  EXPECT_EQ(rel.to_classes[0].class_name, "ssd");
  EXPECT_EQ(rel.to_classes[0].balance_size, 64 * testing::kKiB);
  EXPECT_EQ(rel.to_classes[1].class_name, "hdd");
  ASSERT_EQ(rel.criteria.size(), 4u);
  const Criterion& mod = rel.criteria[0];
  EXPECT_EQ(mod.kind, CriterionKind::kModAge);
  EXPECT_EQ(mod.min->flag, MinFlag::kEq);
  EXPECT_DOUBLE_EQ(mod.min->value, 2);
  EXPECT_EQ(mod.max->flag, MaxFlag::kLtEq);
  EXPECT_DOUBLE_EQ(mod.max->value, 3);
  const Criterion& io = rel.criteria[1];
  EXPECT_EQ(io.kind, CriterionKind::kIoTemp);
  EXPECT_EQ(io.type, TempType::kNrwBytes);
  EXPECT_EQ(io.prefer, Prefer::kLow);
  EXPECT_TRUE(io.average);
  EXPECT_DOUBLE_EQ(io.period_hours, 48);  // PERIOD Units defaults to days
  EXPECT_EQ(io.max->flag, MaxFlag::kLt);
  EXPECT_EQ(io.line, 50);
  const Criterion& acc = rel.criteria[2];
  EXPECT_EQ(acc.kind, CriterionKind::kAccessTemp);
  EXPECT_EQ(acc.type, TempType::kNWrites);
  EXPECT_EQ(acc.prefer, Prefer::kNone);
  EXPECT_FALSE(acc.average);
  EXPECT_DOUBLE_EQ(acc.period_hours, 6);
  EXPECT_DOUBLE_EQ(rel.criteria[3].max->value, 1.0 * testing::kGiB);
  EXPECT_EQ(rel.ReportedCriterion(), &io);
  EXPECT_EQ(rel.OrderingPrefer(), Prefer::kLow);

  EXPECT_EQ(rule.statements[2].Label(), "RELOCATE 2");
  EXPECT_TRUE(rule.statements[2].criteria.empty());
  // 2 days, 6 hours, plus the 30.5-hour AveragePeriod (Average is used).
  EXPECT_EQ(p.WindowHours(), (std::vector<double>{6, 30.5, 48}));
}

TEST(LoadPolicy, AcceptsVersions50And51AndLater5x) {
  for (const char* v : {"5.0", "5.1", "5.2", "5.10"}) {
    std::string xml = "<PLACEMENT_POLICY Name=\"p\" Version=\"" + std::string(v) +
                      "\"><RULE Flags=\"data\" Name=\"r\"><SELECT/></RULE></PLACEMENT_POLICY>";
    LoadResult r = LoadPolicy(xml);
    EXPECT_TRUE(r.ok()) << v << testing::Dump(r);
  }
}

TEST(LoadPolicy, StatementsKeepDocumentOrderAndPerKindNumbers) {
  PlacementPolicy p = MustLoad(PolicyXml(R"(<RULE Flags="data" Name="r">
  <SELECT/>
  <RELOCATE><TO><DESTINATION><CLASS>a</CLASS></DESTINATION></TO>
    <WHEN><ACCAGE Units="days"><MIN Flags="gt">30</MIN></ACCAGE></WHEN></RELOCATE>
  <DELETE><WHEN><ACCAGE Units="days"><MIN Flags="gt">90</MIN></ACCAGE></WHEN></DELETE>
  <RELOCATE><TO><DESTINATION><CLASS>b</CLASS></DESTINATION></TO>
    <WHEN><SIZE Units="bytes"><MIN Flags="gt">0</MIN></SIZE></WHEN></RELOCATE>
</RULE>)"));
  const auto& st = p.rules.at(0).statements;
  ASSERT_EQ(st.size(), 3u);
  EXPECT_EQ(st[0].Label(), "RELOCATE 1");
  EXPECT_EQ(st[1].Label(), "DELETE 1");
  EXPECT_EQ(st[2].Label(), "RELOCATE 2");
  EXPECT_EQ(st[2].line, 8);
}

TEST(LoadPolicy, WindowHoursSortedDistinctWithAveragePeriodOnlyWhenAverageUsed) {
  PlacementPolicy p = MustLoad(PolicyXml(R"(<RULE Flags="data" Name="r">
  <SELECT/>
  <RELOCATE><TO><DESTINATION><CLASS>a</CLASS></DESTINATION></TO>
    <WHEN>
      <IOTEMP Type="nrbytes"><MIN Flags="gt">1</MIN><PERIOD Units="hours">6</PERIOD></IOTEMP>
      <IOTEMP Type="nwbytes"><MAX Flags="lt">1</MAX><PERIOD Units="days">0.25</PERIOD></IOTEMP>
      <ACCESSTEMP Type="nrws"><MIN Flags="gt">1</MIN><PERIOD Units="hours">3</PERIOD></ACCESSTEMP>
    </WHEN></RELOCATE>
</RULE>)"));
  EXPECT_EQ(p.WindowHours(), (std::vector<double>{3, 6}));
  EXPECT_FALSE(p.UsesAverage());
}

TEST(LoadPolicy, CheckpointRulesAreKeptButIgnoredWithAWarning) {
  LoadResult r = LoadPolicy(PolicyXml(R"(<RULE Flags="checkpoint" Name="c1">
  <SELECT/>
  <RELOCATE><TO><DESTINATION><CLASS>a</CLASS></DESTINATION></TO>
    <WHEN><IOTEMP Type="nrbytes"><MIN Flags="gt">1</MIN><PERIOD>1</PERIOD></IOTEMP></WHEN>
  </RELOCATE>
</RULE>
<RULE Flags="ckpt" Name="c2"><SELECT/></RULE>
<RULE Flags="data" Name="d"><SELECT/></RULE>)"));
  ASSERT_TRUE(r.ok()) << testing::Dump(r);
  EXPECT_EQ(r.policy->rules[0].flags, RuleFlags::kCheckpoint);
  EXPECT_EQ(r.policy->rules[1].flags, RuleFlags::kCheckpoint);
  EXPECT_TRUE(Has(r.warnings, 3, "RULE", "accepted and ignored"));
  EXPECT_TRUE(Has(r.warnings, 9, "RULE", "Flags=\"ckpt\""));
  EXPECT_TRUE(r.policy->WindowHours().empty());  // the checkpoint rule's PERIOD is not needed
}

TEST(LoadPolicy, DestinationFlagsAnyInCreateMeansAny) {
  PlacementPolicy p = MustLoad(PolicyXml(R"(<RULE Flags="data" Name="r">
  <SELECT/>
  <CREATE><ON><DESTINATION Flags="any"><CLASS>ssd</CLASS></DESTINATION></ON></CREATE>
</RULE>)"));
  EXPECT_TRUE(p.rules[0].create->any);
  EXPECT_TRUE(p.rules[0].create->destinations[0].any);
}

TEST(LoadPolicy, XmlCommentsAndCdataAreFine) {
  PlacementPolicy p = MustLoad(PolicyXml(R"(<!-- a comment -->
<RULE Flags="data" Name="r"><!-- inside -->
  <SELECT><PATTERN><![CDATA[*.a]]></PATTERN></SELECT>
</RULE>)"));
  EXPECT_EQ(p.rules[0].selects[0].patterns[0].glob, "*.a");
}

TEST(LoadPolicy, DoctypeSystemPathIsNeverRead) {
  // A DOCTYPE naming an unreadable or remote DTD loads like any other:
  // tierfs validates against its own embedded copy.
  for (const char* system : {"/nonexistent/placement_policy.dtd", "http://127.0.0.1:9/x.dtd",
                             "/etc/passwd"}) {
    std::string xml = std::string("<?xml version=\"1.0\"?>\n<!DOCTYPE PLACEMENT_POLICY SYSTEM \"") +
                      system + "\">\n<PLACEMENT_POLICY Name=\"p\" Version=\"5.1\">" +
                      "<RULE Flags=\"data\" Name=\"r\"><SELECT/></RULE></PLACEMENT_POLICY>";
    LoadResult r = LoadPolicy(xml);
    EXPECT_TRUE(r.ok()) << system << testing::Dump(r);
    EXPECT_TRUE(r.warnings.empty()) << testing::Dump(r);
  }
}

TEST(Diagnostic, ToStringFormats) {
  EXPECT_EQ((Diagnostic{12, "MIN", "Flags must be gt, gteq or eq, got \"lt\""}).ToString(),
            "line 12: <MIN>: Flags must be gt, gteq or eq, got \"lt\"");
  EXPECT_EQ((Diagnostic{3, "", "malformed XML: x"}).ToString(), "line 3: malformed XML: x");
  EXPECT_EQ((Diagnostic{0, "", "no line"}).ToString(), "no line");
}

}  // namespace
}  // namespace tierfs::policy
