#include "meta/inode_rows.h"

#include <sys/stat.h>

namespace tierfs::meta {
namespace {

// Deeper than any real tree; reaching it means the parent links loop.
constexpr int kMaxDepth = 1 << 16;

}  // namespace

Inode InodeFromRow(const Statement& st, int first) {
  Inode inode;
  inode.ino = st.Uint64(first + 0);
  inode.generation = st.Uint64(first + 1);
  inode.mode = static_cast<uint32_t>(st.Int64(first + 2));
  inode.uid = static_cast<uint32_t>(st.Int64(first + 3));
  inode.gid = static_cast<uint32_t>(st.Int64(first + 4));
  inode.nlink = static_cast<uint32_t>(st.Int64(first + 5));
  inode.size = st.Uint64(first + 6);
  inode.atime_ns = st.Int64(first + 7);
  inode.mtime_ns = st.Int64(first + 8);
  inode.ctime_ns = st.Int64(first + 9);
  inode.rdev = st.Uint64(first + 10);
  inode.symlink = st.Text(first + 11);
  inode.volume_id = static_cast<uint32_t>(st.Int64(first + 12));
  inode.blocks = st.IsNull(first + 13) ? -1 : st.Int64(first + 13);
  inode.store_version = st.Uint64(first + 14);
  return inode;
}

Result<Inode> LoadInode(Database* db, uint64_t ino) {
  Statement st = db->Prepare("SELECT " META_INODE_COLUMNS " FROM inodes WHERE ino = ?1");
  st.BindAll(ino);
  META_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return Status::NotFound("no inode " + std::to_string(ino));
  Inode inode = InodeFromRow(st, 0);
  inode.row_epoch = db->ChangeEpoch();
  return inode;
}

Result<Inode> LoadDirectory(Database* db, uint64_t ino) {
  META_ASSIGN_OR_RETURN(Inode inode, LoadInode(db, ino));
  if (!S_ISDIR(inode.mode)) {
    return Status::Error(ENOTDIR, "inode " + std::to_string(ino) + " is not a directory");
  }
  if (inode.nlink == 0) return Status::NotFound("directory " + std::to_string(ino) + " removed");
  return inode;
}

Result<std::optional<DirentRow>> FindDirent(Database* db, uint64_t parent,
                                            std::string_view name) {
  Statement st = db->Prepare("SELECT cookie, ino FROM dirents WHERE parent = ?1 AND name = ?2");
  st.BindAll(parent, name);
  META_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<DirentRow>();
  return std::optional<DirentRow>(DirentRow{st.Int64(0), parent, std::string(name), st.Uint64(1)});
}

Status ValidateName(std::string_view name) {
  if (name.empty() || name == "." || name == "..") {
    return Status::Invalid("invalid name '" + std::string(name) + "'");
  }
  if (name.find('/') != std::string_view::npos || name.find('\0') != std::string_view::npos) {
    return Status::Invalid("name contains '/' or NUL");
  }
  if (name.size() > kMaxNameLength) return Status::Error(ENAMETOOLONG, "name too long");
  return Status::Ok();
}

Status SetCtime(Database* db, uint64_t ino, int64_t ctime_ns) {
  Statement st = db->Prepare("UPDATE inodes SET ctime_ns = ?2 WHERE ino = ?1");
  st.BindAll(ino, ctime_ns);
  return st.Run();
}

Status SetLinksAndCtime(Database* db, uint64_t ino, uint32_t nlink, int64_t ctime_ns) {
  Statement st = db->Prepare("UPDATE inodes SET nlink = ?2, ctime_ns = ?3 WHERE ino = ?1");
  st.BindAll(ino, nlink, ctime_ns);
  return st.Run();
}

Result<Inode> RunInodeUpdate(Database* db, Statement& st, uint64_t ino) {
  META_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return Status::NotFound("no inode " + std::to_string(ino));
  Inode after = InodeFromRow(st, 0);
  META_ASSIGN_OR_RETURN(bool more, st.Step());
  if (more) return Status::Io("two inodes numbered " + std::to_string(ino));
  after.row_epoch = db->ChangeEpoch();
  return after;
}

Result<Inode> TouchDirectory(Database* db, uint64_t dir, int64_t now_ns, int nlink_delta) {
  META_ASSIGN_OR_RETURN(Inode row, LoadInode(db, dir));
  return TouchLoadedDirectory(db, std::move(row), now_ns, nlink_delta);
}

Result<Inode> TouchLoadedDirectory(Database* db, Inode dir, int64_t now_ns, int nlink_delta) {
  // A plain UPDATE and the row computed here, not UPDATE ... RETURNING: SQLite
  // gathers RETURNING rows in an ephemeral table it opens and closes per
  // statement, which cost a create or an unlink about 3 us under the lock.
  Statement st = db->Prepare(
      "UPDATE inodes SET mtime_ns = ?2, ctime_ns = ?2, nlink = nlink + ?3 WHERE ino = ?1");
  st.BindAll(dir.ino, now_ns, nlink_delta);
  TIERFS_RETURN_IF_ERROR(st.Run());
  if (db->Changes() == 0) return Status::NotFound("no inode " + std::to_string(dir.ino));
  dir.mtime_ns = dir.ctime_ns = now_ns;
  dir.nlink = static_cast<uint32_t>(static_cast<int64_t>(dir.nlink) + nlink_delta);
  dir.row_epoch = db->ChangeEpoch();
  return dir;
}

Result<std::vector<std::string>> DirectoryComponents(Database* db, uint64_t dir) {
  std::vector<std::string> reversed;
  uint64_t at = dir;
  for (int depth = 0; at != kRootIno; ++depth) {
    if (depth == kMaxDepth) {
      return Status::Io("directory tree loops above inode " + std::to_string(dir));
    }
    // A directory has exactly one entry (no hard links to directories).
    Statement st = db->Prepare("SELECT parent, name FROM dirents WHERE ino = ?1 LIMIT 1");
    st.BindAll(at);
    META_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) return Status::NotFound("inode " + std::to_string(at) + " has no name");
    reversed.push_back(st.Text(1));
    at = st.Uint64(0);
  }
  return std::vector<std::string>(reversed.rbegin(), reversed.rend());
}

std::string JoinPath(const std::vector<std::string>& components) {
  if (components.empty()) return "/";
  std::string path;
  for (const std::string& c : components) {
    path += '/';
    path += c;
  }
  return path;
}

Result<bool> IsSameOrAncestor(Database* db, uint64_t ancestor, uint64_t dir) {
  uint64_t at = dir;
  for (int depth = 0;; ++depth) {
    if (at == ancestor) return true;
    if (at == kRootIno) return false;
    if (depth == kMaxDepth) {
      return Status::Io("directory tree loops above inode " + std::to_string(dir));
    }
    Statement st = db->Prepare("SELECT parent FROM dirents WHERE ino = ?1 LIMIT 1");
    st.BindAll(at);
    META_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) return false;  // a detached (removed) directory: no ancestors
    at = st.Uint64(0);
  }
}

}  // namespace tierfs::meta
