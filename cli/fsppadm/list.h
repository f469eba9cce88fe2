// fsppadm list [--json] [MOUNT...]: the policy assigned to each mount, every
// tierfs mount of the mount table when none is named (control op get_policy).
#pragma once

#include <string>
#include <vector>

#include "cli/fsppadm/subcommand.h"

namespace tierfs::cli::fsppadm {

struct ListOptions {
  CommonFlags flags;
  bool json = false;                // --json: one JSON document instead of a table
  std::vector<std::string> mounts;  // empty: every tierfs mount
};

// Parses args = {"list", ...}. EINVAL: an unknown option.
Result<ListOptions> ParseListOptions(const std::vector<std::string>& args);

// Returns the worst exit status of the mounts; kExitUnreachable when the mount
// table cannot be read (cli/common/exit_codes.h).
int RunList(const ListOptions& options, const CliEnv& env);

extern const Subcommand kListCommand;

}  // namespace tierfs::cli::fsppadm
