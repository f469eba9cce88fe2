// fsppadm advise [OPTIONS] MOUNT [POLICY.xml]: replays the I/O history a mount
// has recorded against its policy (or POLICY.xml) and variants of it, and
// reports, best first, the share of I/O the fast class would have served and
// the bytes each would have moved, with the policy text of the best (tierfs
// extension; docs/policies.md "Advisor").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/fsppadm/subcommand.h"

namespace tierfs::cli::fsppadm {

struct AdviseOptions {
  CommonFlags flags;
  bool json = false;                               // --json: every variant with its text
  int64_t interval_s = 0;                          // --interval, seconds (0 = shortest PERIOD)
  std::string fast_class = "ssd";                  // --class
  std::vector<double> period_factors = {0.5, 1, 2};     // --periods: each > 0
  std::vector<double> threshold_factors = {0.5, 1, 2};  // --thresholds: each > 0
  std::vector<double> limits = {80, 90, 100};      // --limits: percents in (0, 100]
  uint64_t rows = 10;                              // -n: variants listed (0 = all)
  uint64_t show = 1;                               // --show: rank whose text is printed, >= 1
  std::string output;                              // -o: also write that text to this file
  std::string mount;
  std::string policy_file;  // the optional second operand ("" = the assigned policy)
};

// Parses args = {"advise", ...}. EINVAL naming the option ("--periods: expected
// numbers greater than 0 ...", "--show: RANK must be 1 or more, got 0", "-o:
// empty file name"), or "expected MOUNT [POLICY.xml]".
Result<AdviseOptions> ParseAdviseOptions(const std::vector<std::string>& args);

// The replay runs here (policy/advisor.h); the daemon only hands over the
// history (control op io_history). Returns kExitOk; kExitUsage for a bad or
// missing policy or an option the mount refutes (--interval not a multiple of
// its heat bucket, --class no volume carries, --show past the last rank);
// kExitFailed for too little history, no variant replayed, or an unwritable -o
// file; or the daemon's exit status.
int RunAdvise(const AdviseOptions& options, const CliEnv& env);

extern const Subcommand kAdviseCommand;

}  // namespace tierfs::cli::fsppadm
