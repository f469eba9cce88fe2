// fsppadm schedule [--hourly-active] [--daily-full] | --list | --remove MOUNT:
// installs, lists or removes the scheduled enforce runs of a mounted file
// system (cli/common/scan_schedule.h; docs/admin.md "Schedules").
#pragma once

#include <string>
#include <vector>

#include "cli/fsppadm/subcommand.h"

namespace tierfs::cli::fsppadm {

struct ScheduleOptions {
  CommonFlags flags;
  // What to install; after parsing, at least one is set (neither given: both).
  bool hourly_active = false;  // --hourly-active: `enforce -C -T CLASS` hourly
  bool daily_full = false;     // --daily-full: `enforce` daily
  bool remove = false;         // --remove: remove the schedule instead
  bool list = false;           // --list: print the schedule files instead
  std::string mount;
};

// Parses args = {"schedule", ...}. EINVAL: an unknown option, "--remove,
// --list and --hourly-active/--daily-full exclude each other", or "expected one
// MOUNT".
Result<ScheduleOptions> ParseScheduleOptions(const std::vector<std::string>& args);

// Returns the exit status; kExitFailed when the volume label cannot be read or
// the scheduler's files cannot be written or removed.
int RunSchedule(const ScheduleOptions& options, const CliEnv& env);

extern const Subcommand kScheduleCommand;

}  // namespace tierfs::cli::fsppadm
