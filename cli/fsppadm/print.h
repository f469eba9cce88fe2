// fsppadm print MOUNT: prints the XML of the policy assigned to MOUNT (control
// op get_policy).
#pragma once

#include <string>
#include <vector>

#include "cli/fsppadm/subcommand.h"

namespace tierfs::cli::fsppadm {

struct PrintOptions {
  CommonFlags flags;
  std::string mount;
};

// Parses args = {"print", MOUNT}. EINVAL: any option but the common ones, or
// not exactly one operand ("expected one MOUNT").
Result<PrintOptions> ParsePrintOptions(const std::vector<std::string>& args);

// Returns the exit status; kExitFailed when no policy is assigned (cli/common/exit_codes.h).
int RunPrint(const PrintOptions& options, const CliEnv& env);

extern const Subcommand kPrintCommand;

}  // namespace tierfs::cli::fsppadm
