// DentryCache: directory entries (name -> inode number) known in memory, so a
// lookup needs no database lock (docs/design.md, "Lanes every request shares").
//
// What it holds, per directory (by the directory's inode number):
//   - positive entries: `name` names inode `ino`, as the database says;
//   - negative entries: `name` is not in the directory;
//   - `complete`: every entry of the directory is here, so a name that is not
//     is absent. A directory this mount made (mkdir) starts complete and empty,
//     so the LOOKUP the kernel sends before every create in it is answered
//     from memory.
//
// Who writes it, and why it stays true: Metadata, with the database lock held,
// after the change's statements succeeded (the entry is then what the
// database holds) or after a read of the dirents table (a fill). Readers take
// only a shard's lock, never the database's. Lock order: the database lock ->
// a shard's mu_; a reader never takes the database lock while holding mu_.
// Because fills also run under the database lock, no fill can put back an
// entry a change has just replaced.
//
// A change the database loses after it was applied here (a commit group
// rolled back: Database::GroupLost) leaves entries the database no longer
// holds: Metadata then calls Disable(), and every later lookup reads the
// database (which refuses changes until the next mount anyway).
//
// The kernel does not send a LOOKUP of a name while it runs a change of the
// same directory (it holds the directory's lock exclusively for a create,
// unlink or rename, shared for a lookup), so a lookup answered from here never
// races a change of the name it asks about.
//
// Bounded: at most `max_entries` entries (positive and negative) in all, split
// over kShards shards by directory; a shard past its share drops whole
// directories, least recently used first (CLOCK), and a directory larger than
// a shard's share is never kept whole.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/mutex.h"
#include "common/thread_annotations.h"

namespace tierfs::meta {

class DentryCache {
 public:
  static constexpr size_t kShards = 64;
  // `max_entries` (>= 0): entries kept in all; 0 keeps none (every lookup
  // reads the database).
  explicit DentryCache(size_t max_entries);
  DentryCache(const DentryCache&) = delete;
  DentryCache& operator=(const DentryCache&) = delete;

  // What the cache knows of `name` in directory `parent`.
  enum class Known { kUnknown, kAbsent, kPresent };
  struct Hit {
    Known known = Known::kUnknown;
    uint64_t ino = 0;  // kPresent: the inode `name` names
  };
  // Takes only the shard's lock. kAbsent from a negative entry or a complete
  // directory; kUnknown when disabled.
  Hit Find(uint64_t parent, std::string_view name) const;

  // ---- changes: the database lock held, the change's statements succeeded ----
  // `name` in `parent` now names `ino` (create, link, the target of a rename,
  // a fill from a dirents row). `ino` > 0.
  void Put(uint64_t parent, std::string_view name, uint64_t ino);
  // `name` is not in `parent` (unlink, rmdir, the source of a rename, a fill
  // that found no row).
  void PutAbsent(uint64_t parent, std::string_view name);
  // Directory `dir` was just made: it is empty, and this cache holds it whole.
  void PutEmptyDirectory(uint64_t dir);
  // Directory `dir` went (rmdir): its entries are dropped.
  void DropDirectory(uint64_t dir);
  // Forgets everything (a repair changed entries behind the cache's back).
  void Clear();
  // Forgets everything, and Find answers kUnknown from now on (a lost commit
  // group: see the top of this file).
  void Disable();

  // Entries held (positive and negative), summed over the shards; for tests
  // and metrics.
  size_t Size() const;

 private:
  // Hashes names as std::string_view, so Find looks one up without a copy.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view name) const { return std::hash<std::string_view>{}(name); }
  };
  struct Directory {
    // The entries known; ino 0 marks a negative entry.
    std::unordered_map<std::string, uint64_t, NameHash, std::equal_to<>> names;
    bool complete = false;
    bool referenced = false;  // used since the CLOCK hand last passed it
  };
  class alignas(64) Shard {
   public:
    explicit Shard(size_t budget) : budget_(budget) {}
    Hit Find(uint64_t parent, std::string_view name) EXCLUDES(mu_);
    void Set(uint64_t parent, std::string_view name, uint64_t ino) EXCLUDES(mu_);
    void PutEmptyDirectory(uint64_t dir) EXCLUDES(mu_);
    void DropDirectory(uint64_t dir) EXCLUDES(mu_);
    void Clear() EXCLUDES(mu_);
    size_t Size() const EXCLUDES(mu_);

   private:
    // The directory `dir`, made empty (not complete) if missing.
    Directory& DirectoryLocked(uint64_t dir) REQUIRES(mu_);
    void DropLocked(uint64_t dir) REQUIRES(mu_);
    // Drops directories, least recently used first, until the shard holds at
    // most budget_ entries; `keep` (the one being added to) goes last.
    void TrimLocked(uint64_t keep) REQUIRES(mu_);

    mutable Mutex mu_;
    const size_t budget_;
    std::unordered_map<uint64_t, Directory> dirs_ GUARDED_BY(mu_);
    std::deque<uint64_t> clock_ GUARDED_BY(mu_);  // directories, oldest first
    size_t entries_ GUARDED_BY(mu_) = 0;
  };
  Shard& ShardOf(uint64_t dir) const { return *shards_[dir % shards_.size()]; }

  std::vector<std::unique_ptr<Shard>> shards_;
  std::atomic<bool> enabled_;
};

}  // namespace tierfs::meta
