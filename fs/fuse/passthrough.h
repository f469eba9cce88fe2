// Passthrough opens: the kernel serves an open file's reads, writes and mmap
// straight from its object on the volume, without a round trip to the daemon
// (FUSE_PASSTHROUGH, Linux 6.9 and later; `tierfs --passthrough`).
//
// How, with libfuse 3.14 (which predates it) and the session's custom I/O
// (fs/fuse/uring_transport.h), which sees every message:
//   - INIT: the request tells whether the kernel offers FUSE_PASSTHROUGH (bit 37
//     of the flags, in flags2). OpInit decides whether to use it (the mode asks
//     for it, the kernel offers it, the daemon has CAP_SYS_ADMIN) and, if so,
//     drops the writeback cache and no-open, which the kernel cannot combine with
//     it; the INIT reply then gets the flag and max_stack_depth 1 (the volumes
//     are ordinary file systems; nothing may stack on tierfs beyond that).
//   - OPEN and CREATE: the handler decides per open (FileSystem::AdmitPassthrough
//     keeps an inode all-passthrough or all-daemon, the kernel's rule), registers
//     the inode's object fd with FUSE_DEV_IOC_BACKING_OPEN once per inode
//     (BackingFiles), and marks its reply; the writev hook writes
//     FOPEN_PASSTHROUGH and the backing id into the fuse_open_out.
//   - RELEASE: the last passthrough open of an inode closes its backing id. The
//     kernel drops its own use of the backing file before it sends that RELEASE,
//     so a later open may register a new one.
// The values (flags, struct offsets, ioctl numbers) are Linux's
// include/uapi/linux/fuse.h, protocol 7.40, newer than Debian 12's header; the
// rules the kernel enforces are summed up in docs/design.md, "Passthrough opens".
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <fuse_lowlevel.h>

#include "common/mutex.h"
#include "common/status.h"
#include "common/thread_annotations.h"
#include "fs/fuse/passthrough_mode.h"

namespace tierfs {

class DaemonMetrics;
class FileSystem;
class VolumeIo;
struct FileHandle;

// ---- INIT: called by the transport's hooks and by OpInit, in that order, for
// the one INIT of the connection.

// The INIT request's flags: records whether the kernel offers FUSE_PASSTHROUGH.
void NotePassthroughOffer(uint32_t flags, uint32_t flags2);
// Whether the INIT request offered it.
bool KernelOffersPassthrough();
// Whether the calling thread has CAP_SYS_ADMIN in its effective set, which
// registering a backing file needs (the kernel asks for it in the initial user
// namespace).
bool HasCapSysAdmin();
// OpInit decided to use passthrough: the INIT reply will ask for it.
void RequestPassthroughInInit();
// Amends the INIT reply's payload (`out`, `size` bytes of fuse_init_out) when
// passthrough was requested: FUSE_INIT_EXT, FUSE_PASSTHROUGH and
// max_stack_depth 1. Returns whether it did (false also when the reply is too
// short to carry max_stack_depth, or asks for the writeback cache).
bool AmendInitReplyForPassthrough(void* out, size_t size);

// ---- OPEN and CREATE replies.

// Marks the next reply the calling thread sends: its fuse_open_out, `offset`
// bytes into the payload (0 for OPEN, the entry's size for CREATE), gets
// FOPEN_PASSTHROUGH and `backing_id`, with FOPEN_DIRECT_IO when `direct_io`,
// and loses the flags the kernel refuses with passthrough (KEEP_CACHE, ...).
void MarkOpenReplyPassthrough(int32_t backing_id, bool direct_io, size_t offset);
// Applies and clears the calling thread's mark on the reply `iov[0..count)`
// (the fuse_out_header first); a reply with an error clears it untouched, and
// a notification (unique 0: an attribute invalidation the handler sends
// before its reply) leaves it for the reply.
void ApplyOpenReplyMark(const iovec* iov, int count);

// Told of each backing file as it is registered with the kernel and as its id
// closes: the page-cache heat counter keys its counts on the backing file (the
// object on its volume), not on the FUSE inode, and learns here which inode
// each one serves (fs/daemon/passthrough_heat.h).
class BackingFileWatcher {
 public:
  virtual ~BackingFileWatcher() = default;
  // Before the object `object_dev`/`object_ino` (its fstat(2)) is registered as
  // inode `ino`'s backing file. An error (ENOSPC: the counter knows too many)
  // keeps the open on the daemon, which then counts its I/O itself.
  virtual Status Watch(uint64_t ino, dev_t object_dev, ino_t object_ino) = 0;
  // After that backing id closed: the object serves nothing any more.
  virtual void Forget(dev_t object_dev, ino_t object_ino) = 0;
};

// The backing ids of one connection, one per inode with passthrough opens:
// every concurrent passthrough open of an inode must name the same one.
class BackingFiles {
 public:
  // `device_fd`: the session's /dev/fuse descriptor (fuse_session_fd).
  explicit BackingFiles(int device_fd) : device_fd_(device_fd) {}
  // Tells `watcher` (or nobody, with null) of every backing file registered
  // from now on. Set once, before the first Acquire (at INIT).
  void set_watcher(BackingFileWatcher* watcher) { watcher_ = watcher; }
  BackingFiles(const BackingFiles&) = delete;
  BackingFiles& operator=(const BackingFiles&) = delete;

  // The backing id of inode `ino` for one more open: the one registered, or
  // `object_fd` registered now (with `register_new`; without it, ENOENT when
  // `ino` has none). Errors: the ioctl's errno (VolumeIo::BackingOpen; EPERM: the kernel
  // did not enable passthrough or the daemon lacks CAP_SYS_ADMIN; ELOOP: the
  // volume is itself stacked, overlayfs or FUSE; EINVAL, EOPNOTSUPP).
  Result<int32_t> Acquire(uint64_t ino, int object_fd, VolumeIo& io, bool register_new)
      EXCLUDES(mu_);
  // One open of `ino` that Acquire counted has been released (or never reached
  // the kernel); the last one closes the id.
  void Release(uint64_t ino) EXCLUDES(mu_);
  // Inodes with a registered backing id now.
  size_t size() const EXCLUDES(mu_);

 private:
  struct Entry {
    int32_t id = 0;
    uint32_t opens = 0;
    dev_t object_dev = 0;  // the registered object, for the watcher's Forget
    ino_t object_ino = 0;
  };
  const int device_fd_;
  BackingFileWatcher* watcher_ = nullptr;  // set before serving
  mutable Mutex mu_;
  std::unordered_map<uint64_t, Entry> entries_ GUARDED_BY(mu_);
};

// The connection's passthrough: the mode, whether INIT turned it on, and the
// backing ids. Owned by the session; FuseContext::passthrough points at it.
class PassthroughOpens {
 public:
  // What INIT's handler runs once it would ask for passthrough, before it does
  // (the heat counter's start, FileSystem::EnablePassthrough): the watcher of
  // backing files the counter needs (null when none), and the hook's name for
  // the log and `fsppadm status`; an error leaves passthrough off, with its
  // message in the log.
  struct Grant {
    BackingFileWatcher* watcher = nullptr;
    std::string hook;
  };
  using GrantFunction = std::function<Result<Grant>()>;

  // `mode` (never kAuto once INIT has decided: mode() then says what it
  // decided), `device_fd` the session's /dev/fuse, `grant` as above.
  PassthroughOpens(PassthroughMode mode, int device_fd, GrantFunction grant)
      : requested_(mode), mode_(mode), grant_(std::move(grant)), backing_(device_fd) {}

  // The mode in effect: what was asked for, except that kAuto becomes
  // kReadWrite or kOff at INIT (DecideAtInit).
  PassthroughMode mode() const { return mode_; }
  // OpInit: whether to ask for passthrough on this connection; logs why or why
  // not when the mode wants it, and records the decision in `metrics` (the
  // mode in effect, and the hook or the reason: `fsppadm status`).
  bool DecideAtInit(DaemonMetrics& metrics);
  // Test seam (builds with test hooks): DecideAtInit takes the kernel as one
  // that does not offer passthrough, as Linux before 6.9. Before serving.
  void IgnoreKernelOffer() { ignore_offer_ = true; }
  // Whether passthrough is on (INIT asked for it and no registration has shown
  // that the kernel refused it since).
  bool active() const { return active_.load(std::memory_order_acquire); }

  // For an open of `ino` about to be replied with `fi` (fs/fuse/fuse_ops.cc
  // OpOpen and OpCreate): decides whether the kernel serves it by passthrough
  // (the mode, the open's flags, the inode's other opens), registers the
  // backing file and marks the reply (MarkOpenReplyPassthrough at `offset`).
  // Returns whether it did; `fh` then records it for Release. Once a refused
  // registration turned passthrough off, a file that still has passthrough
  // opens goes on getting it, with the backing id they share (the kernel fails
  // any other open of it), and no other file does.
  bool PrepareReply(FileSystem& fs, uint64_t ino, FileHandle* fh, fuse_file_info* fi,
                    size_t offset);
  // A handle PrepareReply made passthrough has been released (its RELEASE, or
  // its reply failed).
  void Released(uint64_t ino) { backing_.Release(ino); }
  // Inodes with a registered backing id now.
  size_t registered() const { return backing_.size(); }

 private:
  void TurnOff(const Status& why);

  const PassthroughMode requested_;
  PassthroughMode mode_;  // set by INIT's handler, before any open (asked_ orders it)
  const GrantFunction grant_;
  bool ignore_offer_ = false;  // set before serving, read by INIT's handler
  BackingFiles backing_;
  // Atomics, not a lock: every open reads them, and each flag changes once.
  std::atomic<bool> asked_{false};  // INIT asked for passthrough
  std::atomic<bool> active_{false};
  std::atomic<bool> logged_loop_{false};
};

}  // namespace tierfs
