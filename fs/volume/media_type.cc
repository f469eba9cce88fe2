// Media-type discovery: see fs/volume/media_type.h.
//
// sysfs layout relied on (paths under `sysfs_root`):
//   dev/block/MAJ:MIN            symlink to the device's directory under devices/
//   <partition>/partition        present for a partition; its parent directory is the disk
//   <disk>/slaves/*              for dm and md devices: symlinks to the devices below
//   <disk>/queue/rotational      "0" (solid state) or "1" (spinning)
// A stacked device's own queue/rotational is not trusted (dm and md report what
// their first member or a default says); the leaves decide.
#include "fs/volume/media_type.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <fstream>
#include <string>
#include <vector>

#include "common/unique_dir.h"

namespace tierfs {
namespace {

constexpr int kMaxStackDepth = 16;  // guards against a cyclic (corrupt or fake) tree

// What the leaves under a device are: a bit per kind seen.
enum : unsigned { kSeenSsd = 1, kSeenHdd = 2 };

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

Result<std::string> RealPath(const std::string& path) {
  char* resolved = realpath(path.c_str(), nullptr);
  if (resolved == nullptr) return Status::FromErrno(ENODEV, "cannot resolve " + path);
  std::string out(resolved);
  free(resolved);
  return out;
}

std::string Parent(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos || slash == 0) return "/";
  return path.substr(0, slash);
}

// The whole-disk directory for a device directory (itself unless it is a partition).
std::string DiskOf(const std::string& device_dir) {
  return Exists(device_dir + "/partition") ? Parent(device_dir) : device_dir;
}

std::vector<std::string> Slaves(const std::string& disk_dir) {
  std::vector<std::string> out;
  UniqueDir d = OpenDir(disk_dir + "/slaves");
  if (!d) return out;
  while (dirent* e = readdir(d.get())) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    out.push_back(disk_dir + "/slaves/" + name);
  }
  return out;
}

// Classifies the leaves under `device_dir`; returns a mask of kSeen* bits.
Result<unsigned> Classify(const std::string& device_dir, int depth) {
  if (depth > kMaxStackDepth) {
    return Status::Error(ENODEV, "device stack under " + device_dir + " is too deep");
  }
  const std::string disk = DiskOf(device_dir);
  std::vector<std::string> slaves = Slaves(disk);
  if (!slaves.empty()) {
    unsigned seen = 0;
    for (const std::string& link : slaves) {
      Result<std::string> slave = RealPath(link);
      if (!slave.ok()) return slave.status();
      Result<unsigned> sub = Classify(*slave, depth + 1);
      if (!sub.ok()) return sub.status();
      seen |= *sub;
    }
    return seen;
  }
  const std::string rotational_path = disk + "/queue/rotational";
  std::ifstream in(rotational_path);
  std::string value;
  if (!in || !(in >> value)) {
    return Status::Error(ENODEV, "cannot read " + rotational_path);
  }
  if (value == "0") return static_cast<unsigned>(kSeenSsd);
  if (value == "1") return static_cast<unsigned>(kSeenHdd);
  return Status::Error(ENODEV, rotational_path + " holds \"" + value + "\", expected 0 or 1");
}

}  // namespace

Result<std::string> DetectMediaType(const std::string& dir, const std::string& sysfs_root) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) return Status::FromErrno("cannot stat " + dir);
  const std::string dev = std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev));
  const std::string link = sysfs_root + "/dev/block/" + dev;
  if (!Exists(link)) {
    return Status::Error(ENODEV, dir + " is on device " + dev +
                                     ", which is not a block device that sysfs describes "
                                     "(tmpfs, overlay, btrfs or a network file system?)");
  }
  Result<std::string> device_dir = RealPath(link);
  if (!device_dir.ok()) return device_dir.status();
  Result<unsigned> seen = Classify(*device_dir, 0);
  if (!seen.ok()) {
    return Status::Error(ENODEV, "cannot tell the media type of " + dir + " (device " + dev +
                                     "): " + seen.status().message());
  }
  switch (*seen) {
    case kSeenSsd:
      return std::string("ssd");
    case kSeenHdd:
      return std::string("hdd");
    case kSeenSsd | kSeenHdd:
      return std::string("mixed");
    default:
      return Status::Error(ENODEV, "no device with a rotational flag under " + dir);
  }
}

}  // namespace tierfs
