// fcladm: the File Change Log of a tierfs file system (docs/commands.md "fcladm").
//
//   fcladm on|off|state|sync [--json] MOUNT
//   fcladm print [-s SEQ] [-t TIME] [-n COUNT] [--json] MOUNT
//   fcladm --help | --version
//
// on/off start and stop recording, state shows it, sync flushes the daemon's
// in-memory I/O counters and inodes to the database; each prints the state
// line "FCL on: N records, seq A..B". print lists records from sequence
// number SEQ and/or time TIME (epoch seconds or ISO 8601, see cli/common/units.h),
// at most COUNT of them: SEQ, TIME (local ISO), EVENT, INO, NAME, DETAIL.
// Not thread-safe (getopt_long state).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/common/cli_env.h"
#include "common/status.h"

namespace tierfs::cli {

struct FcladmArgs {
  std::string action;  // on | off | state | sync | print
  bool help = false;
  bool version = false;  // --version
  bool json = false;
  int64_t from_seq = 0;      // -s
  int64_t from_time_ns = 0;  // -t
  uint64_t limit = 0;        // -n (0 = all)
  std::string mount;
};

// Parses {"fcladm", ACTION, ...}. EINVAL naming the bad action, option or operand.
Result<FcladmArgs> ParseFcladmArgs(const std::vector<std::string>& args);
std::string FcladmUsage();

// Runs fcladm; returns the exit status (cli/common/exit_codes.h).
int FcladmMain(const std::vector<std::string>& args, const CliEnv& env);

}  // namespace tierfs::cli
