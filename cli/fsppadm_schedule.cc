// fsppadm schedule: installs, lists or removes the scheduled enforce runs of a
// mounted file system (cli/scan_schedule.h; docs/admin.md "Schedules").
#include <limits.h>
#include <unistd.h>

#include "cli/exit_codes.h"
#include "cli/fsppadm_commands.h"
#include "cli/json_fields.h"
#include "cli/scan_schedule.h"
#include "cli/text_table.h"
#include "fs/volume/volume_label.h"

namespace tierfs::cli::fsppadm {
namespace {

// This fsppadm, absolute: what the scheduler runs.
std::string SelfPath() {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  return n > 0 ? std::string(self, static_cast<size_t>(n)) : "fsppadm";
}

// The placement class of the metadata volume (the paper's "ssd" tier): the
// class the hourly scan also sweeps (-T).
std::optional<std::string> MetadataClass(const CliEnv& env, Target& target, int* exit_code) {
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

int RunSchedule(const FsppadmArgs& args, const CliEnv& env) {
  int exit_code = kExitOk;
  std::optional<Target> target = Connect(env, args.mounts[0], &exit_code);
  if (!target) return exit_code;
  const std::string& mount_point = target->where.mount.mount_point;
  auto label = ReadVolumeLabel(target->where.mount.metadata_dir);
  if (!label.ok()) {
    PrintError(env, "fsppadm", mount_point + ": " + label.status().message());
    return kExitFailed;
  }
  const std::string& fs_name = label->fs_name;

  if (args.schedule_list) {
    std::vector<UnitFile> files = ListSchedule(fs_name);
    if (files.empty()) *env.out << PrintableField(mount_point) << ": no schedule\n";
    for (const UnitFile& f : files) *env.out << "==> " << f.name << " <==\n" << f.text;
    return exit_code;
  }
  std::optional<std::string> fast;
  if (!args.schedule_remove) {
    fast = MetadataClass(env, *target, &exit_code);
    if (!fast) return exit_code;
  }
  Result<ScheduleReport> report =
      args.schedule_remove
          ? RemoveSchedule(fs_name)
          : InstallSchedule(DefaultSchedule(*fast, args.schedule_active, args.schedule_full),
                            fs_name, mount_point, SelfPath());
  if (!report.ok()) {
    PrintError(env, "fsppadm", mount_point + ": " + report.status().message());
    return kExitFailed;
  }
  if (args.schedule_remove) {
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

}  // namespace tierfs::cli::fsppadm
