#include "fs/fuse/serving_request.h"

#include <linux/fuse.h>

#include <cstring>

namespace tierfs {
namespace {

thread_local const char* serving_data = nullptr;
thread_local size_t serving_size = 0;

// The request's argument struct `T` when the recorded message is an `opcode` for
// `nodeid` long enough to hold it; false otherwise.
template <typename T>
bool Argument(uint32_t opcode, uint64_t nodeid, T* out) {
  if (serving_data == nullptr || serving_size < sizeof(fuse_in_header) + sizeof(T)) return false;
  fuse_in_header in;
  std::memcpy(&in, serving_data, sizeof in);
  if (in.opcode != opcode || in.nodeid != nodeid) return false;
  std::memcpy(out, serving_data + sizeof in, sizeof(T));
  return true;
}

}  // namespace

void SetServingRequest(const void* data, size_t size) {
  serving_data = static_cast<const char*>(data);
  serving_size = data == nullptr ? 0 : size;
}

bool ServingRequestKillsSuidgid(uint32_t opcode, uint64_t nodeid) {
  switch (opcode) {
    case FUSE_WRITE: {
      fuse_write_in arg;
      return Argument(opcode, nodeid, &arg) && (arg.write_flags & FUSE_WRITE_KILL_SUIDGID) != 0;
    }
    case FUSE_SETATTR: {
      fuse_setattr_in arg;
      return Argument(opcode, nodeid, &arg) && (arg.valid & FATTR_KILL_SUIDGID) != 0;
    }
    case FUSE_OPEN: {
      fuse_open_in arg;
      return Argument(opcode, nodeid, &arg) && (arg.open_flags & FUSE_OPEN_KILL_SUIDGID) != 0;
    }
    default:
      return false;
  }
}

}  // namespace tierfs
