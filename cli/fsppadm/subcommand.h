// What every fsppadm subcommand shares: how it is described to the dispatcher
// (cli/fsppadm/fsppadm.cc), the options all of them take (-h/--help, --version), the
// option-parsing helpers, and calling the daemon of a mount (reached with
// ConnectToMount, cli/common/tool_support.h).
//
// A subcommand lives in its own file(s) in cli/fsppadm/: its options struct, its
// option parsing and usage text, and its run function. Commands that take the
// same options share them: enforce, analyze and query (cli/fsppadm/scan.h),
// assign and validate (cli/fsppadm/policy_file.h).
// Not thread-safe: parsing uses getopt_long (cli/common/option_parser.h).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cli/common/cli_env.h"
#include "cli/common/control_client.h"
#include "cli/common/option_parser.h"
#include "cli/common/tool_support.h"
#include "common/status.h"

namespace tierfs::cli::fsppadm {

constexpr char kTool[] = "fsppadm";

// The usage lines of -h/--help and --version, the last of every command's
// options in its usage.
extern const char kCommonOptionsUsage[];

// -h/--help and --version: given, the command prints its usage or the version
// and exits 0 without checking its operands.
struct CommonFlags {
  bool help = false;
  bool version = false;
};

// A command line parsed and ready to run.
struct Invocation {
  CommonFlags flags;
  // Runs the command and returns its exit status (cli/common/exit_codes.h). Empty when
  // flags.help or flags.version is set.
  std::function<int(const CliEnv&)> run;
};

// One subcommand as the dispatcher sees it.
struct Subcommand {
  const char* name;  // "enforce": the word after "fsppadm"
  // Its usage text (`fsppadm NAME --help`), kCommonOptionsUsage included,
  // ending in a newline.
  std::string (*usage)();
  // Parses args = {name, option or operand...}. Errors are EINVAL naming the
  // option or operand, without the command's name ("unknown option -x",
  // "expected one MOUNT"); the dispatcher prefixes it.
  Result<Invocation> (*parse)(const std::vector<std::string>& args);
};

// Parses args = {name, ...} with `specs` plus -h/--help and --version (which set
// *flags), calling on_option for each option of `specs` in command-line order.
// Returns the operands. Errors (EINVAL) as ParseOptions: "unknown option -x",
// "option -T needs a value (CLASS)", or on_option's error.
Result<std::vector<std::string>> ParseSubcommandOptions(const std::vector<std::string>& args,
                                                        std::vector<OptionSpec> specs,
                                                        CommonFlags* flags,
                                                        const OptionHandler& on_option);

// Ok when `ok`; else EINVAL "expected SYNTAX" ("expected one MOUNT").
Status ExpectOperands(bool ok, const std::string& syntax);

// Stores a parsed option value in *out, or returns its error prefixed with the
// option's name: "-s: not a size: \"12Q\" ...".
template <typename T>
Status TakeOptionValue(const OptionSpec& spec, Result<T> parsed, T* out) {
  if (!parsed.ok()) return Status::Invalid(OptionName(spec) + ": " + parsed.status().message());
  *out = *parsed;
  return Status::Ok();
}

// A Subcommand::parse made of a command's own Parse and Run: `Options` has a
// CommonFlags member `flags`; Parse returns EINVAL errors as Subcommand::parse.
template <typename Options, Result<Options> (*Parse)(const std::vector<std::string>&),
          int (*Run)(const Options&, const CliEnv&)>
Result<Invocation> ParseToInvocation(const std::vector<std::string>& args) {
  Result<Options> options = Parse(args);
  if (!options.ok()) return options.status();
  Invocation invocation{options->flags, nullptr};
  if (!invocation.flags.help && !invocation.flags.version) {
    invocation.run = [parsed = std::move(*options)](const CliEnv& env) { return Run(parsed, env); };
  }
  return invocation;
}

// CallOrReport (cli/common/tool_support.h) for fsppadm: prints "fsppadm: MOUNT:
// message" on failure, raises *exit_code and returns nullopt.
inline std::optional<nlohmann::json> CallOrReport(const CliEnv& env, MountConnection& target,
                                                  const nlohmann::json& request, int* exit_code,
                                                  const ProgressCallback& progress = nullptr) {
  return cli::CallOrReport(env, kTool, target.client, request, exit_code, progress);
}

}  // namespace tierfs::cli::fsppadm
