#include "cli/fsppadm_args.h"

#include <gtest/gtest.h>

#include <sstream>

#include "cli/exit_codes.h"
#include "cli/fsppadm.h"
#include "cli/option_parser.h"

namespace tierfs::cli {
namespace {

using Args = std::vector<std::string>;

std::string ErrorOf(const Args& args) {
  Result<FsppadmArgs> r = ParseFsppadmArgs(args);
  return r.ok() ? "" : r.status().message();
}

TEST(FsppadmArgs, EnforceWithEveryOption) {
  Result<FsppadmArgs> r = ParseFsppadmArgs(
      {"fsppadm", "enforce", "-C",  "-T",      "ssd", "-T",        "hdd",    "-F",
       "p.xml",   "-P",      "-r",  "rep.txt", "-a",  "-s",        "10G",    "-n",
       "100",     "-t",      "1.5", "-p",      "80",  "--no-wait", "/mnt/a", "/mnt/b"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->command, FsppadmCommand::kEnforce);
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
  Result<FsppadmArgs> r = ParseFsppadmArgs({"fsppadm", "query", "/mnt", "-CP", "--json"});
  // -P and --json exclude each other.
  EXPECT_FALSE(r.ok());
  r = ParseFsppadmArgs({"fsppadm", "query", "/mnt", "-CTssd"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->active_only);
  EXPECT_EQ(r->classes, std::vector<std::string>{"ssd"});
  EXPECT_EQ(r->paths, std::vector<std::string>{"/mnt"});
}

TEST(FsppadmArgs, PolicyCommandsTakeTheLastOperandAsThePolicy) {
  Result<FsppadmArgs> r = ParseFsppadmArgs({"fsppadm", "assign", "-f", "/m1", "/m2", "p.xml"});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->force);
  EXPECT_EQ(r->mounts, (std::vector<std::string>{"/m1", "/m2"}));
  EXPECT_EQ(r->policy_file, "p.xml");
  r = ParseFsppadmArgs({"fsppadm", "validate", "p.xml"});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->mounts.empty());
  r = ParseFsppadmArgs({"fsppadm", "status", "-n", "3", "--json", "/m"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status_count, 3u);
  EXPECT_TRUE(r->json);
}

TEST(FsppadmArgs, HeatbucketTakesMountAndSeconds) {
  Result<FsppadmArgs> r = ParseFsppadmArgs({"fsppadm", "heatbucket", "/m", "60"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->command, FsppadmCommand::kHeatBucket);
  EXPECT_EQ(r->mounts, (std::vector<std::string>{"/m"}));
  EXPECT_EQ(r->heat_bucket_seconds, 60);
  EXPECT_TRUE(ParseFsppadmArgs({"fsppadm", "heatbucket", "/m", "86400"}).ok());
  for (const char* bad : {"0", "86401", "1.5", "1h"}) {
    r = ParseFsppadmArgs({"fsppadm", "heatbucket", "/m", bad});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("SECONDS must be 1 to 86400"), std::string::npos)
        << r.status().message();
  }
  EXPECT_FALSE(ParseFsppadmArgs({"fsppadm", "heatbucket", "/m"}).ok());
  EXPECT_NE(FsppadmUsage(FsppadmCommand::kHeatBucket).find("discarded"), std::string::npos);
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
    Result<FsppadmArgs> r = ParseFsppadmArgs(args);
    ASSERT_TRUE(r.ok()) << args.back();
    EXPECT_TRUE(r->help);
  }
  for (FsppadmCommand c :
       {FsppadmCommand::kNone, FsppadmCommand::kAssign, FsppadmCommand::kUnassign,
        FsppadmCommand::kList, FsppadmCommand::kPrint, FsppadmCommand::kValidate,
        FsppadmCommand::kEnforce, FsppadmCommand::kAnalyze, FsppadmCommand::kQuery,
        FsppadmCommand::kStatus}) {
    EXPECT_EQ(FsppadmUsage(c).rfind("usage: fsppadm", 0), 0u) << FsppadmCommandName(c);
  }
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
}  // namespace tierfs::cli
