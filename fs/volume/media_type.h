// Media-type discovery for a volume directory (design.md "media type").
//
// Finds the block device under a directory (stat st_dev -> /sys/dev/block/MAJ:MIN),
// climbs from a partition to its disk, descends dm/md stacks through slaves/, and
// reads queue/rotational: 0 -> "ssd", 1 -> "hdd", a stack mixing both -> "mixed".
// Thread-safe; reads sysfs only.
#pragma once

#include <string>

#include "common/status.h"

namespace tierfs {

// "ssd" | "hdd" | "mixed". ENODEV when the directory is not on a block device that
// sysfs describes (tmpfs, overlay, network file systems): callers then require the
// administrator to give the class explicitly. `sysfs_root` is for tests.
Result<std::string> DetectMediaType(const std::string& dir, const std::string& sysfs_root = "/sys");

}  // namespace tierfs
