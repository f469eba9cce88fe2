// --help, --version, the bash completion and `cmake --install`, tried on the
// real programs of this build (TIERFS_BINARY_DIR/cli/...), as an administrator
// meets them.
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "cli/version.h"
#include "fs/daemon/session.h"
#include "meta/schema.h"
#include "temp_dir.h"

namespace tierfs::cli {
namespace {

using tierfs::testing::ReadFile;
using tierfs::testing::TempDir;

struct RunResult {
  int status = -1;  // exit status, -1 when it did not exit normally
  std::string out;
  std::string err;
};

// Runs `command` through /bin/sh and collects its stdout and stderr.
RunResult RunShell(const std::string& command) {
  TempDir dir;
  RunResult r;
  const std::string out = dir / "out", err = dir / "err";
  int raw = std::system((command + " >'" + out + "' 2>'" + err + "'").c_str());
  r.status = raw != -1 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = ReadFile(out);
  r.err = ReadFile(err);
  return r;
}

std::string Tool(const std::string& name) {
  return std::string(TIERFS_BINARY_DIR) + "/cli/" + name;
}

// Each command line (a tool and its subcommand, as typed) and the options its
// help must list: every option its parser takes (cli/*.cc OptionSpec lists).
struct HelpCase {
  std::string command;   // "fsppadm enforce"
  std::string help_args; // what asks for the help
  std::vector<std::string> options;
};

std::vector<HelpCase> HelpCases() {
  const std::vector<std::string> scan = {"-C", "-T", "-F", "-P",       "--json",
                                         "-r", "-a", "-s", "-n",       "-t",
                                         "-p", "--no-wait", "--help", "--version"};
  return {
      {"mkdstfs", "--help",
       {"-f", "--force", "-v", "--verbose", "-m", "--cron", "--heat-bucket", "--no-mount", "-h",
        "--help", "--version"}},
      {"tierfs check", "--help",
       {"-r", "--repair", "--trust-objects", "--delete-orphans", "--json", "-h", "--help",
        "--version"}},
      {"tierfs backup", "--help", {"--cron", "--json", "-h", "--help", "--version"}},
      {"fsppadm", "--help", {"--help", "--version"}},
      {"fsppadm assign", "--help", {"-f", "--force", "--help", "--version"}},
      {"fsppadm unassign", "--help", {"--help", "--version"}},
      {"fsppadm list", "--help", {"--json", "--help", "--version"}},
      {"fsppadm print", "--help", {"--help", "--version"}},
      {"fsppadm validate", "--help", {"-f", "--force", "--help", "--version"}},
      {"fsppadm enforce", "--help", scan},
      {"fsppadm analyze", "--help", scan},
      {"fsppadm query", "--help", scan},
      {"fsppadm status", "--help", {"-n", "--json", "--help", "--version"}},
      {"fsppadm tag", "--help", {"--help", "--version"}},
      {"fsppadm heatbucket", "--help", {"--help", "--version"}},
      {"fsppadm report", "--help", {"--html", "--json", "--depth", "--hours", "--help", "--version"}},
      {"fcladm", "--help", {"-s", "-t", "-n", "--json", "--help", "--version"}},
      {"fsvoladm", "--help", {"-v", "--verbose", "--json", "-h", "--help", "--version"}},
      {"fsmap", "--help", {"-H", "--human-readable", "--json", "-h", "--help", "--version"}},
  };
}

// True when `text` holds `option` as a whole word ("-n" but not in "--no-wait").
bool ListsOption(const std::string& text, const std::string& option) {
  // Options are letters, digits and dashes: nothing to escape.
  std::regex word("(^|[\\s,\\[|])" + option + "($|[\\s,\\]|=])");
  return std::regex_search(text, word);
}

// The flags cli/tierfs/main.cc defines: what tierfs --help must list.
std::vector<std::string> TierfsFlags() {
  std::string source = ReadFile(std::string(TIERFS_SOURCE_DIR) + "/cli/tierfs/main.cc");
  std::regex define("DEFINE_(bool|string|int32|uint32|int64|uint64|double)\\(\\s*(\\w+)");
  std::vector<std::string> flags;
  for (auto it = std::sregex_iterator(source.begin(), source.end(), define);
       it != std::sregex_iterator(); ++it) {
    flags.push_back((*it)[2]);
  }
  return flags;
}

TEST(HelpTest, VersionEverywhere) {
  const std::string version = kTierfsVersion;
  ASSERT_FALSE(version.empty());
  // The tool, and a subcommand where the tool has them.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"tierfs", "--version"},        {"tierfs", "-version"},
      {"mkdstfs", "--version"},       {"fsppadm", "--version"},
      {"fsppadm", "enforce --version"}, {"fsppadm", "status --version"},
      {"fcladm", "--version"},        {"fcladm", "print --version"},
      {"fsvoladm", "--version"},      {"fsvoladm", "remove --version"},
      {"fsmap", "--version"},         {"tierfs", "check --version"},
      {"tierfs", "backup --version"}};
  for (const auto& [tool, args] : cases) {
    SCOPED_TRACE(tool + " " + args);
    RunResult r = RunShell(Tool(tool) + " " + args);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, tool + " (tierfs) " + version + "\nbuilt from commit " + kBuildCommit + "\n");
    EXPECT_EQ(r.err, "");
  }
}

// The on-disk format each version writes is in docs/admin.md's "Versions"
// table; the current version's row must name the current schema, so a schema
// change without a new version (and row) fails here.
TEST(HelpTest, TheVersionNamesItsOnDiskFormat) {
  const std::string doc = ReadFile(std::string(TIERFS_SOURCE_DIR) + "/docs/admin.md");
  const std::regex row("\\| " + std::regex_replace(std::string(kTierfsVersion),
                                                     std::regex("\\."), "\\.") +
                       " \\| ([0-9]+) \\|");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(doc, m, row))
      << "docs/admin.md has no Versions row for " << kTierfsVersion;
  EXPECT_EQ(std::stoll(m[1]), meta::kSchemaVersion)
      << "the schema changed: give the release a new version and a row in docs/admin.md";
}

// --version names the commit the build was made from: the source
// tree's HEAD, marked when the tree has local changes.
TEST(HelpTest, VersionNamesTheCommit) {
  RunResult head = RunShell("git -C '" TIERFS_SOURCE_DIR "' rev-parse HEAD 2>/dev/null");
  if (head.status != 0) GTEST_SKIP() << "not a git checkout: the commit is 'unknown'";
  const std::string sha = head.out.substr(0, head.out.find('\n'));
  ASSERT_EQ(sha.size(), 40u) << head.out;
  EXPECT_EQ(std::string(kBuildCommit).substr(0, 40), sha);
}

TEST(HelpTest, TierfsHelpListsItsOwnFlagsOnly) {
  const std::vector<std::string> flags = TierfsFlags();
  ASSERT_GE(flags.size(), 10u);  // the regex found the DEFINE_ lines
  for (const char* args : {"--help", "-help", "-h", "--helpfull", "--helpshort"}) {
    SCOPED_TRACE(args);
    RunResult r = RunShell(Tool("tierfs") + " " + args);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    for (const std::string& flag : flags) {
      EXPECT_TRUE(ListsOption(r.out, "-" + flag)) << "-" << flag << " missing from\n" << r.out;
    }
    // gflags' own flags, which its built-in --help lists first.
    for (const char* internal : {"tab_completion_word", "tab_completion_columns", "undefok",
                                 "flagfile", "fromenv", "tryfromenv", "helpxml", "helpmatch",
                                 "helppackage", "gflags.cc", "gflags_reporting.cc"}) {
      EXPECT_EQ(r.out.find(internal), std::string::npos) << internal << " in\n" << r.out;
    }
    // Defaults and units, as the flags' definitions give them.
    EXPECT_NE(r.out.find("-threads N"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("(default: 16)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("-attr_timeout SECONDS"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("-fcl_keep_hours HOURS"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("(default: 336)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("usage: tierfs"), std::string::npos) << r.out;
    // Retired options still parse (cli/tierfs/retired_options.h) but are not offered.
    for (const char* retired : {"splice_writes", "precreate_objects"}) {
      EXPECT_EQ(r.out.find(retired), std::string::npos) << retired << " in\n" << r.out;
    }
  }
  // Every line fits a terminal.
  RunResult r = RunShell(Tool("tierfs") + " --help");
  size_t start = 0;
  while (start < r.out.size()) {
    size_t nl = r.out.find('\n', start);
    if (nl == std::string::npos) nl = r.out.size();
    EXPECT_LE(nl - start, 80u) << r.out.substr(start, nl - start);
    start = nl + 1;
  }
}

// The default `tierfs --help` shows for `flag` ("on", "off", "16"), or "" when
// the option is not listed.
std::string ShownDefault(const std::string& help, const std::string& flag) {
  size_t at = help.find("\n  -" + flag);
  while (at != std::string::npos) {
    const char after = help[at + 4 + flag.size()];
    if (after == ' ' || after == '\n') break;
    at = help.find("\n  -" + flag, at + 1);
  }
  if (at == std::string::npos) return "";
  const size_t start = help.find("(default: ", at);
  if (start == std::string::npos) return "";
  const size_t value = start + std::string("(default: ").size();
  return help.substr(value, help.find(')', value) - value);
}

// One set of defaults: SessionOptions{} (what an embedder or a test builds) is
// the daemon a user gets from the command line.
TEST(HelpTest, TierfsDefaultsAreSessionOptionsDefaults) {
  const SessionOptions d;
  const std::string help = RunShell(Tool("tierfs") + " --help").out;
  auto on_off = [](bool b) { return std::string(b ? "on" : "off"); };
  auto number = [&](const std::string& flag) { return std::stod(ShownDefault(help, flag)); };
  EXPECT_EQ(ShownDefault(help, "sync_full"), on_off(d.sync_full));
  EXPECT_EQ(ShownDefault(help, "exact_atime"), on_off(d.exact_atime));
  EXPECT_EQ(ShownDefault(help, "direct_writes"), on_off(d.direct_writes));
  EXPECT_EQ(ShownDefault(help, "writeback_cache"), on_off(d.writeback_cache));
  EXPECT_EQ(ShownDefault(help, "io_uring"), on_off(d.io_uring));
  EXPECT_EQ(ShownDefault(help, "no_open"), on_off(d.no_open));
  EXPECT_EQ(ShownDefault(help, "syslog"), on_off(d.syslog));
  EXPECT_EQ(number("entry_timeout"), d.entry_timeout);
  EXPECT_EQ(number("attr_timeout"), d.attr_timeout);
  EXPECT_EQ(number("flush_seconds"), d.flush_seconds);
  EXPECT_EQ(number("writeback_seconds"), d.flush_seconds);
  EXPECT_EQ(number("threads"), d.max_threads);
  EXPECT_EQ(number("running_threads"), d.running_threads);
  EXPECT_EQ(number("commit_ms") * 1000, static_cast<double>(d.commit_window_us));
  EXPECT_EQ(number("cached_inodes"), d.cached_inodes);
  EXPECT_EQ(number("cached_dentries"), d.cached_dentries);
  EXPECT_EQ(number("cached_opens"), d.cached_opens);
  EXPECT_EQ(number("fcl_keep_hours") * 3600, static_cast<double>(d.fcl_keep_seconds));
  EXPECT_EQ(number("fcl_max_records"), static_cast<double>(d.fcl_max_records));
  EXPECT_EQ(number("iostat_keep_days") * 86400, static_cast<double>(d.iostat_keep_seconds));
}

// --writeback_seconds is the former name of --flush_seconds: accepted, and
// refused when both are given and disagree.
TEST(HelpTest, TheFlushPeriodsFormerNameIsAnAlias) {
  RunResult r = RunShell(Tool("tierfs") + " --flush_seconds=5 --writeback_seconds=6 /nonexistent-a"
                         " /nonexistent-b");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("--flush_seconds=5 and its former name --writeback_seconds=6"),
            std::string::npos)
      << r.err;
  const std::string help = RunShell(Tool("tierfs") + " --help").out;
  EXPECT_NE(help.find("the former name of --flush_seconds"), std::string::npos) << help;
}

TEST(HelpTest, EveryToolListsEveryOption) {
  for (const HelpCase& c : HelpCases()) {
    SCOPED_TRACE(c.command);
    std::string tool = c.command.substr(0, c.command.find(' '));
    std::string rest = c.command.size() > tool.size() ? c.command.substr(tool.size()) : "";
    RunResult r = RunShell(Tool(tool) + rest + " " + c.help_args);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_NE(r.out.find("usage: " + tool), std::string::npos) << r.out;
    for (const std::string& option : c.options) {
      EXPECT_TRUE(ListsOption(r.out, option)) << option << " missing from\n" << r.out;
    }
  }
}

// Offers of the completion for `words` (the last is the word being completed),
// run in a bash without the bash-completion package.
std::set<std::string> Complete(const std::string& words) {
  std::string script = "source '" + std::string(TIERFS_SOURCE_DIR) +
                       "/cli/completion/tierfs.bash'; COMP_WORDS=(" + words +
                       "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); "
                       "f=$(complete -p ${COMP_WORDS[0]} | sed 's/.*-F \\([^ ]*\\).*/\\1/'); "
                       "$f; printf '%s\\n' \"${COMPREPLY[@]}\"";
  RunResult r = RunShell("bash -c '" + std::regex_replace(script, std::regex("'"), "'\\''") + "'");
  EXPECT_EQ(r.status, 0) << r.err;
  std::set<std::string> offers;
  size_t start = 0;
  while (start < r.out.size()) {
    size_t nl = r.out.find('\n', start);
    if (nl == std::string::npos) nl = r.out.size();
    if (nl > start) offers.insert(r.out.substr(start, nl - start));
    start = nl + 1;
  }
  return offers;
}

TEST(HelpTest, CompletionOffersWhatHelpLists) {
  for (const HelpCase& c : HelpCases()) {
    SCOPED_TRACE(c.command);
    // fcladm's options follow its action; print takes them all.
    std::string words = c.command == "fcladm"     ? "fcladm print"
                        : c.command == "fsvoladm" ? "fsvoladm add"
                                                  : c.command;
    std::set<std::string> offers = Complete(words + " -");
    for (const std::string& option : c.options) {
      EXPECT_TRUE(offers.count(option)) << option << " not offered";
    }
  }
  std::set<std::string> commands = Complete("fsppadm ''");
  for (const char* command : {"assign", "unassign", "list", "print", "validate", "enforce",
                              "analyze", "query", "status", "heatbucket", "tag"}) {
    EXPECT_TRUE(commands.count(command)) << command;
  }
  EXPECT_EQ(Complete("fsppadm enf"), std::set<std::string>{"enforce"});
  EXPECT_EQ(Complete("fsppadm tag ''"), (std::set<std::string>{"add", "list", "remove"}));
  EXPECT_EQ(Complete("fsppadm enforce -T s"), (std::set<std::string>{"ssd", "ssdmetadata"}));
  EXPECT_EQ(Complete("fcladm s"), (std::set<std::string>{"state", "sync"}));
  EXPECT_EQ(Complete("fsvoladm s"), (std::set<std::string>{"setclass"}));
  std::set<std::string> tierfs = Complete("tierfs -");
  for (const std::string& flag : TierfsFlags()) {
    EXPECT_TRUE(tierfs.count("-" + flag)) << "-" << flag << " not offered";
  }
  EXPECT_TRUE(Complete("tierfs ch").count("check"));
  EXPECT_TRUE(Complete("tierfs check -").count("--repair"));
}

// `cmake --install` of this build into DESTDIR: programs, mount helper (and
// its /sbin link), man pages, completions, where an administrator looks.
TEST(HelpTest, InstallPutsEverythingInPlace) {
  TempDir dest;
  const std::string prefix = "/opt/tierfs-test";
  RunResult r = RunShell("DESTDIR='" + dest.path() + "' cmake --install '" + TIERFS_BINARY_DIR +
                    "' --prefix " + prefix);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::string root = dest.path() + prefix;
  struct stat st;
  for (const char* tool : {"tierfs", "mkdstfs", "fsppadm", "fcladm", "fsvoladm", "fsmap",
                           "mount.fuse.tierfs"}) {
    std::string path = root + "/sbin/" + tool;
    ASSERT_EQ(stat(path.c_str(), &st), 0) << path;
    EXPECT_TRUE(st.st_mode & S_IXUSR) << path;
    std::string completion = root + "/share/bash-completion/completions/" + tool;
    if (std::string(tool) != "mount.fuse.tierfs") {
      EXPECT_EQ(stat(completion.c_str(), &st), 0) << completion;
    }
  }
  for (const char* page : {"man8/tierfs.8", "man8/mkdstfs.8", "man8/fsppadm.8",
                           "man8/fcladm.8", "man8/fsvoladm.8", "man1/fsmap.1"}) {
    std::string path = root + "/share/man/" + page;
    EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  }
  // mount(8) looks in /sbin: a link to the helper under the prefix.
  char target[4096];
  std::string link = dest.path() + "/sbin/mount.fuse.tierfs";
  ssize_t n = readlink(link.c_str(), target, sizeof target - 1);
  ASSERT_GT(n, 0) << link;
  EXPECT_EQ(std::string(target, static_cast<size_t>(n)), prefix + "/sbin/mount.fuse.tierfs");
  // The installed tierfs runs and knows its version.
  r = RunShell("'" + root + "/sbin/tierfs' --version");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, VersionText("tierfs"));
}

}  // namespace
}  // namespace tierfs::cli
