#include "cli/common/scan_schedule.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/common/cron_entry.h"

namespace tierfs::cli {
namespace {

std::string SystemdDir() {
  const char* dir = std::getenv("TIERFS_SYSTEMD_DIR");
  return dir != nullptr && *dir != '\0' ? dir : "/etc/systemd/system";
}

// systemctl is run only for the real unit directory.
bool DriveSystemctl() {
  const char* dir = std::getenv("TIERFS_SYSTEMD_DIR");
  return dir == nullptr || *dir == '\0';
}

// "tierfs-enforce-<fs>-": the prefix of every unit of the file system, with
// characters outside [A-Za-z0-9_-] replaced, as in cron file names.
std::string UnitPrefix(const std::string& fs_name) {
  std::string name = "tierfs-enforce-" + fs_name + "-";
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
  }
  return name;
}

// One word of a systemd command line: double-quoted, with '"' and '\' escaped
// and '%' (a specifier) doubled.
std::string SystemdQuote(const std::string& word) {
  std::string out = "\"";
  for (char c : word) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '%') out += '%';
    out += c;
  }
  return out + "\"";
}

// The command of `scan`: the binary and the mount point always quoted, the
// arguments only when they hold more than letters, digits and "-_./".
std::string CommandLine(const ScheduledScan& scan, const std::string& mount_point,
                        const std::string& fsppadm, std::string (*quote)(const std::string&)) {
  auto plain = [](const std::string& word) {
    return !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
             c == '/';
    });
  };
  std::string line = quote(fsppadm);
  for (const std::string& a : scan.args) line += " " + (plain(a) ? a : quote(a));
  return line + " " + quote(mount_point);
}

// Writes `text` to `path` through a temporary beside it and rename(2).
Status WriteAtomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    out.flush();
    if (!out.good()) return Status::Error(EIO, "cannot write " + tmp);
  }
  chmod(tmp.c_str(), 0644);
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    unlink(tmp.c_str());
    return Status::FromErrno(err, "cannot install " + path);
  }
  return Status::Ok();
}

// The unit files of the file system in the systemd directory, sorted.
std::vector<std::string> UnitFilesOf(const std::string& fs_name) {
  std::vector<std::string> out;
  std::error_code ec;
  const std::string prefix = UnitPrefix(fs_name);
  for (const auto& entry : std::filesystem::directory_iterator(SystemdDir(), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0) out.push_back(entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Status Systemctl(const std::string& arguments) {
  const std::string command = "systemctl " + arguments + " >/dev/null";
  const int rc = std::system(command.c_str());
  if (rc != 0) return Status::Error(EIO, "`" + command + "` failed");
  return Status::Ok();
}

// Removes the file system's units (stopping their timers first when systemd
// is driven) and cron file; appends what went to `removed`.
Status RemoveAll(const std::string& fs_name, std::vector<std::string>* removed) {
  std::vector<std::string> units = UnitFilesOf(fs_name);
  if (!units.empty() && DriveSystemctl() && access("/run/systemd/system", F_OK) == 0) {
    std::string timers;
    for (const std::string& u : units) {
      const std::string name = std::filesystem::path(u).filename().string();
      if (name.size() > 6 && name.substr(name.size() - 6) == ".timer") timers += " " + name;
    }
    if (!timers.empty()) TIERFS_RETURN_IF_ERROR(Systemctl("disable --now" + timers));
  }
  for (const std::string& u : units) {
    if (unlink(u.c_str()) != 0) return Status::FromErrno("cannot remove " + u);
    removed->push_back(u);
  }
  const std::string cron = CronFilePath(fs_name);
  if (unlink(cron.c_str()) == 0) {
    removed->push_back(cron);
  } else if (errno != ENOENT) {
    return Status::FromErrno("cannot remove " + cron);
  }
  if (!units.empty() && DriveSystemctl() && access("/run/systemd/system", F_OK) == 0) {
    TIERFS_RETURN_IF_ERROR(Systemctl("daemon-reload"));
  }
  return Status::Ok();
}

}  // namespace

std::vector<ScheduledScan> DefaultSchedule(const std::string& fast_class, bool active,
                                           bool full) {
  std::vector<ScheduledScan> out;
  if (active) {
    out.push_back({"active", "15 * * * *", "*-*-* *:15:00",
                   {"enforce", "--no-wait", "-C", "-T", fast_class}});
  }
  if (full) out.push_back({"full", "45 3 * * *", "*-*-* 03:45:00", {"enforce", "--no-wait"}});
  return out;
}

Result<Scheduler> ChooseScheduler() {
  const char* forced = std::getenv("TIERFS_SCHEDULER");
  if (forced != nullptr && *forced != '\0') {
    const std::string f = forced;
    if (f == "cron") return Scheduler::kCron;
    if (f == "systemd") return Scheduler::kSystemd;
    return Status::Invalid("TIERFS_SCHEDULER must be cron or systemd, got \"" + f + "\"");
  }
  return access("/run/systemd/system", F_OK) == 0 ? Scheduler::kSystemd : Scheduler::kCron;
}

const char* SchedulerName(Scheduler s) { return s == Scheduler::kCron ? "cron" : "systemd"; }

std::string CronScheduleText(const std::vector<ScheduledScan>& scans, const std::string& fs_name,
                             const std::string& mount_point, const std::string& fsppadm,
                             const std::string& installed_by) {
  std::string text;
  text += "# tierfs file system " + fs_name + " at " + mount_point + ":\n";
  text += "# scheduled placement policy enforcement, installed by " + installed_by + ".\n";
  text += "# Remove this file to stop it; `fsppadm status " + mount_point + "` shows past runs.\n";
  text += "SHELL=/bin/sh\n";
  text += "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n";
  for (const ScheduledScan& scan : scans) {
    text += scan.cron + " root " + CommandLine(scan, mount_point, fsppadm, &CronShellQuote) +
            " >/dev/null\n";
  }
  return text;
}

std::vector<UnitFile> SystemdScheduleUnits(const std::vector<ScheduledScan>& scans,
                                           const std::string& fs_name,
                                           const std::string& mount_point,
                                           const std::string& fsppadm) {
  std::vector<UnitFile> out;
  for (const ScheduledScan& scan : scans) {
    const std::string base = UnitPrefix(fs_name) + scan.name;
    const std::string what = "tierfs " + fs_name + ": scheduled fsppadm enforce (" + scan.name +
                             ") of " + mount_point;
    out.push_back({base + ".service",
                   "# Installed by fsppadm schedule; `fsppadm schedule --remove " + mount_point +
                       "` removes it.\n"
                       "[Unit]\n"
                       "Description=" + what + "\n"
                       "Documentation=man:fsppadm(8)\n"
                       "RequiresMountsFor=" + mount_point + "\n\n"
                       "[Service]\n"
                       "Type=oneshot\n"
                       "ExecStart=" + CommandLine(scan, mount_point, fsppadm, &SystemdQuote) +
                       "\n"});
    out.push_back({base + ".timer", "# Installed by fsppadm schedule.\n"
                                    "[Unit]\n"
                                    "Description=" + what + "\n\n"
                                    "[Timer]\n"
                                    "OnCalendar=" + scan.calendar + "\n"
                                    "Persistent=true\n"
                                    "Unit=" + base + ".service\n\n"
                                    "[Install]\n"
                                    "WantedBy=timers.target\n"});
  }
  return out;
}

Result<ScheduleReport> InstallSchedule(const std::vector<ScheduledScan>& scans,
                                       const std::string& fs_name,
                                       const std::string& mount_point,
                                       const std::string& fsppadm) {
  auto scheduler = ChooseScheduler();
  if (!scheduler.ok()) return scheduler.status();
  ScheduleReport report;
  report.scheduler = *scheduler;
  std::vector<std::string> removed;
  TIERFS_RETURN_IF_ERROR(RemoveAll(fs_name, &removed));
  if (*scheduler == Scheduler::kCron) {
    const std::string path = CronFilePath(fs_name);
    TIERFS_RETURN_IF_ERROR(
        WriteAtomically(path, CronScheduleText(scans, fs_name, mount_point, fsppadm,
                                               "fsppadm schedule")));
    report.files.push_back(path);
    return report;
  }
  std::string timers;
  for (const UnitFile& unit : SystemdScheduleUnits(scans, fs_name, mount_point, fsppadm)) {
    const std::string path = SystemdDir() + "/" + unit.name;
    TIERFS_RETURN_IF_ERROR(WriteAtomically(path, unit.text));
    report.files.push_back(path);
    if (unit.name.size() > 6 && unit.name.substr(unit.name.size() - 6) == ".timer") {
      timers += " " + unit.name;
    }
  }
  if (!DriveSystemctl()) {
    report.note = "systemctl not run (TIERFS_SYSTEMD_DIR is set)";
    return report;
  }
  TIERFS_RETURN_IF_ERROR(Systemctl("daemon-reload"));
  TIERFS_RETURN_IF_ERROR(Systemctl("enable --now" + timers));
  return report;
}

Result<ScheduleReport> RemoveSchedule(const std::string& fs_name) {
  ScheduleReport report;
  TIERFS_RETURN_IF_ERROR(RemoveAll(fs_name, &report.files));
  return report;
}

std::vector<UnitFile> ListSchedule(const std::string& fs_name) {
  std::vector<UnitFile> out;
  auto read = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  const std::string cron = CronFilePath(fs_name);
  if (access(cron.c_str(), F_OK) == 0) out.push_back({cron, read(cron)});
  for (const std::string& unit : UnitFilesOf(fs_name)) out.push_back({unit, read(unit)});
  return out;
}

}  // namespace tierfs::cli
