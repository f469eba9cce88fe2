// `tierfs backup`: the tierfs tool's subcommand for a copy of the metadata
// database (fs/check/db_backup.h), now or from cron:
//
//   tierfs backup [--json] [--cron SCHEDULE] MOUNT|METADATA_VOLUME_DIR [DEST]
//
// On an unmounted file system the tool copies the database itself, holding the
// daemon lock; on a mounted one the daemon writes the copy with SQLite's online
// backup (docs/reliability.md, "tierfs backup"). Not thread-safe (one run per
// process).
#pragma once

#include <string>
#include <vector>

#include "cli/common/cli_env.h"

namespace tierfs::cli {

// `args` = {"backup", ...}. Exit status 0, 1 (the backup failed), 2 (usage or a
// refused destination), 3 (daemon unreachable).
int BackupMain(const std::vector<std::string>& args, const CliEnv& env);
std::string BackupUsage();

}  // namespace tierfs::cli
