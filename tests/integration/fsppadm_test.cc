// fsppadm on a mounted tierfs: every subcommand through the real binary, its
// output (mostly --json, parsed) and its exit status (docs/commands.md "fsppadm"
// and "How the tools find the file system": 0 ok, 1 failures, 2 usage or
// validation, 3 daemon unreachable).
//
// Reads that must reach the daemon (to make a file hot) use O_DIRECT or follow a
// remount: the kernel keeps the page cache across opens otherwise.
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

using nlohmann::json;

// Everything the scans below need in one policy, rules in the order that
// matters (the first rule whose SELECT matches governs a file):
//   *.tmp   created on hdd, deleted by any enforce;
//   *.hot   created on hdd, relocated to ssd by any enforce;
//   *.fast  created on ssd, never relocated;
//   *.dat   created on hdd, promoted to ssd once read in the last 2 hours
//           (IOTEMP nrbytes > 0, Prefer high);
//   other   no rule: the default allocator places them, nothing moves them.
constexpr char kTiersPolicy[] = R"(<?xml version="1.0"?>
<PLACEMENT_POLICY Version="5.1" Name="tiers">
  <RULE Flags="data" Name="scratch">
    <SELECT><PATTERN>*.tmp</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>hdd</CLASS></DESTINATION></ON></CREATE>
    <DELETE></DELETE>
  </RULE>
  <RULE Flags="data" Name="hot_files">
    <SELECT><PATTERN>*.hot</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>hdd</CLASS></DESTINATION></ON></CREATE>
    <RELOCATE><TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO></RELOCATE>
  </RULE>
  <RULE Flags="data" Name="fast_files">
    <SELECT><PATTERN>*.fast</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>ssd</CLASS></DESTINATION></ON></CREATE>
  </RULE>
  <RULE Flags="data" Name="read_data">
    <SELECT><PATTERN>*.dat</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>hdd</CLASS></DESTINATION></ON></CREATE>
    <RELOCATE>
      <FROM><SOURCE><CLASS>hdd</CLASS></SOURCE></FROM>
      <TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO>
      <WHEN>
        <IOTEMP Type="nrbytes" Prefer="high">
          <MIN Flags="gt">0</MIN>
          <PERIOD Units="hours">2</PERIOD>
        </IOTEMP>
      </WHEN>
    </RELOCATE>
  </RULE>
</PLACEMENT_POLICY>
)";

// Moves every file to the other class: *.fast (created on ssd) to hdd, the rest
// (created on hdd) to ssd. Which files a scan sees decides what moves.
constexpr char kSwapPolicy[] = R"(<?xml version="1.0"?>
<PLACEMENT_POLICY Version="5.1" Name="swap">
  <RULE Flags="data" Name="fast_down">
    <SELECT><PATTERN>*.fast</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>ssd</CLASS></DESTINATION></ON></CREATE>
    <RELOCATE>
      <FROM><SOURCE><CLASS>ssd</CLASS></SOURCE></FROM>
      <TO><DESTINATION><CLASS>hdd</CLASS></DESTINATION></TO>
    </RELOCATE>
  </RULE>
  <RULE Flags="data" Name="slow_up">
    <SELECT><PATTERN>*</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>hdd</CLASS></DESTINATION></ON></CREATE>
    <RELOCATE>
      <FROM><SOURCE><CLASS>hdd</CLASS></SOURCE></FROM>
      <TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO>
    </RELOCATE>
  </RULE>
</PLACEMENT_POLICY>
)";

// *.t9 may only be created on class tier9, which no volume carries.
constexpr char kTier9Policy[] = R"(<?xml version="1.0"?>
<PLACEMENT_POLICY Version="5.1" Name="tier9_only">
  <RULE Flags="data" Name="to_tier9">
    <SELECT><PATTERN>*.t9</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>tier9</CLASS></DESTINATION></ON></CREATE>
  </RULE>
  <RULE Flags="data" Name="rest">
    <SELECT><PATTERN>*</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>ssd</CLASS></DESTINATION></ON></CREATE>
  </RULE>
</PLACEMENT_POLICY>
)";

// Line 6 is wrong: MIN takes gt, gteq or eq.
constexpr char kBadPolicy[] =
    "<?xml version=\"1.0\"?>\n"
    "<PLACEMENT_POLICY Version=\"5.1\" Name=\"bad\">\n"
    "  <RULE Flags=\"data\" Name=\"r\">\n"
    "    <SELECT><PATTERN>*</PATTERN></SELECT>\n"
    "    <RELOCATE><TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO>\n"
    "      <WHEN><SIZE Units=\"MB\"><MIN Flags=\"lt\">1</MIN></SIZE></WHEN>\n"
    "    </RELOCATE>\n"
    "  </RULE>\n"
    "</PLACEMENT_POLICY>\n";

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::vector<std::string> Fields(const std::string& line) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (;;) {
    size_t tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) return fields;
    start = tab + 1;
  }
}

// Runs argv with a pseudo-terminal as its standard input, output and error;
// returns what it wrote there. Bounded by `timeout_seconds`.
CommandResult RunOnTerminal(const std::vector<std::string>& argv, int timeout_seconds = 60) {
  CommandResult result;
  int master = -1;
  pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  if (pid < 0) return result;
  if (pid == 0) {
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  char buf[4096];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      kill(pid, SIGKILL);  // our own child, by its id
      break;
    }
    pollfd p{master, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(std::min<long>(left.count(), 1000))) <= 0) continue;
    ssize_t n = read(master, buf, sizeof buf);
    if (n <= 0) break;  // EIO once the child has exited and closed the terminal
    result.output.append(buf, static_cast<size_t>(n));
  }
  close(master);
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

class FsppadmTest : public TierfsFixture {
 protected:
  // The daemon's data path: exact temperatures of reads the daemon serves (O_DIRECT reads, which
  // bypass the page-cache counter under passthrough) and "counted by the
  // daemon" heat lines.
  std::vector<std::string> FixtureMountArgs() const override { return {"--passthrough=off"}; }

 protected:
  // Writes a policy file outside the mount; returns its path.
  std::string PolicyFile(const std::string& name, const std::string& xml) {
    const std::string path = root_ + "/" + name;
    WriteFile(path, xml);
    return path;
  }

  // Runs fsppadm with `args`, expects `exit_code`, and parses standard output
  // (with standard error: nothing may be printed there on success) as JSON.
  json RunJson(const std::vector<std::string>& args, int exit_code = 0) {
    CommandResult r = Tool("fsppadm", args);
    EXPECT_EQ(r.exit_code, exit_code) << r.output;
    json doc = json::parse(r.output, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(doc.is_discarded()) << "not JSON: " << r.output;
    return doc.is_discarded() ? json::object() : doc;
  }

  // The scan rows by mount-relative path.
  static std::map<std::string, json> RowsByPath(const json& result) {
    std::map<std::string, json> rows;
    if (!result.contains("rows")) return rows;
    for (const json& row : result["rows"]) rows[row.value("path", "")] = row;
    return rows;
  }

  static std::set<std::string> PathsOf(const json& result) {
    std::set<std::string> paths;
    for (const auto& [path, row] : RowsByPath(result)) paths.insert(path);
    return paths;
  }

  // Creates each file (relative to the mount) with `size` bytes.
  void MakeFiles(const std::vector<std::string>& names, size_t size = 8192) {
    uint32_t seed = 1;
    for (const std::string& name : names) {
      const std::string path = Path(name);
      std::filesystem::create_directories(std::filesystem::path(path).parent_path());
      WriteFile(path, RandomBytes(size, seed++));
    }
  }

  uint64_t Ino(const std::string& relative) {
    struct stat st;
    EXPECT_EQ(stat(Path(relative).c_str(), &st), 0) << relative;
    return st.st_ino;
  }
};

// ---- assign, unassign, list, print ---------------------------------------------

TEST_F(FsppadmTest, AssignListPrintAndUnassign) {
  // mkdstfs assigned the paper's default policy.
  json list = RunJson({"list", "--json", mnt_});
  ASSERT_EQ(list["mounts"].size(), 1u) << list.dump();
  EXPECT_EQ(list["mounts"][0]["mount_point"], mnt_);
  EXPECT_EQ(list["mounts"][0]["policy"]["name"], "IOTEMP_Policy");

  const std::string tiers = PolicyFile("tiers.xml", kTiersPolicy);
  CommandResult r = Tool("fsppadm", {"assign", mnt_, tiers});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "");  // silent on success, no warnings for this policy

  list = RunJson({"list", "--json", mnt_});
  ASSERT_EQ(list["mounts"].size(), 1u);
  EXPECT_EQ(list["mounts"][0]["policy"]["name"], "tiers");
  EXPECT_GT(list["mounts"][0]["policy"]["assigned_ns"].get<int64_t>(), 0);

  // Without operands, list shows every tierfs mount: ours among them. Another
  // test's mount (ctest -j, or anyone's on this machine) may be going away
  // meanwhile: list then reports it on stderr and exits 3, which is not this
  // test's concern (scripts/sanitize.sh, where teardown is slower, hit it).
  r = Tool("fsppadm", {"list", "--json"});
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 3) << r.output;
  std::string listing;  // standard output: every line but fsppadm's error lines
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("fsppadm: ", 0) != 0) listing += line + "\n";
  }
  list = json::parse(listing, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(list.is_discarded()) << r.output;
  bool found = false;
  for (const json& m : list["mounts"]) {
    if (m["mount_point"] == mnt_) found = m["policy"]["name"] == "tiers";
  }
  EXPECT_TRUE(found) << list.dump();
  r = Tool("fsppadm", {"list", mnt_});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, mnt_)) << r.output;
  EXPECT_TRUE(Contains(r.output, "tiers")) << r.output;

  // print gives the XML back as assigned; any path in the mount names it.
  MakeFiles({"sub/x.txt"});
  r = Tool("fsppadm", {"print", mnt_});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, kTiersPolicy);
  r = Tool("fsppadm", {"print", Path("sub")});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, kTiersPolicy);

  // A second assign replaces the policy.
  ASSERT_EQ(Tool("fsppadm", {"assign", mnt_, PolicyFile("swap.xml", kSwapPolicy)}).exit_code, 0);
  EXPECT_EQ(RunJson({"list", "--json", mnt_})["mounts"][0]["policy"]["name"], "swap");

  r = Tool("fsppadm", {"unassign", mnt_});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  list = RunJson({"list", "--json", mnt_});
  EXPECT_TRUE(list["mounts"][0]["policy"].is_null()) << list.dump();
  r = Tool("fsppadm", {"list", mnt_});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // No policy: print refuses (1), a scan is refused as a usage error (2).
  r = Tool("fsppadm", {"print", mnt_});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r.output, "no policy")) << r.output;
  r = Tool("fsppadm", {"analyze", mnt_});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r.output, "no placement policy")) << r.output;
  // Unassigning twice is fine.
  EXPECT_EQ(Tool("fsppadm", {"unassign", mnt_}).exit_code, 0);
}

TEST_F(FsppadmTest, ForcedUnknownClassRefusesCreatesUntilUnassigned) {
  const std::string t9 = PolicyFile("t9.xml", kTier9Policy);
  // tier9 has no volume: refused without -f, naming the file, line and class.
  CommandResult r = Tool("fsppadm", {"assign", mnt_, t9});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r.output, t9 + ":5:")) << r.output;
  EXPECT_TRUE(Contains(r.output, "tier9")) << r.output;
  EXPECT_EQ(RunJson({"list", "--json", mnt_})["mounts"][0]["policy"]["name"], "IOTEMP_Policy");

  // -f: a warning (with its line), and the policy is active.
  r = Tool("fsppadm", {"assign", "-f", mnt_, t9});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, t9 + ":5:")) << r.output;
  EXPECT_TRUE(Contains(r.output, "warning")) << r.output;
  EXPECT_EQ(RunJson({"list", "--json", mnt_})["mounts"][0]["policy"]["name"], "tier9_only");

  // A *.t9 file has no class with room and no Flags="any": ENOSPC, as in VxFS.
  int fd = open(Path("new.t9").c_str(), O_CREAT | O_WRONLY, 0644);
  EXPECT_LT(fd, 0);
  EXPECT_EQ(errno, ENOSPC);
  if (fd >= 0) close(fd);
  EXPECT_FALSE(Exists(Path("new.t9")));
  WriteFile(Path("other.txt"), "placed by rule rest");
  EXPECT_EQ(ClassOf("other.txt"), "ssd");

  // Unassigned, the default allocator places every new file.
  ASSERT_EQ(Tool("fsppadm", {"unassign", mnt_}).exit_code, 0);
  WriteFile(Path("new.t9"), "now it can be created");
  EXPECT_EQ(ReadFile(Path("new.t9")), "now it can be created");
  const std::string cls = ClassOf("new.t9");
  EXPECT_TRUE(cls == "ssd" || cls == "hdd") << cls;
}

// ---- validate ----------------------------------------------------------------

TEST_F(FsppadmTest, ValidateAloneAndAgainstTheMount) {
  const std::string good = PolicyFile("tiers.xml", kTiersPolicy);
  const std::string bad = PolicyFile("bad.xml", kBadPolicy);
  const std::string t9 = PolicyFile("t9.xml", kTier9Policy);

  CommandResult r = Tool("fsppadm", {"validate", good});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "valid")) << r.output;
  EXPECT_TRUE(Contains(r.output, "tiers")) << r.output;

  r = Tool("fsppadm", {"validate", bad});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r.output, bad + ":6:")) << r.output;  // FILE:LINE: <ELEMENT>: ...
  EXPECT_TRUE(Contains(r.output, "<MIN>")) << r.output;

  // Alone, a policy is not checked against any file system's classes.
  r = Tool("fsppadm", {"validate", t9});
  EXPECT_EQ(r.exit_code, 0) << r.output;

  // Against the mount: its classes count; -f makes the missing class a warning.
  r = Tool("fsppadm", {"validate", mnt_, good});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "valid for " + mnt_)) << r.output;
  r = Tool("fsppadm", {"validate", mnt_, t9});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r.output, t9 + ":5:")) << r.output;
  EXPECT_TRUE(Contains(r.output, "tier9")) << r.output;
  r = Tool("fsppadm", {"validate", "-f", mnt_, t9});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "warning")) << r.output;
  r = Tool("fsppadm", {"validate", mnt_, bad});
  EXPECT_EQ(r.exit_code, 2) << r.output;

  // validate never assigns.
  EXPECT_EQ(RunJson({"list", "--json", mnt_})["mounts"][0]["policy"]["name"], "IOTEMP_Policy");

  // A directory outside any tierfs: 3; a path that does not exist, or no policy file: 2.
  r = Tool("fsppadm", {"validate", root_, good});
  EXPECT_EQ(r.exit_code, 3) << r.output;
  r = Tool("fsppadm", {"validate", Path("missing/dir"), good});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = Tool("fsppadm", {"validate", mnt_, root_ + "/no-such-policy.xml"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

// ---- query ---------------------------------------------------------------------

TEST_F(FsppadmTest, QueryNamesRuleStatementAndTemperatureOfEachFile) {
  AssignPolicy(kTiersPolicy);
  MakeFiles({"read.dat", "unread.dat", "notes.txt", "a.hot", "b.fast", "junk.tmp"});
  ReadFileDirect(Path("read.dat"));

  json q = RunJson({"query", "--json", mnt_});
  EXPECT_EQ(q["mode"], "query");
  EXPECT_EQ(q["policy"], "tiers");
  auto rows = RowsByPath(q);
  ASSERT_EQ(rows.size(), 6u) << q.dump(1);  // query names every file, including those that stay

  const json& read = rows["/read.dat"];
  EXPECT_EQ(read["rule"], "read_data");
  EXPECT_EQ(read["statement"], "RELOCATE 1");
  EXPECT_EQ(read["action"], "relocate");
  EXPECT_EQ(read["outcome"], "planned");
  EXPECT_EQ(read["from_class"], "hdd");
  EXPECT_EQ(read["to_class"], "ssd");
  EXPECT_EQ(read["bytes"], 8192);
  // 8192 bytes read in the 2-hour window of an 8192-byte file: 0.5 per hour.
  EXPECT_NEAR(read["temperature"].get<double>(), 0.5, 1e-9) << read.dump();
  EXPECT_TRUE(Contains(read["temperature_kind"].get<std::string>(), "IOTEMP nrbytes"))
      << read.dump();

  // Governed by the same rule, but its WHEN does not hold (only written, never read).
  const json& unread = rows["/unread.dat"];
  EXPECT_EQ(unread["rule"], "read_data");
  EXPECT_EQ(unread["statement"], "");
  EXPECT_EQ(unread["outcome"], "no statement applies");
  EXPECT_EQ(unread["from_class"], "hdd");
  // Its temperature under the rule's statements is still shown: 0 reads.
  ASSERT_TRUE(unread.contains("temperatures")) << unread.dump();
  ASSERT_EQ(unread["temperatures"].size(), 1u) << unread.dump();
  EXPECT_EQ(unread["temperatures"][0]["statement"], "RELOCATE 1");
  EXPECT_EQ(unread["temperatures"][0]["value"], 0.0);

  EXPECT_EQ(rows["/notes.txt"]["rule"], "");
  EXPECT_EQ(rows["/notes.txt"]["outcome"], "no rule");
  EXPECT_EQ(rows["/a.hot"]["rule"], "hot_files");
  EXPECT_EQ(rows["/a.hot"]["action"], "relocate");
  EXPECT_EQ(rows["/b.fast"]["rule"], "fast_files");
  EXPECT_EQ(rows["/b.fast"]["outcome"], "no statement applies");
  EXPECT_EQ(rows["/junk.tmp"]["action"], "delete");
  EXPECT_EQ(rows["/junk.tmp"]["statement"], "DELETE 1");

  // query decides, it never acts.
  EXPECT_EQ(ClassOf("read.dat"), "hdd");
  EXPECT_EQ(ClassOf("a.hot"), "hdd");
  EXPECT_TRUE(Exists(Path("junk.tmp")));

  // One named file: one row. The text report says the same.
  q = RunJson({"query", "--json", Path("notes.txt")});
  ASSERT_EQ(q["rows"].size(), 1u) << q.dump(1);
  EXPECT_EQ(q["rows"][0]["outcome"], "no rule");
  CommandResult text = Tool("fsppadm", {"query", Path("read.dat"), Path("notes.txt")});
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_TRUE(Contains(text.output, "read_data")) << text.output;
  EXPECT_TRUE(Contains(text.output, "RELOCATE 1")) << text.output;
  EXPECT_TRUE(Contains(text.output, "0.50")) << text.output;
  EXPECT_TRUE(Contains(text.output, "no rule")) << text.output;
  EXPECT_TRUE(Contains(text.output, Path("notes.txt"))) << text.output;
  EXPECT_FALSE(Contains(text.output, Path("a.hot"))) << text.output;

  // query is not a scan of record.
  EXPECT_TRUE(RunJson({"status", "--json", mnt_})["scans"].empty());
}

// ---- enforce, analyze: paths, reports, -F, limits, DELETE ------------------------

TEST_F(FsppadmTest, PathsLimitTheScanToASubdirectoryOrAFile) {
  AssignPolicy(kTiersPolicy);
  MakeFiles({"top.hot", "sub/a.hot", "sub/deep/b.hot", "subway/c.hot", "other/d.hot"});

  json a = RunJson({"analyze", "--json", Path("sub")});
  EXPECT_EQ(PathsOf(a), (std::set<std::string>{"/sub/a.hot", "/sub/deep/b.hot"})) << a.dump(1);
  EXPECT_EQ(a["summary"]["sweep_paths"], json::array({"/sub"}));
  EXPECT_EQ(a["summary"]["files_scanned"], 2);
  for (const json& row : a["rows"]) EXPECT_EQ(row["outcome"], "planned") << row.dump();
  EXPECT_EQ(ClassOf("sub/a.hot"), "hdd");  // analyze moves nothing

  // analyze reports each class's space before and after the planned moves.
  uint64_t ssd_before = 0, ssd_after = 0;
  for (const json& c : a["classes"]) {
    if (c["class"] == "ssd") {
      ssd_before = c["free_before"];
      ssd_after = c["free_after"];
    }
  }
  EXPECT_GT(ssd_before, ssd_after) << a.dump(1);

  // A single file.
  json e = RunJson({"enforce", "--json", Path("sub/deep/b.hot")});
  EXPECT_EQ(PathsOf(e), (std::set<std::string>{"/sub/deep/b.hot"})) << e.dump(1);
  EXPECT_EQ(e["summary"]["files_moved"], 1);
  EXPECT_EQ(e["summary"]["bytes_moved"], 8192);
  EXPECT_EQ(ClassOf("sub/deep/b.hot"), "ssd");
  EXPECT_EQ(ClassOf("sub/a.hot"), "hdd");

  // A subdirectory (not its look-alike sibling "subway").
  e = RunJson({"enforce", "--json", Path("sub")});
  EXPECT_EQ(e["summary"]["files_moved"], 1) << e.dump(1);
  EXPECT_EQ(ClassOf("sub/a.hot"), "ssd");
  EXPECT_EQ(ClassOf("subway/c.hot"), "hdd");
  EXPECT_EQ(ClassOf("top.hot"), "hdd");

  // Several paths, relative ones too.
  ASSERT_EQ(chdir(mnt_.c_str()), 0);
  CommandResult r = Tool("fsppadm", {"enforce", "other", "top.hot"});
  ASSERT_EQ(chdir("/"), 0);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(ClassOf("other/d.hot"), "ssd");
  EXPECT_EQ(ClassOf("top.hot"), "ssd");
  EXPECT_EQ(ClassOf("subway/c.hot"), "hdd");

  // A path that does not exist, or one outside the mount: usage errors.
  r = Tool("fsppadm", {"enforce", Path("nowhere")});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = Tool("fsppadm", {"analyze", mnt_, root_});
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

TEST_F(FsppadmTest, ReportFileWithTimesParsableAndJson) {
  AssignPolicy(kTiersPolicy);
  MakeFiles({"a.hot", "b.hot", "c.txt"});
  // Known times for the -a columns.
  const std::string a_path = Path("a.hot");
  struct timeval times[2] = {{1700000000, 0}, {1700000100, 0}};  // atime, mtime
  ASSERT_EQ(utimes(a_path.c_str(), times), 0);

  // -P: tab-separated records; analyze calls them "to move".
  CommandResult r = Tool("fsppadm", {"analyze", "-P", mnt_});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  int file_records = 0;
  bool summary_to_move = false;
  for (const std::string& line : Lines(r.output)) {
    std::vector<std::string> f = Fields(line);
    ASSERT_TRUE(f[0] == "file" || f[0] == "summary" || f[0] == "class" || f[0] == "heat" ||
                f[0] == "note")
        << line;
    // Without passthrough the daemon counts every read and write.
    if (f[0] == "heat") EXPECT_EQ(line, "heat\tcounted\tdaemon\t0");
    if (f[0] == "file") {
      file_records++;
      ASSERT_EQ(f.size(), 12u) << line;
      EXPECT_EQ(f[1], "hdd") << line;
      EXPECT_EQ(f[3], "ssd") << line;
      EXPECT_EQ(f[5], "hot_files") << line;
      EXPECT_EQ(f[10], "planned") << line;
    }
    if (f[0] == "summary" && f[1] == "files_to_move") summary_to_move = f[2] == "2";
  }
  EXPECT_EQ(file_records, 2) << r.output;
  EXPECT_TRUE(summary_to_move) << r.output;

  // -r -a: the report, with times, goes to the file; standard output gets the summary.
  const std::string report = root_ + "/report.txt";
  r = Tool("fsppadm", {"enforce", "-a", "-r", report, mnt_});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "Files moved")) << r.output;
  EXPECT_FALSE(Contains(r.output, a_path)) << r.output;
  std::string text = ReadFile(report);
  EXPECT_TRUE(Contains(text, "Access Time")) << text;
  EXPECT_TRUE(Contains(text, "Modify Time")) << text;
  EXPECT_TRUE(Contains(text, a_path)) << text;
  EXPECT_TRUE(Contains(text, Path("b.hot"))) << text;
  EXPECT_TRUE(Contains(text, "moved")) << text;
  EXPECT_TRUE(Contains(text, "Files moved")) << text;
  EXPECT_EQ(ClassOf("a.hot"), "ssd");
  EXPECT_EQ(ClassOf("b.hot"), "ssd");

  // -P -a -r: two more fields, the times in epoch seconds.
  MakeFiles({"d.hot"});
  ASSERT_EQ(utimes(Path("d.hot").c_str(), times), 0);
  const std::string tsv = root_ + "/report.tsv";
  r = Tool("fsppadm", {"enforce", "-P", "-a", "-r", tsv, mnt_});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(Contains(r.output, "file\t")) << r.output;
  EXPECT_TRUE(Contains(r.output, "summary\tfiles_moved\t1")) << r.output;
  bool row_seen = false;
  for (const std::string& line : Lines(ReadFile(tsv))) {
    std::vector<std::string> f = Fields(line);
    if (f[0] != "file") continue;
    row_seen = true;
    ASSERT_EQ(f.size(), 14u) << line;
    EXPECT_EQ(f[10], "moved") << line;
    EXPECT_EQ(f[11], "1700000000") << line;
    EXPECT_EQ(f[12], "1700000100") << line;
    EXPECT_EQ(f[13], Path("d.hot")) << line;
  }
  EXPECT_TRUE(row_seen);

  // --json -r: the file holds the daemon's result.
  const std::string js = root_ + "/report.json";
  r = Tool("fsppadm", {"analyze", "--json", "-r", js, mnt_});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  json doc = json::parse(ReadFile(js), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_EQ(doc["mode"], "analyze");
  EXPECT_EQ(doc["summary"]["files_scanned"], 4);

  // Options that exclude each other, and an unwritable report: 2 and 1.
  EXPECT_EQ(Tool("fsppadm", {"analyze", "-P", "--json", mnt_}).exit_code, 2);
  r = Tool("fsppadm", {"analyze", "-r", root_ + "/no/such/dir/report", mnt_});
  EXPECT_EQ(r.exit_code, 1) << r.output;
}

TEST_F(FsppadmTest, AnotherPolicyWithF) {
  // The assigned policy (mkdstfs's default) relocates nothing.
  MakeFiles({"a.txt", "d/b.txt"});
  json a = RunJson({"analyze", "--json", mnt_});
  EXPECT_EQ(a["policy"], "IOTEMP_Policy");
  EXPECT_EQ(a["summary"]["files_planned"], 0);

  // -F swap.xml: everything on hdd goes to ssd, for this run only.
  const std::string swap = PolicyFile("swap.xml", kSwapPolicy);
  json q = RunJson({"query", "--json", "-F", swap, mnt_});
  EXPECT_EQ(q["policy"], "swap");
  EXPECT_EQ(RowsByPath(q)["/a.txt"]["rule"], "slow_up");
  json e = RunJson({"enforce", "--json", "-F", swap, mnt_});
  EXPECT_EQ(e["policy"], "swap");
  EXPECT_EQ(e["summary"]["files_moved"], 2) << e.dump(1);
  EXPECT_EQ(ClassOf("a.txt"), "ssd");
  EXPECT_EQ(ClassOf("d/b.txt"), "ssd");
  EXPECT_EQ(RunJson({"list", "--json", mnt_})["mounts"][0]["policy"]["name"], "IOTEMP_Policy");

  // A -F policy that does not validate: 2, with its line; nothing runs.
  const std::string bad = PolicyFile("bad.xml", kBadPolicy);
  CommandResult r = Tool("fsppadm", {"enforce", "-F", bad, mnt_});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r.output, bad + ":6:")) << r.output;
  r = Tool("fsppadm", {"analyze", "-F", root_ + "/missing.xml", mnt_});
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

TEST_F(FsppadmTest, FileAndByteLimitsStopEnforcement) {
  AssignPolicy(kTiersPolicy);
  MakeFiles({"1.hot", "2.hot", "3.hot", "4.hot", "5.hot"}, 65536);

  // -n 2: two files move, the others are reported as stopped.
  json e = RunJson({"enforce", "--json", "-n", "2", mnt_});
  EXPECT_EQ(e["summary"]["files_moved"], 2) << e.dump(1);
  EXPECT_EQ(e["summary"]["bytes_moved"], 2 * 65536);
  EXPECT_EQ(e["summary"]["files_skipped"]["stopped"], 3);
  int stopped_rows = 0;
  for (const json& row : e["rows"]) stopped_rows += row["outcome"] == "stopped";
  EXPECT_EQ(stopped_rows, 3);
  EXPECT_EQ(ClassOf("1.hot"), "ssd");
  EXPECT_EQ(ClassOf("2.hot"), "ssd");
  EXPECT_EQ(ClassOf("3.hot"), "hdd");

  // -s 100K: the move that crosses the limit is the last one (64K + 64K).
  e = RunJson({"enforce", "--json", "-s", "100K", mnt_});
  EXPECT_EQ(e["summary"]["files_moved"], 2) << e.dump(1);
  EXPECT_EQ(e["summary"]["files_skipped"]["stopped"], 1);
  EXPECT_EQ(ClassOf("4.hot"), "ssd");
  EXPECT_EQ(ClassOf("5.hot"), "hdd");

  // -t with room to spare: no stop. Then nothing is left to do.
  e = RunJson({"enforce", "--json", "-t", "1", mnt_});
  EXPECT_EQ(e["summary"]["files_moved"], 1) << e.dump(1);
  EXPECT_EQ(ClassOf("5.hot"), "ssd");
  e = RunJson({"enforce", "--json", mnt_});
  EXPECT_EQ(e["summary"]["files_moved"], 0) << e.dump(1);

  // Limits apply to enforce only: analyze plans everything.
  MakeFiles({"6.hot", "7.hot"});
  json a = RunJson({"analyze", "--json", "-n", "1", mnt_});
  EXPECT_EQ(a["summary"]["files_planned"], 2) << a.dump(1);

  // Malformed limits are usage errors.
  EXPECT_EQ(Tool("fsppadm", {"enforce", "-s", "lots", mnt_}).exit_code, 2);
  EXPECT_EQ(Tool("fsppadm", {"enforce", "-n", "-1", mnt_}).exit_code, 2);
  EXPECT_EQ(Tool("fsppadm", {"enforce", "-t", "soon", mnt_}).exit_code, 2);
  EXPECT_EQ(Tool("fsppadm", {"enforce", "-p", "101", mnt_}).exit_code, 2);
}

TEST_F(FsppadmTest, DeleteStatementsDeleteThroughEnforceOnly) {
  AssignPolicy(kTiersPolicy);
  MakeFiles({"a.tmp", "sub/b.tmp", "keep.txt", "keep.fast"});
  const uint64_t a_ino = Ino("a.tmp");

  json a = RunJson({"analyze", "--json", mnt_});
  auto rows = RowsByPath(a);
  ASSERT_EQ(rows.size(), 2u) << a.dump(1);
  EXPECT_EQ(rows["/a.tmp"]["action"], "delete");
  EXPECT_EQ(rows["/a.tmp"]["rule"], "scratch");
  EXPECT_EQ(rows["/a.tmp"]["statement"], "DELETE 1");
  EXPECT_EQ(rows["/a.tmp"]["outcome"], "planned");
  EXPECT_TRUE(Exists(Path("a.tmp")));
  // Listed before the enforce: the kernel keeps the listing (no-opendir mode),
  // and a policy DELETE must drop it.
  auto listing = [&](const std::string& dir) {
    std::set<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(Path(dir))) {
      names.insert(e.path().filename().string());
    }
    return names;
  };
  EXPECT_EQ(listing("sub"), (std::set<std::string>{"b.tmp"}));

  json e = RunJson({"enforce", "--json", mnt_});
  rows = RowsByPath(e);
  EXPECT_EQ(rows["/a.tmp"]["outcome"], "deleted") << e.dump(1);
  EXPECT_EQ(rows["/sub/b.tmp"]["outcome"], "deleted");
  EXPECT_EQ(e["summary"]["files_deleted"], 2) << e.dump(1);
  EXPECT_EQ(e["summary"]["files_moved"], 0);
  EXPECT_FALSE(Exists(Path("a.tmp")));
  EXPECT_FALSE(Exists(Path("sub/b.tmp")));
  EXPECT_TRUE(Exists(Path("keep.txt")));
  EXPECT_TRUE(Exists(Path("keep.fast")));
  EXPECT_TRUE(Exists(Path("sub")));
  EXPECT_TRUE(listing("sub").empty()) << "a deleted name stayed in the cached listing";
  EXPECT_EQ(listing("").count("a.tmp"), 0u);

  // The text report says what happened.
  MakeFiles({"c.tmp"});
  CommandResult r = Tool("fsppadm", {"enforce", mnt_});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "deleted")) << r.output;
  EXPECT_TRUE(Contains(r.output, "Files deleted")) << r.output;
  EXPECT_FALSE(Exists(Path("c.tmp")));

  // The FCL records the deletion.
  CommandResult fcl = Tool("fcladm", {"print", "--json", mnt_});
  ASSERT_EQ(fcl.exit_code, 0) << fcl.output;
  bool unlinked = false;
  const json log = json::parse(fcl.output);
  for (const json& rec : log["records"]) {
    unlinked |= rec["event"] == "unlink" && rec["ino"] == a_ino && rec["name"] == "a.tmp";
  }
  EXPECT_TRUE(unlinked) << fcl.output;

  // `status` keeps the deletions of each run.
  json status = RunJson({"status", "--json", mnt_});
  ASSERT_GE(status["scans"].size(), 2u) << status.dump(1);
  EXPECT_EQ(status["scans"][0]["files_deleted"], 1) << status.dump(1);  // newest: c.tmp
  EXPECT_EQ(status["scans"][1]["files_deleted"], 2) << status.dump(1);
}

// ---- -C and -T ---------------------------------------------------------------

TEST_F(FsppadmTest, ActiveOnlyScanSeesOnlyFilesActiveInThePeriod) {
  AssignPolicy(kTiersPolicy);
  // Files created while the FCL is off, with a size but no write calls, leave
  // no activity at all: no FCL record, no I/O counter.
  ASSERT_EQ(Tool("fcladm", {"off", mnt_}).exit_code, 0);
  for (const std::string name : {"c/f1.dat", "c/f2.dat", "c/f3.dat", "c/f4.dat", "s/g.fast"}) {
    std::filesystem::create_directories(std::filesystem::path(Path(name)).parent_path());
    int fd = open(Path(name).c_str(), O_CREAT | O_WRONLY, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(ftruncate(fd, 8192), 0);
    close(fd);
  }
  ASSERT_EQ(Tool("fcladm", {"on", mnt_}).exit_code, 0);
  Remount();
  // Touch two files: one read (I/O, after a remount the cache is cold), one
  // with new times (an FCL setattr record).
  EXPECT_EQ(ReadFile(Path("c/f2.dat")), std::string(8192, '\0'));
  struct timeval now[2] = {{1700000000, 0}, {1700000000, 0}};
  ASSERT_EQ(utimes(Path("c/f4.dat").c_str(), now), 0);

  json q = RunJson({"query", "--json", "-C", mnt_});
  EXPECT_EQ(PathsOf(q), (std::set<std::string>{"/c/f2.dat", "/c/f4.dat"})) << q.dump(1);
  ASSERT_EQ(q["notes"].size(), 1u) << q.dump(1);
  EXPECT_TRUE(Contains(q["notes"][0], "-C")) << q["notes"];
  EXPECT_TRUE(Contains(q["notes"][0], "2 hours")) << q["notes"];
  // Without -C every file is seen.
  EXPECT_EQ(RunJson({"query", "--json", mnt_})["rows"].size(), 5u);

  // -C with a path limit, and enforce -C: only the read file is hot enough.
  EXPECT_EQ(PathsOf(RunJson({"analyze", "--json", "-C", Path("c/f2.dat")})),
            (std::set<std::string>{"/c/f2.dat"}));
  json e = RunJson({"enforce", "--json", "-C", mnt_});
  EXPECT_EQ(e["summary"]["files_scanned"], 2) << e.dump(1);
  EXPECT_EQ(e["summary"]["files_moved"], 1) << e.dump(1);
  EXPECT_EQ(ClassOf("c/f2.dat"), "ssd");
  EXPECT_EQ(ClassOf("c/f4.dat"), "hdd");

  // -C -T ssd: the active files plus every file on ssd (the paper's hourly scan,
  // which sees cold files on the fast tier to evacuate them).
  q = RunJson({"query", "--json", "-C", "-T", "ssd", mnt_});
  EXPECT_EQ(PathsOf(q), (std::set<std::string>{"/c/f2.dat", "/c/f4.dat", "/s/g.fast"}))
      << q.dump(1);

  CommandResult text = Tool("fsppadm", {"analyze", "-C", mnt_});
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_TRUE(Contains(text.output, "Note: -C")) << text.output;
}

TEST_F(FsppadmTest, ClassScanSeesOnlyFilesOnThoseClasses) {
  AssignPolicy(kSwapPolicy);
  MakeFiles({"a.fast", "d/b.fast", "c.txt", "d/e.txt"});
  ASSERT_EQ(ClassOf("a.fast"), "ssd");
  ASSERT_EQ(ClassOf("c.txt"), "hdd");

  EXPECT_EQ(PathsOf(RunJson({"query", "--json", "-T", "ssd", mnt_})),
            (std::set<std::string>{"/a.fast", "/d/b.fast"}));
  EXPECT_EQ(PathsOf(RunJson({"query", "--json", "-T", "hdd", mnt_})),
            (std::set<std::string>{"/c.txt", "/d/e.txt"}));
  EXPECT_EQ(RunJson({"query", "--json", "-T", "ssd", "-T", "hdd", mnt_})["rows"].size(), 4u);
  // -T and a path limit together.
  EXPECT_EQ(PathsOf(RunJson({"analyze", "--json", "-T", "ssd", Path("d")})),
            (std::set<std::string>{"/d/b.fast"}));

  // enforce -T hdd moves the hdd files up; the ssd files are not looked at.
  json e = RunJson({"enforce", "--json", "-T", "hdd", mnt_});
  EXPECT_EQ(e["summary"]["files_scanned"], 2) << e.dump(1);
  EXPECT_EQ(e["summary"]["files_moved"], 2) << e.dump(1);
  EXPECT_EQ(ClassOf("c.txt"), "ssd");
  EXPECT_EQ(ClassOf("d/e.txt"), "ssd");
  EXPECT_EQ(ClassOf("a.fast"), "ssd");
  EXPECT_EQ(ClassOf("d/b.fast"), "ssd");

  // The index follows the moves: hdd is empty now.
  EXPECT_TRUE(RunJson({"query", "--json", "-T", "hdd", mnt_})["rows"].empty());

  // A class no volume has is a usage error.
  CommandResult r = Tool("fsppadm", {"query", "-T", "tier9", mnt_});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r.output, "tier9")) << r.output;
}

// ---- status ------------------------------------------------------------------

TEST_F(FsppadmTest, StatusShowsTheLastScansAndRelocations) {
  AssignPolicy(kTiersPolicy);
  MakeFiles({"a.hot", "b.hot", "c.dat"}, 16384);
  const int64_t before_ns = static_cast<int64_t>(time(nullptr) - 1) * 1'000'000'000;
  ASSERT_EQ(Tool("fsppadm", {"analyze", mnt_}).exit_code, 0);
  ASSERT_EQ(Tool("fsppadm", {"enforce", "-T", "hdd", mnt_}).exit_code, 0);
  ASSERT_EQ(Tool("fsppadm", {"query", mnt_}).exit_code, 0);  // not recorded

  json s = RunJson({"status", "--json", mnt_});
  EXPECT_EQ(s["mount_point"], mnt_);
  EXPECT_EQ(s["policy"]["name"], "tiers");
  EXPECT_EQ(s["volumes"].size(), 2u);
  ASSERT_EQ(s["scans"].size(), 2u) << s.dump(1);
  const json& enforce = s["scans"][0];  // newest first
  EXPECT_EQ(enforce["kind"], "enforce");
  EXPECT_EQ(enforce["files_scanned"], 3);
  EXPECT_EQ(enforce["files_moved"], 2);
  EXPECT_EQ(enforce["bytes_moved"], 2 * 16384);
  EXPECT_EQ(enforce["errors"], 0);
  EXPECT_GE(enforce["seconds"].get<double>(), 0.0);
  EXPECT_GE(enforce["started_ns"].get<int64_t>(), before_ns);
  EXPECT_TRUE(Contains(enforce["options"], "-T hdd")) << enforce.dump();
  const json& analyze = s["scans"][1];
  EXPECT_EQ(analyze["kind"], "analyze");
  EXPECT_EQ(analyze["files_moved"], 0);
  EXPECT_LE(analyze["started_ns"].get<int64_t>(), enforce["started_ns"].get<int64_t>());

  ASSERT_EQ(s["relocations"].size(), 2u) << s.dump(1);
  std::set<std::string> moved;
  for (const json& rel : s["relocations"]) {
    moved.insert(rel["path"].get<std::string>());
    EXPECT_EQ(rel["outcome"], "moved");
    EXPECT_EQ(rel["from_volume"], "vol2");
    EXPECT_EQ(rel["to_volume"], "vol1");
    EXPECT_EQ(rel["bytes"], 16384);
  }
  EXPECT_EQ(moved, (std::set<std::string>{"/a.hot", "/b.hot"}));

  // -n limits both lists; the text form has the same facts.
  s = RunJson({"status", "--json", "-n", "1", mnt_});
  EXPECT_EQ(s["scans"].size(), 1u);
  EXPECT_EQ(s["relocations"].size(), 1u);
  CommandResult text = Tool("fsppadm", {"status", mnt_});
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_TRUE(Contains(text.output, "tiers")) << text.output;
  EXPECT_TRUE(Contains(text.output, "enforce")) << text.output;
  EXPECT_TRUE(Contains(text.output, "analyze")) << text.output;
  EXPECT_TRUE(Contains(text.output, Path("a.hot"))) << text.output;

  // Every move is in the FCL as well.
  CommandResult fcl = Tool("fcladm", {"print", "--json", mnt_});
  ASSERT_EQ(fcl.exit_code, 0) << fcl.output;
  int relocates = 0;
  const json log = json::parse(fcl.output);
  for (const json& rec : log["records"]) relocates += rec["event"] == "relocate";
  EXPECT_EQ(relocates, 2) << fcl.output;
}

// ---- progress ------------------------------------------------------------------

TEST_F(FsppadmTest, ProgressLineOnATerminalOnly) {
  AssignPolicy(kTiersPolicy);
  MakeFiles({"a.hot", "b.hot", "c.hot"});
  // On a terminal, a line on standard error rewrites itself (\r ... ESC[K) and is
  // erased before the report.
  CommandResult tty = RunOnTerminal({testing::Tool("fsppadm"), "enforce", mnt_});
  ASSERT_EQ(tty.exit_code, 0) << tty.output;
  EXPECT_TRUE(Contains(tty.output, "\renforce: move 3/3 100%\x1b[K")) << tty.output;
  EXPECT_TRUE(Contains(tty.output, "Files moved    : 3")) << tty.output;
  EXPECT_EQ(ClassOf("c.hot"), "ssd");

  // In a pipe, the report alone.
  MakeFiles({"d.hot"});
  CommandResult piped = Tool("fsppadm", {"enforce", mnt_});
  ASSERT_EQ(piped.exit_code, 0) << piped.output;
  EXPECT_FALSE(Contains(piped.output, "\r")) << piped.output;
  EXPECT_FALSE(Contains(piped.output, "\x1b")) << piped.output;
  EXPECT_TRUE(Contains(piped.output, "Files moved    : 1")) << piped.output;
}

// ---- exit statuses -------------------------------------------------------------

TEST_F(FsppadmTest, RelocationErrorsExitOne) {
  AssignPolicy(kTiersPolicy);
  MakeFiles({"a.hot", "b.hot"});
  const std::string a_data = ReadFile(Path("a.hot"));
  // Block the directory a.hot's object would be moved into on ssd with a plain
  // file: the same subdirectory name its object has on hdd.
  const std::string ino = std::to_string(Ino("a.hot"));
  std::string subdir;
  for (const auto& e : std::filesystem::recursive_directory_iterator(hdd_ + "/.tierfs/objects")) {
    if (e.is_regular_file() && e.path().filename().string().rfind(ino + ".", 0) == 0) {
      subdir = e.path().parent_path().filename().string();
    }
  }
  ASSERT_FALSE(subdir.empty()) << "no object of inode " << ino << " under " << hdd_;
  const std::string blocker = ssd_ + "/.tierfs/objects/" + subdir;
  ASSERT_FALSE(Exists(blocker)) << blocker;
  WriteFile(blocker, "not a directory");

  json e = RunJson({"enforce", "--json", mnt_}, 1);
  auto rows = RowsByPath(e);
  EXPECT_EQ(rows["/a.hot"]["outcome"].get<std::string>().rfind("error", 0), 0u) << e.dump(1);
  EXPECT_EQ(rows["/b.hot"]["outcome"], "moved");
  EXPECT_EQ(e["summary"]["files_skipped"]["error"], 1);
  EXPECT_EQ(e["summary"]["files_moved"], 1);
  EXPECT_EQ(ClassOf("a.hot"), "hdd");
  EXPECT_EQ(ReadFile(Path("a.hot")), a_data);
  CommandResult text = Tool("fsppadm", {"enforce", mnt_});
  EXPECT_EQ(text.exit_code, 1) << text.output;
  EXPECT_TRUE(Contains(text.output, "error")) << text.output;
  EXPECT_EQ(RunJson({"status", "--json", mnt_})["scans"][0]["errors"], 1);

  // Once the obstacle is gone, the next enforce moves it.
  ASSERT_EQ(unlink(blocker.c_str()), 0);
  e = RunJson({"enforce", "--json", mnt_});
  EXPECT_EQ(e["summary"]["files_moved"], 1) << e.dump(1);
  EXPECT_EQ(ClassOf("a.hot"), "ssd");
  EXPECT_EQ(ReadFile(Path("a.hot")), a_data);
}

TEST_F(FsppadmTest, UsageErrorsExitTwo) {
  const std::string good = PolicyFile("tiers.xml", kTiersPolicy);
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {},
           {"frobnicate", mnt_},
           {"-C", "enforce", mnt_},
           {"enforce"},
           {"enforce", "-x", mnt_},
           {"enforce", "-T", mnt_},
           {"query", "-a", "--json", mnt_},
           {"assign", good},
           {"print"},
           {"print", mnt_, mnt_},
           {"status", "-n", "many", mnt_},
       }) {
    CommandResult r = Tool("fsppadm", args);
    std::string joined;
    for (const std::string& a : args) joined += a + " ";
    EXPECT_EQ(r.exit_code, 2) << "fsppadm " << joined << "\n" << r.output;
    EXPECT_TRUE(Contains(r.output, "fsppadm: ")) << r.output;
  }
  CommandResult help = Tool("fsppadm", {"enforce", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(Contains(help.output, "-C")) << help.output;
}

TEST_F(FsppadmTest, GoneDaemonExitsThree) {
  const std::string good = PolicyFile("tiers.xml", kTiersPolicy);
  Unmount();
  // The mount point is a plain directory again.
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"assign", mnt_, good},
           {"unassign", mnt_},
           {"list", mnt_},
           {"print", mnt_},
           {"validate", mnt_, good},
           {"enforce", mnt_},
           {"analyze", "--json", mnt_},
           {"query", "-C", "-T", "ssd", mnt_},
           {"status", mnt_},
       }) {
    CommandResult r = Tool("fsppadm", args);
    EXPECT_EQ(r.exit_code, 3) << "fsppadm " << args[0] << ": " << r.output;
    EXPECT_TRUE(Contains(r.output, "not in a tierfs file system")) << r.output;
  }
  CommandResult r = Tool("fcladm", {"state", mnt_});
  EXPECT_EQ(r.exit_code, 3) << r.output;
  r = Tool("fsmap", {root_ + "/tiers.xml"});
  EXPECT_EQ(r.exit_code, 3) << r.output;
  // validate without a mount needs no daemon.
  EXPECT_EQ(Tool("fsppadm", {"validate", good}).exit_code, 0);
}

}  // namespace
}  // namespace tierfs::testing
