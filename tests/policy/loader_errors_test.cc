// LoadPolicy on broken documents: every error path names its line, its
// element and what was expected; no policy is returned.
#include <gtest/gtest.h>

#include "policy/loader.h"
#include "tests/policy/test_util.h"

namespace tierfs::policy {
namespace {

using testing::Dump;
using testing::Has;
using testing::PolicyXml;

// A policy whose only rule has a RELOCATE with `when` as its WHEN content;
// the first line of `when` is line 6 of the document.
std::string WithWhen(const std::string& when) {
  return PolicyXml(R"(<RULE Flags="data" Name="r">
  <SELECT/>
  <RELOCATE><TO><DESTINATION><CLASS>a</CLASS></DESTINATION></TO><WHEN>
)" + when + R"(
    </WHEN></RELOCATE>
</RULE>)");
}

LoadResult ExpectErrors(const std::string& xml) {
  LoadResult r = LoadPolicy(xml);
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.policy.has_value());
  EXPECT_FALSE(r.errors.empty());
  return r;
}

TEST(LoadPolicyErrors, MalformedXmlNamesTheLine) {
  LoadResult r = ExpectErrors("<?xml version=\"1.0\"?>\n"
                              "<PLACEMENT_POLICY Name=\"p\" Version=\"5.1\">\n"
                              "  <RULE Flags=\"data\" Name=\"r\">\n    <SELECT>\n  </RULE>\n"
                              "</PLACEMENT_POLICY>\n");
  ASSERT_FALSE(r.errors.empty());
  EXPECT_EQ(r.errors[0].line, 5) << Dump(r);
  EXPECT_NE(r.errors[0].message.find("malformed XML"), std::string::npos);
  EXPECT_NE(r.errors[0].message.find("SELECT"), std::string::npos) << Dump(r);
}

TEST(LoadPolicyErrors, UnquotedAttributeAndEmptyDocument) {
  LoadResult r = ExpectErrors("<PLACEMENT_POLICY\n Name=p Version=\"5.1\"/>");
  EXPECT_EQ(r.errors[0].line, 2) << Dump(r);
  r = ExpectErrors("");
  EXPECT_NE(r.errors[0].message.find("malformed XML"), std::string::npos) << Dump(r);
}

TEST(LoadPolicyErrors, HugeDocumentsAreRefused) {
  std::string xml = PolicyXml(R"(<RULE Flags="data" Name="r"><SELECT/></RULE>)");
  xml.insert(xml.find("<RULE"), 17 * 1024 * 1024, ' ');
  LoadResult r = ExpectErrors(xml);
  EXPECT_NE(r.errors[0].message.find("larger than"), std::string::npos) << Dump(r);
}

TEST(LoadPolicyErrors, WrongRootElement) {
  LoadResult r = ExpectErrors("<?xml version=\"1.0\"?>\n<FILE_PLACEMENT_POLICY/>");
  EXPECT_TRUE(Has(r.errors, 2, "FILE_PLACEMENT_POLICY", "root element must be <PLACEMENT_POLICY>"))
      << Dump(r);
}

TEST(LoadPolicyErrors, WrongMinFlagsGivesTheExactMessage) {
  LoadResult r = ExpectErrors(WithWhen(
      R"(      <IOTEMP Type="nrbytes"><MIN Flags="lt">1</MIN><PERIOD>1</PERIOD></IOTEMP>)"));
  ASSERT_EQ(r.errors.size(), 1u) << Dump(r);
  EXPECT_EQ(r.errors[0].ToString(), "line 6: <MIN>: Flags must be gt, gteq or eq, got \"lt\"");
}

TEST(LoadPolicyErrors, WrongMaxFlags) {
  LoadResult r = ExpectErrors(WithWhen(R"(      <SIZE Units="KB">
        <MAX Flags="gt">5</MAX>
      </SIZE>)"));
  EXPECT_TRUE(Has(r.errors, 7, "MAX", "Flags must be lt or lteq, got \"gt\"")) << Dump(r);
}

TEST(LoadPolicyErrors, WrongEnumeratedAttributes) {
  LoadResult r = ExpectErrors(PolicyXml(R"(<RULE Flags="files" Name="r">
  <SELECT><DIRECTORY Flags="deep">a</DIRECTORY><PATTERN Flags="nonrecursive">x</PATTERN></SELECT>
  <CREATE><ON Flags="all"><DESTINATION Flags="never"><CLASS>a</CLASS></DESTINATION></ON></CREATE>
  <RELOCATE><TO><DESTINATION><CLASS>a</CLASS></DESTINATION></TO><WHEN>
    <IOTEMP Type="nreads" Prefer="hot"><MIN Flags="gt">1</MIN><PERIOD>1</PERIOD></IOTEMP>
    <ACCESSTEMP Type="nrbytes"><MIN Flags="gt">1</MIN><PERIOD>1</PERIOD></ACCESSTEMP>
  </WHEN></RELOCATE>
</RULE>)"));
  EXPECT_TRUE(Has(r.errors, 3, "RULE", "Flags must be data, checkpoint or ckpt, got \"files\""))
      << Dump(r);
  EXPECT_TRUE(Has(r.errors, 4, "DIRECTORY", "Flags must be recursive or nonrecursive")) << Dump(r);
  EXPECT_TRUE(Has(r.errors, 4, "PATTERN", "Flags must be recursive, got \"nonrecursive\""));
  EXPECT_TRUE(Has(r.errors, 5, "ON", "Flags must be any, got \"all\"")) << Dump(r);
  EXPECT_TRUE(Has(r.errors, 5, "DESTINATION", "Flags must be any or disallow")) << Dump(r);
  EXPECT_TRUE(
      Has(r.errors, 7, "IOTEMP", "Type must be nrbytes, nwbytes or nrwbytes, got \"nreads\""))
      << Dump(r);
  EXPECT_TRUE(Has(r.errors, 7, "IOTEMP", "Prefer must be low or high, got \"hot\"")) << Dump(r);
  EXPECT_TRUE(Has(r.errors, 8, "ACCESSTEMP", "Type must be nreads, nwrites or nrws")) << Dump(r);
}

TEST(LoadPolicyErrors, BadUnits) {
  LoadResult r = ExpectErrors(WithWhen(R"(      <SIZE Units="TB"><MIN Flags="gt">1</MIN></SIZE>
      <ACCAGE Units="minutes"><MIN Flags="gt">1</MIN></ACCAGE>
      <MODAGE Units="weeks"><MIN Flags="gt">1</MIN></MODAGE>
      <IOTEMP Type="nrbytes"><MIN Flags="gt">1</MIN><PERIOD Units="weeks">1</PERIOD></IOTEMP>)"));
  EXPECT_TRUE(Has(r.errors, 6, "SIZE", "Units must be bytes, KB, MB or GB, got \"TB\"")) << Dump(r);
  EXPECT_TRUE(Has(r.errors, 7, "ACCAGE", "Units must be hours or days, got \"minutes\""));
  EXPECT_TRUE(Has(r.errors, 8, "MODAGE", "Units must be hours or days, got \"weeks\""));
  EXPECT_TRUE(Has(r.errors, 9, "PERIOD", "Units must be hours or days, got \"weeks\"")) << Dump(r);
}

TEST(LoadPolicyErrors, BalanceSizeUnitsAndValue) {
  LoadResult r = ExpectErrors(PolicyXml(R"(<RULE Flags="data" Name="r">
  <SELECT/>
  <CREATE><ON><DESTINATION><CLASS>a</CLASS><BALANCE_SIZE Units="PB">1</BALANCE_SIZE></DESTINATION>
  <DESTINATION><CLASS>b</CLASS><BALANCE_SIZE Units="MB">0</BALANCE_SIZE></DESTINATION>
  <DESTINATION><CLASS>c</CLASS><BALANCE_SIZE>1</BALANCE_SIZE></DESTINATION></ON></CREATE>
</RULE>)"));
  EXPECT_TRUE(Has(r.errors, 5, "BALANCE_SIZE", "Units must be bytes, KB, MB or GB")) << Dump(r);
  EXPECT_TRUE(Has(r.errors, 6, "BALANCE_SIZE", "greater than 0")) << Dump(r);
  EXPECT_TRUE(Has(r.errors, 7, "BALANCE_SIZE", "missing required attribute Units")) << Dump(r);
}

TEST(LoadPolicyErrors, MissingPeriodForTemperatures) {
  LoadResult r = ExpectErrors(WithWhen(R"(      <IOTEMP Type="nrbytes"><MIN Flags="gt">1</MIN></IOTEMP>
      <ACCESSTEMP Type="nrws"><MAX Flags="lt">1</MAX></ACCESSTEMP>)"));
  EXPECT_TRUE(Has(r.errors, 6, "IOTEMP", "expected (MIN?, MAX?, PERIOD), got (MIN)")) << Dump(r);
  EXPECT_TRUE(Has(r.errors, 7, "ACCESSTEMP", "PERIOD")) << Dump(r);
}

TEST(LoadPolicyErrors, BadAverage) {
  LoadResult r = ExpectErrors(WithWhen(
      R"(      <IOTEMP Type="nrbytes" Average="24"><MIN Flags="gt">1</MIN><PERIOD>1</PERIOD></IOTEMP>)"));
  EXPECT_TRUE(Has(r.errors, 6, "IOTEMP", "Average must be \"*\"")) << Dump(r);
  EXPECT_TRUE(Has(r.errors, 6, "IOTEMP", "got \"24\""));
}

TEST(LoadPolicyErrors, BadNumbers) {
  LoadResult r = ExpectErrors(WithWhen(R"(      <SIZE Units="KB"><MIN Flags="gt">abc</MIN></SIZE>
      <SIZE Units="KB"><MIN Flags="gt">-1</MIN></SIZE>
      <SIZE Units="KB"><MAX Flags="lt">1e3</MAX></SIZE>
      <IOTEMP Type="nrbytes"><MIN Flags="gt">1</MIN><PERIOD>0</PERIOD></IOTEMP>
      <IOTEMP Type="nrbytes"><MIN Flags="gt">1</MIN><PERIOD>1.2.3</PERIOD></IOTEMP>
      <ACCAGE Units="days"><MIN Flags="gt"></MIN></ACCAGE>)"));
  EXPECT_TRUE(Has(r.errors, 6, "MIN", "expected a non-negative number, got \"abc\"")) << Dump(r);
  EXPECT_TRUE(Has(r.errors, 7, "MIN", "got \"-1\""));
  EXPECT_TRUE(Has(r.errors, 8, "MAX", "got \"1e3\""));
  EXPECT_TRUE(Has(r.errors, 9, "PERIOD", "PERIOD must be greater than 0")) << Dump(r);
  EXPECT_TRUE(Has(r.errors, 10, "PERIOD", "expected a positive number, got \"1.2.3\""));
  EXPECT_TRUE(Has(r.errors, 11, "MIN", "got \"\""));
}

TEST(LoadPolicyErrors, SizeAndAgesNeedABound) {
  LoadResult r = ExpectErrors(WithWhen(R"(      <SIZE Units="KB"></SIZE>
      <ACCAGE Units="days"/>)"));
  EXPECT_TRUE(Has(r.errors, 6, "SIZE", "needs a <MIN> or a <MAX>")) << Dump(r);
  EXPECT_TRUE(Has(r.errors, 7, "ACCAGE", "needs a <MIN> or a <MAX>"));
}

TEST(LoadPolicyErrors, PolicyAttributes) {
  LoadResult r = ExpectErrors(
      "<PLACEMENT_POLICY Name=\"\" Version=\"6.0\" AveragePeriod=\"0\">\n"
      "<RULE Flags=\"data\" Name=\"r\"><SELECT/></RULE></PLACEMENT_POLICY>");
  EXPECT_TRUE(Has(r.errors, 1, "PLACEMENT_POLICY", "Name may not be empty")) << Dump(r);
  EXPECT_TRUE(Has(r.errors, 1, "PLACEMENT_POLICY",
                  "Version must be 5.0, 5.1 or a later 5.x, got \"6.0\""));
  EXPECT_TRUE(Has(r.errors, 1, "PLACEMENT_POLICY", "AveragePeriod must be a positive number"));
  for (const char* bad : {"5", "5.1a", "five"}) {
    r = ExpectErrors(std::string("<PLACEMENT_POLICY Name=\"p\" Version=\"") + bad +
                     "\"><RULE Flags=\"data\" Name=\"r\"><SELECT/></RULE></PLACEMENT_POLICY>");
    EXPECT_TRUE(Has(r.errors, 1, "PLACEMENT_POLICY", "Version must be")) << bad << Dump(r);
  }
  r = ExpectErrors("<PLACEMENT_POLICY AveragePeriod=\"-3\">\n<RULE Flags=\"data\"><SELECT/></RULE>"
                   "</PLACEMENT_POLICY>");
  EXPECT_TRUE(Has(r.errors, 1, "PLACEMENT_POLICY", "missing required attribute Name")) << Dump(r);
  EXPECT_TRUE(Has(r.errors, 1, "PLACEMENT_POLICY", "missing required attribute Version"));
  EXPECT_TRUE(Has(r.errors, 1, "PLACEMENT_POLICY", "got \"-3\""));
  EXPECT_TRUE(Has(r.errors, 2, "RULE", "missing required attribute Name")) << Dump(r);
}

TEST(LoadPolicyErrors, UnknownElementsAndAttributes) {
  LoadResult r = ExpectErrors(PolicyXml(R"(<RULE Flags="data" Name="r" Priority="1">
  <SELECT><PATTERN>*</PATTERN><EXTENSION>dbf</EXTENSION></SELECT>
  <RELOCATE><TO><DESTINATION><CLASS>a</CLASS></DESTINATION></TO></RELOCATE>
  <MIGRATE/>
</RULE>)"));
  EXPECT_TRUE(Has(r.errors, 3, "RULE", "unknown attribute Priority (<RULE> takes Name, Flags)"))
      << Dump(r);
  EXPECT_TRUE(Has(r.errors, 4, "EXTENSION", "unknown element <EXTENSION>")) << Dump(r);
  EXPECT_TRUE(Has(r.errors, 4, "SELECT", "content does not follow the DTD")) << Dump(r);
  EXPECT_TRUE(Has(r.errors, 6, "MIGRATE", "unknown element <MIGRATE>")) << Dump(r);
}

TEST(LoadPolicyErrors, ElementOrderFollowsTheDtd) {
  LoadResult r = ExpectErrors(PolicyXml(R"(<RULE Flags="data" Name="r">
  <RELOCATE><TO><DESTINATION><CLASS>a</CLASS></DESTINATION></TO></RELOCATE>
  <SELECT/>
</RULE>
<RULE Flags="data" Name="s"><SELECT/><DELETE><TO/></DELETE></RULE>)"));
  EXPECT_TRUE(Has(r.errors, 3, "RULE",
                  "expected (COMMENT?, SELECT+, CREATE?, (DELETE | RELOCATE)*), "
                  "got (RELOCATE SELECT)"))
      << Dump(r);
  EXPECT_TRUE(Has(r.errors, 7, "DELETE", "expected (COMMENT?, FROM?, WHEN?)")) << Dump(r);
}

TEST(LoadPolicyErrors, NoRuleAtAll) {
  LoadResult r = ExpectErrors("<PLACEMENT_POLICY Name=\"p\" Version=\"5.1\">\n</PLACEMENT_POLICY>");
  EXPECT_TRUE(Has(r.errors, 1, "PLACEMENT_POLICY", "content does not follow the DTD")) << Dump(r);
}

TEST(LoadPolicyErrors, SelectValues) {
  LoadResult r = ExpectErrors(PolicyXml(R"(<RULE Flags="data" Name="r">
  <SELECT>
    <PATTERN>db/*.dbf</PATTERN>
    <PATTERN>  </PATTERN>
    <DIRECTORY Flags="recursive">a/../b</DIRECTORY>
    <UID>alice</UID>
    <GID>4294967296</GID>
    <TAG>hot,cold</TAG>
    <USER/>
    <GROUP> </GROUP>
  </SELECT>
</RULE>)"));
  EXPECT_TRUE(Has(r.errors, 5, "PATTERN", "may not contain '/'")) << Dump(r);
  EXPECT_TRUE(Has(r.errors, 5, "PATTERN", "got \"db/*.dbf\""));
  EXPECT_TRUE(Has(r.errors, 6, "PATTERN", "may not be empty"));
  EXPECT_TRUE(Has(r.errors, 7, "DIRECTORY", "may not contain \"..\""));
  EXPECT_TRUE(Has(r.errors, 8, "UID", "expected a numeric id (0 to 4294967295), got \"alice\""));
  EXPECT_TRUE(Has(r.errors, 9, "GID", "got \"4294967296\""));
  EXPECT_TRUE(Has(r.errors, 10, "TAG", "one word"));
  EXPECT_TRUE(Has(r.errors, 11, "USER", "may not be empty"));
  EXPECT_TRUE(Has(r.errors, 12, "GROUP", "may not be empty"));
}

TEST(LoadPolicyErrors, DestinationsNeedAClass) {
  LoadResult r = ExpectErrors(PolicyXml(R"(<RULE Flags="data" Name="r">
  <SELECT/>
  <CREATE><ON><DESTINATION><BALANCE_SIZE Units="KB">4</BALANCE_SIZE></DESTINATION></ON></CREATE>
  <RELOCATE><TO><DESTINATION/></TO></RELOCATE>
  <RELOCATE><FROM><SOURCE><CLASS> </CLASS></SOURCE></FROM>
    <TO><DESTINATION><CLASS>a</CLASS></DESTINATION></TO></RELOCATE>
  <RELOCATE><FROM><SOURCE/></FROM><TO><DESTINATION><CLASS>a</CLASS></DESTINATION></TO></RELOCATE>
</RULE>)"));
  EXPECT_TRUE(Has(r.errors, 5, "DESTINATION", "only ON Flags=\"any\" allows none")) << Dump(r);
  EXPECT_TRUE(Has(r.errors, 6, "DESTINATION", "a TO destination needs a <CLASS>")) << Dump(r);
  EXPECT_TRUE(Has(r.errors, 7, "CLASS", "may not be empty")) << Dump(r);
  EXPECT_TRUE(Has(r.errors, 9, "SOURCE", "expected (CLASS, PERCENT?)")) << Dump(r);
}

TEST(LoadPolicyErrors, OneDirectoryOneFlagAcrossRules) {
  LoadResult r = ExpectErrors(PolicyXml(R"(<RULE Flags="data" Name="a">
  <SELECT><DIRECTORY Flags="recursive">/db</DIRECTORY></SELECT>
</RULE>
<RULE Flags="data" Name="b">
  <SELECT><DIRECTORY Flags="nonrecursive">db/</DIRECTORY></SELECT>
</RULE>)"));
  EXPECT_TRUE(Has(r.errors, 7, "DIRECTORY",
                  "directory \"db\" is nonrecursive here but recursive at line 4"))
      << Dump(r);
}

TEST(LoadPolicyErrors, InternalSubsetAndEntitiesAreRefused) {
  // An XXE attempt: the entity is neither declared into effect nor expanded.
  LoadResult r = ExpectErrors(
      "<?xml version=\"1.0\"?>\n"
      "<!DOCTYPE PLACEMENT_POLICY [ <!ENTITY x SYSTEM \"file:///etc/passwd\"> ]>\n"
      "<PLACEMENT_POLICY Name=\"p\" Version=\"5.1\">\n"
      "<RULE Flags=\"data\" Name=\"r\"><SELECT><USER>&x;</USER></SELECT></RULE>\n"
      "</PLACEMENT_POLICY>\n");
  EXPECT_TRUE(Has(r.errors, 2, "", "internal DTD subsets are refused")) << Dump(r);
  for (const Diagnostic& d : r.errors) {
    EXPECT_EQ(d.message.find("root:"), std::string::npos) << d.ToString();
  }
  // Without a declaration, an entity reference is an error of its own.
  r = ExpectErrors(
      "<?xml version=\"1.0\"?>\n"
      "<!DOCTYPE PLACEMENT_POLICY SYSTEM \"/opt/VRTSvxfs/etc/placement_policy.dtd\">\n"
      "<PLACEMENT_POLICY Name=\"p\" Version=\"5.1\">\n"
      "<RULE Flags=\"data\" Name=\"r\"><SELECT><USER>&x;</USER></SELECT></RULE>\n"
      "</PLACEMENT_POLICY>\n");
  EXPECT_TRUE(Has(r.errors, 4, "USER", "entity reference &x; is not allowed")) << Dump(r);
}

// Found by tests/fuzz/policy_fuzzer and control_fuzzer: values this large used to
// load, and converting them to uint64_t bytes or int64_t seconds was undefined.
TEST(LoadPolicyErrors, PeriodsAndBalanceSizesThatCannotBeRepresentedAreRefused) {
  const std::string huge(40, '9');
  LoadResult r = ExpectErrors(WithWhen(R"(      <IOTEMP Type="nrbytes"><MIN Flags="gt">1</MIN>
        <PERIOD Units="days">36501</PERIOD></IOTEMP>)"));
  EXPECT_TRUE(Has(r.errors, 7, "PERIOD", "at most 876000 hours")) << Dump(r);
  r = ExpectErrors(WithWhen(R"(      <ACCESSTEMP Type="nreads"><MIN Flags="gt">1</MIN>
        <PERIOD Units="hours">)" + huge + R"(</PERIOD></ACCESSTEMP>)"));
  EXPECT_TRUE(Has(r.errors, 7, "PERIOD", "at most 876000 hours")) << Dump(r);
  r = ExpectErrors(PolicyXml(R"(<RULE Flags="data" Name="r"><SELECT/></RULE>)",
                             "AveragePeriod=\"" + huge + "\""));
  EXPECT_TRUE(Has(r.errors, 2, "PLACEMENT_POLICY", "at most 876000 hours")) << Dump(r);
  r = ExpectErrors(PolicyXml(R"(<RULE Flags="data" Name="r"><SELECT/><CREATE><ON>
  <DESTINATION><CLASS>a</CLASS><BALANCE_SIZE Units="GB">17179869184</BALANCE_SIZE></DESTINATION>
</ON></CREATE></RULE>)"));
  EXPECT_TRUE(Has(r.errors, 4, "BALANCE_SIZE", "less than 16 EiB")) << Dump(r);

  // The bounds themselves still load.
  LoadResult ok = LoadPolicy(WithWhen(R"(      <IOTEMP Type="nrbytes"><MIN Flags="gt">1</MIN>
        <PERIOD Units="days">36500</PERIOD></IOTEMP>)"));
  EXPECT_TRUE(ok.ok()) << Dump(ok);
  ok = LoadPolicy(PolicyXml(R"(<RULE Flags="data" Name="r"><SELECT/><CREATE><ON>
  <DESTINATION><CLASS>a</CLASS><BALANCE_SIZE Units="GB">17179869183</BALANCE_SIZE></DESTINATION>
</ON></CREATE></RULE>)", "AveragePeriod=\"876000\""));
  EXPECT_TRUE(ok.ok()) << Dump(ok);
}

TEST(LoadPolicyErrors, ReportsEveryProblemSortedByLine) {
  LoadResult r = ExpectErrors(WithWhen(R"(      <SIZE Units="KB"><MIN Flags="lt">abc</MIN></SIZE>
      <IOTEMP Type="nrbytes" Average="x"><MIN Flags="gt">1</MIN></IOTEMP>
      <ACCAGE Units="days"><MIN Flags="gt">1</MIN></ACCAGE>)"));
  EXPECT_GE(r.errors.size(), 4u) << Dump(r);
  for (size_t i = 1; i < r.errors.size(); ++i) {
    EXPECT_LE(r.errors[i - 1].line, r.errors[i].line) << Dump(r);
  }
}

}  // namespace
}  // namespace tierfs::policy
