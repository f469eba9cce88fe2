// The cron entry `mkdstfs --cron SCHEDULE` installs: one file in /etc/cron.d
// that runs `fsppadm enforce MOUNTPOINT` on SCHEDULE as root (docs/admin.md
// "Schedules": DST has no scheduler of its own; a root crontab runs the scans).
//
// The directory can be redirected with the environment variable
// TIERFS_CRON_DIR (tests, or systems with another cron layout).
// Thread-safe apart from getenv.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace tierfs::cli {

// A SCHEDULE is five cron time fields ("0 * * * *", "*/15 2-5 * * mon-fri") or
// one of @hourly @daily @weekly @monthly @yearly @annually @midnight @reboot.
// EINVAL naming the schedule otherwise.
Status CheckCronSchedule(std::string_view schedule);

// $TIERFS_CRON_DIR, or /etc/cron.d.
std::string CronDir();
// <cron dir>/tierfs-<fs_name>, with characters cron ignores in file names
// (anything but letters, digits, '_' and '-') replaced by '_'.
std::string CronFilePath(const std::string& fs_name);

// The file's text: a comment naming the file system, SHELL and PATH, and the
// entry `SCHEDULE root FSPPADM enforce 'MOUNTPOINT' >/dev/null` (the report goes
// to the database, `fsppadm status` shows it; errors still reach cron's mail).
// `fsppadm` is the absolute path of the fsppadm binary.
std::string CronFileText(const std::string& schedule, const std::string& fs_name,
                         const std::string& mount_point, const std::string& fsppadm);

// Quotes `word` for /bin/sh inside a crontab line: single quotes, and '%'
// (a newline to cron) escaped.
std::string CronShellQuote(const std::string& word);

}  // namespace tierfs::cli
