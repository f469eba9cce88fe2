#include "cli/check_command.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "cli/control_client.h"
#include "cli/cron_entry.h"
#include "cli/exit_codes.h"
#include "cli/mount_table.h"
#include "cli/option_parser.h"
#include "cli/tool_support.h"
#include "cli/units.h"
#include "fs/volume/daemon_lock.h"
#include "fs/check/db_backup.h"
#include "fs/check/fsck.h"
#include "fs/volume/fault_injecting_volume_io.h"
#include "fs/volume/volume_label.h"
#include "meta/metadata.h"

namespace tierfs::cli {
namespace {

using nlohmann::json;

// What an operand names: an unmounted file system (its metadata volume, with the
// daemon lock held) or a mounted one (reached through its daemon).
struct Target {
  std::string shown;         // for messages: the metadata volume or the mount point
  std::string metadata_dir;  // absolute
  std::string mount_point;   // "" when unknown (unmounted, or reached by its socket)
  std::optional<DaemonLock> lock;  // set: unmounted, we hold the lock
};

bool HasDatabase(const std::string& dir) {
  struct stat st;
  return stat(MetadataDbPath(dir).c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The mount point of the tierfs mount served from `metadata_dir`, or "".
std::string MountPointOf(const CliEnv& env, const std::string& metadata_dir) {
  Result<std::vector<MountEntry>> mounts = ReadMountInfo(env.mountinfo_path);
  if (!mounts.ok()) return "";
  std::optional<MountEntry> mount = TierfsMountFromSource(*mounts, metadata_dir);
  return mount ? mount->mount_point : "";
}

// Resolves the operand. For a metadata volume directory, takes the daemon lock in
// `mode`; if a daemon holds it, the target is the mounted file system (lock unset).
// On error sets *exit_code.
Result<Target> Locate(const CliEnv& env, const std::string& operand, DaemonLock::Mode mode,
                      int* exit_code) {
  Target t;
  if (HasDatabase(operand)) {
    Result<std::string> dir = ResolvePath(operand);
    if (!dir.ok()) {
      *exit_code = kCheckUsage;
      return dir.status();
    }
    t.metadata_dir = t.shown = *dir;
    Result<DaemonLock> lock = DaemonLock::Acquire(t.metadata_dir, mode);
    if (lock.ok()) {
      t.lock = std::move(*lock);
      return t;
    }
    if (lock.status().code() != EBUSY) {
      *exit_code = kCheckError;
      return lock.status();
    }
    t.mount_point = MountPointOf(env, t.metadata_dir);  // mounted: the daemon answers
    return t;
  }
  Result<LocatedPath> located = LocatePath(env, operand, exit_code);
  if (!located.ok()) {
    if (*exit_code == kExitUnreachable) {
      return Status::Error(located.status().code(),
                           operand + " is neither a tierfs metadata volume (no " +
                               MetadataDbPath(operand) + ") nor in a mounted tierfs file system (" +
                               located.status().message() + ")");
    }
    return located.status();
  }
  t.metadata_dir = located->mount.metadata_dir;
  t.mount_point = t.shown = located->mount.mount_point;
  return t;
}

ControlClient ClientFor(const Target& t) {
  if (!t.mount_point.empty()) {
    return ControlClient(TierfsMount{t.mount_point, t.metadata_dir,
                                     ControlSocketPath(t.metadata_dir)});
  }
  return ControlClient::ForSocket(ControlSocketPath(t.metadata_dir));
}

// ---- check ----------------------------------------------------------------------------

struct CheckArgs {
  bool repair = false;
  bool trust_objects = false;
  bool delete_orphans = false;
  bool json = false;
  bool help = false;
  std::string operand;
};

Result<CheckArgs> ParseCheckArgs(const std::vector<std::string>& args) {
  CheckArgs a;
  const std::vector<OptionSpec> specs = {{"repair", 'r', false, ""},
                                         {"trust-objects", 0, false, ""},
                                         {"delete-orphans", 0, false, ""},
                                         {"json", 0, false, ""},
                                         {"help", 'h', false, ""}};
  Result<std::vector<std::string>> operands =
      ParseOptions(args, specs, [&a](const OptionSpec& spec, const char*) -> Status {
        const std::string name = spec.long_name;
        if (name == "repair") a.repair = true;
        if (name == "trust-objects") a.trust_objects = true;
        if (name == "delete-orphans") a.delete_orphans = true;
        if (name == "json") a.json = true;
        if (name == "help") a.help = true;
        return Status::Ok();
      });
  if (!operands.ok()) return operands.status();
  if (a.help) return a;
  if (operands->size() != 1) return Status::Invalid("expected one MOUNT or METADATA_VOLUME_DIR");
  if (a.trust_objects && !a.repair) return Status::Invalid("--trust-objects needs --repair");
  if (a.delete_orphans && !a.repair) return Status::Invalid("--delete-orphans needs --repair");
  a.operand = (*operands)[0];
  return a;
}

int ExitStatusOf(const CheckReport& report) {
  // Something could not be read: the check did not run over all of it.
  if (report.Errors() > 0) return kCheckError;
  if (report.UnrepairedDamage() > 0) return kCheckDamage;
  if (report.repair && report.Repaired() > 0) return kCheckRepaired;
  return kCheckClean;
}

void PrintReport(const CliEnv& env, const std::string& shown, const CheckReport& report) {
  std::ostream& out = *env.out;
  size_t damage = 0, leftovers = 0, notes = 0, errors = 0, lost = 0;
  for (const CheckFinding& f : report.findings) {
    out << FindingSeverityName(f.severity) << " " << f.kind << ": " << f.message;
    if (report.repair) {
      if (f.repaired) {
        out << " -> repaired: " << f.repair;
      } else if (!f.repair.empty()) {
        out << " -> " << f.repair;
      } else if (f.severity == FindingSeverity::kDamage) {
        out << " -> not repaired";
      }
    }
    out << "\n";
    if (f.severity == FindingSeverity::kDamage) ++damage;
    if (f.severity == FindingSeverity::kLeftover) ++leftovers;
    if (f.severity == FindingSeverity::kNote) ++notes;
    if (f.severity == FindingSeverity::kError) ++errors;
    if (f.data_loss) ++lost;
  }
  out << "tierfs check: " << shown << (report.live ? " (mounted; checked by its daemon)" : "")
      << ": " << report.volumes << " volumes, " << report.files << " files, " << report.objects
      << " objects: ";
  if (report.findings.empty()) {
    out << "clean\n";
  } else {
    out << damage << " damaged, " << leftovers << " leftover, " << notes << " notes";
    if (errors > 0) out << ", " << errors << " unreadable (the check is incomplete)";
    if (report.repair) {
      out << "; " << report.Repaired() << " repaired, " << report.UnrepairedDamage()
          << " damaged not repaired";
    }
    out << "\n";
  }
  out.flush();
  if (errors > 0) {
    PrintError(env, "tierfs check",
               "could not read " + std::to_string(errors) +
                   (errors == 1 ? " part" : " parts") +
                   " of the volumes (see the lines with 'error unreadable'): what is there "
                   "was not checked, and nothing there was repaired");
  }
  if (lost > 0) {
    PrintError(env, "tierfs check",
               "WARNING: DATA LOST in " + std::to_string(lost) +
                   (lost == 1 ? " file" : " files") +
                   " whose bytes were missing (see the lines with DATA LOST)");
  }
}

// Offline: opens the database (read-only for a check) and runs the check here.
Result<CheckReport> CheckOffline(const Target& t, const CheckArgs& a) {
  const std::string db_path = MetadataDbPath(t.metadata_dir);
  Result<std::unique_ptr<meta::Metadata>> meta =
      a.repair ? meta::Metadata::Open(db_path, meta::MetadataOptions{})
               : meta::Metadata::OpenForCheck(db_path);
  if (!meta.ok()) return meta.status();
  CheckOptions options;
  options.repair = a.repair;
  options.trust_objects = a.trust_objects;
  options.delete_orphans = a.delete_orphans;
  options.database_path = db_path;
  // Test seam: TIERFS_FAULTS fails chosen volume I/O calls of the check, as of the
  // daemon (fs/volume/fault_injecting_volume_io.h); builds with test hooks only.
  std::unique_ptr<FaultInjectingVolumeIo> faults;
#ifdef TIERFS_TEST_HOOKS
  Result<std::unique_ptr<FaultInjectingVolumeIo>> created =
      FaultInjectingVolumeIo::FromEnvironment(VolumeIo::Posix());
  if (!created.ok()) return Status::Invalid("TIERFS_FAULTS: " + created.status().message());
  faults = std::move(*created);
  if (faults) options.io = faults.get();
#endif
  return CheckFileSystem(**meta, options);
}

}  // namespace

std::string CheckUsage() {
  return "usage: tierfs check [--json] MOUNT|METADATA_VOLUME_DIR\n"
         "       tierfs check --repair [--trust-objects] [--delete-orphans] [--json]\n"
         "                    METADATA_VOLUME_DIR\n"
         "Reconciles the metadata database of a tierfs file system with the objects on\n"
         "its volumes and reports one line per finding (damage, leftover or note).\n"
         "A mounted file system is checked by its daemon, read-only; an unmounted one is\n"
         "checked here, read-only (nothing on disk changes).\n"
         "  -r, --repair       fix what can be fixed without guessing (unmounted only):\n"
         "                     trim long objects, fix link counts, drop bad entries,\n"
         "                     clear relocation leftovers, size 0 for files whose object\n"
         "                     is missing (DATA LOST), orphan objects to /lost+found;\n"
         "                     it never deletes the only copy of any bytes\n"
         "  --trust-objects    with --repair, after restoring a database backup: a longer\n"
         "                     object sets its file's size instead of being trimmed\n"
         "  --delete-orphans   with --repair: delete orphan objects on a store that nothing\n"
         "                     claims (kept by default), each one named\n"
         "  --json             the report as JSON\n"
         "Exit status: 0 clean, 1 repaired (nothing left), 2 usage, 3 daemon unreachable,\n"
         "4 damage found and not (all) repaired, 8 could not check (or repair refused:\n"
         "the file system is mounted). See tierfs-check(8) and docs/reliability.md.\n";
}

int CheckMain(const std::vector<std::string>& args, const CliEnv& env) {
  constexpr char kTool[] = "tierfs check";
  Result<CheckArgs> a = ParseCheckArgs(args);
  if (!a.ok()) {
    PrintError(env, kTool, a.status().message());
    *env.err << CheckUsage();
    return kCheckUsage;
  }
  if (a->help) {
    *env.out << CheckUsage();
    return kCheckClean;
  }
  int exit_code = kCheckError;
  Result<Target> t = Locate(env, a->operand,
                            a->repair ? DaemonLock::Mode::kExclusive : DaemonLock::Mode::kInspect,
                            &exit_code);
  if (!t.ok()) {
    PrintError(env, kTool, t.status().message());
    return exit_code;
  }
  Result<CheckReport> report = Status::Error(EIO, "no report");
  if (t->lock) {
    report = CheckOffline(*t, *a);
    if (!report.ok() && report.status().code() == EUCLEAN) {
      // The database itself is damaged: that is the finding.
      CheckReport r;
      r.repair = a->repair;
      CheckFinding f;
      f.kind = "database";
      f.message = report.status().message();
      if (a->repair) {
        f.repair = "not repaired: restore the database from a backup (docs/reliability.md)";
      }
      r.findings.push_back(f);
      report = std::move(r);
    }
  } else {
    if (a->repair) {
      std::string where = t->mount_point.empty() ? "" : " (fusermount3 -u " + t->mount_point + ")";
      PrintError(env, kTool,
                 "cannot repair " + t->shown + ": it is mounted; unmount it first" + where +
                     ", then run tierfs check --repair " + t->metadata_dir);
      return kCheckError;
    }
    ControlClient client = ClientFor(*t);
    Result<json> answer = client.Call(json{{"op", "check"}});
    if (!answer.ok()) {
      std::string hint;
      if (client.unreachable()) {
        hint = " (if its daemon died, unmount it with fusermount3 -u and check " +
               t->metadata_dir + ")";
      }
      PrintError(env, kTool, answer.status().message() + hint);
      return client.unreachable() ? kCheckUnreachable : kCheckError;
    }
    report = CheckReport::FromJson(*answer);
  }
  if (!report.ok()) {
    PrintError(env, kTool, t->shown + ": " + report.status().message());
    return kCheckError;
  }
  const int status = ExitStatusOf(*report);
  if (a->json) {
    json doc = report->ToJson();
    doc["target"] = t->shown;
    doc["exit_status"] = status;
    *env.out << doc.dump(2) << "\n";
  } else {
    PrintReport(env, t->shown, *report);
  }
  return status;
}

// ---- backup ---------------------------------------------------------------------------

namespace {

struct BackupArgs {
  bool json = false;
  bool help = false;
  std::string cron_schedule;
  std::string operand;
  std::string dest;  // "" = DefaultBackupPath
};

Result<BackupArgs> ParseBackupArgs(const std::vector<std::string>& args) {
  BackupArgs a;
  const std::vector<OptionSpec> specs = {
      {"json", 0, false, ""}, {"help", 'h', false, ""}, {"cron", 0, true, "SCHEDULE"}};
  Result<std::vector<std::string>> operands =
      ParseOptions(args, specs, [&a](const OptionSpec& spec, const char* value) -> Status {
        const std::string name = spec.long_name;
        if (name == "json") a.json = true;
        if (name == "help") a.help = true;
        if (name == "cron") {
          Status st = CheckCronSchedule(value);
          if (!st.ok()) return Status::Invalid("--cron: " + st.message());
          a.cron_schedule = value;
        }
        return Status::Ok();
      });
  if (!operands.ok()) return operands.status();
  if (a.help) return a;
  if (operands->empty() || operands->size() > 2) {
    return Status::Invalid("expected MOUNT|METADATA_VOLUME_DIR [DEST]");
  }
  a.operand = (*operands)[0];
  if (operands->size() == 2) a.dest = (*operands)[1];
  return a;
}

// DEST made absolute with its directory resolved (symlinks, "..").
Result<std::string> ResolveDest(const std::string& dest) {
  const size_t slash = dest.rfind('/');
  const std::string dir =
      slash == std::string::npos ? "." : (slash == 0 ? "/" : dest.substr(0, slash));
  const std::string base = slash == std::string::npos ? dest : dest.substr(slash + 1);
  if (base.empty() || base == "." || base == "..") {
    return Status::Invalid("backup destination " + dest + " must name a file");
  }
  Result<std::string> real = ResolvePath(dir);
  if (!real.ok()) return real.status();
  return (*real == "/" ? "" : *real) + "/" + base;
}

// Installs <cron dir>/tierfs-backup-FSNAME running `tierfs backup TARGET [DEST]`.
Status InstallBackupCron(const std::string& schedule, const std::string& fs_name,
                         const std::string& target, const std::string& dest, std::string* path) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return Status::FromErrno("cannot find the tierfs binary (/proc/self/exe)");
  exe[n] = '\0';
  *path = CronFilePath("backup-" + fs_name);
  std::string text = "# tierfs: backup of the metadata database of file system " + fs_name +
                     " (tierfs backup --cron; docs/reliability.md)\n"
                     "SHELL=/bin/sh\n"
                     "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n" +
                     schedule + " root " + CronShellQuote(exe) + " backup " +
                     CronShellQuote(target) + (dest.empty() ? "" : " " + CronShellQuote(dest)) +
                     " >/dev/null\n";
  // cron reads files whole at any moment: a hidden temporary, then rename.
  const std::string tmp = CronDir() + "/.tierfs-backup." + std::to_string(getpid());
  Status st = WriteTextFile(tmp, text);
  if (st.ok() && chmod(tmp.c_str(), 0644) != 0) st = Status::FromErrno("cannot chmod " + tmp);
  if (st.ok() && rename(tmp.c_str(), path->c_str()) != 0) {
    st = Status::FromErrno("cannot rename " + tmp + " to " + *path);
  }
  if (!st.ok()) unlink(tmp.c_str());
  return st;
}

}  // namespace

std::string BackupUsage() {
  return "usage: tierfs backup [--json] [--cron SCHEDULE] MOUNT|METADATA_VOLUME_DIR [DEST]\n"
         "Writes a consistent copy of the metadata database to DEST (a temporary file\n"
         "beside it, fsynced, then renamed). A mounted file system's daemon makes it\n"
         "with SQLite's online backup API and keeps serving. Without DEST the copy goes\n"
         "to <second volume>/.tierfs/" +
         std::string(kBackupFileName) +
         ". DEST may not be inside the mount nor the\n"
         "live database.\n"
         "  --cron SCHEDULE  also install /etc/cron.d/tierfs-backup-FSNAME running this\n"
         "                   backup on SCHEDULE (\"0 * * * *\", @daily...)\n"
         "  --json           the result as JSON\n"
         "Restoring: docs/reliability.md, \"Check and backup\".\n"
         "Exit status: 0 ok, 1 the backup failed, 2 usage or refused DEST, 3 daemon unreachable.\n";
}

int BackupMain(const std::vector<std::string>& args, const CliEnv& env) {
  constexpr char kTool[] = "tierfs backup";
  Result<BackupArgs> a = ParseBackupArgs(args);
  if (!a.ok()) {
    PrintError(env, kTool, a.status().message());
    *env.err << BackupUsage();
    return kExitUsage;
  }
  if (a->help) {
    *env.out << BackupUsage();
    return kExitOk;
  }
  std::string dest;
  if (!a->dest.empty()) {
    Result<std::string> resolved = ResolveDest(a->dest);
    if (!resolved.ok()) {
      PrintError(env, kTool, resolved.status().message());
      return kExitUsage;
    }
    dest = *resolved;
  }
  int exit_code = kExitFailed;
  Result<Target> t = Locate(env, a->operand, DaemonLock::Mode::kInspect, &exit_code);
  if (!t.ok()) {
    PrintError(env, kTool, t.status().message());
    return exit_code == kCheckError ? kExitFailed : exit_code;
  }
  const std::string db_path = MetadataDbPath(t->metadata_dir);
  json result;
  std::string fs_name;
  if (t->lock) {
    // Unmounted: the same online backup, from a connection that writes nothing.
    Result<std::unique_ptr<meta::Metadata>> meta = meta::Metadata::OpenForCheck(db_path);
    if (!meta.ok()) {
      PrintError(env, kTool, meta.status().message());
      return kExitFailed;
    }
    Result<meta::FsInfo> info = (*meta)->GetFsInfo();
    Result<std::vector<meta::Volume>> volumes = (*meta)->ListVolumes();
    if (!info.ok() || !volumes.ok()) {
      PrintError(env, kTool, (!info.ok() ? info.status() : volumes.status()).message());
      return kExitFailed;
    }
    fs_name = info->name;
    std::string to = dest;
    if (to.empty()) {
      Result<std::string> path = DefaultBackupPath(*volumes, info->uuid);
      if (!path.ok()) {
        PrintError(env, kTool, path.status().message());
        return kExitUsage;
      }
      to = *path;
    }
    if (Status st = CheckBackupDestination(to, "", db_path); !st.ok()) {
      PrintError(env, kTool, st.message());
      return kExitUsage;
    }
    Result<BackupResult> done = BackupDatabase(**meta, to, nullptr);
    if (!done.ok()) {
      PrintError(env, kTool, done.status().message());
      return kExitFailed;
    }
    result = {{"path", done->path}, {"bytes", done->bytes}, {"pages", done->pages},
              {"seconds", done->seconds}};
  } else {
    if (!dest.empty()) {
      if (Status st = CheckBackupDestination(dest, t->mount_point, db_path); !st.ok()) {
        PrintError(env, kTool, st.message());
        return kExitUsage;
      }
    }
    ControlClient client = ClientFor(*t);
    json request = {{"op", "backup"}};
    if (!dest.empty()) request["dest"] = dest;
    Result<json> answer = client.Call(request);
    if (!answer.ok()) {
      PrintError(env, kTool, answer.status().message());
      return client.ExitCodeFor(answer.status());
    }
    result = *answer;
    if (!a->cron_schedule.empty()) {
      Result<json> ping = client.Call(json{{"op", "ping"}});
      if (ping.ok()) fs_name = ping->value("fs_name", "");
    }
  }
  if (a->json) {
    *env.out << result.dump(2) << "\n";
  } else {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.2f", result.value("seconds", 0.0));
    *env.out << "tierfs backup: " << result.value("path", "") << ": "
             << HumanBytes(result.value("bytes", uint64_t{0})) << " ("
             << result.value("bytes", uint64_t{0}) << " bytes, "
             << result.value("pages", uint64_t{0}) << " pages) in " << seconds << " s\n";
  }
  if (!a->cron_schedule.empty()) {
    if (fs_name.empty()) {
      PrintError(env, kTool, "cannot name the cron file: the file system's name is unknown");
      return kExitFailed;
    }
    std::string cron_path;
    Status st = InstallBackupCron(a->cron_schedule, fs_name, t->shown, dest, &cron_path);
    if (!st.ok()) {
      PrintError(env, kTool, st.message());
      return kExitFailed;
    }
    if (!a->json) *env.out << "tierfs backup: installed " << cron_path << "\n";
  }
  env.out->flush();
  return kExitOk;
}

}  // namespace tierfs::cli
