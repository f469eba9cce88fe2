// `tierfs check`: the tierfs tool's subcommand for the consistency check
// (fs/check/fsck.h); `tierfs backup` is cli/tierfs/backup_command.h.
//
//   tierfs check [--json] MOUNT|METADATA_VOLUME_DIR
//   tierfs check --repair [--trust-objects] [--json] METADATA_VOLUME_DIR
//
// Where the work happens: on an unmounted file system the tool opens the database
// itself, holding the daemon lock (fs/volume/daemon_lock.h) so no daemon starts under it:
// read-only (Metadata::OpenForCheck, nothing on disk changes) for a check,
// read-write for a repair. On a mounted one the daemon does it on its own
// connection (fs/control/check_ops.h explains why); a repair is refused there.
//
// Not thread-safe (one run per process: getopt and the CliEnv streams).
#pragma once

#include <string>
#include <vector>

#include "cli/common/cli_env.h"

namespace tierfs::cli {

// Exit statuses of `tierfs check` (e2fsck's where they overlap; 2 and 3 as every
// tierfs tool, cli/common/exit_codes.h).
constexpr int kCheckClean = 0;        // no damage found (leftovers may be listed)
constexpr int kCheckRepaired = 1;     // --repair changed something, and no damage is left
constexpr int kCheckUsage = 2;        // usage error
constexpr int kCheckUnreachable = 3;  // mounted, but the daemon did not answer
constexpr int kCheckDamage = 4;       // damage found and (some of it) not repaired
constexpr int kCheckError = 8;        // the check could not run, or repair refused (mounted)

// `args` = {"check", ...}. Reports on env.out, errors on env.err; returns the exit status.
int CheckMain(const std::vector<std::string>& args, const CliEnv& env);
std::string CheckUsage();


}  // namespace tierfs::cli
