// fsppadm's command line (VxFS syntax, docs/commands.md "fsppadm"):
//
//   fsppadm COMMAND [OPTIONS] [OPERANDS]
//   fsppadm help [COMMAND] | --help | COMMAND --help | --version | COMMAND --version
//
// This part finds COMMAND and hands the rest to it: each command's options and
// operands are its own (cli/fsppadm/<command>.h). Parsing only: no I/O. Not
// thread-safe (getopt_long, see cli/common/option_parser.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cli/fsppadm/subcommand.h"
#include "common/status.h"

namespace tierfs::cli::fsppadm {

// Every subcommand, in the overview's order.
const std::vector<const Subcommand*>& AllSubcommands();

// The subcommand called `name`; nullptr when there is none.
const Subcommand* FindSubcommand(std::string_view name);

// A parsed fsppadm command line.
struct CommandLine {
  const Subcommand* command = nullptr;  // nullptr: `fsppadm --help`, `help`, `--version`
  Invocation invocation;                // for command == nullptr: only the flags
};

// Parses `args` = {"fsppadm", COMMAND, ...}. Errors (EINVAL; the tool exits 2)
// name the offending command, option or operand: "unknown command \"foo\" (see
// fsppadm --help)", "enforce: unknown option -x", "enforce: option -T needs a
// value (CLASS)", "assign: expected MOUNT... POLICY.xml".
Result<CommandLine> ParseCommandLine(const std::vector<std::string>& args);

// The usage of `command` with the common options, or the overview for nullptr;
// ends in a newline.
std::string Usage(const Subcommand* command);

}  // namespace tierfs::cli::fsppadm
