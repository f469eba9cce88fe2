// The checksum a relocation verifies a copy with: XXH3-64 of an object's first
// `size` bytes, read through the VolumeIo seam, and its spelling as the
// `x-amz-meta-xxh3` metadata of an object on a store (16 lower-case hex digits).
// Free functions; thread-safe as `io` is.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "common/status.h"
#include "fs/volume/volume_io.h"

namespace tierfs {

// XXH3-64 of the first `size` bytes of `fd` (fewer when the file is shorter).
// The read's errno ("read for checksum") on failure.
Result<uint64_t> HashObject(VolumeIo& io, int fd, off_t size);

// The user-metadata name an object on a store carries its hash under
// (x-amz-meta-xxh3): set by the upload, read by the recall and `tierfs check`.
inline constexpr char kObjectHashMetadata[] = "xxh3";

// `hash` as 16 lower-case hex digits.
std::string Xxh3Hex(uint64_t hash);

}  // namespace tierfs
