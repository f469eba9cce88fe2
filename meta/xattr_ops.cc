// Metadata: extended attributes (the xattrs table). Names are compared
// byte-for-byte; values are BLOBs. Changes update the inode's ctime and log an
// "xattr" FCL record (detail "set=NAME" or "remove=NAME") in one transaction.
#include <sys/xattr.h>

#include "meta/database.h"
#include "meta/fcl_log.h"
#include "meta/inode_rows.h"
#include "meta/metadata.h"

namespace tierfs::meta {
namespace {

Status NoAttribute(uint64_t ino, std::string_view name) {
  return Status::Error(ENODATA, "inode " + std::to_string(ino) + " has no attribute '" +
                                    std::string(name) + "'");
}

}  // namespace

Result<std::string> Metadata::GetXattr(uint64_t ino, std::string_view name) {
  auto lock = db_->Lock();
  Statement st = db_->Prepare("SELECT value FROM xattrs WHERE ino = ?1 AND name = ?2");
  st.BindAll(ino, name);
  META_ASSIGN_OR_RETURN(bool row, st.Step());
  if (row) return st.Blob(0);
  TIERFS_RETURN_IF_ERROR(LoadInode(db_.get(), ino).status());  // ENOENT before ENODATA
  return NoAttribute(ino, name);
}

Status Metadata::SetXattr(uint64_t ino, std::string_view name, std::string_view value,
                          int flags) {
  // Both flags at once are accepted, as by the VFS and ext4: EEXIST if the
  // attribute exists, ENODATA if it does not.
  if ((flags & ~(XATTR_CREATE | XATTR_REPLACE)) != 0) {
    return Status::Invalid("bad setxattr flags " + std::to_string(flags));
  }
  if (name.empty()) return Status::Error(ERANGE, "empty attribute name");
  auto [lock, now] = LockForChange();
  Database* db = db_.get();
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  TIERFS_RETURN_IF_ERROR(LoadInode(db, ino).status());
  bool exists;
  {
    Statement st = db->Prepare("SELECT 1 FROM xattrs WHERE ino = ?1 AND name = ?2");
    st.BindAll(ino, name);
    META_ASSIGN_OR_RETURN(exists, st.Step());
  }
  if (exists && (flags & XATTR_CREATE)) {
    return Status::Exists("attribute '" + std::string(name) + "' exists");
  }
  if (!exists && (flags & XATTR_REPLACE)) return NoAttribute(ino, name);
  {
    Statement st = db->Prepare(
        "INSERT INTO xattrs(ino, name, value) VALUES (?1, ?2, ?3) "
        "ON CONFLICT(ino, name) DO UPDATE SET value = excluded.value");
    st.BindAll(ino, name);
    st.BindBlob(3, value);
    TIERFS_RETURN_IF_ERROR(st.Run());
  }
  TIERFS_RETURN_IF_ERROR(SetCtime(db, ino, now));
  TIERFS_RETURN_IF_ERROR(LogFcl(db, now, "xattr", ino, 0, {}, "set=" + std::string(name)));
  return txn.Commit();
}

Result<std::vector<std::string>> Metadata::ListXattr(uint64_t ino) {
  auto lock = db_->Lock();
  TIERFS_RETURN_IF_ERROR(LoadInode(db_.get(), ino).status());
  Statement st = db_->Prepare("SELECT name FROM xattrs WHERE ino = ?1 ORDER BY name");
  st.BindAll(ino);
  std::vector<std::string> names;
  for (;;) {
    META_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    names.push_back(st.Text(0));
  }
  return names;
}

Status Metadata::RemoveXattr(uint64_t ino, std::string_view name) {
  auto [lock, now] = LockForChange();
  Database* db = db_.get();
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  TIERFS_RETURN_IF_ERROR(LoadInode(db, ino).status());
  {
    Statement st = db->Prepare("DELETE FROM xattrs WHERE ino = ?1 AND name = ?2");
    st.BindAll(ino, name);
    TIERFS_RETURN_IF_ERROR(st.Run());
  }
  if (db->Changes() == 0) return NoAttribute(ino, name);
  TIERFS_RETURN_IF_ERROR(SetCtime(db, ino, now));
  TIERFS_RETURN_IF_ERROR(LogFcl(db, now, "xattr", ino, 0, {}, "remove=" + std::string(name)));
  return txn.Commit();
}

}  // namespace tierfs::meta
