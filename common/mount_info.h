// The mount table, from /proc/<pid>/mountinfo: what is mounted where, with
// which file-system type and source. One parser for the tools (which tierfs
// file system holds a path: cli/common/mount_table.h) and the daemon (is this file
// system mounted already: fs/volume/daemon_lock.h). Thread-safe; pure but for
// ReadMountInfo.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace tierfs {

struct MountEntry {
  std::string mount_point;  // absolute; octal escapes (\040) decoded
  std::string fs_type;      // "ext4", "fuse.tierfs"...
  std::string source;       // device or, for tierfs, the metadata volume directory
  // The file system's device number, as stat(2) shows it in st_dev
  // (makedev(major, minor)); 0 when the line's MAJ:MIN does not parse.
  dev_t device = 0;
};

// The type a tierfs mount has in the mount table; its source is the metadata
// volume's directory.
inline constexpr char kTierfsFsType[] = "fuse.tierfs";

// The tierfs mount served from `metadata_dir` (its source), and the tierfs mount
// on `mount_point`: the last such line (the one on top when mounts are stacked),
// nullopt when there is none. The one lookup of the daemon (is this file system
// mounted already) and of the tools (which mount is this).
std::optional<MountEntry> TierfsMountFromSource(const std::vector<MountEntry>& mounts,
                                                const std::string& metadata_dir);
std::optional<MountEntry> TierfsMountOn(const std::vector<MountEntry>& mounts,
                                        const std::string& mount_point);

// Parses the text of /proc/<pid>/mountinfo, in its order; lines that do not
// parse are skipped.
std::vector<MountEntry> ParseMountInfo(std::string_view text);
// Reads and parses `path` (default: this process's mount table). Errors: the
// open/read errno naming the file.
Result<std::vector<MountEntry>> ReadMountInfo(const std::string& path = "/proc/self/mountinfo");

}  // namespace tierfs
