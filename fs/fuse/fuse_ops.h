// The libfuse3 low-level operation table of tierfs.
//
// Each handler is a thin shim: unpack the request, call one FileSystem method,
// reply exactly once (fuse_reply_* or fuse_reply_err with the Status errno). No
// lock is held across a reply. The session's userdata is a FuseContext.
#pragma once

#include <fuse_lowlevel.h>  // FUSE_USE_VERSION comes from fs/CMakeLists.txt

namespace tierfs {

class FileSystem;
class PassthroughOpens;

struct FuseContext {
  FileSystem* fs = nullptr;
  // The session, for notifications to the kernel (set by the session once created;
  // handlers skip notifying while it is null).
  fuse_session* session = nullptr;
  double entry_timeout = 60;     // seconds the kernel may cache a dirent (also negative ones)
  double attr_timeout = 60;      // seconds the kernel may cache attributes
  // Ask for FUSE_CAP_WRITEBACK_CACHE: writes land in the page cache and reach the
  // daemon in batches at writeback (fsync, close, memory pressure, 30 s).
  bool writeback_cache = false;
  // Answer OPEN, OPENDIR and CREATE with ENOSYS when the kernel offers
  // FUSE_CAP_NO_OPEN_SUPPORT and FUSE_CAP_NO_OPENDIR_SUPPORT (OpInit clears it
  // otherwise): the kernel then sends no OPEN, RELEASE, OPENDIR or RELEASEDIR,
  // makes new regular files with MKNOD, keeps files' pages and directories'
  // listings across opens, and requests on them carry handle 0
  // (FileSystem::KernelOpen, fs/core/kernel_open_cache.h; a listing gets a
  // DirHandle of its own).
  bool no_open = false;
  // Passthrough opens (fs/fuse/passthrough.h), when the mode asks for them:
  // OpInit turns them on or logs why not; null in a session without them.
  PassthroughOpens* passthrough = nullptr;
};

// The operation table; static storage, filled once.
const fuse_lowlevel_ops& TierfsOperations();

}  // namespace tierfs
