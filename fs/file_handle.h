// FileHandle: one open(2) of a regular file, handed to the kernel as fuse_file_info::fh.
//
// Owned by the kernel's open file: created by open/create, destroyed by release.
// The backing fd belongs to the inode (InodeState::fd), shared by all handles, so a
// relocation swaps one fd per inode and every handle follows.
#pragma once

#include <atomic>

#include "fs/inode_table.h"

namespace tierfs {

struct FileHandle {
  InodeRef inode;
  int flags = 0;                      // open(2) flags as the kernel passed them
  std::atomic<bool> wrote{false};     // a write went through this handle
  // Whether the kernel may keep the file's page cache at this open. False when a
  // read would update atime (relatime) and the open does not stand for its reads
  // (--exact_atime, or not O_RDONLY): the reads must then reach the daemon, as
  // they reach the disk on ext4, or atime would never move (design.md, "Access
  // times"; the cache is kept otherwise: tierfs is the only writer of its files).
  bool keep_cache = true;
  // This open moved atime (it stands for its reads): the kernel's cached
  // attributes must be refreshed, as after a read that reached the daemon.
  bool moved_atime = false;
};

// Directory stream state for opendir/readdir/releasedir (fuse_file_info::fh).
struct DirHandle {
  InodeRef inode;
};

}  // namespace tierfs
