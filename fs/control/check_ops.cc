#include "fs/control/check_ops.h"

#include <chrono>
#include <string>

#include "fs/check/db_backup.h"
#include "fs/check/fsck.h"
#include "fs/volume/volume_label.h"

namespace tierfs {

using nlohmann::json;

namespace {

// The database path: the first volume is the metadata volume (meta/records.h).
std::string LiveDatabasePath(FileSystem& fs) {
  return MetadataDbPath(fs.volumes().volumes().front().path);
}

}  // namespace

Result<json> HandleCheckOp(FileSystem& fs, const json& request, ControlReply& reply) {
  if (request.value("repair", false)) {
    return Status::Error(EBUSY, "repair needs the file system unmounted (tierfs check --repair "
                                "METADATA_VOLUME_DIR after fusermount3 -u)");
  }
  CheckOptions options;
  options.live = true;
  options.database_path = LiveDatabasePath(fs);
  options.current_attr = [&fs](uint64_t ino) { return fs.CurrentAttr(ino); };
  options.io = &fs.volumes().io();  // the daemon's seam, with its fault rules in tests
  options.progress = [&reply](const std::string& phase, uint64_t done, uint64_t total) {
    reply.Progress(json{{"phase", phase}, {"done", done}, {"total", total}});
  };
  Result<CheckReport> report = CheckFileSystem(fs.metadata(), options);
  if (!report.ok()) return report.status();
  return report->ToJson();
}

Result<json> HandleBackupOp(FileSystem& fs, const json& request, ControlReply& reply) {
  std::string dest = request.value("dest", "");
  if (dest.empty()) {
    Result<std::string> path = DefaultBackupPath(fs.volumes().volumes(), fs.info().uuid);
    if (!path.ok()) return path.status();
    dest = *path;
  }
  TIERFS_RETURN_IF_ERROR(
      CheckBackupDestination(dest, fs.options().mountpoint, LiveDatabasePath(fs)));
  // At most ten progress lines a second: a step is only 256 pages.
  auto last = std::chrono::steady_clock::time_point{};
  Result<BackupResult> result =
      BackupDatabase(fs.metadata(), dest, [&](uint64_t done, uint64_t total) {
        const auto now = std::chrono::steady_clock::now();
        if (done != total && now - last < std::chrono::milliseconds(100)) return;
        last = now;
        reply.Progress(json{{"phase", "backup"}, {"done", done}, {"total", total}});
      });
  if (!result.ok()) return result.status();
  return json{{"path", result->path},
              {"bytes", result->bytes},
              {"pages", result->pages},
              {"seconds", result->seconds}};
}

}  // namespace tierfs
