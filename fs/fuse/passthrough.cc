#include "fs/fuse/passthrough.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/fuse.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>

#include "common/log.h"
#include "fs/core/daemon_metrics.h"
#include "fs/core/file_handle.h"
#include "fs/core/file_system.h"

namespace tierfs {
namespace {

// ---- Linux's include/uapi/linux/fuse.h, protocol 7.40 (Debian 12's header is older).
constexpr uint32_t kFlags2Passthrough = 1u << 5;  // FUSE_PASSTHROUGH, bit 37 of the flags
constexpr uint32_t kOpenPassthrough = 1u << 7;    // FOPEN_PASSTHROUGH
// The open flags the kernel accepts beside FOPEN_PASSTHROUGH (any other fails the open).
constexpr uint32_t kOpenPassthroughMask =
    kOpenPassthrough | FOPEN_DIRECT_IO | FOPEN_PARALLEL_DIRECT_WRITES | FOPEN_NOFLUSH;
// fuse_init_out: max_stack_depth is the u32 after flags2 (unused[0] in older headers).
constexpr size_t kMaxStackDepthOffset = offsetof(fuse_init_out, flags2) + sizeof(uint32_t);
// fuse_open_out: backing_id is the s32 after open_flags (padding in older headers).
constexpr size_t kOpenFlagsOffset = offsetof(fuse_open_out, open_flags);
constexpr size_t kBackingIdOffset = offsetof(fuse_open_out, padding);
static_assert(kMaxStackDepthOffset == 36 && kOpenFlagsOffset == 8 && kBackingIdOffset == 12);

constexpr unsigned long kIocBackingClose = _IOW(229, 2, uint32_t);  // FUSE_DEV_IOC_BACKING_CLOSE

std::atomic<bool> g_offered{false};
std::atomic<bool> g_requested{false};

struct OpenReplyMark {
  bool set = false;
  int32_t backing_id = 0;
  bool direct_io = false;
  size_t offset = 0;
};
thread_local OpenReplyMark t_mark;

}  // namespace

void NotePassthroughOffer(uint32_t flags, uint32_t flags2) {
  // The kernel reads flags2 only from a message whose flags carry FUSE_INIT_EXT.
  g_offered = (flags & FUSE_INIT_EXT) != 0 && (flags2 & kFlags2Passthrough) != 0;
}

bool KernelOffersPassthrough() { return g_offered.load(); }

bool HasCapSysAdmin() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
  if (syscall(SYS_capget, &header, data) != 0) return false;
  return (data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective & CAP_TO_MASK(CAP_SYS_ADMIN)) != 0;
}

void RequestPassthroughInInit() { g_requested = true; }

bool AmendInitReplyForPassthrough(void* out, size_t size) {
  if (!g_requested.load()) return false;
  auto* init = static_cast<fuse_init_out*>(out);
  // The kernel turns passthrough off, silently, beside the writeback cache.
  if (size < kMaxStackDepthOffset + sizeof(uint32_t) || (init->flags & FUSE_WRITEBACK_CACHE)) {
    LogWarning("passthrough: not asked for in INIT ({}); the daemon serves every read and write",
               (init->flags & FUSE_WRITEBACK_CACHE) ? "the reply asks for the writeback cache"
                                                    : "the INIT reply is too short");
    g_requested = false;
    return false;
  }
  init->flags |= FUSE_INIT_EXT;
  init->flags2 |= kFlags2Passthrough;
  // Depth 1: a backing file on an ordinary file system (depth 0); one on a
  // stacked one (overlayfs, FUSE) is refused with ELOOP and served by the daemon.
  const uint32_t max_stack_depth = 1;
  std::memcpy(static_cast<char*>(out) + kMaxStackDepthOffset, &max_stack_depth,
              sizeof max_stack_depth);
  return true;
}

void MarkOpenReplyPassthrough(int32_t backing_id, bool direct_io, size_t offset) {
  t_mark = OpenReplyMark{true, backing_id, direct_io, offset};
}

void ApplyOpenReplyMark(const iovec* iov, int count) {
  if (!t_mark.set) return;
  const auto* header = static_cast<const fuse_out_header*>(iov[0].iov_base);
  // A notification the handler sends before its reply (unique 0) is not it.
  if (header->unique == 0) return;
  const OpenReplyMark mark = t_mark;
  t_mark = OpenReplyMark{};
  if (header->error != 0 || count < 2 ||
      iov[1].iov_len < mark.offset + sizeof(fuse_open_out)) {
    return;
  }
  char* open_out = static_cast<char*>(iov[1].iov_base) + mark.offset;
  uint32_t flags;
  std::memcpy(&flags, open_out + kOpenFlagsOffset, sizeof flags);
  flags = (flags | kOpenPassthrough | (mark.direct_io ? FOPEN_DIRECT_IO : 0)) &
          kOpenPassthroughMask;
  std::memcpy(open_out + kOpenFlagsOffset, &flags, sizeof flags);
  std::memcpy(open_out + kBackingIdOffset, &mark.backing_id, sizeof mark.backing_id);
}

Result<int32_t> BackingFiles::Acquire(uint64_t ino, int object_fd, VolumeIo& io,
                                      bool register_new) {
  MutexLock lock(mu_);
  Entry& entry = entries_[ino];
  if (entry.opens == 0) {
    if (!register_new) {
      entries_.erase(ino);
      return Status::NotFound("inode " + std::to_string(ino) + " has no backing id");
    }
    if (watcher_ != nullptr) {
      // The counter learns the object before the kernel can serve a byte of it.
      struct stat st {};
      if (io.Fstat(object_fd, &st) != 0) {
        const int err = errno;
        entries_.erase(ino);
        return Status::FromErrno(err, "fstat of inode " + std::to_string(ino) + "'s object");
      }
      if (Status watched = watcher_->Watch(ino, st.st_dev, st.st_ino); !watched.ok()) {
        entries_.erase(ino);
        return Status::Error(ENOSPC, watched.message());
      }
      entry.object_dev = st.st_dev;
      entry.object_ino = st.st_ino;
    }
    const int id = io.BackingOpen(device_fd_, object_fd);
    if (id <= 0) {
      const int err = id < 0 ? errno : EIO;
      if (watcher_ != nullptr) watcher_->Forget(entry.object_dev, entry.object_ino);
      entries_.erase(ino);
      return Status::FromErrno(err, "FUSE_DEV_IOC_BACKING_OPEN");
    }
    entry.id = id;
  }
  entry.opens++;
  return entry.id;
}

void BackingFiles::Release(uint64_t ino) {
  MutexLock lock(mu_);
  auto it = entries_.find(ino);
  if (it == entries_.end() || --it->second.opens > 0) return;
  // The last open's RELEASE: the kernel has already let go of the backing file
  // for new opens, and the opens still served keep their own reference.
  uint32_t id = static_cast<uint32_t>(it->second.id);
  if (ioctl(device_fd_, kIocBackingClose, &id) != 0) {
    LogWarning("passthrough: closing backing id {} of inode {}: {}", id, ino,
               std::strerror(errno));
  }
  // Its opens are all released, so no more page-cache traffic on their behalf
  // (a mapping that outlives them keeps the object, not the heat).
  if (watcher_ != nullptr) watcher_->Forget(it->second.object_dev, it->second.object_ino);
  entries_.erase(it);
}

size_t BackingFiles::size() const {
  MutexLock lock(mu_);
  return entries_.size();
}

bool PassthroughOpens::DecideAtInit(DaemonMetrics& metrics) {
  const std::string requested = PassthroughModeName(requested_);
  if (requested_ == PassthroughMode::kOff) {
    metrics.SetPassthroughDecision({requested, "off", "--passthrough=off"});
    return false;
  }
  std::string why;
  if (!KernelOffersPassthrough() || ignore_offer_) {
    why = "the kernel does not offer FUSE_PASSTHROUGH (Linux 6.9 and later, "
          "CONFIG_FUSE_PASSTHROUGH)";
  } else if (!HasCapSysAdmin()) {
    why = "registering backing files needs CAP_SYS_ADMIN (mount as root)";
  }
  Result<Grant> granted = Grant{};
  if (why.empty() && grant_) {
    granted = grant_();
    if (!granted.ok()) why = granted.status().message();
  }
  if (!why.empty()) {
    // auto expects this on many kernels: information, not a warning.
    if (requested_ == PassthroughMode::kAuto) {
      LogInfo("passthrough=auto: off, {}; the daemon serves every read and write", why);
    } else {
      LogWarning("passthrough={}: off, {}; the daemon serves every read and write",
                 requested, why);
    }
    mode_ = PassthroughMode::kOff;
    metrics.SetPassthroughDecision({requested, "off", why});
    return false;
  }
  if (mode_ == PassthroughMode::kAuto) mode_ = PassthroughMode::kReadWrite;
  backing_.set_watcher(granted->watcher);
  metrics.SetPassthroughDecision(
      {requested, PassthroughModeName(mode_),
       granted->hook.empty() ? std::string("granted at INIT")
                             : "granted at INIT; heat counted by the " + granted->hook + " hook"});
  RequestPassthroughInInit();
  asked_.store(true, std::memory_order_release);
  active_.store(true, std::memory_order_release);
  LogInfo("passthrough={}: asked for in INIT, {} opens (the writeback cache and no-open are "
          "off with it)", requested, PassthroughModeName(mode_));
  return true;
}

void PassthroughOpens::TurnOff(const Status& why) {
  if (!active_.exchange(false)) return;  // only the first refusal logs
  LogWarning("passthrough: off for this mount, the kernel refused a backing file ({}); "
             "the daemon serves every read and write", why.message());
}

bool PassthroughOpens::PrepareReply(FileSystem& fs, uint64_t ino, FileHandle* fh,
                                    fuse_file_info* fi, size_t offset) {
  if (!asked_.load(std::memory_order_acquire)) return false;
  // Off since a refused registration (TurnOff): only an open that must join
  // its file's passthrough opens gets it, with their backing id. The kernel
  // fails an open of such a file that is not passthrough (EIO).
  const bool on = active();
  const bool writes = (fi->flags & O_ACCMODE) != O_RDONLY;
  const bool by_mode = mode_ == PassthroughMode::kReadWrite || !writes;
  // kReadOnly: a writer that must join the readers' passthrough keeps its reads
  // and writes on the daemon (FOPEN_DIRECT_IO), so that they are counted and
  // placed as any write (heat; not ENOSPC moves, since the readers hold the
  // object: FileSystem::MoveOnNoSpace); only its mmap reaches the object.
  const bool direct_io = !by_mode;
  const int object_fd = fs.AdmitPassthrough(fh, on && by_mode, direct_io);
  if (object_fd < 0) return false;
  auto id = backing_.Acquire(ino, object_fd, fs.volumes().io(), /*register_new=*/on);
  if (!id.ok()) {
    fs.WithdrawPassthrough(fh);
    // Off, and the file's last passthrough open is released: the daemon's now.
    if (!on) return false;
    if (id.status().code() == ENOSPC) {
      // The heat counter knows too many backing files: this one stays the
      // daemon's (it counts what it serves), passthrough stays on for others.
      LogWarning("passthrough: inode {} served by the daemon: {}", ino, id.status().message());
      return false;
    }
    if (id.status().code() == ELOOP) {
      if (!logged_loop_.exchange(true)) {
        LogWarning("passthrough: inode {}'s volume is a stacked file system (overlayfs or "
                   "FUSE), which the kernel cannot pass through; the daemon serves its files",
                   ino);
      }
    } else {
      TurnOff(id.status());
    }
    return false;
  }
  fi->keep_cache = 0;  // the kernel refuses it beside passthrough
  fi->direct_io = direct_io ? 1 : 0;
  MarkOpenReplyPassthrough(*id, direct_io, offset);
  return true;
}

}  // namespace tierfs
