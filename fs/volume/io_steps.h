// Small sequences of VolumeIo calls that more than one part of tierfs makes on a
// volume: making a rename durable, cutting an object to its file's size.
// Free functions; thread-safe as `io` is.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "fs/volume/volume_io.h"

namespace tierfs {

// fsync(2) of directory `dir` (open O_DIRECTORY, fsync, close), so that the
// names made or removed in it survive a crash. The failing call's errno, with a
// message naming `dir` ("open DIR: ...", "fsync DIR: ...").
Status SyncDirectory(VolumeIo& io, const std::string& dir);

// Cuts the regular file at `path` (an object; not followed if a symbolic link) to
// `size` bytes: open, ftruncate, and with `durable` an fsync before the close.
// The failing call's errno, with a message naming `path`.
Status TrimFile(VolumeIo& io, const std::string& path, uint64_t size, bool durable);

}  // namespace tierfs
