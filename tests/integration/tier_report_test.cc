// fsppadm report (docs/admin.md "A picture of the tiers"): the numbers the daemon
// aggregates per directory and class, and the HTML page as a browser renders it
// (tests/integration/report_browser_check.py, Playwright driving Debian's chromium).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "tests/integration/test_policies.h"
#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

using nlohmann::json;

// The Python with Playwright that scripts/install-deps.sh sets up:
// $TIERFS_TEST_VENV, else ~/.cache/tierfs-test-venv.
std::string VenvPython() {
  const char* venv = std::getenv("TIERFS_TEST_VENV");
  if (venv != nullptr && *venv != '\0') return std::string(venv) + "/bin/python3";
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : "/root") + "/.cache/tierfs-test-venv/bin/python3";
}

// A directory name that needs escaping in HTML (and in an attribute).
constexpr char kOddDir[] = "cold & \"<b>\" it's";

class TierReportTest : public TierfsFixture {
 protected:
  // The daemon's data path: bytes read per directory, counted exactly as the daemon serves them
  // (the test's reads of cached files would reach no volume under passthrough).
  std::vector<std::string> FixtureMountArgs() const override { return {"--passthrough=off"}; }

 protected:
  // /fast: 3 *.hot files (800000 bytes, moved to ssd by enforce; one read back);
  // /<kOddDir>: 2 files (250000 bytes, on hdd); /top: 5000 bytes in the root.
  void MakeTree() {
    AssignPolicy(kPinHotPolicy);
    ASSERT_EQ(mkdir(Path("fast").c_str(), 0755), 0);
    ASSERT_EQ(mkdir(Path(kOddDir).c_str(), 0755), 0);
    WriteFile(Path("fast/a.hot"), RandomBytes(300000, 1));
    WriteFile(Path("fast/b.hot"), RandomBytes(300000, 2));
    WriteFile(Path("fast/c.hot"), RandomBytes(200000, 3));
    WriteFile(Path(std::string(kOddDir) + "/x"), RandomBytes(100000, 4));
    WriteFile(Path(std::string(kOddDir) + "/y"), RandomBytes(150000, 5));
    WriteFile(Path("top"), RandomBytes(5000, 6));
    Remount();  // a cold page cache: the read below reaches tierfs and counts
    ASSERT_EQ(ReadFile(Path("fast/a.hot")).size(), 300000u);
    CommandResult enforce = Tool("fsppadm", {"enforce", mnt_});
    ASSERT_EQ(enforce.exit_code, 0) << enforce.output;
    ASSERT_EQ(ClassOf("fast/a.hot"), "ssd");
    ASSERT_EQ(ClassOf(std::string(kOddDir) + "/x"), "hdd");
  }
};

const json* FindDirectory(const json& report, const std::string& path) {
  for (const json& d : report["directories"]) {
    if (d["path"] == path) return &d;
  }
  return nullptr;
}

TEST_F(TierReportTest, JsonCountsBytesPerDirectoryAndClass) {
  ASSERT_NO_FATAL_FAILURE(MakeTree());
  CommandResult r = Tool("fsppadm", {"report", "--json", "--depth", "1", mnt_});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  json report = json::parse(r.output);
  EXPECT_EQ(report["mount_point"], mnt_);
  EXPECT_EQ(report["depth"], 1);
  ASSERT_EQ(report["directories"].size(), 3u) << r.output;
  EXPECT_EQ(report["directories"][0]["path"], "/");

  const json* fast = FindDirectory(report, "/fast");
  ASSERT_NE(fast, nullptr) << r.output;
  EXPECT_EQ((*fast)["files"], 3);
  EXPECT_EQ((*fast)["bytes"], 800000);
  EXPECT_EQ((*fast)["classes"]["ssd"]["bytes"], 800000);
  EXPECT_FALSE((*fast)["classes"].contains("hdd"));
  EXPECT_GE((*fast)["rbytes"].get<uint64_t>(), 300000u);
  EXPECT_EQ((*fast)["wbytes"], 800000);
  EXPECT_GT((*fast)["iotemp"].get<double>(), 0);

  const json* odd = FindDirectory(report, std::string("/") + kOddDir);
  ASSERT_NE(odd, nullptr) << r.output;
  EXPECT_EQ((*odd)["files"], 2);
  EXPECT_EQ((*odd)["classes"]["hdd"]["bytes"], 250000);
  EXPECT_EQ((*odd)["rbytes"], 0);
  EXPECT_EQ((*odd)["wbytes"], 250000);

  EXPECT_EQ(report["totals"]["files"], 6);
  EXPECT_EQ(report["totals"]["bytes"], 1055000);
  uint64_t class_bytes = 0;
  for (const json& c : report["classes"]) {
    class_bytes += c["bytes"].get<uint64_t>();
    EXPECT_GT(c["total_bytes"].get<uint64_t>(), 0u) << c.dump();
  }
  EXPECT_EQ(class_bytes, 1055000u);
  EXPECT_EQ(report["volumes"].size(), 2u);

  // Depth 0: everything in one row; the text form names every directory.
  r = Tool("fsppadm", {"report", "--json", "--depth", "0", mnt_});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  report = json::parse(r.output);
  ASSERT_EQ(report["directories"].size(), 1u);
  EXPECT_EQ(report["directories"][0]["bytes"], 1055000);
  r = Tool("fsppadm", {"report", mnt_});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("/fast"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(kOddDir), std::string::npos) << r.output;

  // Bad options change nothing and name themselves.
  r = Tool("fsppadm", {"report", "--depth", "x", mnt_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--depth"), std::string::npos) << r.output;
  r = Tool("fsppadm", {"report", "--hours", "0", mnt_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--hours"), std::string::npos) << r.output;
}

TEST_F(TierReportTest, HtmlPageRendersInChromium) {
  const std::string python = VenvPython();
  if (access(python.c_str(), X_OK) != 0 || access("/usr/bin/chromium", X_OK) != 0) {
    GTEST_SKIP() << "needs " << python << " (with playwright) and /usr/bin/chromium: run "
                 << "scripts/install-deps.sh";
  }
  ASSERT_NO_FATAL_FAILURE(MakeTree());
  const std::string page = root_ + "/report.html";
  CommandResult r = Tool("fsppadm", {"report", "--html", page, "--depth", "1", mnt_});
  ASSERT_EQ(r.exit_code, 0) << r.output;

  // What the test wrote, and the heat (bytes read + written) the daemon counted.
  r = Tool("fsppadm", {"report", "--json", "--depth", "1", mnt_});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  json counted = json::parse(r.output);
  auto io_of = [&](const std::string& path) {
    for (const json& d : counted["directories"]) {
      if (d["path"] == path) return d["rbytes"].get<uint64_t>() + d["wbytes"].get<uint64_t>();
    }
    return uint64_t{0};
  };
  json expected = {
      {"mount_point", mnt_},
      {"bar_width", 600},
      {"directories",
       {{{"path", "/"}, {"files", 1}, {"bytes", 5000}, {"classes", {{"hdd", 5000}}},
         {"io", io_of("/")}},
        {{"path", std::string("/") + kOddDir}, {"files", 2}, {"bytes", 250000},
         {"classes", {{"hdd", 250000}}}, {"io", io_of(std::string("/") + kOddDir)}},
        {{"path", "/fast"}, {"files", 3}, {"bytes", 800000}, {"classes", {{"ssd", 800000}}},
         {"io", io_of("/fast")}}}}};
  ASSERT_GE(io_of("/fast"), 1100000u) << r.output;  // 800000 written + 300000 read
  const std::string expected_file = root_ + "/expected.json";
  WriteFile(expected_file, expected.dump());

  const std::string script =
      std::string(TIERFS_SOURCE_DIR) + "/tests/integration/report_browser_check.py";
  std::vector<std::string> argv = {python, script, page, expected_file};
  if (const char* shot = std::getenv("TIERFS_REPORT_SCREENSHOT"); shot != nullptr && *shot) {
    argv.push_back(shot);  // to look at the page: TIERFS_REPORT_SCREENSHOT=/tmp/r.png
  }
  CommandResult check = RunCommand(argv, 180);
  EXPECT_EQ(check.exit_code, 0) << check.output;
}

}  // namespace
}  // namespace tierfs::testing
