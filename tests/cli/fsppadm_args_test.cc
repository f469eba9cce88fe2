// fsppadm's command line: the dispatcher (cli/fsppadm/command_line.h) and each
// command's own options (cli/fsppadm/<command>.h).
#include "cli/fsppadm/command_line.h"

#include <gtest/gtest.h>

#include <sstream>

#include "cli/common/exit_codes.h"
#include "cli/fsppadm/fsppadm.h"
#include "cli/fsppadm/policy_file.h"
#include "cli/fsppadm/heatbucket.h"
#include "cli/fsppadm/scan.h"
#include "cli/fsppadm/status.h"
#include "cli/common/option_parser.h"

namespace tierfs::cli::fsppadm {
namespace {

using Args = std::vector<std::string>;

std::string ErrorOf(const Args& args) {
  Result<CommandLine> r = ParseCommandLine(args);
  return r.ok() ? "" : r.status().message();
}

TEST(FsppadmArgs, EnforceWithEveryOption) {
  Result<ScanOptions> r = ParseScanOptions(
      {"enforce", "-C",  "-T",      "ssd", "-T",        "hdd",    "-F",
       "p.xml",   "-P",      "-r",  "rep.txt", "-a",  "-s",        "10G",    "-n",
       "100",     "-t",      "1.5", "-p",      "80",  "--no-wait", "/mnt/a", "/mnt/b"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->mode, "enforce");
  EXPECT_TRUE(r->active_only);
  EXPECT_EQ(r->classes, (std::vector<std::string>{"ssd", "hdd"}));
  EXPECT_EQ(r->policy_file, "p.xml");
  EXPECT_TRUE(r->parsable);
  EXPECT_EQ(r->report_file, "rep.txt");
  EXPECT_TRUE(r->report_times);
  EXPECT_EQ(r->limit_bytes, 10ULL << 30);
  EXPECT_EQ(r->limit_files, 100u);
  EXPECT_DOUBLE_EQ(r->limit_hours, 1.5);
  EXPECT_EQ(r->io_nice, 80);
  EXPECT_TRUE(r->no_wait);
  EXPECT_EQ(r->paths, (std::vector<std::string>{"/mnt/a", "/mnt/b"}));
}

TEST(FsppadmArgs, OptionsAfterOperandsAndClusters) {
  Result<ScanOptions> r = ParseScanOptions({"query", "/mnt", "-CP", "--json"});
  // -P and --json exclude each other.
  EXPECT_FALSE(r.ok());
  r = ParseScanOptions({"query", "/mnt", "-CTssd"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->active_only);
  EXPECT_EQ(r->classes, std::vector<std::string>{"ssd"});
  EXPECT_EQ(r->paths, std::vector<std::string>{"/mnt"});
}

TEST(FsppadmArgs, PolicyCommandsTakeTheLastOperandAsThePolicy) {
  Result<PolicyFileOptions> r = ParseAssignOptions({"assign", "-f", "/m1", "/m2", "p.xml"});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->force);
  EXPECT_EQ(r->mounts, (std::vector<std::string>{"/m1", "/m2"}));
  EXPECT_EQ(r->policy_file, "p.xml");
  Result<PolicyFileOptions> v = ParseValidateOptions({"validate", "p.xml"});
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->mounts.empty());
  EXPECT_EQ(v->policy_file, "p.xml");
  Result<StatusOptions> s = ParseStatusOptions({"status", "-n", "3", "--json", "/m"});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->count, 3u);
  EXPECT_TRUE(s->json);
  EXPECT_EQ(s->mount, "/m");
}

TEST(FsppadmArgs, HeatbucketTakesMountAndSeconds) {
  Result<HeatBucketOptions> r = ParseHeatBucketOptions({"heatbucket", "/m", "60"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->mount, "/m");
  EXPECT_EQ(r->seconds, 60);
  EXPECT_TRUE(ParseCommandLine({"fsppadm", "heatbucket", "/m", "86400"}).ok());
  for (const char* bad : {"0", "86401", "1.5", "1h"}) {
    EXPECT_EQ(ErrorOf({"fsppadm", "heatbucket", "/m", bad}),
              "heatbucket: SECONDS must be 1 to 86400, got \"" + std::string(bad) + "\"");
  }
  EXPECT_EQ(ErrorOf({"fsppadm", "heatbucket", "/m"}), "heatbucket: expected MOUNT SECONDS");
  EXPECT_NE(Usage(FindSubcommand("heatbucket")).find("discarded"), std::string::npos);
}

TEST(FsppadmArgs, ErrorsNameTheOption) {
  EXPECT_EQ(ErrorOf({"fsppadm", "enforce", "-x", "/m"}), "enforce: unknown option -x");
  EXPECT_EQ(ErrorOf({"fsppadm", "enforce", "-Cx", "/m"}), "enforce: unknown option -x");
  EXPECT_EQ(ErrorOf({"fsppadm", "enforce", "--frobnicate", "/m"}),
            "enforce: unknown option --frobnicate");
  EXPECT_EQ(ErrorOf({"fsppadm", "enforce", "/m", "-T"}),
            "enforce: option -T needs a value (CLASS)");
  EXPECT_EQ(ErrorOf({"fsppadm", "enforce", "--json=yes", "/m"}),
            "enforce: option --json takes no value");
  EXPECT_EQ(ErrorOf({"fsppadm", "enforce", "--json", "-Qa", "/m"}), "enforce: unknown option -Q");
  EXPECT_EQ(ErrorOf({"fsppadm", "assign", "-C", "/m", "p.xml"}), "assign: unknown option -C");
  EXPECT_EQ(ErrorOf({"fsppadm", "enforce", "-s", "12Q", "/m"}),
            "enforce: -s: not a size: \"12Q\" (bytes, or a number with K, M, G or T)");
  EXPECT_EQ(ErrorOf({"fsppadm", "enforce", "-p", "101", "/m"}),
            "enforce: -p: IO_NICE must be 1..100, got 101");
  EXPECT_EQ(ErrorOf({"fsppadm", "enforce", "-n", "-1", "/m"}), "enforce: -n: not a count: \"-1\"");
  EXPECT_EQ(ErrorOf({"fsppadm", "enforce"}),
            "enforce: expected at least one PATH (the first names the mount)");
  EXPECT_EQ(ErrorOf({"fsppadm", "assign", "/m"}), "assign: expected MOUNT... POLICY.xml");
  EXPECT_EQ(ErrorOf({"fsppadm", "print", "/a", "/b"}), "print: expected one MOUNT");
  EXPECT_EQ(ErrorOf({"fsppadm", "frob"}), "unknown command \"frob\" (see fsppadm --help)");
  EXPECT_EQ(ErrorOf({"fsppadm", "-C", "enforce"}),
            "the command comes first, before options such as -C (see fsppadm --help)");
  EXPECT_EQ(ErrorOf({"fsppadm"}), "no command given (see fsppadm --help)");
}

TEST(FsppadmArgs, Help) {
  for (const Args& args :
       {Args{"fsppadm", "--help"}, Args{"fsppadm", "help"}, Args{"fsppadm", "enforce", "--help"},
        Args{"fsppadm", "help", "list"}, Args{"fsppadm", "assign", "-h"}}) {
    Result<CommandLine> r = ParseCommandLine(args);
    ASSERT_TRUE(r.ok()) << args.back();
    EXPECT_TRUE(r->invocation.flags.help);
    EXPECT_FALSE(r->invocation.run);
  }
  EXPECT_EQ(ParseCommandLine({"fsppadm", "help", "list"})->command, FindSubcommand("list"));
  EXPECT_EQ(ErrorOf({"fsppadm", "help", "frob"}), "unknown command \"frob\"");
  Result<CommandLine> version = ParseCommandLine({"fsppadm", "status", "--version"});
  ASSERT_TRUE(version.ok());
  EXPECT_TRUE(version->invocation.flags.version);
  EXPECT_EQ(Usage(nullptr).rfind("usage: fsppadm COMMAND", 0), 0u);
  // Every command's usage starts with its own synopsis and ends with the common
  // options (the scans add their notes after those).
  for (const Subcommand* c : AllSubcommands()) {
    const std::string usage = Usage(c);
    EXPECT_EQ(usage.rfind("usage: fsppadm " + std::string(c->name), 0), 0u) << c->name;
    EXPECT_NE(usage.find(kCommonOptionsUsage), std::string::npos) << c->name;
    EXPECT_EQ(FindSubcommand(c->name), c);
  }
  EXPECT_EQ(AllSubcommands().size(), 14u);
}

TEST(FsppadmMain, UsageErrorsExitTwoAndNameTheOption) {
  std::ostringstream out, err;
  CliEnv env;
  env.out = &out;
  env.err = &err;
  EXPECT_EQ(FsppadmMain({"fsppadm", "enforce", "-Z", "/mnt"}, env), kExitUsage);
  EXPECT_EQ(err.str(), "fsppadm: enforce: unknown option -Z\n");
  EXPECT_EQ(out.str(), "");
  err.str("");
  EXPECT_EQ(FsppadmMain({"fsppadm", "enforce", "--help"}, env), kExitOk);
  EXPECT_NE(out.str().find("usage: fsppadm enforce"), std::string::npos);
  EXPECT_EQ(err.str(), "");
}

TEST(OptionParser, LongOnlyOptionsAndDoubleDash) {
  std::vector<std::string> seen;
  std::vector<OptionSpec> specs = {
      {"cron", 0, true, "SCHEDULE"}, {"no-mount", 0, false, ""}, {nullptr, 'v', false, ""}};
  Result<std::vector<std::string>> ops =
      ParseOptions({"tool", "--cron", "@daily", "a", "--no-mount", "--", "-v", "b"}, specs,
                   [&seen](const OptionSpec& spec, const char* value) {
                     seen.push_back(OptionName(spec) + "=" + (value == nullptr ? "" : value));
                     return Status::Ok();
                   });
  ASSERT_TRUE(ops.ok()) << ops.status().message();
  EXPECT_EQ(seen, (std::vector<std::string>{"--cron=@daily", "--no-mount="}));
  EXPECT_EQ(*ops, (std::vector<std::string>{"a", "-v", "b"}));
  ops = ParseOptions({"tool", "--cron"}, specs,
                     [](const OptionSpec&, const char*) { return Status::Ok(); });
  ASSERT_FALSE(ops.ok());
  EXPECT_EQ(ops.status().message(), "option --cron needs a value (SCHEDULE)");
}

TEST(OptionParser, AmbiguousPrefix) {
  std::vector<OptionSpec> specs = {{"json", 0, false, ""}, {"jobs", 0, true, "N"}};
  Result<std::vector<std::string>> ops = ParseOptions(
      {"tool", "--j"}, specs, [](const OptionSpec&, const char*) { return Status::Ok(); });
  ASSERT_FALSE(ops.ok());
  EXPECT_EQ(ops.status().message(), "ambiguous option --j");
}

}  // namespace
}  // namespace tierfs::cli::fsppadm
