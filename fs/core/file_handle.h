// FileHandle: one open(2) of a regular file, handed to the kernel as fuse_file_info::fh.
// DirHandle: one opendir(3), the same for a directory.
//
// Owned by the kernel's open file: created by open/create (opendir), destroyed by
// release (releasedir). The backing fd belongs to the inode (InodeState::fd), shared
// by all handles, so a relocation swaps one fd per inode and every handle follows.
//
// Every handle is also linked into its inode's list (InodeState::handles, guarded by
// the inode's `mu`). The kernel sends RELEASE and RELEASEDIR after close(2) returns,
// and drops those still queued when the connection ends (a SIGTERM, an unmount right
// after a close), so the daemon's stop releases what is left on that list
// (FileSystem::ReleaseUnreleasedHandles).
#pragma once

#include <atomic>
#include <memory>

#include "common/thread_annotations.h"
#include "fs/core/inode_table.h"
#include "fs/core/store_readahead.h"

namespace tierfs {

struct OpenHandle {
  explicit OpenHandle(bool dir) : directory(dir) {}
  InodeRef inode;
  const bool directory;  // a DirHandle, else a FileHandle
  // In inode->handles, under inode->mu. Not annotated: the analysis cannot know
  // that a neighbour's inode is this one, so every unlink would be refused.
  OpenHandle* prev = nullptr;
  OpenHandle* next = nullptr;
};

// Adds `h` to its inode's list; the inode's mu held.
inline void LinkHandleLocked(OpenHandle* h) REQUIRES(h->inode->mu) {
  h->next = h->inode->handles;
  if (h->next != nullptr) h->next->prev = h;
  h->inode->handles = h;
}

// Takes `h` off its inode's list; the inode's mu held.
inline void UnlinkHandleLocked(OpenHandle* h) REQUIRES(h->inode->mu) {
  if (h->prev != nullptr) h->prev->next = h->next;
  else h->inode->handles = h->next;
  if (h->next != nullptr) h->next->prev = h->prev;
  h->prev = h->next = nullptr;
}

struct FileHandle : OpenHandle {
  FileHandle() : OpenHandle(false) {}
  int flags = 0;                      // open(2) flags as the kernel passed them
  std::atomic<bool> wrote{false};     // a write went through this handle
  // Stands for the kernel's unreported opens (no-open mode,
  // fs/core/kernel_open_cache.h): no release follows a close, so the attributes
  // of files written through it are flushed shortly after
  // (fs/core/delayed_attribute_flush.h). Set before it is shared.
  bool kernel_open = false;
  // Whether the kernel may keep the file's page cache at this open. False when a
  // read would update atime (relatime) and the open does not stand for its reads
  // (--exact_atime, or not O_RDONLY): the reads must then reach the daemon, as
  // they reach the disk on ext4, or atime would never move (design.md, "Access
  // times"; the cache is kept otherwise: tierfs is the only writer of its files).
  bool keep_cache = true;
  // This open moved atime (it stands for its reads): the kernel's cached
  // attributes must be refreshed, as after a read that reached the daemon.
  bool moved_atime = false;
  // The kernel serves this open by passthrough (FileSystem::AdmitPassthrough);
  // with `passthrough_writes` its writes reach the object without the daemon.
  bool passthrough = false;
  bool passthrough_writes = false;
  // Bytes read ahead while the file is on an object volume (made at its first
  // such read, under the inode's mu; FileSystem::ReadFromStore).
  std::unique_ptr<StoreReadahead> store_readahead;
};

// Directory stream state for opendir/readdir/releasedir (fuse_file_info::fh).
struct DirHandle : OpenHandle {
  DirHandle() : OpenHandle(true) {}
};

}  // namespace tierfs
