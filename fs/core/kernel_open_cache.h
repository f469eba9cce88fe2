// KernelOpenCache: the file handles that stand for opens the kernel never reports.
//
// In FUSE's no-open mode (FUSE_CAP_NO_OPEN_SUPPORT: the daemon answered OPEN with
// ENOSYS once) the kernel sends neither OPEN nor RELEASE for regular files. It
// keeps every file's page cache across opens, and a warm read of a cached file
// costs no request at all; READ, WRITE, FSYNC and the rest arrive with file
// handle 0. The daemon then keeps one FileHandle per inode (its object's fd, a
// kOpen hold on the inode), made at the first request that needs the object
// and kept for the next ones, for at most `capacity` inodes: the fds a process
// may hold are bounded, while the kernel may know millions of inodes.
//
// A handle leaves the cache when the CLOCK (an approximation of least recently
// used) passes it over, when the kernel forgets its inode (FileSystem::Forget:
// no open file can remain then, so an unlinked file is reclaimed at once), and
// at the daemon's stop. It is released (FileSystem::Release: flush of dirty
// attributes, the hold given back, the fd closed) when the last request using
// it ends, never under the cache's lock. A request that misses while an evicted
// handle is still in use makes a second one; both share the inode's fd, as two
// opens do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <unordered_map>

#include "common/mutex.h"
#include "common/status.h"
#include "common/thread_annotations.h"
#include "fs/core/file_handle.h"

namespace tierfs {

class KernelOpenCache {
 public:
  // A handle, kept alive (and unreleased) while a caller holds it.
  using Handle = std::shared_ptr<FileHandle>;
  // Opens inode `ino` as one open(2) would: returns a new FileHandle, or the
  // error a request on the file must answer with (ENOENT, EIO for an offline
  // volume). Called without the cache's lock.
  using OpenFn = std::function<Result<FileHandle*>(uint64_t ino)>;
  // Releases a handle OpenFn made: as a RELEASE would.
  using ReleaseFn = std::function<void(FileHandle*)>;

  // `capacity`: at most this many inodes keep a handle (>= 1).
  KernelOpenCache(size_t capacity, OpenFn open, ReleaseFn release);
  // Releases every handle the cache holds (DropAll).
  ~KernelOpenCache();
  KernelOpenCache(const KernelOpenCache&) = delete;
  KernelOpenCache& operator=(const KernelOpenCache&) = delete;

  // The handle of `ino`, made with OpenFn on a miss; errors are OpenFn's.
  Result<Handle> Get(uint64_t ino);
  // Takes `ino`'s handle out of the cache (the kernel forgot the inode); it is
  // released once no request uses it. No-op when the cache has none.
  void Drop(uint64_t ino);
  // Takes every handle out (the daemon's stop); returns how many there were.
  size_t DropAll();
  // Inodes with a handle in the cache now.
  size_t size() const;

 private:
  struct Entry {
    Handle handle;
    bool referenced = true;  // used since the CLOCK last passed it (second chance)
  };
  Handle Wrap(FileHandle* fh);
  // Inserts under mu_; returns the handle of `ino` (the one already there, when
  // another thread inserted first: `made` then goes to `released`). Evicts
  // over capacity into `released`, to be destroyed after the lock.
  Handle InsertLocked(uint64_t ino, Handle made, std::deque<Handle>* released) REQUIRES(mu_);
  void EvictLocked(std::deque<Handle>* released) REQUIRES(mu_);

  const size_t capacity_;
  const OpenFn open_;
  const ReleaseFn release_;
  mutable Mutex mu_;
  std::unordered_map<uint64_t, Entry> entries_ GUARDED_BY(mu_);
  // The CLOCK's ring of inodes, oldest first; may hold inodes dropped since
  // (skipped, and compacted away when the ring grows past twice the entries).
  std::deque<uint64_t> clock_ GUARDED_BY(mu_);
};

}  // namespace tierfs
