// fsppadm status [-n COUNT] [--json] MOUNT: the assigned policy, the volumes
// with their space, and the latest scans and relocations recorded in the
// database (control ops get_policy, volumes, status).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/fsppadm/subcommand.h"

namespace tierfs::cli::fsppadm {

struct StatusOptions {
  CommonFlags flags;
  uint64_t count = 10;  // -n: scans and relocations shown
  bool json = false;    // --json: one JSON document instead of tables
  std::string mount;
};

// Parses args = {"status", ...}. EINVAL: "-n: not a count: ...", an unknown
// option, or not exactly one operand ("expected one MOUNT").
Result<StatusOptions> ParseStatusOptions(const std::vector<std::string>& args);

// Returns the exit status (cli/common/exit_codes.h).
int RunStatus(const StatusOptions& options, const CliEnv& env);

extern const Subcommand kStatusCommand;

}  // namespace tierfs::cli::fsppadm
