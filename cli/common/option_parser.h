// ParseOptions: command-line options for fsppadm, fcladm, fsmap and mkdstfs.
//
// Why getopt_long and not gflags (the project's flag library, still used by the
// daemon): these tools follow the VxFS syntax, a subcommand first and then
// repeatable single-letter options (`fsppadm enforce -T ssd -T hdd PATH`),
// which gflags cannot express; glibc's getopt_long can and is well kept. This
// wrapper turns its global-state interface into one call that returns the
// operands or an error naming the offending option.
//
// Not thread-safe: getopt_long keeps its state in globals (optind, optarg...).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace tierfs::cli {

struct OptionSpec {
  const char* long_name = nullptr;  // "json" for --json; nullptr when there is none
  char short_name = 0;              // 'T' for -T; 0 when there is none
  bool takes_value = false;
  const char* value_name = "";  // shown in errors: "option -T needs a value (CLASS)"
};

// Called once per option given, in command-line order; `value` is nullptr for an
// option without a value. Return an error Status to reject the value (its message
// should name the option, e.g. "-s: not a size: 12Q").
using OptionHandler = std::function<Status(const OptionSpec& spec, const char* value)>;

// Parses args[1..] (args[0] is the command's name, used for nothing but getopt).
// Options may come before or between operands (GNU order); "--" ends options.
// Returns the operands in order. Errors, all EINVAL: "unknown option -x",
// "unknown option --foo", "option -T needs a value (CLASS)", "option --json takes
// no value", "ambiguous option --p", or the handler's error.
Result<std::vector<std::string>> ParseOptions(const std::vector<std::string>& args,
                                              const std::vector<OptionSpec>& specs,
                                              const OptionHandler& on_option);

// The first word of a tool whose first operand names what to do (fcladm on,
// fsvoladm add): args[1], which is --help, -h or help (kHelp), --version
// (kVersion) or one of `actions` (kAction). Errors, EINVAL: "no action given
// (see TOOL --help)" when args has no args[1], and "unknown action \"X\"
// (expected a, b or c)" naming `actions` in their order.
struct ActionWord {
  enum Kind { kAction, kHelp, kVersion } kind = kAction;
  std::string action;  // args[1] as given
};
Result<ActionWord> ParseActionWord(const std::vector<std::string>& args, std::string_view tool,
                                   const std::vector<std::string_view>& actions);

// "-T" or "--json" (the short form when there is one): how messages name `spec`.
std::string OptionName(const OptionSpec& spec);

}  // namespace tierfs::cli
