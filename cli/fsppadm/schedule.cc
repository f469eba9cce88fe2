#include "cli/fsppadm/schedule.h"

#include <limits.h>
#include <unistd.h>

#include "cli/common/exit_codes.h"
#include "cli/common/json_fields.h"
#include "cli/common/scan_schedule.h"
#include "cli/common/text_table.h"
#include "fs/volume/volume_label.h"

namespace tierfs::cli::fsppadm {
namespace {

constexpr char kScheduleUsage[] =
    "usage: fsppadm schedule [--hourly-active] [--daily-full] MOUNT\n"
    "       fsppadm schedule --list MOUNT\n"
    "       fsppadm schedule --remove MOUNT\n"
    "Makes the system's scheduler run enforce: systemd timers where systemd runs\n"
    "(/etc/systemd/system/tierfs-enforce-FSNAME-*.timer, enabled at once), else\n"
    "/etc/cron.d/tierfs-FSNAME. Replaces the file system's earlier schedule,\n"
    "mkdstfs --cron's included. Runs use --no-wait: one that finds an enforce\n"
    "running is refused, and `fsppadm status` lists it with its message.\n"
    "  --hourly-active  hourly at :15, `enforce -C -T CLASS`: files with recent I/O\n"
    "                   and files on the metadata volume's class\n"
    "  --daily-full     daily at 03:45, `enforce`: every file\n"
    "                   (neither given: both, the paper's schedule)\n"
    "  --list           print the schedule files and their contents\n"
    "  --remove         remove them (stopping the timers)\n";

std::string ScheduleUsage() { return std::string(kScheduleUsage) + kCommonOptionsUsage; }

// This fsppadm, absolute: what the scheduler runs.
std::string SelfPath() {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  return n > 0 ? std::string(self, static_cast<size_t>(n)) : "fsppadm";
}

// The placement class of the metadata volume (the paper's "ssd" tier): the
// class the hourly scan also sweeps (-T).
std::optional<std::string> MetadataClass(const CliEnv& env, MountConnection& target,
                                         int* exit_code) {
  std::optional<nlohmann::json> volumes =
      CallOrReport(env, target, nlohmann::json{{"op", "volumes"}}, exit_code);
  if (!volumes) return std::nullopt;
  for (const nlohmann::json& v : JsonArray(*volumes, "volumes")) {
    if (JsonString(v, "role").rfind("metadata", 0) == 0) return JsonString(v, "class");
  }
  const auto all = JsonArray(*volumes, "volumes");
  return all.empty() ? std::string("ssd") : JsonString(all.front(), "class");
}

}  // namespace

Result<ScheduleOptions> ParseScheduleOptions(const std::vector<std::string>& args) {
  ScheduleOptions o;
  Result<std::vector<std::string>> operands = ParseSubcommandOptions(
      args,
      {{"hourly-active", 0, false, ""},
       {"daily-full", 0, false, ""},
       {"remove", 0, false, ""},
       {"list", 0, false, ""}},
      &o.flags, [&o](const OptionSpec& spec, const char*) {
        const std::string name = spec.long_name;
        bool* flag = name == "hourly-active" ? &o.hourly_active
                     : name == "daily-full"  ? &o.daily_full
                     : name == "remove"      ? &o.remove
                                             : &o.list;
        *flag = true;
        return Status::Ok();
      });
  if (!operands.ok()) return operands.status();
  if (o.flags.help || o.flags.version) return o;
  TIERFS_RETURN_IF_ERROR(ExpectOperands(operands->size() == 1, "one MOUNT"));
  if (int(o.remove) + int(o.list) + int(o.hourly_active || o.daily_full) > 1) {
    return Status::Invalid("--remove, --list and --hourly-active/--daily-full exclude each other");
  }
  if (!o.hourly_active && !o.daily_full) o.hourly_active = o.daily_full = true;
  o.mount = operands->front();
  return o;
}

int RunSchedule(const ScheduleOptions& options, const CliEnv& env) {
  int exit_code = kExitOk;
  std::optional<MountConnection> target = ConnectToMount(env, kTool, options.mount, &exit_code);
  if (!target) return exit_code;
  const std::string& mount_point = target->where.mount.mount_point;
  auto label = ReadVolumeLabel(target->where.mount.metadata_dir);
  if (!label.ok()) {
    PrintError(env, "fsppadm", mount_point + ": " + label.status().message());
    return kExitFailed;
  }
  const std::string& fs_name = label->fs_name;

  if (options.list) {
    std::vector<UnitFile> files = ListSchedule(fs_name);
    if (files.empty()) *env.out << PrintableField(mount_point) << ": no schedule\n";
    for (const UnitFile& f : files) *env.out << "==> " << f.name << " <==\n" << f.text;
    return exit_code;
  }
  std::optional<std::string> fast;
  if (!options.remove) {
    fast = MetadataClass(env, *target, &exit_code);
    if (!fast) return exit_code;
  }
  Result<ScheduleReport> report =
      options.remove
          ? RemoveSchedule(fs_name)
          : InstallSchedule(DefaultSchedule(*fast, options.hourly_active, options.daily_full),
                            fs_name, mount_point, SelfPath());
  if (!report.ok()) {
    PrintError(env, "fsppadm", mount_point + ": " + report.status().message());
    return kExitFailed;
  }
  if (options.remove) {
    *env.out << PrintableField(mount_point) << ": "
             << (report->files.empty() ? "no schedule to remove" : "schedule removed") << "\n";
  } else {
    *env.out << PrintableField(mount_point) << ": scheduled with "
             << SchedulerName(report->scheduler) << "\n";
  }
  for (const std::string& f : report->files) *env.out << "  " << f << "\n";
  if (!report->note.empty()) *env.out << "  (" << report->note << ")\n";
  return exit_code;
}

const Subcommand kScheduleCommand = {
    "schedule", ScheduleUsage,
    ParseToInvocation<ScheduleOptions, ParseScheduleOptions, RunSchedule>};

}  // namespace tierfs::cli::fsppadm
