// The mount table as the tools need it: which tierfs file system holds a path,
// where its daemon listens, and how paths map between the host and the
// mount-relative form the control protocol speaks ("/dir/file").
//
// A tierfs mount reads, in /proc/self/mountinfo, type "fuse.tierfs" with the
// metadata volume directory as its source (fs/control/control_protocol.md).
// Pure functions apart from ReadMountInfo and ResolvePath; all thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/mount_info.h"
#include "common/status.h"

namespace tierfs::cli {

struct TierfsMount {
  std::string mount_point;   // absolute
  std::string metadata_dir;  // the mount's source
  std::string socket_path;   // ControlSocketPath(metadata_dir)
};

// The tierfs mount holding absolute path `abs_path`: the mount with the longest
// mount point that is a prefix of it (the last such line when several mounts are
// stacked on one point) must be a tierfs mount. ENODEV naming the path (and
// what it is on instead) otherwise.
Result<TierfsMount> FindTierfsMount(const std::vector<MountEntry>& mounts,
                                    const std::string& abs_path);
// `e` (a tierfs mount) as the tools use it.
TierfsMount ToTierfsMount(const MountEntry& e);
// Every tierfs mount, in mount order (stacked duplicates once).
std::vector<TierfsMount> TierfsMounts(const std::vector<MountEntry>& mounts);

// Absolute, symlink-free form of `path` (realpath(3)). If the file system no
// longer answers (ENOTCONN, ECONNABORTED: a dead FUSE daemon) the path is
// normalized lexically instead, so that the caller can still name the mount.
// Errors: realpath's errno with a message naming `path`.
Result<std::string> ResolvePath(const std::string& path);
// Lexical normalization: absolute (against the working directory), without
// "." or ".." components or repeated slashes.
std::string NormalizePath(const std::string& path);

// "/mnt/a/b" under mount point "/mnt" -> "/a/b"; the mount point itself -> "/".
// EINVAL when `abs_path` is not under `mount_point`.
Result<std::string> MountRelativePath(const std::string& mount_point, const std::string& abs_path);
// The reverse: ("/mnt", "/a/b") -> "/mnt/a/b"; ("/mnt", "/") -> "/mnt".
std::string HostPath(const std::string& mount_point, const std::string& mount_path);

}  // namespace tierfs::cli
