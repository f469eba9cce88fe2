// Request buffers placed so that a FUSE WRITE's bytes start on a page boundary.
//
// Why: a volume takes a write of whole pages from a page-aligned buffer with
// O_DIRECT (FileSystem::Write), which spares the daemon its copy of the
// bytes into the volume's page cache: 65% of the daemon's CPU in a 1 MiB
// sequential write, and the second cached copy of every byte written
// (docs/benchmarks-history.md, "Eleventh round"). A /dev/fuse WRITE is the
// fuse_in_header (40 bytes), the fuse_write_in (40) and then the bytes; libfuse's
// own buffer (malloc) puts them 96 bytes past a page.
//
// Used by the /dev/fuse worker pool (fs/fuse/fuse_worker_pool.h) when the session's
// custom I/O reads /dev/fuse (fs/fuse/uring_transport.h), and for the payloads of the
// io_uring entries (whose WRITE bytes arrive alone in the payload buffer).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>

#include "common/page.h"

namespace tierfs {

// The largest WRITE the session takes, bytes: OpInit caps the kernel's
// max_write at it, so every request fits a ReceiveBuffer. It is also libfuse
// 3.14's default (256 pages).
inline constexpr size_t kMaxWriteBytes = size_t{1} << 20;

// Memory from aligned_alloc, freed with free().
struct FreeDeleter {
  void operator()(char* p) const { std::free(p); }
};
using AlignedBytes = std::unique_ptr<char, FreeDeleter>;

// `bytes` rounded up to whole pages, starting on a page boundary; uninitialized.
// Throws std::bad_alloc when memory is out.
AlignedBytes AllocatePageAligned(size_t bytes);

// One request from /dev/fuse: kMaxWriteBytes and a page for the header and
// arguments, as libfuse 3.14 sizes its own.
class ReceiveBuffer {
 public:
  static constexpr size_t kCapacity = kMaxWriteBytes + kPageBytes;

  ReceiveBuffer();  // throws std::bad_alloc
  // Where a request is read to: kCapacity bytes, such that a WRITE's bytes
  // (sizeof fuse_in_header + sizeof fuse_write_in past it) start on a page.
  char* data() const { return start_; }

 private:
  AlignedBytes memory_;
  char* start_;
};

// The calling thread reads /dev/fuse into a buffer of `bytes` (a ReceiveBuffer's
// kCapacity) rather than into one libfuse sized: the session's read hook reads no
// more than that into it, whatever length libfuse passes. 0 (the default): the
// length libfuse passes.
void SetThreadReceiveCapacity(size_t bytes);
size_t ThreadReceiveCapacity();

}  // namespace tierfs
