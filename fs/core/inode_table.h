// InodeTable: the daemon's in-memory view of the inodes the kernel knows.
//
// Every inode the kernel holds a lookup count on has a slot here: its lookup
// count and, while the inode is active, an entry (InodeState) with its cached
// attributes. An inode is active while a file handle is open on it, while
// someone (the relocator, setattr, an open directory) pins it, while its
// attributes are dirty, or while it is unlinked but still known to the kernel.
// An idle inode keeps only its slot (about 60 bytes instead of about 500), so the
// daemon stays small when the kernel holds lookups on a million files; its
// attributes come from the database when asked for (rarely: the kernel caches
// them for attr_timeout). The table keeps the entries of up to `keep_idle`
// inodes that went idle (CLOCK, an approximation of least recently used), so a
// file opened again, or stat'ed right after a close, needs no read.
//
// For a regular file being written, size and times live in its entry ("dirty")
// and are flushed to the database at fsync, release and periodically (design.md:
// data writes never touch the database on their path).
//
// The table is split in kShards shards by inode number, each with its own
// lock, slots, active entries and kept idle entries (a share of keep_idle):
// requests about different inodes (a getattr, a lookup's reply, an open) take
// different locks, so the table is no lane that every request shares. Only
// Snapshot and Count visit every shard, one at a time.
//
// Lock order (outer to inner): InodeState::relocate_mu -> InodeState::io_lock -> InodeState::sync_mu ->
// InodeState::mu, and a shard's mu_ -> InodeState::mu; never two shards' at once. Never run SQL or copy bytes
// while holding a shard's mu_ or InodeState::mu; SQL about one inode's row runs
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
//   - An entry made for an idle inode (TryHold, HoldRow) is made from a row read
//     after TryHold handed out a ticket; a change reported for the inode since
//     (or its entry dropped since) makes HoldRow refuse the row, and the caller
//     reads it again. So an entry never starts from a row older than a change
//     that reached the table before it.
//
// Reclaim rule (docs/design.md "When an object is reclaimed"): an inode's object is
// removed only when nlink, open count and lookup count are all zero; the caller that
// drops the last of them gets `true` (or the inode) from the corresponding call and
// performs the reclaim.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "common/mutex.h"
#include "common/shared_mutex.h"
#include "common/thread_annotations.h"
#include "fs/volume/volume_io.h"
#include "meta/records.h"

namespace tierfs {

struct OpenHandle;  // fs/core/file_handle.h

struct InodeState {
  explicit InodeState(const meta::Inode& a) : ino(a.ino), attr(a) {}

  const uint64_t ino;  // attr.ino, readable without `mu` (it never changes)
  // Serializes the database writes fs/ makes from this entry's values (attribute
  // flush, setattr), so that one never writes what another is replacing. Held
  // across SQL, taken before `mu`.
  Mutex sync_mu ACQUIRED_BEFORE(mu);
  Mutex mu;  // guards every field below except io_lock and write_gen
  // Current attributes (size/atime/mtime authoritative while dirty).
  meta::Inode attr GUARDED_BY(mu);
  // Size/atime/mtime/ctime differ from the database (data path).
  bool dirty GUARDED_BY(mu) = false;
  uint64_t change_seq GUARDED_BY(mu) = 0;  // bumped with every data-path change (see MarkDirty)
  // A write since the last attribute flush: logged as FCL "write".
  bool data_written GUARDED_BY(mu) = false;
  // Dirty only by times that may wait for the periodic flush: atime moved by
  // reads (relatime), and the kernel's own ctime stamp after a namespace change
  // (see MarkTimesLazilyDirty). Close and release leave them to it, so reading a
  // file or renaming one writes nothing more to the database as it happens.
  bool lazy_times GUARDED_BY(mu) = false;
  // security.capability is known to be absent. The kernel asks for it before every
  // write (to clear file capabilities); answering from memory keeps SQL off the
  // write path. Cleared when that attribute is set.
  bool no_capability_xattr GUARDED_BY(mu) = false;
  // Bumped by every set of it, so a lookup racing a set never records a stale
  // "absent".
  uint64_t capability_sets GUARDED_BY(mu) = 0;
  // The part of the metadata that reading the data back needs (the object's
  // volume and the size) as the last fsync made it durable: an fdatasync that
  // finds both unchanged needs no database commit, as ext4's fdatasync needs
  // no journal commit for an overwrite (FileSystem::Fsync). kUnknownSize: no
  // fsync since the inode was loaded, or a truncate or relocation since.
  static constexpr uint64_t kUnknownSize = UINT64_MAX;
  uint64_t durable_size GUARDED_BY(mu) = kUnknownSize;
  uint32_t durable_volume GUARDED_BY(mu) = 0;
  // Bumped by every truncate, fallocate and relocation, so an fsync racing one
  // does not record as durable a size it saw before it.
  uint64_t layout_epoch GUARDED_BY(mu) = 0;
  // The object's st_blocks when an fsync last told the kernel to drop the file's
  // cached attributes; -1: never, or a truncate, fallocate or relocation since.
  // An fsync that finds the allocation unchanged (an overwrite: a database's
  // log) leaves the kernel's attributes alone (FileSystem::BlocksChangedSinceFsync).
  int64_t blocks_at_invalidation GUARDED_BY(mu) = -1;
  // A truncate, fallocate or relocation changed what reading the data needs:
  // the next fdatasync commits, and the next fsync refreshes the kernel's
  // attributes. `mu` held.
  void ForgetDurableLayout() REQUIRES(mu) {
    durable_size = kUnknownSize;
    ++layout_epoch;
    blocks_at_invalidation = -1;
  }
  // Guarded by its shard's mu_, not by `mu`: an idle entry the table keeps
  // (InodeTable's kept idle entries), and whether it was used since it was
  // last passed over for dropping (the CLOCK's second chance). Not annotated:
  // the analysis cannot name a private lock of another class from here.
  bool kept_idle = false;
  bool referenced = false;
  uint32_t nopen GUARDED_BY(mu) = 0;  // open file handles
  // Passthrough opens (FileSystem::AdmitPassthrough): handles whose I/O the
  // kernel serves from the object itself, and of those the ones that write
  // there without the daemon seeing it. While any is open the object cannot be
  // relocated (the kernel holds it), and while a writer is, the size and times
  // are read back from the object (FileSystem::RefreshFromObjectLocked).
  uint32_t passthrough_opens GUARDED_BY(mu) = 0;
  uint32_t passthrough_writers GUARDED_BY(mu) = 0;
  int64_t object_mtime_ns GUARDED_BY(mu) = 0;  // the object's mtime when last read back
  int64_t object_atime_ns GUARDED_BY(mu) = 0;  // and its atime
  // Queued for an attribute flush shortly after its last write
  // (fs/core/delayed_attribute_flush.h).
  bool delayed_flush_queued GUARDED_BY(mu) = false;
  // Every file and directory handle of this inode, for the daemon's stop to
  // release those whose RELEASE never came (fs/core/file_handle.h).
  OpenHandle* handles GUARDED_BY(mu) = nullptr;
  uint32_t pins GUARDED_BY(mu) = 0;  // internal users (relocation) keeping the entry alive
  // Backing object fd shared by all open handles; -1 when closed.
  int fd GUARDED_BY(mu) = -1;
  // The same object opened write-only with O_DIRECT, for writes of whole pages
  // (FileSystem::Write); -1 until the first such write opens it. Closed and
  // reset with `fd` (CloseObjectLocked) and by every relocation
  // (ForgetDirectFdLocked: the relocator's dup2 switches `fd` alone), never
  // while a write may use it.
  int direct_fd GUARDED_BY(mu) = -1;
  // Opening it failed, or a write to it met EINVAL (a file system without
  // O_DIRECT): this object's writes go through the page cache. Reset with it.
  bool direct_refused GUARDED_BY(mu) = false;
  // The shared backing fd, read under mu. Callers doing I/O hold io_lock shared,
  // so the fd stays valid (dup2 by the relocator keeps its number).
  int Fd() EXCLUDES(mu) {
    MutexLock lock(mu);
    return fd;
  }
  // A copy of `attr`, read under mu.
  meta::Inode Attributes() EXCLUDES(mu) {
    MutexLock lock(mu);
    return attr;
  }

  // Shared by reads and writes, exclusive while the relocator switches the object
  // under the open fd (dup2) so no I/O straddles the switch.
  SharedMutex io_lock ACQUIRED_BEFORE(sync_mu);
  // Held by the relocator for the whole of a move of this file, copy included
  // (Relocator::Relocate): one move of a file at a time. Two movers at once
  // (enforce and the online path, a writer moving off a full volume, an
  // evacuation) would copy to the same object name, and the second copy's
  // rename would replace the object the first had committed, which the open
  // fd then no longer names. Outermost of the inode's locks; never taken by a
  // request's handler but through Relocate.
  Mutex relocate_mu ACQUIRED_BEFORE(io_lock);
  // Bumped before every data change (write, truncate, fallocate); the relocator
  // compares it before and after its copy to detect writes during the copy.
  std::atomic<uint64_t> write_gen{0};
};

using InodeRef = std::shared_ptr<InodeState>;

// Records a data-path change of size or times in `inode` (its mu held): the entry is
// now ahead of the database until an attribute flush commits it.
inline void MarkDirty(InodeState& inode) REQUIRES(inode.mu) {
  inode.dirty = true;
  inode.lazy_times = false;
  inode.change_seq++;
}

// A read moved atime (relatime), or the kernel re-stamped ctime (`inode.mu`
// held): dirty, but close and release leave it to the periodic flush
// (FileSystem::FlushAll), every few seconds, for all such files in one
// transaction. A crash may lose the time updates of that period, as ext4's
// lazytime does.
inline void MarkTimesLazilyDirty(InodeState& inode) REQUIRES(inode.mu) {
  if (!inode.dirty) inode.lazy_times = true;
  inode.dirty = true;
  inode.change_seq++;
}

// Closes the entry's object (`fd` and `direct_fd`, through `io`); `inode.mu` held,
// and no I/O on them in flight (no handle open, or the io_lock held).
void CloseObjectLocked(InodeState& inode, VolumeIo& io) REQUIRES(inode.mu);

// Closes `direct_fd` and lets the next write of whole pages open it again: the
// object under `fd` changed. `inode.mu` and the io_lock (exclusive) held.
// (The io_lock is not in the annotation: CloseObjectLocked calls this with no
// handle open instead, a rule the analysis cannot state.)
void ForgetDirectFdLocked(InodeState& inode, VolumeIo& io) REQUIRES(inode.mu);

// Copies `row` (a row of the database: read, or returned by a change) into
// `inode` (its mu held): everything, except size/atime/mtime while the entry is
// dirty (and ctime only forward then), unless the entry already shows a newer
// row (a higher Inode::row_epoch). Concurrent changes return rows of one inode
// in any order; the newest stays.
void ApplyRow(InodeState& inode, const meta::Inode& row) REQUIRES(inode.mu);

// Why a caller keeps an inode's entry: each hold keeps it active until given back
// (Unpin for kPin; for kOpen the caller decrements `nopen` at release and calls
// MaybeErase).
enum class Hold { kPin, kOpen };

class InodeTable {
 public:
  // Starts with the root known: the kernel holds it from mount to unmount
  // without a LOOKUP (and never sends its FORGET). Keeps the entries of up to
  // `keep_idle` idle inodes the kernel knows (FileSystemOptions::cached_inodes),
  // each shard the most recently used of its share (keep_idle / shards, the
  // remainder to the first shards). `shards` (>= 1, default kShards): 1 makes
  // the kept entries exactly the keep_idle most recently used of all.
  static constexpr size_t kShards = 64;
  explicit InodeTable(size_t keep_idle = 0, size_t shards = kShards);

  // Adds `lookups` kernel lookups to row.ino (1 for every reply that hands the
  // kernel an entry). Returns the attributes to reply with: the active entry's,
  // after taking `row` if it is newer (ApplyRow), or `row` itself. With
  // `keep_ticket` (taken before `row` was read), an idle inode's row also joins
  // the kept idle entries as Keep says: a file looked up is often opened next.
  static constexpr uint64_t kDoNotKeep = UINT64_MAX;
  meta::Inode Remember(const meta::Inode& row, uint64_t lookups,
                       uint64_t keep_ticket = kDoNotKeep);
  // Remember(row, 1, ticket) for the row of an inode its change just made (a
  // create, a mknod): an entry made from it knows the inode has no extended
  // attributes, so the kernel's security.capability query before the first
  // write is answered from memory.
  meta::Inode RememberCreated(const meta::Inode& row, uint64_t ticket);
  // Adds `lookups` kernel lookups to `ino` and returns its attributes when it
  // has an entry (active or kept idle, and so current: see the top); nullopt,
  // adding nothing, otherwise (read the row and Remember it). A lookup whose
  // name the entry cache knows (meta/dentry_cache.h) reads no row this way.
  std::optional<meta::Inode> RememberHeld(uint64_t ino, uint64_t lookups);
  // The active entry of `ino`, or nullptr (idle or unknown: read the database).
  // For reading only: an entry found here may go idle at any moment; to change
  // one, hold it (TryHold/HoldRow).
  InodeRef Find(uint64_t ino) const;

  // The active entry of `ino` with one more hold of kind `how`, or {nullptr,
  // ticket}: read the inode's row and pass it with the ticket to HoldRow.
  struct Holding {
    InodeRef entry;
    uint64_t ticket = 0;
  };
  Holding TryHold(uint64_t ino, Hold how);
  // The active entry of `ino` (as Find) or {nullptr, ticket}, adding no hold:
  // a reader that may read the row and Keep it.
  Holding Peek(uint64_t ino);
  // Keeps `row` (read after Peek gave `ticket`) as the entry of an idle inode
  // the kernel knows, among the kept idle entries (a getattr: the kernel asks
  // again for inodes it works in, a directory after each change in it). Does
  // nothing when no entries are kept, the inode is unknown, active or
  // unlinked, or a change was reported since the ticket.
  void Keep(const meta::Inode& row, uint64_t ticket);
  // The current event count: a ticket for a row about to be read or made (a
  // lookup, a create). Takes no lock.
  uint64_t Ticket() const;
  // Makes `row`'s inode active, from `row` if it is idle (a row read, or returned
  // by a change, after `ticket` was taken), and adds one hold of kind `how` and
  // `lookups` lookups. An active entry takes `row` if it is newer (ApplyRow).
  struct Held {
    InodeRef entry;
    // False when a change of the inode was reported, or its entry went idle,
    // since the ticket: `row` may be older than the database. Read the row
    // again and Apply it (the entry, now active, keeps the newest).
    bool current = true;
    bool made = false;  // the entry was made from `row`
  };
  Held HoldRow(const meta::Inode& row, uint64_t ticket, Hold how, uint64_t lookups = 0);
  // Gives back a kPin hold; true when the inode must be reclaimed (nlink 0 and
  // nothing holds it any more).
  bool Unpin(const InodeRef& inode);
  // Called when something that kept `inode` active went (its last handle closed,
  // nopen already 0; an attribute flush cleaned it): makes it idle or drops it if
  // nothing else keeps it. True when the inode must be reclaimed (nlink 0).
  bool MaybeErase(const InodeRef& inode);

  // A change of the database returned `row`: an active entry takes it
  // (ApplyRow); an idle inode notes that its row changed (see HoldRow).
  void Apply(const meta::Inode& row);
  // As Apply, for a change that returned `row` with `ticket` taken before it
  // began: an idle inode the kernel knows also keeps `row` among the kept idle
  // entries (as Keep), because the kernel's next request is about it (after a
  // rename, the kernel's ctime setattr of the moved inode and the getattr of
  // its parents), unless another change of it was reported since the ticket.
  void ApplyAndKeep(const meta::Inode& row, uint64_t ticket);
  // A change of `ino`'s row that returned no row: the active entry (the caller
  // reads the row and applies it), or nullptr after noting the change.
  InodeRef Changed(uint64_t ino);
  // A name of row.ino went (unlink, rmdir, rename over it); `row` is its row
  // after. Returns the inode to reclaim now (nlink 0, nothing holds it), else
  // nullopt. An unlinked inode the kernel still knows becomes active, so the
  // last Forget reclaims it.
  std::optional<meta::Inode> NameRemoved(const meta::Inode& row);
  // Drops `n` kernel lookups (FORGET). Returns the inode to reclaim (nlink 0 and
  // nothing holds it any more), else nullopt. Sets `*forgotten` (when given) to
  // whether the kernel's lookup count reached 0.
  std::optional<meta::Inode> Forget(uint64_t ino, uint64_t n, bool* forgotten = nullptr);

  // Every active entry, for the periodic flush of dirty attributes.
  std::vector<InodeRef> Snapshot() const;
  // Inodes known (kernel lookups or holds), and how many of them are active.
  struct Counts {
    uint64_t known = 0;
    uint64_t active = 0;
  };
  Counts Count() const;
  // The kernel's lookup count of `ino` (0 when unknown). For tests.
  uint64_t LookupCount(uint64_t ino) const;

 private:
  // One shard: what the whole table was before it was split. Every member
  // function is the table's of the same name, for the inodes of this shard.
  // Aligned so that no two shards' locks share a cache line.
  class alignas(64) Shard {
   public:
    Shard(size_t keep_idle, std::atomic<uint64_t>* events)
        : events_(*events), keep_idle_(keep_idle) {}
    meta::Inode Remember(const meta::Inode& row, uint64_t lookups, uint64_t keep_ticket,
                         bool created) EXCLUDES(mu_);
    InodeRef Find(uint64_t ino) const EXCLUDES(mu_);
    std::optional<meta::Inode> RememberHeld(uint64_t ino, uint64_t lookups) EXCLUDES(mu_);
    Holding TryHold(uint64_t ino, Hold how) EXCLUDES(mu_);
    Holding Peek(uint64_t ino) EXCLUDES(mu_);
    void Keep(const meta::Inode& row, uint64_t ticket) EXCLUDES(mu_);
    Held HoldRow(const meta::Inode& row, uint64_t ticket, Hold how, uint64_t lookups)
        EXCLUDES(mu_);
    bool Settle(const InodeRef& inode, bool unpin) EXCLUDES(mu_);
    void Apply(const meta::Inode& row) EXCLUDES(mu_);
    void ApplyAndKeep(const meta::Inode& row, uint64_t ticket) EXCLUDES(mu_);
    InodeRef Changed(uint64_t ino) EXCLUDES(mu_);
    std::optional<meta::Inode> NameRemoved(const meta::Inode& row) EXCLUDES(mu_);
    std::optional<meta::Inode> Forget(uint64_t ino, uint64_t n, bool* forgotten) EXCLUDES(mu_);
    void AppendActive(std::vector<InodeRef>* out) const EXCLUDES(mu_);
    Counts Count() const EXCLUDES(mu_);
    uint64_t LookupCount(uint64_t ino) const EXCLUDES(mu_);
    // The root's slot (the constructor's).
    void KnowRoot() EXCLUDES(mu_);

   private:
    // An inode the kernel holds lookups on.
    struct Slot {
      uint64_t nlookup = 0;  // kernel lookup count, > 0
      // Event count of the last change reported while the inode was idle, or of
      // its entry going idle (HoldRow's check).
      uint64_t changed = 0;
    };
    // Makes `entry` idle (dropping it from active_) when nothing keeps it active;
    // returns true when the inode must be reclaimed. Requires mu_ and entry.mu.
    bool SettleLocked(const InodeRef& entry) REQUIRES(mu_, entry->mu);
    static void AddHold(InodeState& entry, Hold how) REQUIRES(entry.mu);
    uint64_t LookupsLocked(uint64_t ino) const REQUIRES(mu_);
    void AddLookupsLocked(uint64_t ino, uint64_t n) REQUIRES(mu_);
    // Records a change of `ino`'s row while it is idle (mu_ held).
    void NoteChangeLocked(uint64_t ino) REQUIRES(mu_);
    // Drops `entry` from active_ (mu_ and entry.mu held).
    void MakeIdleLocked(const InodeRef& entry) REQUIRES(mu_, entry->mu);
    // Drops kept idle entries, least recently used first, until at most
    // keep_idle_ are kept or kMaxDropSteps ring positions were looked at;
    // `settling` (whose mu the caller holds) is skipped.
    static constexpr int kMaxDropSteps = 64;
    void DropKeptLocked(const InodeState* settling) REQUIRES(mu_);
    // Keep (mu_ held); `created` as RememberCreated.
    void KeepLocked(const meta::Inode& row, uint64_t ticket, bool created = false)
        REQUIRES(mu_);
    // Makes `row` the entry of its idle inode, among the kept idle entries
    // (mu_ held; the caller checked that no newer row can exist); `created` as
    // RememberCreated.
    void MakeKeptLocked(const meta::Inode& row, bool created = false) REQUIRES(mu_);

    mutable Mutex mu_;  // guards everything below
    // Kept apart so an idle inode costs only its slot, and the periodic
    // flush walks the active entries alone.
    std::unordered_map<uint64_t, Slot> known_ GUARDED_BY(mu_);
    std::unordered_map<uint64_t, InodeRef> active_ GUARDED_BY(mu_);
    std::atomic<uint64_t>& events_;  // the table's
    // Slot::changed for every inode of the shard without a slot (the kernel
    // does not know it): rare enough (relocations of unknown files) to share one.
    uint64_t unknown_changed_ GUARDED_BY(mu_) = 0;
    const size_t keep_idle_;
    // The CLOCK's ring of kept idle entries, oldest first.
    std::deque<InodeRef> kept_ GUARDED_BY(mu_);
  };

  Shard& ShardOf(uint64_t ino) { return *shards_[ino % shards_.size()]; }
  const Shard& ShardOf(uint64_t ino) const { return *shards_[ino % shards_.size()]; }

  // Counts changes reported for idle inodes and entries gone idle, in every
  // shard. Changed under a shard's mu_ only; atomic so that Ticket(), on the
  // lookup and create paths, reads it without a lock (a ticket read before an
  // increment is older than that change, which is all HoldRow needs), and
  // shared so that one ticket serves an inode of any shard.
  std::atomic<uint64_t> events_{0};
  std::vector<std::unique_ptr<Shard>> shards_;
};

}  // namespace tierfs
