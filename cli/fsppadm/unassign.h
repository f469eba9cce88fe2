// fsppadm unassign MOUNT...: removes each mount's active policy (control op
// unassign); new files then go to the volume with the most free space.
#pragma once

#include <string>
#include <vector>

#include "cli/fsppadm/subcommand.h"

namespace tierfs::cli::fsppadm {

struct UnassignOptions {
  CommonFlags flags;
  std::vector<std::string> mounts;  // at least one
};

// Parses args = {"unassign", ...}. EINVAL: an option other than the common
// ones, or no operand ("expected MOUNT...").
Result<UnassignOptions> ParseUnassignOptions(const std::vector<std::string>& args);

// Returns the worst exit status of the mounts (cli/common/exit_codes.h).
int RunUnassign(const UnassignOptions& options, const CliEnv& env);

extern const Subcommand kUnassignCommand;

}  // namespace tierfs::cli::fsppadm
