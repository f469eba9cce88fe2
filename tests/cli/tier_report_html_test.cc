// The HTML writer of `fsppadm report --html` (cli/fsppadm/tier_report_html.h): escaping,
// bar widths, and a page built from a daemon answer; and the report's options.
#include "cli/fsppadm/tier_report_html.h"

#include <gtest/gtest.h>

#include "cli/fsppadm/command_line.h"
#include "cli/fsppadm/report.h"
#include "cli/fsppadm/tier_report.h"

namespace tierfs::cli {
namespace {

using nlohmann::json;

TEST(HtmlEscape, EscapesMarkupQuotesAndControlCharacters) {
  EXPECT_EQ(HtmlEscape("plain/path.txt"), "plain/path.txt");
  EXPECT_EQ(HtmlEscape("a<b>&\"c\"'d'"), "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;");
  EXPECT_EQ(HtmlEscape("&amp;"), "&amp;amp;");  // already-escaped text is text
  EXPECT_EQ(HtmlEscape("new\nline\ttab\x7f"), "new&#xFFFD;line&#xFFFD;tab&#xFFFD;");
  EXPECT_EQ(HtmlEscape("caf\xc3\xa9"), "caf\xc3\xa9");  // UTF-8 passes
  EXPECT_EQ(HtmlEscape(""), "");
}

TEST(BarWidth, IsProportionalAndBounded) {
  EXPECT_DOUBLE_EQ(BarWidth(800000, 800000, 600), 600);
  EXPECT_DOUBLE_EQ(BarWidth(250000, 800000, 600), 187.5);
  EXPECT_DOUBLE_EQ(BarWidth(0, 800000, 600), 0);
  EXPECT_DOUBLE_EQ(BarWidth(5, 0, 600), 0);      // nothing to scale by
  EXPECT_DOUBLE_EQ(BarWidth(900, 800, 600), 600);  // never past the full width
  EXPECT_DOUBLE_EQ(BarWidth(UINT64_MAX, UINT64_MAX, 600), 600);
}

TEST(ClassColour, FixedForKnownClassesPaletteForOthers) {
  EXPECT_EQ(ClassColour("ssd", 5), "#1f77b4");
  EXPECT_EQ(ClassColour("hdd", 0), "#8c8c8c");
  EXPECT_NE(ClassColour("tier0", 0), ClassColour("tier1", 1));
  EXPECT_EQ(ClassColour("tier0", 0), ClassColour("tier8", 8));  // the palette wraps
}

// A daemon answer (fs/control/control_protocol.md "tier_summary") with a hostile path.
json Answer() {
  return json::parse(R"({"now_s": 1763805600, "hours": 24, "depth": 2,
    "directories": [
      {"path": "/a<script>&\"x\"", "files": 2, "bytes": 300, "rbytes": 0, "wbytes": 300,
       "iotemp": 0.5, "classes": {"hdd": {"files": 2, "bytes": 300}}},
      {"path": "/fast", "files": 4, "bytes": 1200, "rbytes": 2400, "wbytes": 0, "iotemp": 2,
       "classes": {"ssd": {"files": 3, "bytes": 900}, "hdd": {"files": 1, "bytes": 300}}}],
    "classes": [
      {"class": "ssd", "files": 3, "bytes": 900, "total_bytes": 10000, "used_bytes": 4000,
       "free_bytes": 6000},
      {"class": "hdd", "files": 3, "bytes": 600, "total_bytes": 20000, "used_bytes": 1000,
       "free_bytes": 19000}],
    "volumes": [{"id": 1, "name": "vol<1>", "class": "ssd", "state": "online", "files": 3,
                 "bytes": 900}],
    "totals": {"files": 6, "bytes": 1500, "rbytes": 2400, "wbytes": 300, "iotemp": 1}})");
}

TEST(TierReportHtml, DrawsOneProportionalBarPerDirectoryAndEscapesPaths) {
  const TierReport report = TierReportFromJson(Answer(), "/mnt/<t>");
  ASSERT_EQ(report.directories.size(), 2u);
  EXPECT_EQ(TierReportClassNames(report), (std::vector<std::string>{"ssd", "hdd"}));
  const std::string html = TierReportHtml(report);

  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<title>tierfs tiers of /mnt/&lt;t&gt; at "), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos) << "an unescaped path";
  EXPECT_EQ(html.find("/mnt/<t>"), std::string::npos);
  EXPECT_EQ(html.find("vol<1>"), std::string::npos);
  EXPECT_NE(html.find("data-path=\"/a&lt;script&gt;&amp;&quot;x&quot;\""), std::string::npos);
  // Self-contained: nothing to load (the SVG namespace URI is a name, not a request).
  for (const char* load : {"<script", "<link", "src=", "href=", "url(http", "@import"}) {
    EXPECT_EQ(html.find(load), std::string::npos) << load;
  }

  size_t bars = 0;
  for (size_t at = html.find("<g class=\"dir\""); at != std::string::npos;
       at = html.find("<g class=\"dir\"", at + 1)) {
    bars++;
  }
  EXPECT_EQ(bars, 2u);
  // /fast is the biggest (1200 bytes): its ssd part is 900/1200 of the bar, its
  // hdd part 300/1200; the other directory's 300 hdd bytes likewise 150 pixels.
  EXPECT_NE(html.find("data-class=\"ssd\" data-bytes=\"900\" x=\"310.00\" y=\"44.00\" "
                      "width=\"450.00\""),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("data-class=\"hdd\" data-bytes=\"300\" x=\"760.00\" y=\"44.00\" "
                      "width=\"150.00\""),
            std::string::npos);
  EXPECT_NE(html.find("data-class=\"hdd\" data-bytes=\"300\" x=\"310.00\" y=\"10.00\" "
                      "width=\"150.00\""),
            std::string::npos);
  // Heat: /fast moved 2400 bytes, the other 300: 600 and 75 pixels.
  EXPECT_NE(html.find("class=\"heat\" data-bytes=\"2400\" x=\"310.00\" y=\"64.00\" "
                      "width=\"600.00\""),
            std::string::npos);
  EXPECT_NE(html.find("class=\"heat\" data-bytes=\"300\" x=\"310.00\" y=\"30.00\" "
                      "width=\"75.00\""),
            std::string::npos);
  // The table keeps exact bytes beside the human-readable ones.
  EXPECT_NE(html.find("<td class=\"num\" data-value=\"1200\" title=\"1200 bytes\">"),
            std::string::npos);
}

// Answer() with an object volume: the daemon sends no capacity, used or free
// for it or its class.
json AnswerWithAStore() {
  json a = Answer();
  a["classes"].push_back({{"class", "cloud"}, {"files", 5}, {"bytes", 5000}});
  a["volumes"].push_back({{"id", 3}, {"name", "store"}, {"class", "cloud"},
                          {"state", "online"}, {"files", 5}, {"bytes", 5000}});
  return a;
}

TEST(TierReportText, AnObjectStoreShowsDashesForItsUnknownCapacity) {
  const std::string text = TierReportText(TierReportFromJson(AnswerWithAStore(), "/mnt"));
  // Class, Files, Bytes, then Capacity, Used and Free.
  EXPECT_NE(text.find("cloud      5   4.9K         -     -     -"), std::string::npos) << text;
  EXPECT_EQ(text.find("1.0P"), std::string::npos) << text;
}

TEST(TierReportHtml, AnObjectStoreShowsDashesForItsUnknownCapacity) {
  const std::string html = TierReportHtml(TierReportFromJson(AnswerWithAStore(), "/mnt"));
  EXPECT_NE(html.find("<td>-</td><td>-</td><td>-</td>"), std::string::npos) << html;
}

TEST(TierReportHtml, EmptyFileSystem) {
  const TierReport report = TierReportFromJson(json::object(), "/mnt");
  const std::string html = TierReportHtml(report);
  EXPECT_NE(html.find("No files."), std::string::npos);
  EXPECT_EQ(html.find("<g class=\"dir\""), std::string::npos);
}

TEST(TierReportText, ListsDirectoriesClassesAndVolumes) {
  const std::string text = TierReportText(TierReportFromJson(Answer(), "/mnt"));
  EXPECT_NE(text.find("/fast"), std::string::npos) << text;
  EXPECT_NE(text.find("vol<1>"), std::string::npos) << text;
  EXPECT_NE(text.find("IOTEMP"), std::string::npos) << text;
  EXPECT_EQ(text.find("\n\n\n"), std::string::npos) << text;
}

TEST(FsppadmReportArgs, ParsesOptionsAndRefusesBadOnes) {
  Result<fsppadm::ReportOptions> r = fsppadm::ParseReportOptions(
      {"report", "--html", "out.html", "--depth", "3", "--hours", "1.5", "/mnt"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->html, "out.html");
  EXPECT_EQ(r->depth, 3);
  EXPECT_DOUBLE_EQ(r->hours, 1.5);
  EXPECT_EQ(r->mount, "/mnt");

  r = fsppadm::ParseReportOptions({"report", "/mnt"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->depth, 2);
  EXPECT_DOUBLE_EQ(r->hours, 24);
  EXPECT_TRUE(r->html.empty());

  auto error = [](std::vector<std::string> args) {
    Result<fsppadm::CommandLine> parsed = fsppadm::ParseCommandLine(args);
    return parsed.ok() ? std::string() : parsed.status().message();
  };
  EXPECT_NE(error({"fsppadm", "report", "--depth", "-1", "/m"}).find("--depth"), std::string::npos);
  EXPECT_NE(error({"fsppadm", "report", "--depth", "1001", "/m"}).find("--depth"),
            std::string::npos);
  EXPECT_NE(error({"fsppadm", "report", "--hours", "0", "/m"}).find("--hours"), std::string::npos);
  EXPECT_NE(error({"fsppadm", "report", "--hours", "9000", "/m"}).find("--hours"),
            std::string::npos);
  EXPECT_NE(error({"fsppadm", "report", "--html", "", "/m"}).find("--html"), std::string::npos);
  EXPECT_NE(error({"fsppadm", "report", "--html", "f", "--json", "/m"}).find("exclude"),
            std::string::npos);
  EXPECT_NE(error({"fsppadm", "report"}).find("one MOUNT"), std::string::npos);
  EXPECT_NE(error({"fsppadm", "report", "/a", "/b"}).find("one MOUNT"), std::string::npos);
}

}  // namespace
}  // namespace tierfs::cli
