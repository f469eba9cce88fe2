// Row helpers for the namespace tables (inodes, dirents): reading an Inode out
// of a result row, loading inodes and directory entries, touching directories,
// validating names and climbing the tree to build paths.
//
// Internal to meta/. Free functions over a Database; the caller holds the
// Database lock and, for writes, a Transaction.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "meta/database.h"
#include "meta/records.h"

// The columns InodeFromRow reads, in order, bare and with a table alias `i`
// (or `p`).
#define META_INODE_COLUMNS                                                      \
  "ino, generation, mode, uid, gid, nlink, size, atime_ns, mtime_ns, ctime_ns, rdev, " \
  "symlink, volume_id, blocks, store_version"
#define META_INODE_COLUMNS_I                                                              \
  "i.ino, i.generation, i.mode, i.uid, i.gid, i.nlink, i.size, i.atime_ns, i.mtime_ns, " \
  "i.ctime_ns, i.rdev, i.symlink, i.volume_id, i.blocks, i.store_version"

#define META_INODE_COLUMNS_P                                                              \
  "p.ino, p.generation, p.mode, p.uid, p.gid, p.nlink, p.size, p.atime_ns, p.mtime_ns, " \
  "p.ctime_ns, p.rdev, p.symlink, p.volume_id, p.blocks, p.store_version"

namespace tierfs::meta {

// How many columns META_INODE_COLUMNS names.
constexpr int kInodeColumns = 15;

// Longest name in a directory (NAME_MAX).
constexpr size_t kMaxNameLength = 255;

// One row of dirents.
struct DirentRow {
  int64_t cookie = 0;
  uint64_t parent = 0;
  std::string name;
  uint64_t ino = 0;
};

// The Inode whose META_INODE_COLUMNS start at column `first`.
Inode InodeFromRow(const Statement& st, int first);

// ENOENT if there is no inode `ino`.
Result<Inode> LoadInode(Database* db, uint64_t ino);
// Inode `ino`, which must be a live directory: ENOENT if absent or removed
// (nlink 0), ENOTDIR if not a directory.
Result<Inode> LoadDirectory(Database* db, uint64_t ino);
// The entry `name` in `parent`, or nullopt.
Result<std::optional<DirentRow>> FindDirent(Database* db, uint64_t parent, std::string_view name);

// A name that may be stored in a directory: EINVAL for "", ".", ".." or a name
// containing '/' or NUL; ENAMETOOLONG above kMaxNameLength bytes.
Status ValidateName(std::string_view name);

// Sets the ctime (ns) of `ino`.
Status SetCtime(Database* db, uint64_t ino, int64_t ctime_ns);
// Sets nlink and ctime (ns) of `ino`.
Status SetLinksAndCtime(Database* db, uint64_t ino, uint32_t nlink, int64_t ctime_ns);
// Runs `st`, an UPDATE of inode `ino` that ends in "RETURNING " META_INODE_COLUMNS
// and is bound, to its end (SQLite counts the change only then). Returns the row
// as the update left it, with its row_epoch (no second read). ENOENT when no
// row matched; EIO when two did; the statement's own errors (EINVAL for a
// foreign key).
Result<Inode> RunInodeUpdate(Database* db, Statement& st, uint64_t ino);
// A directory's contents changed: mtime = ctime = now_ns, nlink += nlink_delta
// (a subdirectory's ".." arrived or left). Returns the row as the update left
// it, with its row_epoch. ENOENT if there is no inode `dir`.
Result<Inode> TouchDirectory(Database* db, uint64_t dir, int64_t now_ns, int nlink_delta);
// The same for `dir`, the directory's row as read in this transaction (so it
// is current): the row after is computed from it, without reading it again.
Result<Inode> TouchLoadedDirectory(Database* db, Inode dir, int64_t now_ns, int nlink_delta);

// The names from the root down to directory `dir` ({} for the root). ENOENT if
// `dir` is not reachable from the root; EIO if the tree has a cycle.
Result<std::vector<std::string>> DirectoryComponents(Database* db, uint64_t dir);
// "/a/b" for {"a","b"}, "/" for {}.
std::string JoinPath(const std::vector<std::string>& components);
// True if `ancestor` is `dir` or one of its ancestors.
Result<bool> IsSameOrAncestor(Database* db, uint64_t ancestor, uint64_t dir);

}  // namespace tierfs::meta
