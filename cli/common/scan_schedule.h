// Scheduled enforcement (`fsppadm schedule`, `mkdstfs --cron`): DST has no
// scheduler of its own (docs/admin.md "Schedules"); the paper runs fsppadm from cron, an
// active-files scan hourly and a full one daily. This writes the files that
// make the system's scheduler run them: systemd timers where systemd runs, one
// /etc/cron.d file otherwise.
//
// Scheduled runs pass --no-wait: while another enforce runs, the daemon refuses
// the run at once (its own lock, fs/tiering/scan_service.h) and records the refusal,
// with its message, in the history `fsppadm status` shows; runs never pile up.
//
// Environment (tests, other layouts): TIERFS_CRON_DIR (cli/common/cron_entry.h),
// TIERFS_SYSTEMD_DIR (default /etc/systemd/system; when set, systemctl is not
// run), TIERFS_SCHEDULER=cron|systemd (default: systemd when
// /run/systemd/system exists). Thread-safe apart from getenv.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace tierfs::cli {

// One scheduled run of fsppadm.
struct ScheduledScan {
  std::string name;              // "active" or "full": part of the unit names
  std::string cron;              // cron time fields, e.g. "15 * * * *"
  std::string calendar;          // the same as a systemd OnCalendar, "*-*-* *:15:00"
  std::vector<std::string> args; // fsppadm's arguments before the mount point
};

// The paper's schedule: `active` an hourly enforce (at :15) of the files with
// recent I/O and of every file on `fast_class` (-C -T FAST_CLASS), `full` a
// daily full enforce (03:45). Both with --no-wait.
std::vector<ScheduledScan> DefaultSchedule(const std::string& fast_class, bool active,
                                           bool full);

enum class Scheduler { kCron, kSystemd };
// TIERFS_SCHEDULER if set ("cron" or "systemd"; EINVAL otherwise), else systemd
// when /run/systemd/system exists, else cron.
Result<Scheduler> ChooseScheduler();
const char* SchedulerName(Scheduler s);

// The cron.d file text for `scans` of file system `fs_name` mounted at
// `mount_point`, run as root with the fsppadm at `fsppadm` (absolute path).
// `installed_by` goes into the header comment ("fsppadm schedule").
std::string CronScheduleText(const std::vector<ScheduledScan>& scans, const std::string& fs_name,
                             const std::string& mount_point, const std::string& fsppadm,
                             const std::string& installed_by);

struct UnitFile {
  std::string name;  // "tierfs-enforce-<fs>-active.timer"
  std::string text;
};
// A oneshot .service and a .timer (Persistent=true) per scan.
std::vector<UnitFile> SystemdScheduleUnits(const std::vector<ScheduledScan>& scans,
                                           const std::string& fs_name,
                                           const std::string& mount_point,
                                           const std::string& fsppadm);

// What InstallSchedule did, for the user.
struct ScheduleReport {
  Scheduler scheduler = Scheduler::kCron;
  std::vector<std::string> files;  // written or removed
  std::string note;                // e.g. "systemctl not run (TIERFS_SYSTEMD_DIR is set)"
};

// Replaces the file system's schedule with `scans` (atomically per file: a
// temporary, then rename), removing what the other scheduler had for it.
// With systemd (and TIERFS_SYSTEMD_DIR unset) reloads systemd and enables and
// starts the timers. Errors (EIO, EACCES...) name the file or the command.
Result<ScheduleReport> InstallSchedule(const std::vector<ScheduledScan>& scans,
                                       const std::string& fs_name,
                                       const std::string& mount_point,
                                       const std::string& fsppadm);
// Removes every schedule file of the file system (both schedulers); stops the
// timers first where systemd runs. OK when there is none.
Result<ScheduleReport> RemoveSchedule(const std::string& fs_name);
// The schedule files the file system has now, with their contents.
std::vector<UnitFile> ListSchedule(const std::string& fs_name);

}  // namespace tierfs::cli
