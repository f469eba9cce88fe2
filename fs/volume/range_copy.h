// Copying a byte range between two objects through the VolumeIo seam, at the
// same offsets: what a relocation does with each data segment of a file
// (fs/core/relocator.cc) and what `tierfs check --repair` does to restore a short
// object's missing tail from another copy (fs/check/fsck.cc).
#pragma once

#include <sys/types.h>

#include "common/status.h"
#include "fs/volume/volume_io.h"

namespace tierfs {

// Copies bytes [offset, offset + length) of `src` to `dst` at the same offsets,
// with copy_file_range(2), or read and write where the two file systems cannot
// copy between them (EXDEV, ENOSYS, EOPNOTSUPP, EINVAL). Stops early, without
// error, where `src` ends. Errors: the failing call's errno ("copy", "copy read",
// "copy write"); a write that makes no progress is ENOSPC.
Status CopyRange(VolumeIo& io, int src, int dst, off_t offset, off_t length);

}  // namespace tierfs
