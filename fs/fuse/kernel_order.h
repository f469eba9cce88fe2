// KernelOrder: the order the kernel imposes between FUSE requests on one file
// handle, declared to ThreadSanitizer (scripts/sanitize.sh --thread).
//
// A FileHandle or DirHandle is made by OPEN (OPENDIR) and handed to the kernel in
// the reply; the kernel sends it back with every later request on that open file
// and sends RELEASE (RELEASEDIR) only once no request on it is in flight. That
// order passes through /dev/fuse, which ThreadSanitizer does not see: two worker
// threads that touch one handle in turn look unsynchronized to it (an OPEN's
// construction of the handle and the first READ's use of it; the last WRITE and the
// RELEASE that deletes it). The hand-out and every use are therefore declared as a
// release and an acquire on the handle's address. In builds without
// ThreadSanitizer all of this compiles to nothing.
#pragma once

#include "common/sanitizers.h"

#ifdef TIERFS_TSAN_BUILD
#include <sanitizer/tsan_interface.h>
#endif

namespace tierfs {

// Everything this thread did to `handle` so far happens before what the next
// thread to call AcquireHandle(handle) does with it. `handle` is only an address.
inline void ReleaseHandle(const void* handle) {
#ifdef TIERFS_TSAN_BUILD
  __tsan_release(const_cast<void*>(handle));
#else
  (void)handle;
#endif
}

// The counterpart of ReleaseHandle, at the start of a use of `handle`.
inline void AcquireHandle(const void* handle) {
#ifdef TIERFS_TSAN_BUILD
  __tsan_acquire(const_cast<void*>(handle));
#else
  (void)handle;
#endif
}

// One request's use of a handle, as a temporary that lives for the full expression
// it appears in (the call into FileSystem): acquires at construction, releases at
// destruction, and converts to the handle pointer. Not for the call that deletes
// the handle (release, releasedir): that one only acquires.
template <typename Handle>
class HandleUse {
 public:
  explicit HandleUse(Handle* handle) : handle_(handle) { AcquireHandle(handle_); }
  ~HandleUse() { ReleaseHandle(handle_); }
  HandleUse(const HandleUse&) = delete;
  HandleUse& operator=(const HandleUse&) = delete;
  operator Handle*() const { return handle_; }  // NOLINT: used as the pointer itself

 private:
  Handle* handle_;
};

}  // namespace tierfs
