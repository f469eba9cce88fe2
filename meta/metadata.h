// Metadata: the SQLite database (WAL) on the metadata volume that holds the
// whole namespace, volumes, I/O statistics, the FCL and policy state.
//
// Ownership: one Metadata per mounted file system, owned by the daemon (or by a
// tool such as mkdstfs while the file system is not mounted). It owns a single
// SQLite connection guarded by one mutex; every method is thread-safe and each
// namespace change is one transaction that also appends its FCL record (when
// the FCL is on). Errors: SQLITE_FULL -> ENOSPC, SQLITE_CONSTRAINT -> EEXIST,
// SQLITE_BUSY -> EBUSY, others -> EIO with the SQLite message (mapped in one place).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "meta/records.h"

namespace tierfs::meta {

class Database;  // meta/database.h: connection, statements, transactions (RAII)

struct MetadataOptions {
  bool sync_full = false;  // PRAGMA synchronous=FULL instead of NORMAL
  const Clock* clock = &SystemClock::Get();
};

class Metadata {
 public:
  // Creates a new database file at `db_path` (EEXIST if it exists) holding `info`,
  // the volumes (ids assigned 1..n in order) and the root directory (inode 1,
  // mode S_IFDIR|0755, owner root_uid:root_gid, nlink 2). The FCL starts on.
  static Status Format(const std::string& db_path, const FsInfo& info,
                       const std::vector<Volume>& volumes, uid_t root_uid, gid_t root_gid,
                       const Clock& clock);
  // Opens an existing database (ENOENT if missing, EINVAL if not a tierfs database
  // or of a newer schema version). Runs schema migrations.
  static Result<std::unique_ptr<Metadata>> Open(const std::string& db_path,
                                                const MetadataOptions& options);
  ~Metadata();
  Metadata(const Metadata&) = delete;
  Metadata& operator=(const Metadata&) = delete;

  // ---- File system and volumes -------------------------------------------------
  Result<FsInfo> GetFsInfo();
  Result<std::vector<Volume>> ListVolumes();  // ordered by id
  // Appends a volume; sets volume->id. EEXIST if the name is taken.
  Status AddVolume(Volume* volume);
  // Replaces the mutable fields (path, placement_class, media_type*, role, state) of volume.id.
  Status UpdateVolume(const Volume& volume);
  // Number of inodes (every row, orphans included): for statfs.
  Result<uint64_t> CountInodes();
  // For every volume (ordered by id, volumes without files included): how many
  // regular files have their object there and their total size in bytes. For
  // statfs and fsvoladm.
  Result<std::vector<VolumeUsage>> UsageByVolume();

  // ---- Namespace (each call one transaction; times from the clock) ----------------
  // ENOENT if no such inode.
  Result<Inode> GetInode(uint64_t ino);
  // The inode number `name` names in directory `parent`; ENOENT if none.
  Result<uint64_t> Lookup(uint64_t parent, std::string_view name);
  // Lookup and GetInode in one query (a FUSE lookup needs both). ENOENT if none.
  Result<Inode> LookupInode(uint64_t parent, std::string_view name);
  // Creates inode + dirent. From `proto` it takes mode, uid, gid, rdev, symlink,
  // volume_id and size; it assigns ino, generation, nlink (1, or 2 for a directory)
  // and atime=mtime=ctime=now. Updates the parent's mtime/ctime (and nlink for a
  // directory). FCL: create|mkdir|symlink|mknod. EEXIST if the name exists.
  Result<Inode> Create(uint64_t parent, std::string_view name, const Inode& proto);
  // Adds a name for a non-directory inode; returns it after (nlink+1, ctime=now).
  // EEXIST, ENOENT, EPERM for a directory. FCL: link.
  Result<Inode> Link(uint64_t ino, uint64_t new_parent, std::string_view new_name);
  // Removes a non-directory name; returns its inode after (nlink-1, ctime=now;
  // nlink 0 means the caller reclaims it once no one has it open). EISDIR for a
  // directory, ENOENT. FCL: unlink.
  Result<Inode> Unlink(uint64_t parent, std::string_view name);
  // Removes an empty directory; returns it with nlink 0. ENOTDIR, ENOTEMPTY, ENOENT.
  // FCL: rmdir.
  Result<Inode> Rmdir(uint64_t parent, std::string_view name);
  // rename(2) semantics with flags 0 | RENAME_NOREPLACE | RENAME_EXCHANGE
  // (linux/fs.h values). Returns the inode the rename replaced (after its nlink
  // drop) if any. Errors: ENOENT, EEXIST (NOREPLACE), ENOTDIR, EISDIR, ENOTEMPTY,
  // EINVAL (a directory into its own subtree, or both flags). Updates ctime of the
  // moved inode, mtime/ctime of both parents, ".." link counts. FCL: rename.
  Result<std::optional<Inode>> Rename(uint64_t parent, std::string_view name, uint64_t new_parent,
                                      std::string_view new_name, unsigned int flags);
  // Writes back mode, uid, gid, size, atime, mtime, ctime, rdev of inode.ino (not
  // nlink, not volume). If `fcl_event` is not empty ("setattr", "truncate") it is logged.
  Status WriteInode(const Inode& inode, std::string_view fcl_event = {});
  // Points inode `ino` at `volume_id` (relocation commit). FCL: relocate, with
  // detail "volFROM->volTO".
  Status SetInodeVolume(uint64_t ino, uint32_t from_volume, uint32_t to_volume);
  // Entries of directory `dir` whose cookie > `offset`, in cookie order (cookies are
  // stable while entries are added and removed); "." and ".." are not stored.
  // `visit` returns false to stop. ENOTDIR, ENOENT.
  Status ReadDir(uint64_t dir, int64_t offset, const std::function<bool(const Dirent&)>& visit);
  // Deletes an inode row and its xattrs (its iostat rows stay until pruned).
  // Used at last close of an orphan and by orphan recovery at mount.
  Status DeleteInode(uint64_t ino);
  // Regular files with nlink 0 (orphans left by a crash or still open).
  Result<std::vector<Inode>> ListOrphans();

  // ---- Extended attributes -------------------------------------------------------
  Result<std::string> GetXattr(uint64_t ino, std::string_view name);  // ENODATA
  // flags: 0 | XATTR_CREATE (EEXIST if present) | XATTR_REPLACE (ENODATA if absent).
  // Updates ctime. FCL: xattr.
  Status SetXattr(uint64_t ino, std::string_view name, std::string_view value, int flags);
  Result<std::vector<std::string>> ListXattr(uint64_t ino);
  Status RemoveXattr(uint64_t ino, std::string_view name);  // ENODATA

  // ---- Scans ---------------------------------------------------------------------
  // Every regular file under directory `root` (recursive), each inode once, by its
  // first path in path-name (byte) order; `path` is relative to the mount root and
  // starts with "/". `visit` returns false to stop.
  Status WalkFiles(uint64_t root, const std::string& root_path,
                   const std::function<bool(const std::string& path, const Inode& inode)>& visit);
  // The first path (path-name order) of inode `ino`, "/a/b"; ENOENT if it has no name.
  Result<std::string> PathOf(uint64_t ino);
  // Regular files whose object is on one of `volume_ids` (uses the inode-to-volume index).
  Result<std::vector<Inode>> FilesOnVolumes(const std::vector<uint32_t>& volume_ids);
  // Inodes with I/O (iostat) or namespace (FCL) activity at or after `since_s`.
  Result<std::vector<uint64_t>> ActiveInodes(int64_t since_s);

  // ---- I/O statistics ------------------------------------------------------------
  // Adds the deltas to their buckets (upsert), all in one transaction.
  Status AddIoStats(const std::vector<IoDelta>& deltas);
  // Every bucket that ends after `since_s`, ordered by (ino, bucket_start_s).
  Status ForEachIoBucket(int64_t since_s, const std::function<void(const IoBucket&)>& visit);
  // Deletes buckets that ended before `before_s` and those of deleted inodes.
  Status PruneIoStats(int64_t before_s);

  // ---- File Change Log -----------------------------------------------------------
  Result<bool> FclEnabled();
  Status SetFclEnabled(bool on);  // logs an "fcl" record of the change itself
  // Appends a record if the FCL is on (time = now); sets record->seq when written.
  Status AppendFcl(FclRecord* record);
  // Records with seq >= from_seq and time_ns >= from_time_ns, in seq order, at most
  // `limit` (0 = all).
  Status ReadFcl(int64_t from_seq, int64_t from_time_ns, size_t limit,
                 const std::function<void(const FclRecord&)>& visit);
  // Retention: drops records older than keep_seconds, then the oldest beyond max_records.
  Status PruneFcl(int64_t keep_seconds, uint64_t max_records);

  // ---- Policy, relocations and scans ---------------------------------------------
  Status SetPolicy(const PolicyRecord& policy);  // replaces; FCL: policy
  Result<std::optional<PolicyRecord>> GetPolicy();
  Status ClearPolicy();
  Status RecordRelocation(const RelocationRecord& record);
  Result<std::vector<RelocationRecord>> RecentRelocations(size_t limit);
  // Sets record->id.
  Status RecordScan(ScanRecord* record);
  Result<std::vector<ScanRecord>> RecentScans(size_t limit);  // newest first

 private:
  explicit Metadata(std::unique_ptr<Database> db, const MetadataOptions& options);
  std::unique_ptr<Database> db_;
  MetadataOptions options_;
};

}  // namespace tierfs::meta
