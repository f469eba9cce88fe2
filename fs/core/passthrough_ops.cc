// FileSystem's side of passthrough opens (fs/fuse/passthrough.h): which opens
// the kernel may serve from the object itself, and what the daemon must then
// read back from the object, since the bytes no longer pass through it.
#include <fcntl.h>
#include <sys/stat.h>


#include "common/mutex.h"
#include "common/shared_mutex.h"
#include "fs/core/file_handle.h"
#include "fs/core/file_system.h"

namespace tierfs {
namespace {

int64_t Nanos(const struct timespec& t) { return t.tv_sec * 1'000'000'000LL + t.tv_nsec; }

}  // namespace

int FileSystem::AdmitPassthrough(FileHandle* fh, bool wanted, bool direct_io) {
  InodeState& inode = *fh->inode;
  // Shared, as a write: a relocation's commit (exclusive) either comes first,
  // and the object registered below is the new one, or sees write_gen move and
  // gives up, as the kernel will hold the object it copied from.
  ReaderLock io(inode.io_lock);
  MutexLock lock(inode.mu);
  // This handle is already among the inode's opens (nopen counts it).
  const uint32_t others = inode.nopen - 1;
  const bool must = inode.passthrough_opens > 0;
  const bool can = others == 0 || must;
  if (!can || !(wanted || must) || inode.fd < 0) return -1;
  inode.write_gen.fetch_add(1);
  fh->passthrough = true;
  fh->passthrough_writes = !direct_io && (fh->flags & O_ACCMODE) != O_RDONLY;
  inode.passthrough_opens++;
  // Even with direct_io: its mmap reaches the object.
  if ((fh->flags & O_ACCMODE) != O_RDONLY) {
    MutexLock mappings(writable_mappings_mu_);
    writable_mappings_.insert(inode.ino);
  }
  if (fh->passthrough_writes) {
    if (inode.passthrough_writers++ == 0) {
      struct stat st;
      if (volumes_->io().Fstat(inode.fd, &st) == 0) {
        inode.object_mtime_ns = Nanos(st.st_mtim);
        inode.object_atime_ns = Nanos(st.st_atim);
      }
    }
  }
  return inode.fd;
}

bool FileSystem::MayHaveWritableMapping(uint64_t ino) const {
  MutexLock lock(writable_mappings_mu_);
  return writable_mappings_.contains(ino);
}

void FileSystem::ObjectFoundUnwritten(InodeState& inode, uint64_t write_gen) {
  MutexLock lock(inode.mu);
  if (inode.write_gen.load() != write_gen) return;  // a passthrough open since
  MutexLock mappings(writable_mappings_mu_);
  writable_mappings_.erase(inode.ino);
}

void FileSystem::WithdrawPassthrough(FileHandle* fh) {
  MutexLock lock(fh->inode->mu);
  EndPassthroughLocked(*fh);
}

void FileSystem::EndPassthroughLocked(FileHandle& fh) {
  if (!fh.passthrough) return;
  InodeState& inode = *fh.inode;
  inode.mu.AssertHeld();  // the caller's fh.inode->mu, reached through an alias
  if (fh.passthrough_writes) {
    RefreshFromObjectLocked(inode);
    inode.passthrough_writers--;
  }
  inode.passthrough_opens--;
  fh.passthrough = fh.passthrough_writes = false;
}

void FileSystem::RefreshFromObjectLocked(InodeState& inode) {
  if (inode.passthrough_writers == 0 || inode.fd < 0) return;
  struct stat st;
  if (volumes_->io().Fstat(inode.fd, &st) != 0) return;  // the next refresh tries again
  // Reads through the open moved the object's atime by the volume's relatime
  // rule, as they would have moved the file's had they reached the daemon.
  const int64_t atime_ns = Nanos(st.st_atim);
  if (atime_ns != inode.object_atime_ns) {
    inode.object_atime_ns = atime_ns;
    inode.attr.atime_ns = atime_ns;
    MarkTimesLazilyDirty(inode);
  }
  const int64_t mtime_ns = Nanos(st.st_mtim);
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size == inode.attr.size && mtime_ns == inode.object_mtime_ns) return;
  inode.object_mtime_ns = mtime_ns;
  inode.attr.size = size;
  // The object's clock stamped the write; the file's times follow it.
  inode.attr.mtime_ns = inode.attr.ctime_ns = mtime_ns;
  inode.attr.blocks = -1;
  MarkDirty(inode);
  inode.data_written = true;
}

void FileSystem::RecordKernelIo(uint64_t ino, uint64_t read_bytes, uint64_t read_ops,
                                uint64_t write_bytes, uint64_t write_ops) {
  io_.RecordKernelIo(ino, read_bytes, read_ops, write_bytes, write_ops);
  // The counts arrive up to a second late (fs/daemon/passthrough_heat.h), when
  // the file may be closed and its inode idle: then its row says where it is.
  uint32_t volume = 0;
  if (InodeRef inode = inodes_.Find(ino)) {
    MutexLock lock(inode->mu);
    volume = inode->attr.volume_id;
  } else if (Result<meta::Inode> row = metadata().GetInode(ino); row.ok()) {
    volume = row->volume_id;
  }
  metrics_.RecordKernelIo(volume, read_bytes, write_bytes);
}

}  // namespace tierfs
