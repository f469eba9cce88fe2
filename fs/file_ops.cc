// FileSystem: regular-file data operations (create, open, read, write, flush,
// fsync, release, fallocate, lseek).
//
// Every open handle of an inode shares the inode's one backing fd; reads and writes
// hold the inode's io_lock shared, the relocator holds it exclusively while it
// switches the object under that fd (fs/relocator.cc). Data writes never touch the
// database: size and times change in memory and are written back on flush.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "fs/file_system.h"

namespace tierfs {
namespace {
constexpr int64_t kRelatimeNanos = 24 * kSecondsPerHour * kNanosPerSecond;
}  // namespace

Status FileSystem::EnsureFdLocked(InodeState& inode) {
  if (inode.fd >= 0) return Status::Ok();
  // A crash between a create's commit and its object's creation leaves an empty
  // file without an object: an empty file may (re)create it, a non-empty one never.
  auto fd = volumes_->OpenObject(inode.attr.volume_id, inode.attr.ino, inode.attr.generation,
                                 /*create=*/inode.attr.size == 0);
  if (!fd.ok()) return fd.status();
  inode.fd = *fd;
  return Status::Ok();
}

Result<std::pair<meta::Inode, FileHandle*>> FileSystem::Create(const Caller& caller,
                                                               uint64_t parent,
                                                               std::string_view name, mode_t mode,
                                                               int flags) {
  auto attr = MakeNode(caller, parent, name, (mode & 07777) | S_IFREG, 0, {});
  if (!attr.ok()) return attr.status();
  auto fh = Open(attr->ino, flags);
  if (!fh.ok()) {
    // Undo the name so a failed create leaves nothing behind.
    Unlink(parent, name);
    Forget(attr->ino, 1);
    return fh.status();
  }
  return std::pair{*attr, *fh};
}

Result<FileHandle*> FileSystem::Open(uint64_t ino, int flags) {
  InodeRef inode = inodes_.Find(ino);
  if (!inode) {
    auto attr = meta_->GetInode(ino);
    if (!attr.ok()) return attr.status();
    inode = inodes_.GetOrInsert(*attr, 0);
  }
  std::lock_guard lock(inode->mu);
  if (S_ISDIR(inode->attr.mode)) return Status::Error(EISDIR, "open of a directory");
  if (!S_ISREG(inode->attr.mode)) return Status::Error(ENXIO, "open of a special file");
  TIERFS_RETURN_IF_ERROR(EnsureFdLocked(*inode));
  inode->nopen++;
  auto* fh = new FileHandle;
  fh->inode = inode;
  fh->flags = flags;
  // The kernel drops the cached pages when keep_cache is off, so the next read
  // reaches Read() and moves atime as a read on ext4 does (relatime). Once atime is
  // current the cache is kept again.
  fh->keep_cache =
      (flags & O_ACCMODE) == O_WRONLY || (flags & O_NOATIME) != 0 || !AtimeIsStale(inode->attr);
  return fh;
}

bool FileSystem::AtimeIsStale(const meta::Inode& a) const {
  // relatime (the default mount option of ext4): update when atime is not after
  // mtime or ctime, or is more than a day old.
  return a.atime_ns <= a.mtime_ns || a.atime_ns <= a.ctime_ns ||
         clock().NowNanos() - a.atime_ns > kRelatimeNanos;
}

void FileSystem::UpdateAtimeOnRead(InodeState& inode) {
  if (AtimeIsStale(inode.attr)) {
    inode.attr.atime_ns = clock().NowNanos();
    MarkDirty(inode);
  }
}

Result<size_t> FileSystem::Read(FileHandle* fh, char* buf, size_t size, off_t offset) {
  InodeState& inode = *fh->inode;
  std::shared_lock io(inode.io_lock);
  const int fd = inode.Fd();
  ssize_t n = pread(fd, buf, size, offset);
  if (n < 0) return Status::FromErrno("read");
  io_.RecordRead(inode.attr.ino, static_cast<uint64_t>(n));
  if (fh->flags & O_NOATIME) return static_cast<size_t>(n);
  std::lock_guard lock(inode.mu);
  UpdateAtimeOnRead(inode);
  return static_cast<size_t>(n);
}

Result<size_t> FileSystem::Write(FileHandle* fh, const char* buf, size_t size, off_t offset,
                                 bool* setgid_check) {
  InodeState& inode = *fh->inode;
  std::shared_lock io(inode.io_lock);
  inode.write_gen.fetch_add(1);
  const int fd = inode.Fd();
  ssize_t n = pwrite(fd, buf, size, offset);
  if (n < 0) return Status::FromErrno("write");
  io_.RecordWrite(inode.attr.ino, static_cast<uint64_t>(n));
  fh->wrote = true;
  const int64_t now = clock().NowNanos();
  std::lock_guard lock(inode.mu);
  inode.attr.size = std::max<uint64_t>(inode.attr.size, static_cast<uint64_t>(offset + n));
  inode.attr.mtime_ns = now;
  inode.attr.ctime_ns = now;
  MarkDirty(inode);
  inode.data_written = true;
  if (setgid_check != nullptr) {
    *setgid_check = (inode.attr.mode & (S_ISGID | S_IXGRP)) == S_ISGID;
  }
  return static_cast<size_t>(n);
}

void FileSystem::DropSetgidAfterWrite(FileHandle* fh, const Caller& caller) {
  InodeState& inode = *fh->inode;
  std::lock_guard sync(inode.sync_mu);
  meta::Inode values;
  {
    std::lock_guard lock(inode.mu);
    if (!DropsSetgidWithoutGroupExec(caller, inode.attr.mode, inode.attr.gid)) return;
    values = inode.attr;
  }
  values.mode &= ~S_ISGID;
  auto row = meta_->UpdateAttributes(values, meta::kAttrMode, "setattr");
  if (!row.ok()) return;  // the write itself succeeded; the bit stays, as logged
  std::lock_guard lock(inode.mu);
  ApplyRowLocked(inode, *row);
}

Status FileSystem::Flush(FileHandle* fh) { return Writeback(fh->inode, {}); }

Status FileSystem::Fsync(FileHandle* fh, bool datasync) {
  InodeState& inode = *fh->inode;
  {
    std::shared_lock io(inode.io_lock);
    const int fd = inode.Fd();
    if ((datasync ? fdatasync(fd) : fsync(fd)) != 0) return Status::FromErrno("fsync");
  }
  return Writeback(fh->inode, {});
}

Status FileSystem::Release(FileHandle* fh) {
  InodeRef inode = fh->inode;
  delete fh;
  Status st = Writeback(inode, {});
  {
    std::lock_guard lock(inode->mu);
    if (--inode->nopen > 0) return st;
    if (inode->fd >= 0) close(inode->fd);
    inode->fd = -1;
  }
  if (inodes_.MaybeErase(inode)) Reclaim(inode->attr);
  return st;
}

Status FileSystem::Fallocate(FileHandle* fh, int mode, off_t offset, off_t length) {
  InodeState& inode = *fh->inode;
  std::shared_lock io(inode.io_lock);
  inode.write_gen.fetch_add(1);
  const int fd = inode.Fd();
  if (fallocate(fd, mode, offset, length) != 0) return Status::FromErrno("fallocate");
  struct stat st;
  if (fstat(fd, &st) != 0) return Status::FromErrno("fstat");
  const int64_t now = clock().NowNanos();
  std::lock_guard lock(inode.mu);
  inode.attr.size = static_cast<uint64_t>(st.st_size);
  // ext4 stamps mtime and ctime on every fallocate, even a preallocation that
  // leaves size and contents as they were.
  inode.attr.mtime_ns = now;
  inode.attr.ctime_ns = now;
  MarkDirty(inode);
  inode.data_written = true;
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
    ssize_t n = pread(src_fd, buf.data(), std::min(buf.size(), length - done),
                      in_offset + static_cast<off_t>(done));
    if (n < 0) return Status::FromErrno("copy read");
    if (n == 0) break;  // end of the source
    ssize_t w =
        pwrite(dst_fd, buf.data(), static_cast<size_t>(n), out_offset + static_cast<off_t>(done));
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
                                         off_t out_offset, size_t length, unsigned int flags) {
  InodeState& src = *in->inode;
  InodeState& dst = *out->inode;
  // Shared locks only (reader-preferring), so the order of the two cannot deadlock.
  std::shared_lock src_io(src.io_lock);
  std::shared_lock dst_io(dst.io_lock, std::defer_lock);
  if (&src != &dst) dst_io.lock();
  dst.write_gen.fetch_add(1);
  const int src_fd = src.Fd();
  const int dst_fd = dst.Fd();
  loff_t in_pos = in_offset, out_pos = out_offset;
  ssize_t copied = copy_file_range(src_fd, &in_pos, dst_fd, &out_pos, length, flags);
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
  io_.RecordRead(src.attr.ino, n);
  io_.RecordWrite(dst.attr.ino, n);
  if ((in->flags & O_NOATIME) == 0) {
    // The source was read, as by splice on ext4: relatime applies to it.
    std::lock_guard lock(src.mu);
    UpdateAtimeOnRead(src);
  }
  if (n == 0) return n;
  out->wrote = true;
  const int64_t now = clock().NowNanos();
  std::lock_guard lock(dst.mu);
  dst.attr.size = std::max<uint64_t>(dst.attr.size, static_cast<uint64_t>(out_offset) + n);
  dst.attr.mtime_ns = now;
  dst.attr.ctime_ns = now;
  MarkDirty(dst);
  dst.data_written = true;
  return n;
}

Result<off_t> FileSystem::Lseek(FileHandle* fh, off_t offset, int whence) {
  InodeState& inode = *fh->inode;
  std::shared_lock io(inode.io_lock);
  const int fd = inode.Fd();
  // Only the result matters: tierfs never uses the shared fd's position.
  off_t pos = lseek(fd, offset, whence);
  if (pos < 0) return Status::FromErrno("lseek");
  return pos;
}

}  // namespace tierfs
