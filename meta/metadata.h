// Metadata: the SQLite database (WAL) on the metadata volume that holds the
// whole namespace, volumes, I/O statistics, the FCL and policy state.
//
// Ownership: one Metadata per mounted file system, owned by the daemon (or by a
// tool such as mkdstfs while the file system is not mounted). It owns a single
// SQLite connection guarded by one mutex (inside meta::Database); every method
// is thread-safe and each namespace change is one transaction that also
// appends its FCL record (when the FCL is on), so a failed call leaves nothing
// behind. Errors: SQLITE_FULL -> ENOSPC, SQLITE_CONSTRAINT -> EEXIST (a foreign
// key -> EINVAL), SQLITE_BUSY/LOCKED -> EBUSY, others -> EIO with the SQLite
// message (mapped in one place, meta/database.h SqliteStatus). Nothing throws.
//
// Visitors (ReadDir, WalkFiles, ForEachIoBucket, ReadFcl) are called WITHOUT the
// database lock: rows are read in batches under the lock and handed to the
// visitor between batches. A visitor may therefore call back into Metadata, and
// a long scan does not stall the file system; in exchange an iteration is not a
// snapshot: a change made while it runs may or may not be seen.
//
// Units: times in nanoseconds since the Unix epoch (`_ns`), or seconds (`_s`);
// sizes in bytes. Times of changes come from MetadataOptions::clock.
//
// Names: a name stored in a directory is 1..255 bytes, not "." or "..", with
// no '/' or NUL (EINVAL, or ENAMETOOLONG above 255); lookups and orderings
// compare names byte by byte (no case folding, no Unicode normalization).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/file_io.h"
#include "common/status.h"
#include "meta/dentry_cache.h"
#include "meta/records.h"

namespace tierfs::meta {

class Database;  // meta/database.h: connection, statements, transactions (RAII)
class GroupCommitter;  // meta/group_committer.h

// What Metadata::Rename changed, so that a cache of inodes can follow it
// without reading the rows back.
struct RenameResult {
  std::optional<Inode> replaced;  // the inode the new name named before, after its nlink drop
  uint64_t moved = 0;             // the inode the old name named
  uint64_t exchanged = 0;         // RENAME_EXCHANGE: the inode the new name named; else 0
  // Every other row the rename changed, as it left them, with their row_epoch:
  // the parent (or both parents), the moved inode, and the exchanged one.
  // Empty when nothing changed (two names of one inode).
  std::vector<Inode> changed;
};

// One inode's UpdateAttributes (Metadata::UpdateAttributesEach): `values`
// (ino and the fields named), the kAttr* mask `fields`, and the FCL records.
struct AttributeUpdate {
  Inode values;
  uint32_t fields = 0;
  std::string_view fcl_event;  // must outlive the call
  bool log_write = false;
};

struct MetadataOptions {
  bool sync_full = false;  // PRAGMA synchronous=FULL instead of NORMAL
  const Clock* clock = &SystemClock::Get();  // must outlive the Metadata
  // The seam of the database's volume (Database::Settings::io), which must
  // outlive the Metadata: the checks' calls and SQLite's writes, truncates and
  // syncs of the database and its WAL go through it. The daemon passes the one
  // its volumes use, so one fault plan reaches both. Null: the plain calls.
  FileIo* io = nullptr;
  // Directory entries kept in memory (meta/dentry_cache.h), positive and
  // negative, so that lookups need no database lock; 0 keeps none.
  size_t cached_dentries = 0;
};

// ---- Consistency check and repair: records (meta/check_queries.cc, fs/check/fsck.h) ----------------
// A directory entry that cannot stand: its inode does not exist, or its parent does
// not exist or is not a directory.
struct DirentProblem {
  uint64_t parent = 0;
  std::string name;
  uint64_t ino = 0;
  bool inode_missing = false;         // no inode `ino`
  bool parent_missing = false;        // no inode `parent`
  bool parent_not_directory = false;  // `parent` exists but is not a directory
};

// An inode whose link count disagrees with the entries naming it, or that no entry
// names while its nlink is not 0 (see Metadata::LinkCountProblems).
struct LinkCountProblem {
  uint64_t ino = 0;
  uint32_t mode = 0;
  uint32_t nlink = 0;     // as stored
  uint64_t names = 0;     // entries naming the inode
  uint64_t subdirs = 0;   // a directory's entries that are directories
  uint32_t expected = 0;  // names (non-directory) or 2 + subdirs (directory)
};

// What Metadata::RepairInode changes; unset fields stay as they are.
struct InodeRepair {
  uint64_t ino = 0;
  std::optional<uint32_t> nlink;
  std::optional<uint64_t> size;       // bytes
  std::optional<uint32_t> volume_id;  // regular files only
  std::optional<uint64_t> store_version;  // Inode::store_version, regular files only
  std::string why;                    // FCL detail, e.g. "missing object: size 4096->0"
};
// ---- end of the consistency check records -------------------------------------------

class Metadata {
 public:
  // Creates a new database file at `db_path` (mode 0600; EEXIST if it exists)
  // holding `info`, the volumes (ids assigned 1..n in order, whatever their
  // `id` fields say) and the root directory (inode 1, mode S_IFDIR|0755, owner
  // root_uid:root_gid, nlink 2, times = clock now). info.created_ns 0 means now.
  // The FCL starts on. EINVAL for no volumes or iostat_bucket_seconds <= 0;
  // EEXIST for two volumes with one name. On failure no file is left behind.
  // `io` (null: the plain calls) is the seam the file's creation, its removal
  // after a failure and SQLite's writes go through (MetadataOptions::io); the
  // errno a call of it fails with is returned (ENOSPC, EIO); a removal that
  // fails as well is named in the message (its file is then left behind).
  static Status Format(const std::string& db_path, const FsInfo& info,
                       const std::vector<Volume>& volumes, uid_t root_uid, gid_t root_gid,
                       const Clock& clock, FileIo* io = nullptr);
  // Opens an existing database (ENOENT if missing, EINVAL if not a tierfs database
  // or of a newer schema version, or if options.clock is null; EBUSY if another
  // process holds its write lock past the busy timeout; EUCLEAN if it is damaged:
  // empty, no SQLite header, or PRAGMA quick_check finds a fault, the message
  // saying which). These checks run first on a connection that writes nothing
  // (meta/schema.h CheckDatabase), so a refused database is left as it was; a WAL
  // left by a crash is part of what they check. Then runs schema migrations.
  static Result<std::unique_ptr<Metadata>> Open(const std::string& db_path,
                                                const MetadataOptions& options);
  ~Metadata();
  Metadata(const Metadata&) = delete;
  Metadata& operator=(const Metadata&) = delete;

  // ---- File system and volumes -------------------------------------------------
  Result<FsInfo> GetFsInfo();
  // Records whether the file system is cleanly unmounted (`clean`, at the end of
  // an unmount) or in use (false, at mount) and returns what was recorded before:
  // false after a crash, and for a file system that never recorded it.
  // (meta/mount_state.cc)
  Result<bool> SwapCleanUnmount(bool clean);
  // Records whether the mount now starting lets the kernel write objects itself
  // (FUSE passthrough opens, whose writes and msync never reach the daemon), and
  // returns what the previous mount recorded (false when none did). Crash
  // recovery asks before it trims: after such a mount an object longer than its
  // file holds bytes the kernel wrote (and perhaps synced) past the recorded
  // size, not only writes the daemon never acknowledged. Errors from SQLite.
  Result<bool> SwapPassthroughWrites(bool now);
  // Whether the file system is not cleanly unmounted and its last mount let the
  // kernel write objects (as above): `tierfs check --repair` then takes a long
  // object's length as its file's size, as the next mount would, instead of
  // trimming it. Reads only. Errors from SQLite.
  Result<bool> CrashedWithPassthroughWrites();
  Result<std::vector<Volume>> ListVolumes();  // ordered by id
  // Appends a volume; sets volume->id to the next id (max + 1; the input id is
  // ignored). EEXIST if the name is taken.
  Status AddVolume(Volume* volume);
  // The id the next volume gets: one more than any id this file system ever
  // gave a volume (ids of removed volumes are not reused, so relocation history
  // keeps naming what it named).
  Result<uint32_t> NextVolumeId();
  // Inserts `volume` with its own id (NextVolumeId(), so that its label can be
  // written before the row exists). EEXIST if the id or the name is taken,
  // EINVAL for id 0.
  Status AddVolumeWithId(const Volume& volume);
  // Forgets volume `id` (fsvoladm remove, after its objects were moved away), in
  // one transaction: its pending-object records go too, and the id is never given
  // again. EBUSY, naming how many, while any inode (unlinked ones included) still
  // has its object there; EINVAL for volume 1 (the metadata volume); ENOENT for
  // an unknown id.
  Status RemoveVolume(uint32_t id);
  // Replaces the mutable fields (path, placement_class, media_type*, role, state)
  // of volume.id (the name stays). ENOENT if there is no such volume.
  Status UpdateVolume(const Volume& volume);
  // Number of inodes (every row, orphans included): for statfs.
  Result<uint64_t> CountInodes();
  // For every volume (ordered by id, volumes without files included): how many
  // regular files have their object there and their total size in bytes. For
  // statfs and fsvoladm.
  Result<std::vector<VolumeUsage>> UsageByVolume();

  // ---- Namespace (each call one transaction; times from the clock) ----------------
  // Inode numbers are never reused (AUTOINCREMENT), so (ino, generation) is
  // unique forever; generation is 1 today (see meta/schema.cc).
  //
  // Common errors: ENOENT when `parent` does not exist or is a removed directory,
  // ENOTDIR when it is not a directory, EINVAL / ENAMETOOLONG for a bad new name.

  // ENOENT if no such inode. Orphans (nlink 0) are still returned.
  Result<Inode> GetInode(uint64_t ino);
  // The inode number `name` names in directory `parent`; ENOENT if none,
  // ENOTDIR if `parent` is not a directory.
  Result<uint64_t> Lookup(uint64_t parent, std::string_view name);
  // Lookup and GetInode in one query (a FUSE lookup needs both). ENOENT if none,
  // ENOTDIR if `parent` is not a directory.
  Result<Inode> LookupInode(uint64_t parent, std::string_view name);
  // What the entry cache knows of `name` in `parent` (meta/dentry_cache.h),
  // without the database lock: kPresent with the inode number, kAbsent
  // (Lookup would return ENOENT), or kUnknown (ask Lookup or LookupInode,
  // which read the database and fill the cache).
  DentryCache::Hit CachedLookup(uint64_t parent, std::string_view name) const {
    return dentries_.Find(parent, name);
  }
  // Entries the cache holds (positive and negative); for tests and metrics.
  size_t CachedDentries() const { return dentries_.Size(); }
  // Creates inode + dirent. From `proto` it takes mode (no type bits = S_IFREG,
  // as mknod(2)), uid, gid, rdev, symlink, volume_id (regular files only; other
  // types get 0) and size (a symlink's size is its target's length); it assigns
  // ino, generation, nlink (1, or 2 for a directory) and atime=mtime=ctime=now.
  // Under a setgid parent the inode takes the parent's group instead, and a
  // directory the setgid bit too (as ext4 does, without the `grpid` option).
  // Updates the parent's mtime/ctime (and nlink for a directory).
  // FCL: create|mkdir|symlink|mknod. EEXIST if the name exists; EINVAL for an
  // unknown file type, a regular file with volume_id 0 or an unknown volume;
  // ENOENT for a symlink with an empty target.
  // Every change below that takes `parent_after` stores there, when it is not
  // null, the row of the directory whose entries changed, as the change left it
  // (with its row_epoch): a cache takes it without reading it back.
  Result<Inode> Create(uint64_t parent, std::string_view name, const Inode& proto,
                       Inode* parent_after = nullptr);
  // Adds a name for a non-directory inode; returns it after (nlink+1, ctime=now;
  // new_parent's mtime/ctime=now). Errors in order: ENOENT (no inode), ENOENT /
  // ENOTDIR (new_parent), EEXIST, EPERM for a directory, ENOENT for an unlinked
  // inode (nlink 0). FCL: link.
  Result<Inode> Link(uint64_t ino, uint64_t new_parent, std::string_view new_name,
                     Inode* parent_after = nullptr);
  // Removes a non-directory name; returns its inode after (nlink-1, ctime=now;
  // parent mtime/ctime=now). nlink 0 means the caller reclaims it (object, then
  // DeleteInode) once no one has it open. EISDIR for a directory, ENOENT. FCL: unlink.
  // With `expected_ino` != 0, the name must still refer to that inode, else ESTALE
  // and nothing changes (policy DELETEs use it: never remove a file that replaced
  // the scanned one).
  Result<Inode> Unlink(uint64_t parent, std::string_view name, uint64_t expected_ino = 0,
                       Inode* parent_after = nullptr);
  // Removes an empty directory; returns it with nlink 0 (ctime=now; the parent
  // loses one link, mtime/ctime=now). Its row stays, like an unlinked file's,
  // until DeleteInode. ENOTDIR, ENOTEMPTY, ENOENT. FCL: rmdir.
  Result<Inode> Rmdir(uint64_t parent, std::string_view name, Inode* parent_after = nullptr);
  // rename(2) semantics with flags 0 | RENAME_NOREPLACE | RENAME_EXCHANGE
  // (linux/fs.h values). Returns the inode the rename replaced (after its nlink
  // drop: a replaced directory has nlink 0) if any, which the caller reclaims
  // like an unlinked one, and which inodes got which ctime (RenameResult).
  // Errors, in Linux's order: EINVAL (unknown flags, or both), ENOENT (source,
  // or EXCHANGE target), EEXIST (NOREPLACE and the target exists), EINVAL (a
  // directory into itself or its own subtree), ENOTEMPTY (the target is an
  // ancestor of the source; EINVAL with EXCHANGE), ENOTDIR (directory over a
  // non-directory), EISDIR (non-directory over a directory), ENOTEMPTY (over a
  // non-empty directory). Two names of one inode: success, nothing changes.
  // Updates ctime of the moved inode(s), mtime/ctime of both parents, ".." link
  // counts. A moved entry keeps its readdir cookie. FCL: rename, name = old
  // name, detail "to=/new/path" (+ " replaced=INO") or "exchange=/other/path".
  Result<RenameResult> Rename(uint64_t parent, std::string_view name, uint64_t new_parent,
                              std::string_view new_name, unsigned int flags);
  // Writes mode (permission bits; the type never changes), uid, gid, size,
  // atime, mtime, ctime, rdev of inode.ino (not nlink, not volume, not symlink).
  // If `fcl_event` is not empty ("setattr", "truncate") it is logged. ENOENT.
  Status WriteInode(const Inode& inode, std::string_view fcl_event = {});
  // Writes only the attributes named in `fields` (a mask of kAttr* bits,
  // records.h) from `values` to inode values.ino, in one transaction, and returns
  // the row after. Unlike WriteInode it leaves every other column as it is, so a
  // change made by a concurrent namespace operation (a directory's mtime, a file's
  // nlink) is never overwritten with a stale copy. ctime never moves backwards:
  // kAttrCtime stores max(stored, values.ctime_ns). Mode takes the permission bits
  // only. If `fcl_event` is not empty it is logged; with `log_write` a "write"
  // record comes first (the change also carries the size of data written since
  // the file's last attribute flush: a chmod right after writes). ENOENT; EINVAL for
  // no fields.
  Result<Inode> UpdateAttributes(const Inode& values, uint32_t fields,
                                 std::string_view fcl_event = {}, bool log_write = false);
  // UpdateAttributes for each of `updates`, kAttributeBatch of them per hold
  // of the database lock (the delayed size flush of many small files written
  // at once takes the lock once, not once per file). Each is a change of its
  // own: one failing (ENOENT for an inode reclaimed meanwhile, EINVAL for a
  // bad mask) leaves the others alone. Returns one result per update, in order.
  static constexpr size_t kAttributeBatch = 64;
  std::vector<Result<Inode>> UpdateAttributesEach(const std::vector<AttributeUpdate>& updates);

  // ---- Group commit (meta/group_committer.h; docs/design.md, "Group commit") ------
  // From now on changes gather in commit groups that are committed `window` after
  // they open (window 0: every change commits on its own, as before). After each
  // commit the committer calls `after_commit` (no lock held): work that had to wait
  // for changes to be durable, such as removing an unlinked file's object. Call
  // once, before the file system serves requests.
  void StartGroupCommit(std::chrono::microseconds window, std::function<void()> after_commit);
  // Commits the open group now, so every change made so far survives a crash
  // (fsync, fsyncdir, an object about to be removed). EIO/ENOSPC from SQLite; the
  // group then stays open and a later Sync retries.
  Status Sync();
  // While a BatchScope lives, the group commit stays open past its window (at
  // most GroupCommitter::kMaxBatchDeferral) so that many changes made in a row
  // (a flush of every dirty inode, an I/O statistics flush) reach the WAL in
  // one commit. A crash may then lose up to that long of acknowledged changes
  // not covered by an fsync. Without group commit it does nothing. Scopes may
  // overlap (from several threads); they must not outlive the Metadata.
  class BatchScope {
   public:
    explicit BatchScope(Metadata& meta);
    ~BatchScope();
    BatchScope(const BatchScope&) = delete;
    BatchScope& operator=(const BatchScope&) = delete;

   private:
    GroupCommitter* committer_;
  };
  // The ticket of the changes made so far, or nullopt when they are all committed;
  // a ticket is committed once CommittedTickets() reaches it. Neither takes the
  // database lock (Database::UncommittedTicket).
  std::optional<uint64_t> UncommittedTicket();
  uint64_t CommittedTickets();
  // How often the database lock was taken, found taken, and how long requests
  // waited for it (Database::lock_waits): the metrics'
  // tierfs_metadata_lock_acquisitions_total, ..._waits_total and
  // ..._wait_seconds_total. Takes no lock.
  meta::LockWaits LockWaits() const;
  // The directory that holds directory `dir` (its ".."): the root for the root and
  // for a removed directory. ENOENT if there is no inode `dir`, ENOTDIR if it is
  // not a directory.
  Result<uint64_t> ParentOf(uint64_t dir);
  // Points inode `ino` at `to_volume` (relocation commit). In the same transaction
  // the copy on `to_volume` stops being a pending object and the source object on
  // `from_volume` becomes one (the relocator removes it next). FCL: relocate, with
  // detail "volFROM->volTO". Returns the inode's row after it (Inode::row_epoch
  // set). ESTALE if the inode is no longer on `from_volume`. With `size`, the
  // size becomes that too (bytes; a recall for a truncate to 0 moves no byte
  // and commits the empty file at once). With `store_version` (an upload's
  // commit), Inode::store_version becomes that: the upload the store's object is.
  Result<Inode> SetInodeVolume(uint64_t ino, uint32_t from_volume, uint32_t to_volume,
                               std::optional<uint64_t> size = std::nullopt,
                               std::optional<uint64_t> store_version = std::nullopt);
  // Records an object about to appear where its inode does not point (before a
  // relocation's copy is put in place), so a crash cannot leak it.
  Status AddPendingObject(const PendingObject& object);
  // Whether a pending_objects row names inode `ino` on `volume_id`.
  Result<bool> IsPendingObject(uint64_t ino, uint32_t volume_id);
  // Forgets a pending object once it has been removed (or committed).
  Status RemovePendingObject(uint64_t ino, uint32_t volume_id);
  Result<std::vector<PendingObject>> ListPendingObjects();
  // Entries of directory `dir` whose cookie > `offset`, in cookie order (cookies are
  // stable while entries are added and removed, never reused, and >= 3, so offsets
  // 1 and 2 are free for "." and ".."); "." and ".." are not stored. A removed
  // directory reads as empty. `visit` returns false to stop (visitors: see top).
  // `first_batch` (> 0): rows the first query reads, so a caller that knows how
  // many entries it can take (a FUSE reply buffer) reads no more; later queries
  // read a fixed batch. ENOTDIR, ENOENT.
  Status ReadDir(uint64_t dir, int64_t offset, const std::function<bool(const Dirent&)>& visit,
                 size_t first_batch = kDefaultReadDirBatch);
  // Entries read per lock hold in ReadDir after the first query; the visitor
  // runs between batches without the lock.
  static constexpr size_t kDefaultReadDirBatch = 256;
  // Deletes an inode row and its xattrs (its iostat rows stay until pruned).
  // Used at last close of an orphan and by orphan recovery at mount. The inode
  // must have nlink 0 (EBUSY otherwise); ENOENT. FCL: delete.
  Status DeleteInode(uint64_t ino);
  // DeleteInode for many, in one change (the reclaims a group commit released):
  // deletes each row of `inos` that has nlink 0, with its xattrs, and logs an FCL
  // "delete" for it. Returns the inodes it did not delete: already gone (a
  // reclaim is idempotent) or linked again. Errors from SQLite roll back all.
  Result<std::vector<uint64_t>> DeleteInodes(const std::vector<uint64_t>& inos);
  // Inodes with nlink 0 (unlinked files, removed directories and others, left by
  // a crash or still open), ordered by ino. Only regular files have an object.
  Result<std::vector<Inode>> ListOrphans();

  // ---- Extended attributes -------------------------------------------------------
  // Names are compared byte for byte; values are arbitrary bytes (may be empty).
  // ENOENT if the inode does not exist.
  Result<std::string> GetXattr(uint64_t ino, std::string_view name);  // ENODATA
  // flags: 0 | XATTR_CREATE (EEXIST if present) | XATTR_REPLACE (ENODATA if absent);
  // both together as ext4 (EEXIST if present, else ENODATA); others: EINVAL.
  // ERANGE for an empty name. Updates ctime. FCL: xattr, detail "set=NAME".
  Status SetXattr(uint64_t ino, std::string_view name, std::string_view value, int flags);
  Result<std::vector<std::string>> ListXattr(uint64_t ino);  // sorted by name
  // Updates ctime. FCL: xattr, detail "remove=NAME".
  Status RemoveXattr(uint64_t ino, std::string_view name);  // ENODATA

  // ---- Scans ---------------------------------------------------------------------
  // Path-name order compares paths component by component, each by bytes (a
  // depth-first walk with entries sorted by name): "/a/z" comes before "/a.txt".
  //
  // Every regular file under directory `root` (recursive), each inode once, by its
  // first path in path-name order; `path` is `root_path` + "/" + the names below
  // `root` (`root_path` should be root's path, "/" for the root, and starts with
  // "/"). `visit` returns false to stop (visitors: see top; a file renamed during
  // the walk may be missed or, if it has one link, seen at both places).
  // One query per directory (per 512 entries): linear in the tree's size.
  // ENOENT, ENOTDIR for `root`.
  Status WalkFiles(uint64_t root, const std::string& root_path,
                   const std::function<bool(const std::string& path, const Inode& inode)>& visit);
  // The first path (path-name order) of inode `ino`, "/a/b" ("/" for the root);
  // the path WalkFiles from the root reports it at. ENOENT if it has no name.
  Result<std::string> PathOf(uint64_t ino);
  // Regular files whose object is on one of `volume_ids` (uses the inode-to-volume
  // index), ordered by ino; orphans (nlink 0, no path) included.
  Result<std::vector<Inode>> FilesOnVolumes(const std::vector<uint32_t>& volume_ids);
  // Existing inodes (any type) with I/O (an iostat bucket ending after `since_s`)
  // or namespace (an FCL record at or after `since_s`) activity, sorted, each once.
  Result<std::vector<uint64_t>> ActiveInodes(int64_t since_s);

  // ---- I/O statistics ------------------------------------------------------------
  // Adds the deltas to their buckets (upsert: counters add up), all in one
  // transaction. EINVAL (nothing written) if a bucket_start_s is not a multiple
  // of FsInfo::iostat_bucket_seconds.
  Status AddIoStats(const std::vector<IoDelta>& deltas);
  // Every bucket that ends after `since_s` (bucket_start_s + bucket_seconds >
  // since_s), ordered by (ino, bucket_start_s). Visitors: see top.
  Status ForEachIoBucket(int64_t since_s, const std::function<void(const IoBucket&)>& visit);
  // Deletes buckets that ended at or before `before_s` (start + length <=
  // before_s) and those of deleted inodes.
  Status PruneIoStats(int64_t before_s);
  // Restarts the I/O statistics with buckets of `bucket_seconds` (the heat
  // resolution, 1..kMaxIoBucketSeconds): deletes every iostat bucket and sets
  // FsInfo::iostat_bucket_seconds, in one transaction. FCL records are kept.
  // EINVAL (nothing changed) for a length out of range.
  Status RestartIoStats(int64_t bucket_seconds);

  // ---- File Change Log -----------------------------------------------------------
  Result<bool> FclEnabled();
  // The number of records the FCL holds now (for monitoring: one count query).
  Result<uint64_t> FclRecordCount();
  // Logs an "fcl" record of the change itself (detail "on" / "off"; written while
  // the log is on). No change, no record.
  Status SetFclEnabled(bool on);
  // Appends a record if the FCL is on (time_ns = now, seq assigned); sets
  // record->seq and record->time_ns when written, record->seq = 0 when the FCL is
  // off (not an error).
  Status AppendFcl(FclRecord* record);
  // AppendFcl for each of `records`, kFclBatch records per hold of the
  // database lock (one lock instead of one per record; bounded, so a flush of
  // thousands of files keeps requests waiting at most one batch). Stops at the
  // first error, returning it; the records before it are written.
  static constexpr size_t kFclBatch = 256;
  Status AppendFclRecords(std::vector<FclRecord>* records);
  // Records with seq >= from_seq and time_ns >= from_time_ns, in seq order, at most
  // `limit` (0 = all). Visitors: see top.
  Status ReadFcl(int64_t from_seq, int64_t from_time_ns, size_t limit,
                 const std::function<void(const FclRecord&)>& visit);
  // Retention: drops records older than keep_seconds (0 = no age limit), then the
  // oldest beyond max_records (0 = no count limit). Sequence numbers are never reused.
  Status PruneFcl(int64_t keep_seconds, uint64_t max_records);

  // ---- Policy, relocations and scans ---------------------------------------------
  // Replaces the assigned policy; assigned_ns 0 means now. FCL: policy, detail
  // "assign=NAME".
  Status SetPolicy(const PolicyRecord& policy);
  Result<std::optional<PolicyRecord>> GetPolicy();  // nullopt if none assigned
  // Unassigns the policy (no-op if none). FCL: policy, detail "unassign".
  Status ClearPolicy();
  // time_ns 0 means now. The history keeps the newest 100000 records.
  Status RecordRelocation(const RelocationRecord& record);
  // Newest first; limit 0 = all.
  Result<std::vector<RelocationRecord>> RecentRelocations(size_t limit);
  // Sets record->id (and started_ns to now if it was 0). The history keeps the
  // newest 10000 scans.
  Status RecordScan(ScanRecord* record);
  Result<std::vector<ScanRecord>> RecentScans(size_t limit);  // newest first; 0 = all

  // ---- Consistency check, repair and backup (meta/check_queries.cc, meta/backup.cc) ----------
  // Used by fs/check/fsck.h (`tierfs check`) and fs/check/db_backup.h (`tierfs backup`).
  //
  // Opens an existing database for inspection only (Database::OpenForCheck): no
  // byte of the database or its -wal changes and no file is created, so a check
  // of an unmounted file system writes nothing. Every write through the result
  // fails. The caller keeps the daemon away (fs/volume/daemon_lock.h). Errors: ENOENT,
  // EUCLEAN (not an SQLite database), EINVAL (not a tierfs database, or a schema
  // version other than this tierfs's: mount it once, or repair, to migrate).
  static Result<std::unique_ptr<Metadata>> OpenForCheck(const std::string& db_path);
  // PRAGMA integrity_check: what SQLite finds wrong (at most `max_errors` lines),
  // empty when the database is sound. An error that stops the check is one more
  // line. Holds the database lock throughout (seconds per GB of database): the
  // daemon runs it on a backup copy, never on its live connection.
  Result<std::vector<std::string>> IntegrityCheck(int max_errors = 100);
  // Every inode whose mode says regular file (nlink 0 included), in ino order, read
  // in batches under the lock and visited without it (visitors: see top).
  Status ForEachRegularFile(const std::function<void(const Inode&)>& visit);
  // Every directory entry that cannot stand (DirentProblem), ordered by parent, name.
  Result<std::vector<DirentProblem>> DirentProblems();
  // Inodes whose nlink disagrees with the schema's convention (namespace_ops.cc): a
  // non-directory's nlink is the number of entries naming it; a directory's is 2 +
  // its subdirectories and one entry names it (none for the root). Inodes that no
  // entry names and whose nlink is 0 are left out: the next mount reclaims them.
  // An inode no entry names with nlink > 0 is included (names 0). Ordered by ino.
  // One query: a consistent view even while the daemon serves.
  Result<std::vector<LinkCountProblem>> LinkCountProblems();
  // The highest inode number ever assigned (AUTOINCREMENT's sequence, or the highest
  // row if larger): every new inode gets a larger number.
  Result<uint64_t> LastInodeNumber();
  // Makes every new inode number larger than `ino` (no-op when they already are): a
  // restored database must not hand out the numbers of objects that newer files
  // left on the volumes, or a new file would open an old file's bytes.
  Status RepairInodeSequence(uint64_t ino);
  // Repairs for `tierfs check --repair`, each one transaction with an FCL record
  // "repair" (detail: repair.why or what changed). ENOENT if there is no such inode
  // (or entry); EINVAL for a volume_id on a non-regular file or an unknown volume.
  Status RepairInode(const InodeRepair& repair);
  // Deletes the entry `name` of `parent` without touching its inode (the caller
  // fixes link counts with RepairInode); `parent`'s mtime/ctime move if it exists.
  Status RepairRemoveDirent(uint64_t parent, std::string_view name);
  // Adds entry `name` -> `ino` in directory `parent` (lost+found) without touching
  // link counts (the caller fixes them with RepairInode). EEXIST, ENOENT, ENOTDIR.
  Status RepairAddDirent(uint64_t parent, std::string_view name, uint64_t ino);
  // Gives an object that no inode owns a name again under its own inode number:
  // inserts regular file `ino` (generation `generation`, mode 0600, owner root,
  // nlink 1, `size` bytes, times now) located on `volume_id` (its object, on a
  // store, upload `store_version`), and the entry `name` -> `ino` in directory
  // `parent`, in one transaction with an FCL "repair" record. For an object on
  // a store, whose key is fixed by (ino, generation, store_version): no byte
  // moves. The caller raises the inode sequence above
  // `ino` first (RepairInodeSequence). EEXIST when inode `ino` or the entry
  // exists; ENOENT / ENOTDIR for `parent`; EINVAL for an unknown volume or an
  // `ino` of 0.
  Status RepairAdoptObject(uint64_t parent, std::string_view name, uint64_t ino,
                           uint64_t generation, uint64_t store_version, uint32_t volume_id,
                           uint64_t size);
  // Writes a consistent copy of the database to `dest_path` (a new or empty file)
  // with SQLite's online backup API, `pages_per_step` pages per hold of the
  // database lock, so that other threads keep using the database between steps;
  // changes they make meanwhile reach the copy too. `progress(done, total)` (pages)
  // after each step, without the lock; may be null. The copy is not fsynced (the
  // caller does). Errors: the SQLite error naming `dest_path` (ENOSPC, EIO...).
  Status BackupTo(const std::string& dest_path, int pages_per_step,
                  const std::function<void(uint64_t done, uint64_t total)>& progress);
  // ---- end of consistency check, repair and backup -----------------------------------

 private:
  explicit Metadata(std::unique_ptr<Database> db, const MetadataOptions& options);
  // The database lock for a change, and the time the change stamps (FCL records,
  // ctimes, mtimes), read once the lock is held: so times follow commit order.
  struct ChangeLock {
    std::unique_lock<std::mutex> lock;
    int64_t now;  // ns on options_.clock
  };
  ChangeLock LockForChange();
  // Why `name` is not in `parent` (ENOENT, or ENOTDIR when `parent` is not a
  // directory); an ENOENT also becomes a negative entry of the cache. The
  // database lock held.
  Status NoteMissing(uint64_t parent, std::string_view name);
  std::unique_ptr<Database> db_;
  MetadataOptions options_;
  // Written with the database lock held (after a change's statements, or a
  // read of the dirents table), read without it.
  DentryCache dentries_;
  // Declared after db_: stopped (committing the open group) before it closes.
  std::unique_ptr<GroupCommitter> committer_;
};

}  // namespace tierfs::meta
