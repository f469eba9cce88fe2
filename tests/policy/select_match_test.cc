// SELECT semantics (docs/policies.md "Rules" and "SELECT: which files").
#include "policy/select_match.h"

#include <gtest/gtest.h>

#include "tests/policy/test_util.h"

namespace tierfs::policy {
namespace {

using testing::MustLoad;
using testing::PolicyXml;

Select LoadSelect(const std::string& select_body) {
  PlacementPolicy p = MustLoad(
      PolicyXml("<RULE Flags=\"data\" Name=\"r\"><SELECT>" + select_body + "</SELECT></RULE>"));
  return p.rules.empty() ? Select{} : p.rules[0].selects[0];
}

bool Matches(const Select& s, const std::string& path, const std::string& user = "alice",
             const std::vector<std::string>& tags = {}) {
  FileIdentity id{path, 1000, 100, user, "staff", &tags};
  return SelectMatches(s, id);
}

TEST(GlobMatches, IsFnmatchWithoutFlags) {
  EXPECT_TRUE(GlobMatches("*", "anything.at.all"));
  EXPECT_TRUE(GlobMatches("*", ".hidden"));  // no FNM_PERIOD
  EXPECT_TRUE(GlobMatches("abc*", "abcdef"));
  EXPECT_TRUE(GlobMatches("*.abc", "x.abc"));
  EXPECT_TRUE(GlobMatches("ab*c", "abXYc"));
  EXPECT_TRUE(GlobMatches("f?le", "file"));
  EXPECT_TRUE(GlobMatches("[a-c]x", "bx"));
  EXPECT_FALSE(GlobMatches("[a-c]x", "dx"));
  EXPECT_FALSE(GlobMatches("*.abc", "x.abcd"));
  EXPECT_TRUE(GlobMatches("exact", "exact"));
  EXPECT_FALSE(GlobMatches("exact", "exactly"));
}

TEST(SelectMatches, EmptySelectIsTheWholeFileSystem) {
  Select s = LoadSelect("");
  EXPECT_TRUE(Matches(s, "/a"));
  EXPECT_TRUE(Matches(s, "/deep/down/file"));
}

TEST(SelectMatches, Directories) {
  Select rec = LoadSelect(R"(<DIRECTORY Flags="recursive">/db</DIRECTORY>)");
  EXPECT_TRUE(Matches(rec, "/db/f"));
  EXPECT_TRUE(Matches(rec, "/db/x/y/f"));
  EXPECT_FALSE(Matches(rec, "/dbx/f"));
  EXPECT_FALSE(Matches(rec, "/db"));  // the directory itself is not a file under it
  EXPECT_FALSE(Matches(rec, "/other/db/f"));
  Select flat = LoadSelect(R"(<DIRECTORY Flags="nonrecursive">db/logs/</DIRECTORY>)");
  EXPECT_TRUE(Matches(flat, "/db/logs/f"));
  EXPECT_FALSE(Matches(flat, "/db/logs/old/f"));
  EXPECT_FALSE(Matches(flat, "/db/f"));
  Select root = LoadSelect(R"(<DIRECTORY Flags="nonrecursive">/</DIRECTORY>)");
  EXPECT_TRUE(Matches(root, "/top"));
  EXPECT_FALSE(Matches(root, "/a/b"));
  Select two = LoadSelect(R"(<DIRECTORY Flags="nonrecursive">a</DIRECTORY>
    <DIRECTORY Flags="recursive">b</DIRECTORY>)");
  EXPECT_TRUE(Matches(two, "/a/f"));
  EXPECT_TRUE(Matches(two, "/b/c/f"));
  EXPECT_FALSE(Matches(two, "/c/f"));
}

TEST(SelectMatches, PatternsMatchTheLastComponent) {
  Select s = LoadSelect("<PATTERN>*.log</PATTERN><PATTERN>core</PATTERN>");
  EXPECT_TRUE(Matches(s, "/x/y/app.log"));
  EXPECT_TRUE(Matches(s, "/core"));
  EXPECT_FALSE(Matches(s, "/app.log/data"));  // a directory name is not the file name
  EXPECT_FALSE(Matches(s, "/x/core.1"));
}

TEST(SelectMatches, RecursivePatternSelectsEverythingBelowAMatchingDirectory) {
  Select s = LoadSelect(R"(<PATTERN Flags="recursive">tmp*</PATTERN>)");
  EXPECT_TRUE(Matches(s, "/a/tmp1/f"));
  EXPECT_TRUE(Matches(s, "/tmp/x/y/z"));
  EXPECT_TRUE(Matches(s, "/a/tmpfile"));  // the file name itself still matches
  EXPECT_FALSE(Matches(s, "/a/b/f"));
  // With a DIRECTORY, the matching directory must lie below it.
  Select under = LoadSelect(R"(<DIRECTORY Flags="recursive">data</DIRECTORY>
    <PATTERN Flags="recursive">data</PATTERN>)");
  EXPECT_FALSE(Matches(under, "/data/f"));  // "data" is the DIRECTORY, not below it
  EXPECT_TRUE(Matches(under, "/data/x/data/f"));
  EXPECT_TRUE(Matches(under, "/data/data"));  // the name matches
  Select flat = LoadSelect(R"(<DIRECTORY Flags="nonrecursive">d</DIRECTORY>
    <PATTERN Flags="recursive">sub</PATTERN>)");
  EXPECT_FALSE(Matches(flat, "/d/sub/f"));  // not directly in d
}

TEST(SelectMatches, SameKindOrDifferentKindsAnd) {
  Select s = LoadSelect(R"(<DIRECTORY Flags="recursive">db</DIRECTORY>
    <PATTERN>*.dbf</PATTERN><PATTERN>*.idx</PATTERN>
    <USER>oracle</USER><USER>alice</USER>)");
  EXPECT_TRUE(Matches(s, "/db/a.dbf", "oracle"));
  EXPECT_TRUE(Matches(s, "/db/a.idx", "alice"));
  EXPECT_FALSE(Matches(s, "/db/a.txt", "alice"));   // pattern fails
  EXPECT_FALSE(Matches(s, "/x/a.dbf", "alice"));    // directory fails
  EXPECT_FALSE(Matches(s, "/db/a.dbf", "bob"));     // user fails
  EXPECT_FALSE(Matches(s, "/db/a.dbf", ""));        // unnamed owner never matches USER
}

TEST(SelectMatches, OwnersIdsAndTags) {
  FileIdentity id{"/f", 1000, 100, "alice", "staff", nullptr};
  EXPECT_TRUE(SelectMatches(LoadSelect("<GROUP>staff</GROUP>"), id));
  EXPECT_FALSE(SelectMatches(LoadSelect("<GROUP>wheel</GROUP>"), id));
  EXPECT_TRUE(SelectMatches(LoadSelect("<UID>7</UID><UID>1000</UID>"), id));
  EXPECT_FALSE(SelectMatches(LoadSelect("<UID>7</UID>"), id));
  EXPECT_TRUE(SelectMatches(LoadSelect("<GID>100</GID>"), id));
  EXPECT_FALSE(SelectMatches(LoadSelect("<GID>0</GID>"), id));
  EXPECT_FALSE(SelectMatches(LoadSelect("<TAG>hot</TAG>"), id));  // no tags at all
  Select tag = LoadSelect("<TAG>hot</TAG><TAG>pinned</TAG>");
  EXPECT_TRUE(Matches(tag, "/f", "alice", {"cold", "pinned"}));
  EXPECT_FALSE(Matches(tag, "/f", "alice", {"cold"}));
}

TEST(GoverningRuleIndex, FirstMatchingDataRuleWins) {
  PlacementPolicy p = MustLoad(PolicyXml(R"(<RULE Flags="checkpoint" Name="ck"><SELECT/></RULE>
<RULE Flags="data" Name="logs"><SELECT><PATTERN>*.log</PATTERN></SELECT>
  <SELECT><USER>oracle</USER></SELECT></RULE>
<RULE Flags="data" Name="rest"><SELECT><PATTERN>*</PATTERN></SELECT></RULE>)"));
  auto index = [&](const std::string& path, const std::string& user) {
    return GoverningRuleIndex(p, FileIdentity{path, 1, 1, user, "", nullptr});
  };
  EXPECT_EQ(index("/a.log", "alice"), 1);  // the checkpoint rule never selects
  EXPECT_EQ(index("/a.dbf", "oracle"), 1);  // the second SELECT of the rule (OR)
  EXPECT_EQ(index("/a.dbf", "alice"), 2);
  PlacementPolicy none = MustLoad(PolicyXml(
      R"(<RULE Flags="data" Name="logs"><SELECT><PATTERN>*.log</PATTERN></SELECT></RULE>)"));
  EXPECT_EQ(GoverningRuleIndex(none, FileIdentity{"/x", 1, 1, "", "", nullptr}), -1);
}

}  // namespace
}  // namespace tierfs::policy
