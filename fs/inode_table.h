// InodeTable: the daemon's in-memory view of the inodes the kernel knows.
//
// An entry exists while the kernel holds a lookup count on the inode, while a
// file handle is open on it, or while someone (the relocator) pins it. It caches
// the inode's attributes; for a regular file being written, size and times live
// here ("dirty") and are written back on flush, fsync, release and periodically
// (design.md: data writes never touch the database on their path).
//
// Lock order (outer to inner): InodeState::io_lock -> InodeState::sync_mu ->
// InodeState::mu, and InodeTable::mu_ -> InodeState::mu. Never run SQL or copy bytes
// while holding InodeTable::mu_ or InodeState::mu; SQL about one inode's row runs
// under its sync_mu. Never hold any of these across a fuse_reply_*.
//
// Who is authoritative for which attribute (and why the cache stays true):
//   - size, atime, mtime of a regular file: memory while `dirty` (the data path
//     changes them without SQL), the database otherwise;
//   - everything else (mode, owner, nlink, a directory's times, ctime): the
//     database. Every change of those is committed first and then copied into the
//     entry, as the change returned the row or by reading it again. Rows carry
//     the database's change count (Inode::row_epoch) and ApplyRow keeps the
//     newest, so concurrent changes of one inode (a create and an unlink in one
//     directory, a setattr and a rename) may apply their rows in any order.
//
// Reclaim rule (conventions.md 5): an inode's object is removed only when nlink,
// open count and lookup count are all zero; the caller that drops the last of them
// gets `true` from the corresponding Release* call and performs the reclaim.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "meta/records.h"

namespace tierfs {

struct InodeState {
  explicit InodeState(const meta::Inode& a) : attr(a) {}

  // Serializes the database writes fs/ makes from this entry's values (writeback,
  // setattr), so that one never writes back what another is replacing. Held
  // across SQL, taken before `mu`.
  std::mutex sync_mu;
  std::mutex mu;              // guards every field below except io_lock and write_gen
  meta::Inode attr;           // current attributes (size/atime/mtime authoritative while dirty)
  bool dirty = false;         // size/atime/mtime/ctime differ from the database (data path)
  uint64_t change_seq = 0;    // bumped with every data-path change (see MarkDirty)
  bool data_written = false;  // a write since the last writeback: logged as FCL "write"
  // Dirty only by times that may wait for the periodic writeback: atime moved by
  // reads (relatime), and the kernel's own ctime stamp after a namespace change
  // (see MarkTimesLazilyDirty). Close and release leave them to it, so reading a
  // file or renaming one writes nothing more to the database as it happens.
  bool lazy_times = false;
  // security.capability is known to be absent. The kernel asks for it before every
  // write (to clear file capabilities); answering from memory keeps SQL off the
  // write path. Cleared when that attribute is set.
  bool no_capability_xattr = false;
  uint64_t capability_sets = 0;  // bumped by every set of it, so a lookup racing a set
                                 // never records a stale "absent"
  // The part of the metadata that reading the data back needs (the object's
  // volume and the size) as the last fsync made it durable: an fdatasync that
  // finds both unchanged needs no database commit, as ext4's fdatasync needs
  // no journal commit for an overwrite (FileSystem::Fsync). kUnknownSize: no
  // fsync since the inode was loaded, or a truncate or relocation since.
  static constexpr uint64_t kUnknownSize = UINT64_MAX;
  uint64_t durable_size = kUnknownSize;
  uint32_t durable_volume = 0;
  // Bumped by every truncate, fallocate and relocation, so an fsync racing one
  // does not record as durable a size it saw before it.
  uint64_t layout_epoch = 0;
  // A truncate, fallocate or relocation changed what reading the data needs:
  // the next fdatasync commits. `mu` held.
  void ForgetDurableLayout() {
    durable_size = kUnknownSize;
    ++layout_epoch;
  }
  uint64_t nlookup = 0;       // kernel lookup count
  uint32_t nopen = 0;         // open file handles
  uint32_t pins = 0;          // internal users (relocation) keeping the entry alive
  int fd = -1;                // backing object fd shared by all open handles; -1 when closed
  // The shared backing fd, read under mu. Callers doing I/O hold io_lock shared,
  // so the fd stays valid (dup2 by the relocator keeps its number).
  int Fd() {
    std::lock_guard lock(mu);
    return fd;
  }

  // Shared by reads and writes, exclusive while the relocator switches the object
  // under the open fd (dup2) so no I/O straddles the switch.
  std::shared_mutex io_lock;
  // Bumped before every data change (write, truncate, fallocate); the relocator
  // compares it before and after its copy to detect writes during the copy.
  std::atomic<uint64_t> write_gen{0};
};

using InodeRef = std::shared_ptr<InodeState>;

// Records a data-path change of size or times in `inode` (its mu held): the entry is
// now ahead of the database until a writeback commits it.
inline void MarkDirty(InodeState& inode) {
  inode.dirty = true;
  inode.lazy_times = false;
  inode.change_seq++;
}

// A read moved atime (relatime), or the kernel re-stamped ctime (`inode.mu`
// held): dirty, but close and release leave it to the periodic writeback
// (FileSystem::FlushAll), every few seconds, for all such files in one
// transaction. A crash may lose the time updates of that period, as ext4's
// lazytime does.
inline void MarkTimesLazilyDirty(InodeState& inode) {
  if (!inode.dirty) inode.lazy_times = true;
  inode.dirty = true;
  inode.change_seq++;
}

// Copies `row` (a row of the database: read, or returned by a change) into
// `inode` (its mu held): everything, except size/atime/mtime while the entry is
// dirty (and ctime only forward then), unless the entry already shows a newer
// row (a higher Inode::row_epoch). Concurrent changes return rows of one inode
// in any order; the newest stays.
void ApplyRow(InodeState& inode, const meta::Inode& row);

class InodeTable {
 public:
  // Returns the entry for attr.ino, inserting it from `attr` if absent (else
  // taking `attr` if it is newer, ApplyRow), and adds `lookups` to its lookup
  // count (1 for every reply that hands the kernel an entry).
  InodeRef GetOrInsert(const meta::Inode& attr, uint64_t lookups);
  // The entry if present, else nullptr.
  InodeRef Find(uint64_t ino) const;
  // Drops `n` kernel lookups. Returns true when the entry was erased and the inode
  // has nlink 0 (the caller reclaims its object and database row).
  bool Forget(uint64_t ino, uint64_t n);
  // Pins/unpins an entry for internal use; Unpin returns true like Forget.
  InodeRef Pin(const meta::Inode& attr);
  bool Unpin(const InodeRef& inode);
  // Called after the last handle closed (nopen already decremented to 0 by the caller
  // under inode->mu): erases the entry if nothing else holds it; true when the inode
  // must be reclaimed (nlink 0).
  bool MaybeErase(const InodeRef& inode);
  // Every entry, for the periodic writeback of dirty attributes.
  std::vector<InodeRef> Snapshot() const;

 private:
  bool EraseIfUnusedLocked(const InodeRef& inode);  // requires mu_ and inode->mu
  mutable std::mutex mu_;                           // guards map_
  std::unordered_map<uint64_t, InodeRef> map_;
};

}  // namespace tierfs
