// The memory page and file-system block size tierfs assumes: 4096 bytes, the
// x86_64 page and ext4/xfs's default block. O_DIRECT writes need page-aligned
// buffers and offsets (fs/core/file_ops.cc), the FUSE receive buffers are placed
// on pages (fs/fuse/receive_buffer.h), and stat(2) reports this block size, as
// ext4 does.
#pragma once

#include <cstddef>

namespace tierfs {

inline constexpr size_t kPageBytes = 4096;

}  // namespace tierfs
