// Volume labels and the on-disk layout of a volume (docs/design.md, "Layout on disk").
//
//   <volume>/.tierfs/label      proves that this directory is volume `volume_id` of
//                               file system `fs_uuid` (text, one key=value per line)
//   <volume>/.tierfs/objects/   one object per regular file
//   <volume>/.tierfs/tmp/       relocations in flight; emptied at mount
//   <metadata volume>/.tierfs/meta.db, control.sock
//
// A directory without a label is never written to: an unmounted disk shows up as
// an empty directory, and writing there silently is the classic union-fs failure.
// Free functions; thread-safe. Their system calls go through `io`, the seam of the
// process (fs/volume/volume_io.h): the daemon's and check's fault rules reach
// labels too; the tools, which have none, take the default.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"
#include "fs/volume/volume_io.h"

namespace tierfs {

struct VolumeLabel {
  std::string fs_uuid;
  std::string fs_name;
  uint32_t volume_id = 0;
  std::string volume_name;
  // Set by `fsvoladm remove` once the volume has left its file system: the
  // directory is no volume any more (VolumeSet refuses it), and mkdstfs or
  // `fsvoladm add` may label it again, for this or another file system.
  bool retired = false;
};

// Paths inside a volume directory.
std::string TierfsDir(const std::string& volume_dir);       // <dir>/.tierfs
std::string ObjectsDir(const std::string& volume_dir);      // <dir>/.tierfs/objects
std::string TmpDir(const std::string& volume_dir);          // <dir>/.tierfs/tmp
std::string MetadataDbPath(const std::string& volume_dir);  // <dir>/.tierfs/meta.db
std::string ControlSocketPath(const std::string& volume_dir);  // <dir>/.tierfs/control.sock
// <dir>/.tierfs/daemon.lock: flock-held by the daemon serving the file system, with its pid.
inline std::string DaemonLockPath(const std::string& volume_dir) {
  return TierfsDir(volume_dir) + "/daemon.lock";
}
std::string VolumeLabelPath(const std::string& volume_dir);    // <dir>/.tierfs/label
// Object naming (design.md, "Layout on disk"): <dir>/.tierfs/objects/<xx>/<ino>.<gen>,
// xx = ino mod 256 as two lower-case hex digits.
std::string ObjectSubdirName(uint64_t ino);  // "xx"
std::string ObjectPathIn(const std::string& volume_dir, uint64_t ino, uint64_t generation);

// The rule for file system and placement class names: 1-64 characters of
// [A-Za-z0-9_.-], not starting with '.' or '-'. `what` names the kind in the
// message ("class name"). EINVAL quoting the name and saying what is wrong.
Status CheckSimpleName(std::string_view name, const char* what);

// Creates <dir>/.tierfs/{objects,tmp} and writes the label atomically (temp file +
// rename + fsync). EEXIST if the directory already carries a label of another file
// system that is not retired; ENOENT/ENOTDIR if `volume_dir` is not an existing
// directory.
Status WriteVolumeLabel(const std::string& volume_dir, const VolumeLabel& label,
                        VolumeIo& io = VolumeIo::Posix());

// Reads and parses the label (a retired one too: check label.retired). ENOENT with a message naming the directory when the
// label is missing ("volume vol2 at /mnt/hdd1 has no tierfs label: is its device
// mounted?"), EINVAL when it is malformed, the errno of a failing open or read
// (EIO) otherwise.
Result<VolumeLabel> ReadVolumeLabel(const std::string& volume_dir,
                                    VolumeIo& io = VolumeIo::Posix());

}  // namespace tierfs
