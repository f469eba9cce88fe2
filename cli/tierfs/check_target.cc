#include "cli/tierfs/check_target.h"

#include <sys/stat.h>

#include <cerrno>
#include <vector>

#include "cli/common/exit_codes.h"
#include "cli/common/mount_table.h"
#include "cli/common/tool_support.h"
#include "cli/tierfs/check_command.h"
#include "common/mount_info.h"
#include "fs/volume/volume_label.h"

namespace tierfs::cli {
namespace {

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

}  // namespace

Result<Target> LocateTarget(const CliEnv& env, const std::string& operand,
                            DaemonLock::Mode mode, int* exit_code) {
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

}  // namespace tierfs::cli
