// FileSystem: regular-file data operations (create, open, read, write, flush,
// fsync, release, fallocate, lseek).
//
// Every open handle of an inode shares the inode's one backing fd; reads and writes
// hold the inode's io_lock shared, the relocator holds it exclusively while it
// switches the object under that fd (fs/core/relocator.cc). Data writes never touch
// the database: size and times change in memory and reach the database with an
// attribute flush (FlushAttributes). Every system call on an object goes through
// the VolumeIo seam (volumes_->io()).
//
// Full volumes (design.md, "Living with full volumes"): a write that meets ENOSPC
// moves its file on to the next volume its CREATE rule allows and completes there.
// Unacknowledged bytes: an object is trimmed to the file's recorded size when it
// is first opened, so bytes a crash left past the end never reappear.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fuse_lowlevel.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "fs/core/file_system.h"
#include "common/log.h"
#include "common/page.h"
#include "fs/core/relocator.h"

namespace tierfs {
namespace {
constexpr int64_t kRelatimeNanos = 24 * kSecondsPerHour * kNanosPerSecond;
// How far the kernel's coarse clock (one tick: 1 to 10 ms) may lag the daemon's.
constexpr int64_t kKernelClockSlackNanos = 10'000'000;
}  // namespace

Result<int> FileSystem::OpenObjectTrimmedLocked(const meta::Inode& attr) {
  // A crash between a create's commit and its object's creation leaves an empty
  // file without an object: an empty file may (re)create it, a non-empty one never.
  auto fd = volumes_->OpenObject(attr.volume_id, attr.ino, attr.generation,
                                 /*create=*/attr.size == 0);
  if (!fd.ok()) return fd.status();
  struct stat st;
  if (volumes_->io().Fstat(*fd, &st) != 0) {
    // Whether unacknowledged bytes lie past the recorded size cannot be told.
    Status st_stat = Status::FromErrno("stat object of inode " + std::to_string(attr.ino));
    volumes_->io().Close(*fd);
    return st_stat;
  }
  if (static_cast<uint64_t>(st.st_size) > attr.size) {
    // No handle is open (the caller holds mu and the inode has no fd), so nothing
    // can be writing: everything past the recorded size is unacknowledged.
    if (volumes_->io().Ftruncate(*fd, static_cast<off_t>(attr.size)) != 0) {
      Status st_trim = Status::FromErrno("trim object of inode " + std::to_string(attr.ino));
      volumes_->io().Close(*fd);
      return st_trim;
    }
    LogWarning("inode {}: dropped {} bytes past its recorded size {} (never acknowledged)",
               attr.ino, st.st_size - static_cast<off_t>(attr.size), attr.size);
  }
  return *fd;
}

Status FileSystem::EnsureFdLocked(InodeState& inode) {
  if (inode.fd >= 0) return Status::Ok();
  // A file on an object volume has no local object: its reads go to the store.
  if (volumes_->IsObjectVolume(inode.attr.volume_id)) return Status::Ok();
  auto fd = OpenObjectTrimmedLocked(inode.attr);
  if (!fd.ok()) return fd.status();
  inode.fd = *fd;
  return Status::Ok();
}

Result<std::pair<meta::Inode, FileHandle*>> FileSystem::Create(const Caller& caller,
                                                               uint64_t parent,
                                                               std::string_view name, mode_t mode,
                                                               int flags) {
  InodeRef opened;
  auto attr = MakeNode(caller, parent, name, (mode & 07777) | S_IFREG, 0, {}, &opened);
  if (!attr.ok()) return attr.status();
  auto fh = OpenHeld(opened, flags, /*created=*/true);
  if (!fh.ok()) {
    // Undo the name so a failed create leaves nothing behind.
    Unlink(parent, name);
    Forget(attr->ino, 1);
    return fh.status();
  }
  return std::pair{*attr, *fh};
}

Result<FileHandle*> FileSystem::Open(uint64_t ino, int flags) {
  auto inode = HoldInode(ino, Hold::kOpen);
  if (!inode.ok()) return inode.status();
  if ((flags & O_ACCMODE) != O_RDONLY) {
    // Written files live on local volumes: a file on the store comes back first.
    Status back = RecallForWrite(*inode, "open for writing");
    if (!back.ok()) {
      ReleaseHold(*inode, Hold::kOpen);
      return back;
    }
  }
  return OpenHeld(*inode, flags, /*created=*/false);
}

Result<FileHandle*> FileSystem::OpenHeld(const InodeRef& inode, int flags, bool created) {
  Status refused;
  {
    MutexLock lock(inode->mu);
    if (S_ISDIR(inode->attr.mode)) {
      refused = Status::Error(EISDIR, "open of a directory");
    } else if (!S_ISREG(inode->attr.mode)) {
      refused = Status::Error(ENXIO, "open of a special file");
    } else {
      refused = EnsureFdLocked(*inode);
    }
  }
  if (!refused.ok()) {
    ReleaseHold(inode, Hold::kOpen);
    return refused;
  }
  MutexLock lock(inode->mu);
  auto* fh = new FileHandle;
  fh->inode = inode;
  fh->flags = flags;
  fh->inode->mu.AssertHeld();  // the lock above: fh->inode is `inode`
  LinkHandleLocked(fh);
  const bool reads = !created && (flags & O_ACCMODE) != O_WRONLY && (flags & O_NOATIME) == 0;
  if (!reads || !AtimeIsStale(inode->attr)) return fh;
  // Only an open for reading alone stands for its reads: an O_RDWR open (a
  // database file, fallocate, an in-place update) is as often only a write.
  if (options_.exact_atime || (flags & O_ACCMODE) != O_RDONLY) {
    // The kernel drops the cached pages when keep_cache is off, so the next read
    // reaches Read() and moves atime as a read on ext4 does (relatime). Once atime
    // is current the cache is kept again.
    fh->keep_cache = false;
  } else {
    // Reads from the kernel's cache never reach the daemon: the open for
    // reading stands for them, under the same relatime rule.
    UpdateAtimeOnRead(*inode);
    fh->moved_atime = true;
  }
  return fh;
}

Result<std::shared_ptr<FileHandle>> FileSystem::KernelOpen(uint64_t ino) {
  return kernel_opens_->Get(ino);
}

bool FileSystem::AtimeIsStale(const meta::Inode& a) const {
  // relatime (the default mount option of ext4): update when atime is not after
  // mtime or ctime, or is more than a day old. Under the writeback cache the
  // kernel stamps the mtime and ctime of written data from its coarse clock,
  // up to a tick behind the daemon's: a write right after a create (or after
  // a read that moved atime) can carry an mtime just before that atime, and
  // must still count as after it.
  return a.atime_ns <= a.mtime_ns + kKernelClockSlackNanos ||
         a.atime_ns <= a.ctime_ns + kKernelClockSlackNanos ||
         clock().NowNanos() - a.atime_ns > kRelatimeNanos;
}

void FileSystem::UpdateAtimeOnRead(InodeState& inode) {
  if (AtimeIsStale(inode.attr)) {
    inode.attr.atime_ns = clock().NowNanos();
    MarkTimesLazilyDirty(inode);
  }
}

Result<size_t> FileSystem::Read(FileHandle* fh, char* buf, size_t size, off_t offset,
                                bool noatime) {
  InodeState& inode = *fh->inode;
  ReaderLock io(inode.io_lock);
  int fd;
  uint32_t volume;
  meta::Inode attr;
  {
    MutexLock lock(inode.mu);
    fd = inode.fd;
    volume = inode.attr.volume_id;
    if (fd < 0) attr = inode.attr;
  }
  ssize_t n;
  if (fd < 0 && volumes_->IsObjectVolume(volume)) {
    fh->inode->io_lock.AssertReaderHeld();  // `io` above: fh->inode is `inode`
    auto got = ReadFromStore(fh, volume, attr, buf, size, offset);
    if (!got.ok()) return got.status();
    n = static_cast<ssize_t>(*got);
  } else {
    n = volumes_->io().Pread(fd, buf, size, offset);
  }
  if (n < 0) return Status::FromErrno("read");
  io_.RecordRead(inode.ino, static_cast<uint64_t>(n));
  metrics_.RecordRead(volume, static_cast<uint64_t>(n));
  if (noatime || (fh->flags & O_NOATIME) != 0) return static_cast<size_t>(n);
  MutexLock lock(inode.mu);
  UpdateAtimeOnRead(inode);
  return static_cast<size_t>(n);
}

FileSystem::DirectWrite FileSystem::DirectWriteFor(InodeState& inode, const char* bytes,
                                                   size_t count, off_t offset) {
  if (!options_.direct_writes || count < kDirectWriteMinBytes ||
      reinterpret_cast<uintptr_t>(bytes) % kPageBytes != 0 ||
      static_cast<uint64_t>(offset) % kPageBytes != 0) {
    return {};
  }
  const size_t whole_pages = count / kPageBytes * kPageBytes;
  int fd;
  {
    MutexLock lock(inode.mu);
    if (inode.direct_refused || inode.fd < 0) return {};
    if (inode.direct_fd >= 0) return {inode.direct_fd, whole_pages};
    fd = inode.fd;
  }
  // Opened outside `mu` (a system call); the io_lock keeps `fd` on this object.
  const int opened = volumes_->io().ReopenDirect(fd);
  const int error = errno;
  uint32_t volume;
  {
    MutexLock lock(inode.mu);
    volume = inode.attr.volume_id;
    if (inode.direct_fd < 0 && !inode.direct_refused) {
      inode.direct_fd = opened;
      inode.direct_refused = opened < 0;
    } else if (opened >= 0) {
      volumes_->io().Close(opened);  // another write opened one first
    }
    if (inode.direct_fd >= 0) return {inode.direct_fd, whole_pages};
  }
  if (opened < 0) {
    // Once per volume: every file of a volume without O_DIRECT would say the same.
    MutexLock lock(direct_refusals_mu_);
    if (std::find(direct_refusals_logged_.begin(), direct_refusals_logged_.end(), volume) ==
        direct_refusals_logged_.end()) {
      direct_refusals_logged_.push_back(volume);
      LogInfo("volume {}: an object refused O_DIRECT ({}, inode {}); its large writes go "
              "through the page cache", volumes_->NameOf(volume), std::strerror(error),
              inode.ino);
    }
  }
  return {};
}

Result<size_t> FileSystem::Write(FileHandle* fh, const char* buf, size_t size, off_t offset,
                                 bool* setgid_check) {
  InodeState& inode = *fh->inode;
  // Bounded: each move goes to another volume, so a file cannot move more often
  // than there are volumes before every one of them has been tried.
  const size_t max_moves = volumes_->volumes().size();
  size_t done = 0;
  size_t moves = 0;
  size_t recalls = 0;
  while (true) {
    uint32_t volume;
    ssize_t n;
    int err = 0;
    DirectWrite direct;
    {
      ReaderLock io(inode.io_lock);
      {
        MutexLock lock(inode.mu);
        volume = inode.attr.volume_id;
      }
      if (volumes_->IsObjectVolume(volume)) {
        n = -1;
        err = EXDEV;  // on the store: recalled below, outside the lock
      } else if (volumes_->RefusesData(volume)) {
        n = -1;
        err = ENOSPC;  // the metadata volume keeps its last room for the database
      } else {
        // Bumped before and after: a relocation whose copy overlaps this pwrite
        // sees the generation move whichever side of its start the write began.
        inode.write_gen.fetch_add(1);
        const off_t at = offset + static_cast<off_t>(done);
        const char* from = buf + done;
        direct = DirectWriteFor(inode, from, size - done, at);
        n = direct.fd >= 0 ? volumes_->io().PwriteDirect(direct.fd, from, direct.count, at)
                           : volumes_->io().Pwrite(inode.Fd(), from, size - done, at);
        err = errno;
        inode.write_gen.fetch_add(1);
      }
      if (n > 0) {
        io_.RecordWrite(inode.ino, static_cast<uint64_t>(n));
        metrics_.RecordWrite(volume, static_cast<uint64_t>(n), direct.fd >= 0);
        done += static_cast<size_t>(n);
        const int64_t now = clock().NowNanos();
        MutexLock lock(inode.mu);
        const uint64_t size_before = inode.attr.size;
        // Before any move below: the relocator copies the recorded size.
        inode.attr.size = std::max<uint64_t>(size_before, static_cast<uint64_t>(offset) + done);
        if (!kernel_keeps_write_times_.load(std::memory_order_relaxed)) {
          inode.attr.mtime_ns = now;  // the kernel's, with the writeback cache
          inode.attr.ctime_ns = now;
        }
        fh->inode->mu.AssertHeld();  // `inode` is *fh->inode
        DataWrittenLocked(*fh, size_before);
      }
    }
    if (done == size || n == 0) break;
    if (n > 0) continue;  // a short write: the rest may fail, or move on
    if (err == EXDEV && recalls++ < 3) {
      Status back = RecallForWrite(fh->inode, "write");
      if (!back.ok()) {
        if (done > 0) break;
        return back;
      }
      continue;
    }
    if (err == EINVAL && direct.fd >= 0) {
      // The object's file system refused this O_DIRECT write: through the page
      // cache from now on (the fd stays open: another write may be using it).
      MutexLock lock(inode.mu);
      inode.direct_refused = true;
      continue;
    }
    if ((err == ENOSPC || err == EDQUOT) && moves < max_moves) {
      if (!volumes_->RefusesData(volume)) volumes_->MarkFull(volume);
      Status moved = MoveOnNoSpace(fh->inode, volume, size - done);
      if (moved.ok()) {
        moves++;
        continue;
      }
      if (done > 0) break;  // report what was written; the next call gets the error
      return moved;
    }
    if (done > 0) break;
    return Status::FromErrno(err, "write");
  }
  if (done > 0) fh->wrote = true;
  if (setgid_check != nullptr) {
    MutexLock lock(inode.mu);
    *setgid_check = (inode.attr.mode & (S_ISGID | S_IXGRP)) == S_ISGID;
  }
  return done;
}

Status FileSystem::MoveOnNoSpace(const InodeRef& inode, uint32_t full_volume,
                                 uint64_t more_bytes) {
  meta::Inode attr;
  bool passthrough;
  {
    MutexLock lock(inode->mu);
    attr = inode->attr;
    passthrough = inode->passthrough_opens > 0;
  }
  if (attr.volume_id != full_volume) return Status::Ok();  // moved by another writer
  if (passthrough) {
    // The kernel holds the object for the file's passthrough opens, and would
    // go on using it after a move (docs/reliability.md, "Full volumes").
    return Status::NoSpace("inode " + std::to_string(attr.ino) + ": volume " +
                           volumes_->NameOf(full_volume) +
                           " is full and the file is open by passthrough: it cannot move");
  }
  // The file's CREATE rule says where it may live, in order; with its present
  // volume excluded, ChooseCreateVolume gives the next one with room.
  policy::CreatePlacement placement;
  if (policy()) {
    auto path = meta_->PathOf(attr.ino);
    // An unlinked file (no path) is placed by the default allocator.
    if (path.ok()) placement = CreatePlacementFor(attr.uid, attr.gid, *path);
  }
  std::vector<policy::VolumeState> space = volumes_->Space(/*fresh=*/true);
  for (policy::VolumeState& v : space) {
    if (v.id == full_volume) v.accepts_data = false;
  }
  const uint64_t needed = attr.size + more_bytes + kCreateHeadroomBytes;
  std::optional<uint32_t> target = policy::ChooseCreateVolume(placement, space, needed);
  if (!target) {
    return Status::NoSpace("inode " + std::to_string(attr.ino) + ": volume " +
                           volumes_->NameOf(full_volume) +
                           " is full and no other volume its placement allows has room for " +
                           std::to_string(needed) + " bytes");
  }
  Relocator relocator(*this);
  auto result =
      relocator.Relocate(attr.ino, *target, Relocator::Mode::kHoldWriters, full_volume);
  if (!result.ok()) return result.status();
  if (result->outcome != "moved") {
    return Status::Error(result->error != 0 ? result->error : EIO,
                         "inode " + std::to_string(attr.ino) + ": moving off full volume " +
                             volumes_->NameOf(full_volume) + ": " + result->outcome);
  }
  LogWarning("inode {} moved from full volume {} to {} ({} bytes)", attr.ino,
             volumes_->NameOf(full_volume), volumes_->NameOf(*target), result->bytes);
  return Status::Ok();
}

Result<bool> FileSystem::KillSuidSgid(uint64_t ino, FileHandle* fh) {
  uint32_t mode = 0;
  if (InodeRef inode = fh != nullptr ? fh->inode : inodes_.Find(ino)) {
    MutexLock lock(inode->mu);
    mode = inode->attr.mode;
  } else {
    auto attr = GetAttr(ino);
    if (!attr.ok()) return attr.status();
    mode = attr->mode;
  }
  if (ModeAfterKillPriv(mode) == mode) return false;
  struct stat none {};
  auto r = SetAttr(ino, none, FUSE_SET_ATTR_KILL_SUID | FUSE_SET_ATTR_KILL_SGID, fh);
  if (!r.ok()) return r.status();
  return true;
}

void FileSystem::DropSetgidAfterWrite(FileHandle* fh, const Caller& caller) {
  InodeState& inode = *fh->inode;
  MutexLock sync(inode.sync_mu);
  meta::Inode values;
  {
    MutexLock lock(inode.mu);
    if (!DropsSetgidWithoutGroupExec(caller, inode.attr.mode, inode.attr.gid)) return;
    values = inode.attr;
  }
  values.mode &= ~S_ISGID;
  auto row = meta_->UpdateAttributes(values, meta::kAttrMode, "setattr");
  if (!row.ok()) return;  // the write itself succeeded; the bit stays, as logged
  MutexLock lock(inode.mu);
  ApplyRow(inode, *row);
}

Status FileSystem::FlushAttributesAtClose(const InodeRef& inode) {
  {
    MutexLock lock(inode->mu);
    // The delayed flush is gone once the file system stops: the handles the
    // kernel never released are released then, and flushed here at once.
    if (inode->dirty && inode->attr.nlink > 0 && delayed_flush_ != nullptr) {
      // Lazy times wait for the periodic flush (MarkTimesLazilyDirty).
      if (inode->lazy_times) return Status::Ok();
      // A size or times a write changed wait for the delayed flush, as in
      // no-open mode: it writes every file due about then in one hold of the
      // database lock, where a flush here took one per small file closed. The
      // entry stays in the inode table while dirty; close promises no
      // durability (fsync does), and what a crash may lose of a closed file is
      // the same as in no-open mode (docs/reliability.md). The object's
      // allocation is taken now, while the daemon still holds it open, for
      // the flush to record (PrepareFlush).
      struct stat st;
      if (S_ISREG(inode->attr.mode) && inode->fd >= 0 &&
          volumes_->io().Fstat(inode->fd, &st) == 0) {
        inode->attr.blocks = static_cast<int64_t>(st.st_blocks);
      }
      delayed_flush_->EnqueueLocked(inode);
      return Status::Ok();
    }
  }
  return FlushAttributes(inode, {});
}

Status FileSystem::Fsync(FileHandle* fh, bool datasync) {
  InodeState& inode = *fh->inode;
  uint64_t size_before;
  uint32_t volume_before;
  uint64_t epoch;
  {
    ReaderLock io(inode.io_lock);
    const int fd = inode.Fd();
    // A file on the store has no local bytes to sync (writes recall it first).
    if (fd >= 0 && volumes_->io().Fsync(fd, datasync) != 0) return Status::FromErrno("fsync");
    MutexLock lock(inode.mu);
    // Passthrough writes reached the object alone: their size is durable only
    // once the database has it too.
    RefreshFromObjectLocked(inode);
    // fdatasync(2) promises the data and what is needed to read it back: an
    // overwrite of a file whose volume and size the database already holds
    // durably is complete once its object is synced. The times stay dirty and
    // reach the database with the next attribute flush (design.md, "Group commit").
    // Checked under io_lock, so no relocation can switch the object between
    // the sync above and this check.
    if (datasync && inode.durable_size == inode.attr.size &&
        inode.durable_volume == inode.attr.volume_id) {
      return Status::Ok();
    }
    size_before = inode.attr.size;
    volume_before = inode.attr.volume_id;
    epoch = inode.layout_epoch;
  }
  TIERFS_RETURN_IF_ERROR(FlushAttributes(fh->inode, {}));
  // The size and the namespace changes before it must survive a crash too.
  TIERFS_RETURN_IF_ERROR(SyncMetadata());
  // Everything flushed before the commit above is durable, so the size
  // and volume seen before the flush are. A size changed since by a write
  // racing this fsync differs from the current one, so the next fdatasync
  // commits; a truncate, fallocate or relocation since moved the epoch, and
  // nothing is recorded.
  MutexLock lock(inode.mu);
  if (inode.layout_epoch == epoch) {
    inode.durable_size = size_before;
    inode.durable_volume = volume_before;
  }
  return Status::Ok();
}

bool FileSystem::BlocksChangedSinceFsync(FileHandle* fh) {
  InodeState& inode = *fh->inode;
  ReaderLock io(inode.io_lock);
  MutexLock lock(inode.mu);
  struct stat st;
  // Unknown: refresh (never stale).
  if (inode.fd < 0 || volumes_->io().Fstat(inode.fd, &st) != 0) return true;
  if (inode.blocks_at_invalidation == static_cast<int64_t>(st.st_blocks)) return false;
  inode.blocks_at_invalidation = static_cast<int64_t>(st.st_blocks);
  return true;
}

Status FileSystem::Release(FileHandle* fh) {
  InodeRef inode = fh->inode;
  {
    MutexLock lock(fh->inode->mu);
    EndPassthroughLocked(*fh);
    UnlinkHandleLocked(fh);
  }
  delete fh;
  Status st = FlushAttributesAtClose(inode);
  ReleaseHold(inode, Hold::kOpen);
  return st;
}

Status FileSystem::Fallocate(FileHandle* fh, int mode, off_t offset, off_t length) {
  InodeState& inode = *fh->inode;
  TIERFS_RETURN_IF_ERROR(RecallForWrite(fh->inode, "fallocate"));
  ReaderLock io(inode.io_lock);
  for (int again = 0; inode.Fd() < 0 && again < 3; ++again) {
    // Uploaded again between the recall and the lock (an enforce): once more.
    io.Unlock();
    TIERFS_RETURN_IF_ERROR(RecallForWrite(fh->inode, "fallocate"));
    io.Lock();
  }
  inode.write_gen.fetch_add(1);
  const int fd = inode.Fd();
  const int rc = volumes_->io().Fallocate(fd, mode, offset, length);
  inode.write_gen.fetch_add(1);
  if (rc != 0) return Status::FromErrno("fallocate");
  struct stat st;
  if (volumes_->io().Fstat(fd, &st) != 0) return Status::FromErrno("fstat");
  const int64_t now = clock().NowNanos();
  MutexLock lock(inode.mu);
  const uint64_t size_before = inode.attr.size;
  inode.attr.size = static_cast<uint64_t>(st.st_size);
  inode.ForgetDurableLayout();  // blocks allocated or freed: commit at fsync
  // ext4 stamps mtime and ctime on every fallocate, even a preallocation that
  // leaves size and contents as they were.
  inode.attr.mtime_ns = now;
  inode.attr.ctime_ns = now;
  fh->inode->mu.AssertHeld();  // `inode` is *fh->inode
  DataWrittenLocked(*fh, size_before);
  return Status::Ok();
}

Result<size_t> FileSystem::CopyByHand(int src_fd, off_t in_offset, int dst_fd, off_t out_offset,
                                      size_t length) {
  // Bounded per call: copy_file_range(2) may copy less than asked, and the kernel
  // calls again for the rest.
  constexpr size_t kChunk = 1 << 20;
  constexpr size_t kMaxPerCall = 64 << 20;
  std::vector<char> buf(std::min(kChunk, std::max<size_t>(length, 1)));
  size_t done = 0;
  length = std::min(length, kMaxPerCall);
  while (done < length) {
    ssize_t n = volumes_->io().Pread(src_fd, buf.data(), std::min(buf.size(), length - done),
                                     in_offset + static_cast<off_t>(done));
    if (n < 0) return Status::FromErrno("copy read");
    if (n == 0) break;  // end of the source
    ssize_t w = volumes_->io().Pwrite(dst_fd, buf.data(), static_cast<size_t>(n),
                                      out_offset + static_cast<off_t>(done));
    if (w < 0) {
      if (done > 0) break;  // report what was copied; the next call gets the error
      return Status::FromErrno("copy write");
    }
    done += static_cast<size_t>(w);
    if (w < n) break;
  }
  return done;
}

Result<size_t> FileSystem::CopyFileRange(FileHandle* in, off_t in_offset, FileHandle* out,
                                         off_t out_offset, size_t length, unsigned int flags,
                                         bool noatime) {
  InodeState& src = *in->inode;
  InodeState& dst = *out->inode;
  TIERFS_RETURN_IF_ERROR(RecallForWrite(out->inode, "write"));
  if (src.Fd() < 0 && volumes_->IsObjectVolume(src.Attributes().volume_id)) {
    // The kernel copies by reads and writes instead (served from the store).
    return Status::Error(EOPNOTSUPP, "copy_file_range from a file on an object volume");
  }
  // Shared locks only (reader-preferring), so the order of the two cannot deadlock.
  ReaderLock src_io(src.io_lock);
  ReaderLock dst_io(dst.io_lock, std::defer_lock);
  if (&src != &dst) dst_io.Lock();
  const int src_fd = src.Fd();
  const int dst_fd = dst.Fd();
  if (src_fd < 0 || dst_fd < 0) {
    // Moved to a store since the checks above (an enforce): reads and writes instead.
    return Status::Error(EOPNOTSUPP, "copy_file_range of a file on an object volume");
  }
  dst.write_gen.fetch_add(1);
  off_t in_pos = in_offset, out_pos = out_offset;
  ssize_t copied = volumes_->io().CopyFileRange(src_fd, &in_pos, dst_fd, &out_pos, length, flags);
  const int copy_errno = errno;
  dst.write_gen.fetch_add(1);
  errno = copy_errno;
  size_t n;
  if (copied < 0 && (errno == EXDEV || errno == EOPNOTSUPP || errno == ENOSYS)) {
    // The two objects are on volumes that cannot copy between them (different file
    // system types): copy here, so the application never sees EXDEV inside one mount.
    auto by_hand = CopyByHand(src_fd, in_offset, dst_fd, out_offset, length);
    if (!by_hand.ok()) return by_hand.status();
    n = *by_hand;
  } else if (copied < 0) {
    return Status::FromErrno("copy_file_range");
  } else {
    n = static_cast<size_t>(copied);
  }
  io_.RecordRead(src.ino, n);
  io_.RecordWrite(dst.ino, n);
  if (!noatime && (in->flags & O_NOATIME) == 0) {
    // The source was read, as by splice on ext4: relatime applies to it.
    MutexLock lock(src.mu);
    UpdateAtimeOnRead(src);
  }
  if (n == 0) return n;
  out->wrote = true;
  const int64_t now = clock().NowNanos();
  MutexLock lock(dst.mu);
  const uint64_t size_before = dst.attr.size;
  dst.attr.size = std::max<uint64_t>(size_before, static_cast<uint64_t>(out_offset) + n);
  dst.attr.mtime_ns = now;
  dst.attr.ctime_ns = now;
  out->inode->mu.AssertHeld();  // `dst` is *out->inode
  DataWrittenLocked(*out, size_before);
  return n;
}

Result<off_t> FileSystem::Lseek(FileHandle* fh, off_t offset, int whence) {
  InodeState& inode = *fh->inode;
  ReaderLock io(inode.io_lock);
  const int fd = inode.Fd();
  if (fd < 0) {
    // On the store: all data, no holes (the kernel handles SEEK_SET/CUR/END).
    const uint64_t size = inode.Attributes().size;
    if (offset < 0 || static_cast<uint64_t>(offset) >= size) {
      return Status::Error(ENXIO, "lseek past the end");
    }
    return whence == SEEK_HOLE ? static_cast<off_t>(size) : offset;
  }
  // Only the result matters: tierfs never uses the shared fd's position.
  off_t pos = lseek(fd, offset, whence);
  if (pos < 0) return Status::FromErrno("lseek");
  return pos;
}

}  // namespace tierfs
