// libfuse3 low-level handlers: one shim per operation (see fuse_ops.h).
//
// Why one file of about 700 lines: each shim is a few lines of unpacking and one
// reply, and the operations table at the end names them all; split, the table
// would point into half a dozen files for no gain in reading.
#include "fs/fuse/fuse_ops.h"

#include <fcntl.h>
#include <linux/fuse.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "fs/core/file_system.h"
#include "fs/fuse/kernel_order.h"
#include "fs/fuse/passthrough.h"
#include "fs/fuse/receive_buffer.h"
#include "fs/fuse/serving_request.h"
#include "fs/fuse/uring_transport.h"

namespace tierfs {
namespace {

FuseContext& Ctx(fuse_req_t req) { return *static_cast<FuseContext*>(fuse_req_userdata(req)); }
FileSystem& Fs(fuse_req_t req) { return *Ctx(req).fs; }

// Counts one request in the daemon's metrics (fs/core/daemon_metrics.h) when the
// handler returns, with its latency while an exporter runs. Touches nothing of
// `req` after construction: the reply may have freed it.
class RequestTimer {
 public:
  RequestTimer(fuse_req_t req, FuseOp op)
      : metrics_(Fs(req).metrics()), op_(op), timed_(metrics_.timing()) {
    if (timed_) start_ = std::chrono::steady_clock::now();
  }
  ~RequestTimer() {
    const double seconds =
        timed_ ? std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count()
               : -1;
    metrics_.RecordRequest(op_, seconds);
  }
  RequestTimer(const RequestTimer&) = delete;
  RequestTimer& operator=(const RequestTimer&) = delete;

 private:
  DaemonMetrics& metrics_;
  const FuseOp op_;
  const bool timed_;
  std::chrono::steady_clock::time_point start_;
};

Caller CallerOf(fuse_req_t req) {
  const fuse_ctx* c = fuse_req_ctx(req);
  return Caller{c->uid, c->gid, c->pid, {}};
}

// The caller with its supplementary groups (read from /proc by libfuse: only
// where a rule needs them).
Caller CallerWithGroups(fuse_req_t req) {
  Caller caller = CallerOf(req);
  std::vector<gid_t> groups(64);
  int n = fuse_req_getgroups(req, static_cast<int>(groups.size()), groups.data());
  if (n > static_cast<int>(groups.size())) {
    groups.resize(static_cast<size_t>(n));
    n = fuse_req_getgroups(req, n, groups.data());
  }
  if (n > 0) {
    groups.resize(std::min(static_cast<size_t>(n), groups.size()));
    caller.groups = std::move(groups);
  }
  return caller;
}

// The handle of a request, for the length of the expression it appears in
// (fs/fuse/kernel_order.h); Released() for the call that deletes it.
HandleUse<FileHandle> Handle(fuse_file_info* fi) {
  return HandleUse<FileHandle>(reinterpret_cast<FileHandle*>(fi->fh));
}
// The handle a request on an open file or directory names, for the whole
// handler (the reply included): the one its OPEN, CREATE or OPENDIR returned
// (fi->fh), in use for the request (HandleUse), or, in no-open mode (fi->fh 0:
// FuseContext::no_open), the one `fallback` returns, released when its last
// user lets go. A request that cannot have one (the inode is gone, its volume
// offline) answers with status().
template <typename T>
class RequestHandle {
 public:
  template <typename Fallback>  // () -> Result<std::shared_ptr<T>>
  RequestHandle(fuse_file_info* fi, Fallback&& fallback) {
    if (fi->fh != 0) {
      given_.emplace(reinterpret_cast<T*>(fi->fh));
      return;
    }
    Result<std::shared_ptr<T>> made = fallback();
    if (made.ok()) {
      made_ = std::move(*made);
    } else {
      status_ = made.status();
    }
  }
  RequestHandle(const RequestHandle&) = delete;
  RequestHandle& operator=(const RequestHandle&) = delete;
  const Status& status() const { return status_; }
  operator T*() const { return given_ ? static_cast<T*>(*given_) : made_.get(); }  // NOLINT

 private:
  std::optional<HandleUse<T>> given_;
  std::shared_ptr<T> made_;
  Status status_;
};

// A regular file's: in no-open mode the inode's handle from FileSystem::KernelOpen.
class FileOf : public RequestHandle<FileHandle> {
 public:
  FileOf(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi)
      : RequestHandle(fi, [&] { return Fs(req).KernelOpen(ino); }) {}
};

// A directory's (READDIR, READDIRPLUS): in no-opendir mode one made for this
// request alone.
class DirOf : public RequestHandle<DirHandle> {
 public:
  DirOf(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi)
      : RequestHandle(fi, [&]() -> Result<std::shared_ptr<DirHandle>> {
          FileSystem* fs = &Fs(req);
          auto made = fs->OpenDir(ino);
          if (!made.ok()) return made.status();
          return std::shared_ptr<DirHandle>(*made, [fs](DirHandle* dh) { fs->ReleaseDir(dh); });
        }) {}
};

template <typename T>
T* Released(fuse_file_info* fi) {
  T* handle = reinterpret_cast<T*>(fi->fh);
  AcquireHandle(handle);
  return handle;
}

void ToStat(fuse_req_t req, const meta::Inode& a, struct stat* st) { Fs(req).FillStat(a, st); }

void FillEntry(fuse_req_t req, const meta::Inode& a, fuse_entry_param* e) {
  std::memset(e, 0, sizeof *e);
  e->ino = a.ino;
  e->generation = a.generation;
  ToStat(req, a, &e->attr);
  e->attr_timeout = Ctx(req).attr_timeout;
  e->entry_timeout = Ctx(req).entry_timeout;
}

// Replies with an entry the FileSystem call counted as a kernel lookup. If the
// reply cannot be delivered (the request was interrupted), the kernel never learns
// of it and will never forget it: the lookup is dropped here instead.
void ReplyEntry(fuse_req_t req, const Result<meta::Inode>& r) {
  if (!r.ok()) {
    fuse_reply_err(req, r.status().code());
    return;
  }
  fuse_entry_param e;
  FillEntry(req, *r, &e);
  FileSystem& fs = Fs(req);  // req is gone once replied
  if (fuse_reply_entry(req, &e) != 0) fs.Forget(r->ino, 1);
}

void ReplyAttr(fuse_req_t req, const Result<meta::Inode>& r) {
  if (!r.ok()) {
    fuse_reply_err(req, r.status().code());
    return;
  }
  struct stat st;
  ToStat(req, *r, &st);
  fuse_reply_attr(req, &st, Ctx(req).attr_timeout);
}

void ReplyStatus(fuse_req_t req, const Status& s) { fuse_reply_err(req, s.code()); }

void OpInit(void* userdata, fuse_conn_info* conn) {
  // Ask only for what the running kernel offers (Debian's libfuse 3.14).
  if (conn->capable & FUSE_CAP_READDIRPLUS) conn->want |= FUSE_CAP_READDIRPLUS;
  if (conn->capable & FUSE_CAP_ASYNC_READ) conn->want |= FUSE_CAP_ASYNC_READ;
  FuseContext* ctx = static_cast<FuseContext*>(userdata);
  // Every request then fits a worker's ReceiveBuffer (libfuse 3.14's default too).
  conn->max_write = std::min<unsigned>(conn->max_write, kMaxWriteBytes);
  // Passthrough opens exclude the writeback cache (the kernel turns passthrough
  // off beside it) and no-open (passthrough is given in an OPEN reply).
  if (ctx->passthrough != nullptr && ctx->passthrough->DecideAtInit(ctx->fs->metrics())) {
    ctx->writeback_cache = false;
    ctx->no_open = false;
  }
  // A symlink never changes once made: the kernel may cache its target.
  if (conn->capable & FUSE_CAP_CACHE_SYMLINKS) conn->want |= FUSE_CAP_CACHE_SYMLINKS;
  // Writeback cache unless --writeback_cache=false (on by default): the kernel then keeps
  // size and times of written files itself and sends dirty pages in batches, so
  // heat counts the bytes that reach a volume, and a write error (ENOSPC when no
  // volume has room) shows at fsync or close rather than at write(2). Without it
  // the daemon sees every write. Locks are left to the kernel (single host): fcntl
  // and flock locks conflict between processes exactly as on a local file system.
  if (ctx->writeback_cache && (conn->capable & FUSE_CAP_WRITEBACK_CACHE)) {
    conn->want |= FUSE_CAP_WRITEBACK_CACHE;
  } else {
    conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
    ctx->writeback_cache = false;  // what the handlers below go by: what the kernel does
  }
  ctx->fs->SetKernelKeepsWriteTimes(ctx->writeback_cache);
  conn->want &= ~(FUSE_CAP_POSIX_LOCKS | FUSE_CAP_FLOCK_LOCKS);
  // Not the first HANDLE_KILLPRIV (libfuse's default), under which the daemon would
  // clear setuid/setgid on every write, truncate and chown without knowing whether
  // the caller has CAP_FSETID. The session's custom I/O asks for its second version
  // instead, whose requests carry the kernel's verdict (fs/fuse/serving_request.h).
  conn->want &= ~FUSE_CAP_HANDLE_KILLPRIV;
  // open(O_TRUNC) becomes open + setattr(size 0, mtime now) from the kernel's
  // do_truncate, which also clears setuid/setgid for an unprivileged caller; with
  // atomic O_TRUNC the kernel skips that setattr and the kill of the bits with it.
  conn->want &= ~FUSE_CAP_ATOMIC_O_TRUNC;
  // tierfs is the only writer of its files and relocation never changes bytes, so
  // a new mtime (our own write) is no reason to drop the page cache.
  conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
  // No-open (kernel 4.19 and later): nothing to ask for, the first OPEN's ENOSYS
  // turns it on. An older kernel would fail that open instead.
  // The same for directories (Linux 5.1 and later): both or neither.
  if ((conn->capable & FUSE_CAP_NO_OPEN_SUPPORT) == 0 ||
      (conn->capable & FUSE_CAP_NO_OPENDIR_SUPPORT) == 0) {
    ctx->no_open = false;
  }
}

void OpLookup(fuse_req_t req, fuse_ino_t parent, const char* name) {
  RequestTimer timer(req, FuseOp::kLookup);
  auto r = Fs(req).Lookup(parent, name);
  if (!r.ok() && r.status().code() == ENOENT) {
    // A negative entry the kernel may cache: tierfs is the only writer of its namespace.
    fuse_entry_param e;
    std::memset(&e, 0, sizeof e);
    e.entry_timeout = Ctx(req).entry_timeout;
    fuse_reply_entry(req, &e);
    return;
  }
  ReplyEntry(req, r);
}

void OpForget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup) {
  RequestTimer timer(req, FuseOp::kForget);
  Fs(req).Forget(ino, nlookup);
  fuse_reply_none(req);
}

void OpForgetMulti(fuse_req_t req, size_t count, fuse_forget_data* forgets) {
  RequestTimer timer(req, FuseOp::kForget);
  for (size_t i = 0; i < count; ++i) Fs(req).Forget(forgets[i].ino, forgets[i].nlookup);
  fuse_reply_none(req);
}

void OpGetattr(fuse_req_t req, fuse_ino_t ino, fuse_file_info*) {
  RequestTimer timer(req, FuseOp::kGetattr);
  ReplyAttr(req, Fs(req).GetAttr(ino));
}

void OpSetattr(fuse_req_t req, fuse_ino_t ino, struct stat* attr, int to_set,
               fuse_file_info* fi) {
  RequestTimer timer(req, FuseOp::kSetattr);
  // The caller (with its groups) where setgid without group-execute may have to go
  // (DropsSetgidWithoutGroupExec): a size, owner or mode change, and a setattr
  // that asks for nothing (or only ctime: chown(-1, -1)). The empty one is how the
  // kernel's file_remove_privs reaches FUSE when a write by a non-member must kill
  // the bit (fuse_setattr keeps only the older rule, setgid with group-execute).
  const bool empty = (to_set & ~FUSE_SET_ATTR_CTIME) == 0;
  std::optional<Caller> caller;
  if (((to_set & (FUSE_SET_ATTR_SIZE | FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID |
                  FUSE_SET_ATTR_MODE)) != 0 ||
       empty) &&
      fuse_req_ctx(req)->uid != 0) {
    caller = CallerWithGroups(req);
  }
  const Caller* who = caller ? &*caller : nullptr;
  // FUSE_HANDLE_KILLPRIV_V2: a truncate by a caller without CAP_FSETID, or a chown,
  // clears setuid/setgid here (the kernel leaves it to the daemon). So does a
  // chown(-1, -1) of a non-directory, as on ext4: the kernel drops its kill from
  // the request without a mark (fuse_setattr marks only a chown that names an
  // owner), so it arrives asking for nothing. (Without KILLPRIV_V2 the kernel
  // turns a kill into a mode change, and a request that asks for nothing never
  // finds setuid, or setgid with group-execute, to clear.)
  if (empty || ServingRequestKillsSuidgid(FUSE_SETATTR, ino)) {
    to_set |= FUSE_SET_ATTR_KILL_SUID | FUSE_SET_ATTR_KILL_SGID;
  }
  // The handle's use ends before the reply (fs/fuse/kernel_order.h).
  auto r = fi != nullptr ? Fs(req).SetAttr(ino, *attr, to_set, Handle(fi), who)
                         : Fs(req).SetAttr(ino, *attr, to_set, nullptr, who);
  ReplyAttr(req, r);
}

void OpReadlink(fuse_req_t req, fuse_ino_t ino) {
  RequestTimer timer(req, FuseOp::kReadlink);
  auto r = Fs(req).ReadLink(ino);
  if (!r.ok()) return ReplyStatus(req, r.status());
  fuse_reply_readlink(req, r->c_str());
}

void OpMknod(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode, dev_t rdev) {
  RequestTimer timer(req, FuseOp::kMknod);
  ReplyEntry(req, Fs(req).MakeNode(CallerOf(req), parent, name, mode, rdev, {}));
}

void OpMkdir(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode) {
  RequestTimer timer(req, FuseOp::kMkdir);
  ReplyEntry(req, Fs(req).MakeNode(CallerOf(req), parent, name, (mode & 07777) | S_IFDIR, 0, {}));
}

void OpSymlink(fuse_req_t req, const char* target, fuse_ino_t parent, const char* name) {
  RequestTimer timer(req, FuseOp::kSymlink);
  ReplyEntry(req, Fs(req).MakeNode(CallerOf(req), parent, name, S_IFLNK | 0777, 0, target));
}

void OpUnlink(fuse_req_t req, fuse_ino_t parent, const char* name) {
  RequestTimer timer(req, FuseOp::kUnlink);
  ReplyStatus(req, Fs(req).Unlink(parent, name));
}

void OpRmdir(fuse_req_t req, fuse_ino_t parent, const char* name) {
  RequestTimer timer(req, FuseOp::kRmdir);
  ReplyStatus(req, Fs(req).Rmdir(parent, name));
}

void OpRename(fuse_req_t req, fuse_ino_t parent, const char* name, fuse_ino_t newparent,
              const char* newname, unsigned int flags) {
  RequestTimer timer(req, FuseOp::kRename);
  ReplyStatus(req, Fs(req).Rename(parent, name, newparent, newname, flags));
}

void OpLink(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char* newname) {
  RequestTimer timer(req, FuseOp::kLink);
  ReplyEntry(req, Fs(req).Link(ino, newparent, newname));
}

void SetOpenFlags(fuse_file_info* fi, FileHandle* fh) {
  fi->fh = reinterpret_cast<uint64_t>(fh);
  // Relocation never changes a file's bytes, so the page cache stays valid across
  // opens; a read served from it costs no device time and earns no heat. Off only
  // for an open whose reads must move atime (file_handle.h).
  fi->keep_cache = fh->keep_cache ? 1 : 0;
  // O_DIRECT passes through: the kernel sends such reads and writes to the daemon
  // without the page cache, and they reach the object at once.
  ReleaseHandle(fh);  // handed to the kernel with the reply: no use of it after this
}

void OpCreate(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode,
              fuse_file_info* fi) {
  RequestTimer timer(req, FuseOp::kCreate);
  // No-open mode: the kernel falls back to MKNOD for this and every later
  // create, and opens the new file without asking, so a create is one request
  // instead of a CREATE and a RELEASE (which kernels after 6.1 still send for
  // a created file). Its object is made at the first request that needs it.
  if (Ctx(req).no_open) return (void)fuse_reply_err(req, ENOSYS);
  auto r = Fs(req).Create(CallerOf(req), parent, name, mode, fi->flags);
  if (!r.ok()) return ReplyStatus(req, r.status());
  fuse_entry_param e;
  FillEntry(req, r->first, &e);
  PassthroughOpens* passthrough = Ctx(req).passthrough;
  // The reply's fuse_open_out follows its fuse_entry_out.
  const bool passed = passthrough != nullptr &&
                      passthrough->PrepareReply(Fs(req), r->first.ino, r->second, fi,
                                                sizeof(fuse_entry_out));
  SetOpenFlags(fi, r->second);
  FileSystem& fs = Fs(req);  // req is gone once replied
  if (fuse_reply_create(req, &e, fi) != 0) {
    // Interrupted: the kernel never saw the entry nor the open, so it will neither
    // forget nor release them. Undo both (the file itself stays, as after a crash).
    if (passed) passthrough->Released(r->first.ino);  // before the handle, as OpRelease
    fs.Release(r->second);
    fs.Forget(r->first.ino, 1);
  }
}

void OpOpen(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  RequestTimer timer(req, FuseOp::kOpen);
  // No-open mode: this open succeeds without a handle, and the kernel sends no
  // more OPEN (nor RELEASE) for regular files on this connection.
  if (Ctx(req).no_open) return (void)fuse_reply_err(req, ENOSYS);
  auto r = Fs(req).Open(ino, fi->flags);
  if (!r.ok()) return ReplyStatus(req, r.status());
  // An O_TRUNC open by a caller without CAP_FSETID (FUSE_HANDLE_KILLPRIV_V2).
  bool killed = false;
  if (ServingRequestKillsSuidgid(FUSE_OPEN, ino)) {
    auto k = Fs(req).KillSuidSgid(ino, *r);
    if (!k.ok()) {
      Fs(req).Release(*r);
      return ReplyStatus(req, k.status());
    }
    killed = *k;
  }
  PassthroughOpens* passthrough = Ctx(req).passthrough;
  const bool passed =
      passthrough != nullptr && passthrough->PrepareReply(Fs(req), ino, *r, fi, /*offset=*/0);
  // The kernel drops its cached atime after every read it sends; an open that
  // moved atime for its reads must do the same (offset < 0: attributes only, no
  // lock the kernel holds for this open is taken). So must one that changed the mode.
  if ((*r)->moved_atime || killed) {
    if (fuse_session* se = Ctx(req).session) fuse_lowlevel_notify_inval_inode(se, ino, -1, 0);
  }
  SetOpenFlags(fi, *r);
  FileSystem& fs = Fs(req);
  if (fuse_reply_open(req, fi) != 0) {
    if (passed) passthrough->Released(ino);  // before the handle, as OpRelease
    fs.Release(*r);
  }
}

// A per-thread read buffer that grows to the largest request (max_read, 1 MiB at
// most with libfuse 3.14) and is never zero-filled: pread overwrites what is sent.
char* ReadBuffer(size_t size) {
  thread_local std::unique_ptr<char[]> buf;
  thread_local size_t capacity = 0;
  if (capacity < size) {
    buf.reset(new char[size]);
    capacity = size;
  }
  return buf.get();
}

void OpRead(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info* fi) {
  RequestTimer timer(req, FuseOp::kRead);
  // Over io_uring, straight into the ring entry the kernel copies the reply from.
  char* buf = UringReplyBuffer(size);
  if (buf == nullptr) buf = ReadBuffer(size);
  FileOf file(req, ino, fi);
  if (!file.status().ok()) return ReplyStatus(req, file.status());
  // The open file's flags as they are now (fcntl may have set O_NOATIME since).
  auto r = Fs(req).Read(file, buf, size, off, (fi->flags & O_NOATIME) != 0);
  if (!r.ok()) return ReplyStatus(req, r.status());
  fuse_reply_buf(req, buf, *r);
}

// WRITE, with its bytes where the request was received (page-aligned in the
// receive buffer when the transport keeps them so: FileSystem::DirectWriteFor).
void OpWrite(fuse_req_t req, fuse_ino_t ino, const char* buf, size_t size, off_t off,
             fuse_file_info* fi) {
  RequestTimer timer(req, FuseOp::kWrite);
  FileOf file(req, ino, fi);
  if (!file.status().ok()) return ReplyStatus(req, file.status());
  // FUSE_HANDLE_KILLPRIV_V2: a write by a caller without CAP_FSETID clears
  // setuid/setgid first, as the VFS does before it writes. The kernel keeps the
  // mode it has cached (only size and times are refreshed after a write).
  if (ServingRequestKillsSuidgid(FUSE_WRITE, ino)) {
    auto killed = Fs(req).KillSuidSgid(ino, file);
    if (!killed.ok()) return ReplyStatus(req, killed.status());
    if (*killed) {
      if (fuse_session* se = Ctx(req).session) fuse_lowlevel_notify_inval_inode(se, ino, -1, 0);
    }
  }
  bool setgid_check = false;
  auto r = Fs(req).Write(file, buf, size, off, &setgid_check);
  if (!r.ok()) return ReplyStatus(req, r.status());
  // With the writeback cache the kernel clears setuid/setgid at write(2) with the
  // writer's credentials, and writes reach the daemon later without a caller.
  if (setgid_check && !Ctx(req).writeback_cache && fuse_req_ctx(req)->uid != 0) {
    Fs(req).DropSetgidAfterWrite(file, CallerWithGroups(req));
  }
  fuse_reply_write(req, *r);
}

void OpFlush(fuse_req_t req, fuse_ino_t, fuse_file_info*) {
  RequestTimer timer(req, FuseOp::kFlush);
  // ENOSYS makes the kernel stop sending FLUSH at all: one request less per
  // close(2), a third of what opening, reading from the page cache and closing a
  // file cost. Nothing is lost: the kernel writes a file's dirty pages and times
  // back before it would send FLUSH (and close(2) reports their errors), and
  // RELEASE, sent at once after the last close, writes the inode back
  // (FileSystem::Release).
  fuse_reply_err(req, ENOSYS);
}

void OpRelease(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  RequestTimer timer(req, FuseOp::kRelease);
  // Handle 0: an open the daemon never saw (no-open mode sends no RELEASE for
  // those, but a RELEASE of handle 0 must never reach Release).
  if (fi->fh == 0) return ReplyStatus(req, Status::Ok());
  FileHandle* fh = Released<FileHandle>(fi);
  const bool passed = fh->passthrough;
  // The backing id before the handle: while the handle counts among the
  // inode's passthrough opens no relocation commits, so the id is never left
  // registered for an object the file no longer has (an open after the commit
  // would be given it). An open racing this one registers the object again.
  if (passed) Ctx(req).passthrough->Released(ino);
  // Test seam: a test holds a RELEASE here, between its two steps.
  if (passed) Fs(req).volumes().io().ReachPoint("passthrough-release");
  Status st = Fs(req).Release(fh);
  ReplyStatus(req, st);
}

void OpFsync(fuse_req_t req, fuse_ino_t ino, int datasync, fuse_file_info* fi) {
  RequestTimer timer(req, FuseOp::kFsync);
  FileOf file(req, ino, fi);
  if (!file.status().ok()) return ReplyStatus(req, file.status());
  Status st = Fs(req).Fsync(file, datasync != 0);
  // With the writeback cache the kernel trusts its own size and times and drops
  // nothing after writeback, so its st_blocks stays what it was before the data
  // arrived: mark the attributes stale when the allocation changed (offset < 0:
  // never the cached pages; no inode lock is taken, so this is safe while the
  // kernel waits for this reply).
  if (st.ok() && Ctx(req).writeback_cache && Fs(req).BlocksChangedSinceFsync(file)) {
    if (fuse_session* se = Ctx(req).session) fuse_lowlevel_notify_inval_inode(se, ino, -1, 0);
  }
  ReplyStatus(req, st);
}

void OpFallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset, off_t length,
                 fuse_file_info* fi) {
  RequestTimer timer(req, FuseOp::kFallocate);
  FileOf file(req, ino, fi);
  if (!file.status().ok()) return ReplyStatus(req, file.status());
  Status st = Fs(req).Fallocate(file, mode, offset, length);
  ReplyStatus(req, st);
}

void OpLseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence, fuse_file_info* fi) {
  RequestTimer timer(req, FuseOp::kLseek);
  // The kernel asks only for SEEK_DATA and SEEK_HOLE. With the writeback cache it
  // does not write dirty pages back first, so the object may still lack data the
  // file has: an answer from it could send cp or tar past real bytes as a hole.
  // ENOSYS makes the kernel answer from its own size for the whole connection
  // (everything before the end is data), never wrong, only less sparse.
  if (Ctx(req).writeback_cache) return (void)fuse_reply_err(req, ENOSYS);
  FileOf file(req, ino, fi);
  if (!file.status().ok()) return ReplyStatus(req, file.status());
  auto r = Fs(req).Lseek(file, off, whence);
  if (!r.ok()) return ReplyStatus(req, r.status());
  fuse_reply_lseek(req, *r);
}

void OpCopyFileRange(fuse_req_t req, fuse_ino_t ino_in, off_t off_in, fuse_file_info* fi_in,
                     fuse_ino_t ino_out, off_t off_out, fuse_file_info* fi_out, size_t len,
                     int flags) {
  RequestTimer timer(req, FuseOp::kCopyFileRange);
  FileOf in(req, ino_in, fi_in);
  if (!in.status().ok()) return ReplyStatus(req, in.status());
  FileOf out(req, ino_out, fi_out);
  if (!out.status().ok()) return ReplyStatus(req, out.status());
  auto r = Fs(req).CopyFileRange(in, off_in, out, off_out, len, static_cast<unsigned int>(flags),
                                 (fi_in->flags & O_NOATIME) != 0);
  if (!r.ok()) return ReplyStatus(req, r.status());
  // The kernel refreshes the destination's attributes itself but not the source's,
  // whose atime the copy may have moved (relatime): tell it, before the caller can
  // stat (an offset < 0 invalidates the attributes only, never cached pages).
  if (fuse_session* se = Ctx(req).session) fuse_lowlevel_notify_inval_inode(se, ino_in, -1, 0);
  fuse_reply_write(req, *r);
}

void OpOpendir(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  RequestTimer timer(req, FuseOp::kOpendir);
  // No-opendir (with no-open): this opendir succeeds without a handle, and the
  // kernel sends no more OPENDIR or RELEASEDIR, and keeps listings it read
  // (FOPEN_CACHE_DIR) until the directory changes.
  if (Ctx(req).no_open) return (void)fuse_reply_err(req, ENOSYS);
  auto r = Fs(req).OpenDir(ino);
  if (!r.ok()) return ReplyStatus(req, r.status());
  fi->fh = reinterpret_cast<uint64_t>(*r);
  ReleaseHandle(*r);  // handed to the kernel with the reply
  fi->cache_readdir = 0;
  FileSystem& fs = Fs(req);
  if (fuse_reply_open(req, fi) != 0) fs.ReleaseDir(*r);
}

void ReadDirCommon(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info* fi,
                   bool plus) {
  std::vector<char> buf(size);
  size_t used = 0;
  std::vector<uint64_t> looked_up;  // readdirplus entries counted as kernel lookups
  FileSystem& fs = Fs(req);
  DirOf dir(req, ino, fi);
  if (!dir.status().ok()) return ReplyStatus(req, dir.status());
  // The most entries `size` bytes can hold: a dirent is 24 bytes and a
  // direntplus 152 (fuse_entry_out first) before the name, padded to 8 bytes.
  const size_t room = size / (plus ? 160 : 32) + 1;
  Status st = fs.ReadDir(
      dir, off, plus, room, [&](const std::string& name, const meta::Inode& a, off_t next) {
        size_t n;
        if (plus) {
          fuse_entry_param e;
          FillEntry(req, a, &e);
          n = fuse_add_direntry_plus(req, buf.data() + used, size - used, name.c_str(), &e, next);
        } else {
          struct stat st;
          std::memset(&st, 0, sizeof st);
          st.st_ino = a.ino;
          st.st_mode = a.mode;
          n = fuse_add_direntry(req, buf.data() + used, size - used, name.c_str(), &st, next);
        }
        if (n > size - used) return false;  // did not fit: stop before counting it
        used += n;
        // The kernel takes no lookup for "." and ".." (fuse_direntplus_link).
        if (plus && name != "." && name != "..") looked_up.push_back(a.ino);
        return true;
      });
  if (!st.ok() && used == 0) return ReplyStatus(req, st);
  if (fuse_reply_buf(req, buf.data(), used) != 0) {
    for (uint64_t ino : looked_up) fs.Forget(ino, 1);  // never delivered (see ReplyEntry)
  }
}

void OpReaddir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info* fi) {
  RequestTimer timer(req, FuseOp::kReaddir);
  ReadDirCommon(req, ino, size, off, fi, false);
}

void OpReaddirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info* fi) {
  RequestTimer timer(req, FuseOp::kReaddirplus);
  ReadDirCommon(req, ino, size, off, fi, true);
}

void OpReleasedir(fuse_req_t req, fuse_ino_t, fuse_file_info* fi) {
  RequestTimer timer(req, FuseOp::kReleasedir);
  if (fi->fh != 0) Fs(req).ReleaseDir(Released<DirHandle>(fi));
  fuse_reply_err(req, 0);
}

void OpFsyncdir(fuse_req_t req, fuse_ino_t, int, fuse_file_info*) {
  RequestTimer timer(req, FuseOp::kFsyncdir);
  // Commits the open commit group: every namespace change acknowledged so far
  // (this directory's and all others') becomes durable.
  ReplyStatus(req, Fs(req).SyncMetadata());
}

void OpStatfs(fuse_req_t req, fuse_ino_t) {
  RequestTimer timer(req, FuseOp::kStatfs);
  auto r = Fs(req).StatFs();
  if (!r.ok()) return ReplyStatus(req, r.status());
  fuse_reply_statfs(req, &*r);
}

void OpSetxattr(fuse_req_t req, fuse_ino_t ino, const char* name, const char* value, size_t size,
                int flags) {
  RequestTimer timer(req, FuseOp::kSetxattr);
  ReplyStatus(req, Fs(req).SetXattr(ino, name, std::string_view(value, size), flags));
}

void OpGetxattr(fuse_req_t req, fuse_ino_t ino, const char* name, size_t size) {
  RequestTimer timer(req, FuseOp::kGetxattr);
  auto r = Fs(req).GetXattr(ino, name);
  if (!r.ok()) return ReplyStatus(req, r.status());
  if (size == 0) return (void)fuse_reply_xattr(req, r->size());
  if (r->size() > size) return (void)fuse_reply_err(req, ERANGE);
  fuse_reply_buf(req, r->data(), r->size());
}

void OpListxattr(fuse_req_t req, fuse_ino_t ino, size_t size) {
  RequestTimer timer(req, FuseOp::kListxattr);
  auto r = Fs(req).ListXattr(ino, /*privileged=*/fuse_req_ctx(req)->uid == 0);
  if (!r.ok()) return ReplyStatus(req, r.status());
  std::string names;
  for (const std::string& n : *r) names.append(n).push_back('\0');
  if (size == 0) return (void)fuse_reply_xattr(req, names.size());
  if (names.size() > size) return (void)fuse_reply_err(req, ERANGE);
  fuse_reply_buf(req, names.data(), names.size());
}

void OpRemovexattr(fuse_req_t req, fuse_ino_t ino, const char* name) {
  RequestTimer timer(req, FuseOp::kRemovexattr);
  ReplyStatus(req, Fs(req).RemoveXattr(ino, name));
}

fuse_lowlevel_ops MakeOperations() {
  fuse_lowlevel_ops ops;
  std::memset(&ops, 0, sizeof ops);
  ops.init = OpInit;
  ops.lookup = OpLookup;
  ops.forget = OpForget;
  ops.forget_multi = OpForgetMulti;
  ops.getattr = OpGetattr;
  ops.setattr = OpSetattr;
  ops.readlink = OpReadlink;
  ops.mknod = OpMknod;
  ops.mkdir = OpMkdir;
  ops.symlink = OpSymlink;
  ops.unlink = OpUnlink;
  ops.rmdir = OpRmdir;
  ops.rename = OpRename;
  ops.link = OpLink;
  ops.create = OpCreate;
  ops.open = OpOpen;
  ops.read = OpRead;
  ops.write = OpWrite;
  ops.flush = OpFlush;
  ops.release = OpRelease;
  ops.fsync = OpFsync;
  ops.fallocate = OpFallocate;
  ops.lseek = OpLseek;
  ops.copy_file_range = OpCopyFileRange;
  ops.opendir = OpOpendir;
  ops.readdir = OpReaddir;
  ops.readdirplus = OpReaddirplus;
  ops.releasedir = OpReleasedir;
  ops.fsyncdir = OpFsyncdir;
  ops.statfs = OpStatfs;
  ops.setxattr = OpSetxattr;
  ops.getxattr = OpGetxattr;
  ops.listxattr = OpListxattr;
  ops.removexattr = OpRemovexattr;
  return ops;
}

}  // namespace

const fuse_lowlevel_ops& TierfsOperations() {
  static const fuse_lowlevel_ops ops = MakeOperations();
  return ops;
}

}  // namespace tierfs
