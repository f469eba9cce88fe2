#include "cli/tierfs/backup_command.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "cli/common/control_client.h"
#include "cli/common/cron_entry.h"
#include "cli/common/exit_codes.h"
#include "cli/common/mount_table.h"
#include "cli/common/option_parser.h"
#include "cli/common/tool_support.h"
#include "cli/common/units.h"
#include "cli/tierfs/check_command.h"
#include "cli/tierfs/check_target.h"
#include "fs/volume/daemon_lock.h"
#include "fs/check/db_backup.h"
#include "fs/volume/volume_label.h"
#include "meta/metadata.h"

namespace tierfs::cli {

using nlohmann::json;

// ---- backup ---------------------------------------------------------------------------

namespace {

struct BackupArgs {
  bool json = false;
  bool help = false;
  bool version = false;
  std::string cron_schedule;
  std::string operand;
  std::string dest;  // "" = DefaultBackupPath
};

Result<BackupArgs> ParseBackupArgs(const std::vector<std::string>& args) {
  BackupArgs a;
  const std::vector<OptionSpec> specs = {
      {"json", 0, false, ""}, {"help", 'h', false, ""}, {"version", 0, false, ""},
      {"cron", 0, true, "SCHEDULE"}};
  Result<std::vector<std::string>> operands =
      ParseOptions(args, specs, [&a](const OptionSpec& spec, const char* value) -> Status {
        const std::string name = spec.long_name;
        if (name == "json") a.json = true;
        if (name == "help") a.help = true;
        if (name == "version") a.version = true;
        if (name == "cron") {
          Status st = CheckCronSchedule(value);
          if (!st.ok()) return Status::Invalid("--cron: " + st.message());
          a.cron_schedule = value;
        }
        return Status::Ok();
      });
  if (!operands.ok()) return operands.status();
  if (a.help || a.version) return a;
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
         "  -h, --help       this text\n"
         "  --version        print the version and exit\n"
         "Restoring: docs/reliability.md, \"Check and backup\".\n"
         "Exit status: 0 ok, 1 the backup failed, 2 usage or refused DEST, 3 daemon unreachable.\n";
}

namespace {
// The backup itself, once its arguments are parsed: the exit status.
int RunBackup(const BackupArgs& args, const CliEnv& env);
}  // namespace

int BackupMain(const std::vector<std::string>& args, const CliEnv& env) {
  constexpr char kTool[] = "tierfs backup";
  Result<BackupArgs> a = ParseBackupArgs(args);
  if (std::optional<int> done =
          AnswerParseVersionHelp(a, env, kTool, BackupUsage, " (see tierfs backup --help)",
                                 "tierfs")) {
    return *done;
  }
  return RunToolBody(env, kTool, [&] { return RunBackup(*a, env); });
}

namespace {

int RunBackup(const BackupArgs& args, const CliEnv& env) {
  constexpr char kTool[] = "tierfs backup";
  const BackupArgs* a = &args;
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
  Result<Target> t = LocateTarget(env, a->operand, DaemonLock::Mode::kInspect, &exit_code);
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

}  // namespace

}  // namespace tierfs::cli
