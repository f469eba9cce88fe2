#include "fs/fuse/receive_buffer.h"

#include <linux/fuse.h>

#include <new>

namespace tierfs {
namespace {

constexpr size_t kWriteHeaderBytes = sizeof(fuse_in_header) + sizeof(fuse_write_in);
static_assert(kWriteHeaderBytes < kPageBytes);

thread_local size_t t_receive_capacity = 0;

}  // namespace

AlignedBytes AllocatePageAligned(size_t bytes) {
  const size_t rounded = (bytes + kPageBytes - 1) / kPageBytes * kPageBytes;
  char* p = static_cast<char*>(std::aligned_alloc(kPageBytes, rounded == 0 ? kPageBytes : rounded));
  if (p == nullptr) throw std::bad_alloc();
  return AlignedBytes(p);
}

ReceiveBuffer::ReceiveBuffer()
    : memory_(AllocatePageAligned(kPageBytes + kCapacity)),
      start_(memory_.get() + kPageBytes - kWriteHeaderBytes) {}

void SetThreadReceiveCapacity(size_t bytes) { t_receive_capacity = bytes; }

size_t ThreadReceiveCapacity() { return t_receive_capacity; }

}  // namespace tierfs
