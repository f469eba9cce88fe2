// Metadata: inodes and directory entries (everything but rename, in rename.cc).
//
// Invariants kept here (and in rename.cc):
//   - a directory has exactly one entry naming it (except the root, which has
//     none); its nlink is 2 + its subdirectories while it exists, 0 once removed;
//   - a non-directory's nlink equals the number of entries naming it; at 0 the
//     row stays (an orphan) until DeleteInode, called once no one has it open;
//   - volume_id is set (non-zero) exactly for regular files.
// Each change runs in one Transaction that also appends its FCL row.
#include <sys/stat.h>

#include <algorithm>

#include "meta/database.h"
#include "meta/fcl_log.h"
#include "meta/inode_rows.h"
#include "meta/metadata.h"

namespace tierfs::meta {
namespace {

// blocks: an empty new regular file's object is empty (new, or a recycled one
// truncated to 0), so 0 is known without a stat(2); NULL (unknown) otherwise
// (fsck adopts orphan objects with their size).
constexpr char kInsertInode[] =
    "INSERT INTO inodes(generation, mode, uid, gid, nlink, size, atime_ns, mtime_ns, ctime_ns, "
    "rdev, symlink, volume_id, blocks) "
    "VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?6, ?6, ?7, NULLIF(?8, ''), NULLIF(?9, 0), ?10)";
constexpr char kInsertDirent[] = "INSERT INTO dirents(parent, name, ino) VALUES (?1, ?2, ?3)";
constexpr char kDeleteDirent[] = "DELETE FROM dirents WHERE cookie = ?1";

// The FCL event for creating an inode of `mode`'s type.
const char* CreateEvent(uint32_t mode) {
  if (S_ISDIR(mode)) return "mkdir";
  if (S_ISLNK(mode)) return "symlink";
  if (S_ISREG(mode)) return "create";
  return "mknod";
}

// Why `name` is not in `parent`: ENOENT, or ENOTDIR when `parent` is not a directory.
Status NameMissing(Database* db, uint64_t parent, std::string_view name) {
  META_ASSIGN_OR_RETURN(Inode dir, LoadInode(db, parent));
  if (!S_ISDIR(dir.mode)) {
    return Status::Error(ENOTDIR, "inode " + std::to_string(parent) + " is not a directory");
  }
  return Status::NotFound("no '" + std::string(name) + "' in directory " +
                          std::to_string(parent));
}

// The entry `name` in live directory `parent`: ENOENT, ENOTDIR.
Result<DirentRow> RequireDirent(Database* db, uint64_t parent, std::string_view name) {
  META_ASSIGN_OR_RETURN(std::optional<DirentRow> entry, FindDirent(db, parent, name));
  if (!entry) return NameMissing(db, parent, name);
  return *std::move(entry);
}

// Deletes the row of inode `ino` if it has nlink 0, its xattrs with it (ON
// DELETE CASCADE, foreign_keys=ON), and logs FCL "delete"; false when there is
// no such row (gone, or linked).
Result<bool> DeleteUnlinkedRow(Database* db, int64_t now, uint64_t ino) {
  Statement st = db->Prepare("DELETE FROM inodes WHERE ino = ?1 AND nlink = 0");
  st.BindAll(ino);
  TIERFS_RETURN_IF_ERROR(st.Run());
  if (db->Changes() == 0) return false;
  TIERFS_RETURN_IF_ERROR(LogFcl(db, now, "delete", ino, 0, {}));
  return true;
}

Status NameExists(uint64_t parent, std::string_view name) {
  return Status::Exists("'" + std::string(name) + "' exists in directory " +
                        std::to_string(parent));
}

}  // namespace

Result<Inode> Metadata::GetInode(uint64_t ino) {
  auto lock = db_->Lock();
  return LoadInode(db_.get(), ino);
}

Result<uint64_t> Metadata::Lookup(uint64_t parent, std::string_view name) {
  auto lock = db_->Lock();
  META_ASSIGN_OR_RETURN(std::optional<DirentRow> entry, FindDirent(db_.get(), parent, name));
  if (!entry) return NoteMissing(parent, name);
  dentries_.Put(parent, name, entry->ino);
  return entry->ino;
}

Status Metadata::NoteMissing(uint64_t parent, std::string_view name) {
  Status missing = NameMissing(db_.get(), parent, name);
  if (missing.code() == ENOENT) dentries_.PutAbsent(parent, name);
  return missing;
}

Result<Inode> Metadata::LookupInode(uint64_t parent, std::string_view name) {
  auto lock = db_->Lock();
  Statement st = db_->Prepare("SELECT " META_INODE_COLUMNS_I
                              " FROM dirents d JOIN inodes i ON i.ino = d.ino"
                              " WHERE d.parent = ?1 AND d.name = ?2");
  st.BindAll(parent, name);
  META_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return NoteMissing(parent, name);
  Inode inode = InodeFromRow(st, 0);
  inode.row_epoch = db_->ChangeEpoch();
  dentries_.Put(parent, name, inode.ino);
  return inode;
}

Result<Inode> Metadata::Create(uint64_t parent, std::string_view name, const Inode& proto,
                              Inode* parent_after) {
  TIERFS_RETURN_IF_ERROR(ValidateName(name));
  Inode inode;
  inode.mode = proto.mode;
  if ((inode.mode & S_IFMT) == 0) inode.mode |= S_IFREG;  // mknod(2): type 0 is a regular file
  switch (inode.mode & S_IFMT) {
    case S_IFREG:
      if (proto.volume_id == 0) return Status::Invalid("a regular file needs a volume");
      inode.volume_id = proto.volume_id;
      inode.size = proto.size;
      break;
    case S_IFLNK:
      if (proto.symlink.empty()) return Status::Error(ENOENT, "empty symlink target");
      inode.symlink = proto.symlink;
      inode.size = proto.symlink.size();  // lstat(2): the length of the target
      break;
    case S_IFDIR:
    case S_IFCHR:
    case S_IFBLK:
    case S_IFIFO:
    case S_IFSOCK:
      inode.size = proto.size;
      break;
    default:
      return Status::Invalid("unknown file type in mode " + std::to_string(proto.mode));
  }
  const bool is_dir = S_ISDIR(inode.mode);
  inode.generation = 1;  // inode numbers are never reused (schema.cc)
  inode.uid = proto.uid;
  inode.gid = proto.gid;
  inode.rdev = proto.rdev;
  inode.nlink = is_dir ? 2 : 1;

  auto [lock, now] = LockForChange();
  Database* db = db_.get();
  inode.atime_ns = inode.mtime_ns = inode.ctime_ns = now;
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  META_ASSIGN_OR_RETURN(Inode dir, LoadDirectory(db, parent));
  // The entry cache, read with the database lock held, is what the database
  // holds (meta/dentry_cache.h): a name it knows absent needs no query. Were
  // it wrong, the dirents insert below would still fail (UNIQUE: EEXIST).
  if (dentries_.Find(parent, name).known != DentryCache::Known::kAbsent) {
    META_ASSIGN_OR_RETURN(std::optional<DirentRow> existing, FindDirent(db, parent, name));
    if (existing) return NameExists(parent, name);
  }
  if (dir.mode & S_ISGID) {
    inode.gid = dir.gid;
    if (is_dir) inode.mode |= S_ISGID;
  }
  {
    Statement st = db->Prepare(kInsertInode);
    st.BindAll(inode.mode, inode.uid, inode.gid, inode.nlink, inode.size, now, inode.rdev,
               inode.symlink, inode.volume_id);
    if (S_ISREG(inode.mode) && inode.size == 0) {
      inode.blocks = 0;
      st.Bind(10, int64_t{0});
    } else {
      st.BindNull(10);
    }
    TIERFS_RETURN_IF_ERROR(st.Run());
    inode.ino = static_cast<uint64_t>(db->LastInsertRowId());
  }
  {
    Statement st = db->Prepare(kInsertDirent);
    st.BindAll(parent, name, inode.ino);
    TIERFS_RETURN_IF_ERROR(st.Run());
  }
  META_ASSIGN_OR_RETURN(Inode dir_after,
                        TouchLoadedDirectory(db, std::move(dir), now, is_dir ? 1 : 0));
  TIERFS_RETURN_IF_ERROR(LogFcl(db, now, CreateEvent(inode.mode), inode.ino, parent, name));
  TIERFS_RETURN_IF_ERROR(txn.Commit());
  dentries_.Put(parent, name, inode.ino);
  if (is_dir) dentries_.PutEmptyDirectory(inode.ino);
  inode.row_epoch = dir_after.row_epoch;  // the insert came before the touch
  if (parent_after != nullptr) *parent_after = std::move(dir_after);
  return inode;
}

Result<Inode> Metadata::Link(uint64_t ino, uint64_t new_parent, std::string_view new_name,
                            Inode* parent_after) {
  TIERFS_RETURN_IF_ERROR(ValidateName(new_name));
  auto [lock, now] = LockForChange();
  Database* db = db_.get();
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  META_ASSIGN_OR_RETURN(Inode inode, LoadInode(db, ino));
  META_ASSIGN_OR_RETURN(Inode dir, LoadDirectory(db, new_parent));
  META_ASSIGN_OR_RETURN(std::optional<DirentRow> existing, FindDirent(db, new_parent, new_name));
  if (existing) return NameExists(new_parent, new_name);
  if (S_ISDIR(inode.mode)) {
    return Status::Error(EPERM, "hard link to directory " + std::to_string(ino));
  }
  // An unlinked file cannot get a name back (linkat(2) gives ENOENT too).
  if (inode.nlink == 0) return Status::NotFound("inode " + std::to_string(ino) + " is unlinked");
  if (inode.nlink >= kMaxLinks) {
    return Status::Error(EMLINK, "inode " + std::to_string(ino) + " already has " +
                                     std::to_string(inode.nlink) + " links");
  }
  {
    Statement st = db->Prepare(kInsertDirent);
    st.BindAll(new_parent, new_name, ino);
    TIERFS_RETURN_IF_ERROR(st.Run());
  }
  inode.nlink += 1;
  inode.ctime_ns = now;
  TIERFS_RETURN_IF_ERROR(SetLinksAndCtime(db, ino, inode.nlink, now));
  META_ASSIGN_OR_RETURN(Inode dir_after, TouchLoadedDirectory(db, std::move(dir), now, 0));
  TIERFS_RETURN_IF_ERROR(LogFcl(db, now, "link", ino, new_parent, new_name));
  TIERFS_RETURN_IF_ERROR(txn.Commit());
  dentries_.Put(new_parent, new_name, ino);
  inode.row_epoch = dir_after.row_epoch;
  if (parent_after != nullptr) *parent_after = std::move(dir_after);
  return inode;
}

Result<Inode> Metadata::Unlink(uint64_t parent, std::string_view name, uint64_t expected_ino,
                              Inode* parent_after) {
  auto [lock, now] = LockForChange();
  Database* db = db_.get();
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  // The entry, its inode and the parent's row in one query (two statements
  // less under the lock than reading them apart).
  int64_t cookie = 0;
  Inode inode;
  Inode dir;
  {
    Statement st = db->Prepare("SELECT d.cookie, " META_INODE_COLUMNS_I ", " META_INODE_COLUMNS_P
                               " FROM dirents d JOIN inodes i ON i.ino = d.ino"
                               " JOIN inodes p ON p.ino = d.parent"
                               " WHERE d.parent = ?1 AND d.name = ?2");
    st.BindAll(parent, name);
    META_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) return NameMissing(db, parent, name);
    cookie = st.Int64(0);
    inode = InodeFromRow(st, 1);
    dir = InodeFromRow(st, 1 + kInodeColumns);
  }
  if (expected_ino != 0 && inode.ino != expected_ino) {
    return Status::Error(ESTALE, "'" + std::string(name) + "' now names another inode");
  }
  if (S_ISDIR(inode.mode)) {
    return Status::Error(EISDIR, "'" + std::string(name) + "' is a directory");
  }
  {
    Statement st = db->Prepare(kDeleteDirent);
    st.BindAll(cookie);
    TIERFS_RETURN_IF_ERROR(st.Run());
  }
  inode.nlink -= 1;
  inode.ctime_ns = now;
  TIERFS_RETURN_IF_ERROR(SetLinksAndCtime(db, inode.ino, inode.nlink, now));
  META_ASSIGN_OR_RETURN(Inode dir_after, TouchLoadedDirectory(db, std::move(dir), now, 0));
  TIERFS_RETURN_IF_ERROR(LogFcl(db, now, "unlink", inode.ino, parent, name));
  TIERFS_RETURN_IF_ERROR(txn.Commit());
  dentries_.PutAbsent(parent, name);
  inode.row_epoch = dir_after.row_epoch;
  if (parent_after != nullptr) *parent_after = std::move(dir_after);
  return inode;
}

Result<Inode> Metadata::Rmdir(uint64_t parent, std::string_view name, Inode* parent_after) {
  auto [lock, now] = LockForChange();
  Database* db = db_.get();
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  META_ASSIGN_OR_RETURN(DirentRow entry, RequireDirent(db, parent, name));
  META_ASSIGN_OR_RETURN(Inode inode, LoadInode(db, entry.ino));
  if (!S_ISDIR(inode.mode)) {
    return Status::Error(ENOTDIR, "'" + std::string(name) + "' is not a directory");
  }
  {
    Statement st = db->Prepare("SELECT 1 FROM dirents WHERE parent = ?1 LIMIT 1");
    st.BindAll(inode.ino);
    META_ASSIGN_OR_RETURN(bool has_children, st.Step());
    if (has_children) {
      return Status::Error(ENOTEMPTY, "directory '" + std::string(name) + "' is not empty");
    }
  }
  {
    Statement st = db->Prepare(kDeleteDirent);
    st.BindAll(entry.cookie);
    TIERFS_RETURN_IF_ERROR(st.Run());
  }
  inode.nlink = 0;
  inode.ctime_ns = now;
  TIERFS_RETURN_IF_ERROR(SetLinksAndCtime(db, inode.ino, 0, now));
  // Its ".." is gone.
  META_ASSIGN_OR_RETURN(Inode dir_after, TouchDirectory(db, parent, now, -1));
  TIERFS_RETURN_IF_ERROR(LogFcl(db, now, "rmdir", inode.ino, parent, name));
  TIERFS_RETURN_IF_ERROR(txn.Commit());
  dentries_.PutAbsent(parent, name);
  dentries_.DropDirectory(inode.ino);
  inode.row_epoch = dir_after.row_epoch;
  if (parent_after != nullptr) *parent_after = std::move(dir_after);
  return inode;
}

Status Metadata::WriteInode(const Inode& inode, std::string_view fcl_event) {
  auto [lock, now] = LockForChange();
  Database* db = db_.get();
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  {
    // The file type bits never change; only the permission bits are taken.
    Statement st = db->Prepare(
        "UPDATE inodes SET mode = (mode & ?10) | (?2 & ~?10), uid = ?3, gid = ?4, size = ?5, "
        "atime_ns = ?6, mtime_ns = ?7, ctime_ns = ?8, rdev = ?9 WHERE ino = ?1");
    st.BindAll(inode.ino, inode.mode, inode.uid, inode.gid, inode.size, inode.atime_ns,
               inode.mtime_ns, inode.ctime_ns, inode.rdev, S_IFMT);
    TIERFS_RETURN_IF_ERROR(st.Run());
  }
  if (db->Changes() == 0) return Status::NotFound("no inode " + std::to_string(inode.ino));
  if (!fcl_event.empty()) {
    TIERFS_RETURN_IF_ERROR(LogFcl(db, now, fcl_event, inode.ino, 0, {}));
  }
  return txn.Commit();
}

namespace {

constexpr uint32_t kKnownAttributes = kAttrMode | kAttrUid | kAttrGid | kAttrSize | kAttrAtime |
                                      kAttrMtime | kAttrCtime | kAttrBlocks;

Status CheckAttributeMask(uint32_t fields) {
  if (fields == 0 || (fields & ~kKnownAttributes) != 0) {
    return Status::Invalid("bad attribute mask " + std::to_string(fields));
  }
  return Status::Ok();
}

// UpdateAttributes' change, in a transaction of its own; the lock held.
Result<Inode> UpdateAttributesLocked(Database* db, int64_t now, const AttributeUpdate& update) {
  const Inode& values = update.values;
  const uint32_t fields = update.fields;
  TIERFS_RETURN_IF_ERROR(CheckAttributeMask(fields));
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  Inode after;
  {
    // One statement for every mask: a column keeps its value unless its bit is set
    // (?2 is the mask), so the statement is prepared once and reused. It returns
    // the row as it leaves it: no second read.
    Statement st = db->Prepare(
        "UPDATE inodes SET "
        "mode = CASE WHEN ?2 & 1 THEN (mode & ?10) | (?3 & ~?10) ELSE mode END, "
        "uid = CASE WHEN ?2 & 2 THEN ?4 ELSE uid END, "
        "gid = CASE WHEN ?2 & 4 THEN ?5 ELSE gid END, "
        "size = CASE WHEN ?2 & 8 THEN ?6 ELSE size END, "
        "atime_ns = CASE WHEN ?2 & 16 THEN ?7 ELSE atime_ns END, "
        "mtime_ns = CASE WHEN ?2 & 32 THEN ?8 ELSE mtime_ns END, "
        "ctime_ns = CASE WHEN ?2 & 64 THEN MAX(ctime_ns, ?9) ELSE ctime_ns END, "
        "blocks = CASE WHEN ?2 & 128 THEN NULLIF(?11, -1) WHEN ?2 & 8 THEN NULL "
        "ELSE blocks END "
        "WHERE ino = ?1 RETURNING " META_INODE_COLUMNS);
    st.BindAll(values.ino, fields, values.mode, values.uid, values.gid, values.size,
               values.atime_ns, values.mtime_ns, values.ctime_ns, S_IFMT, values.blocks);
    META_ASSIGN_OR_RETURN(after, RunInodeUpdate(db, st, values.ino));
  }
  if (update.log_write) TIERFS_RETURN_IF_ERROR(LogFcl(db, now, "write", values.ino, 0, {}));
  if (!update.fcl_event.empty()) {
    TIERFS_RETURN_IF_ERROR(LogFcl(db, now, update.fcl_event, values.ino, 0, {}));
  }
  TIERFS_RETURN_IF_ERROR(txn.Commit());
  return after;
}

}  // namespace

Result<Inode> Metadata::UpdateAttributes(const Inode& values, uint32_t fields,
                                         std::string_view fcl_event, bool log_write) {
  TIERFS_RETURN_IF_ERROR(CheckAttributeMask(fields));
  auto [lock, now] = LockForChange();
  return UpdateAttributesLocked(db_.get(), now, {values, fields, fcl_event, log_write});
}

std::vector<Result<Inode>> Metadata::UpdateAttributesEach(
    const std::vector<AttributeUpdate>& updates) {
  std::vector<Result<Inode>> rows;
  rows.reserve(updates.size());
  for (size_t first = 0; first < updates.size(); first += kAttributeBatch) {
    const size_t last = std::min(updates.size(), first + kAttributeBatch);
    auto [lock, now] = LockForChange();
    for (size_t i = first; i < last; ++i) {
      rows.push_back(UpdateAttributesLocked(db_.get(), now, updates[i]));
    }
  }
  return rows;
}

Result<uint64_t> Metadata::ParentOf(uint64_t dir) {
  auto lock = db_->Lock();
  Database* db = db_.get();
  META_ASSIGN_OR_RETURN(Inode inode, LoadInode(db, dir));
  if (!S_ISDIR(inode.mode)) {
    return Status::Error(ENOTDIR, "inode " + std::to_string(dir) + " is not a directory");
  }
  if (dir == kRootIno) return kRootIno;
  // A directory has exactly one entry naming it; a removed one has none.
  Statement st = db->Prepare("SELECT parent FROM dirents WHERE ino = ?1 LIMIT 1");
  st.BindAll(dir);
  META_ASSIGN_OR_RETURN(bool row, st.Step());
  return row ? st.Uint64(0) : kRootIno;
}

Result<Inode> Metadata::SetInodeVolume(uint64_t ino, uint32_t from_volume, uint32_t to_volume,
                                       std::optional<uint64_t> size,
                                       std::optional<uint64_t> store_version) {
  auto [lock, now] = LockForChange();
  Database* db = db_.get();
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  META_ASSIGN_OR_RETURN(Inode inode, LoadInode(db, ino));
  if (!S_ISREG(inode.mode)) {
    return Status::Invalid("inode " + std::to_string(ino) + " is not a regular file");
  }
  if (inode.volume_id != from_volume) {
    return Status::Error(ESTALE, "inode " + std::to_string(ino) + " is on volume " +
                                     std::to_string(inode.volume_id) + ", not " +
                                     std::to_string(from_volume));
  }
  Inode after;
  {
    // The copy may be laid out otherwise (sparse, preallocated): blocks unknown.
    Statement st = db->Prepare(
        "UPDATE inodes SET volume_id = ?2, blocks = NULL, size = COALESCE(?3, size), "
        "store_version = COALESCE(?4, store_version) "
        "WHERE ino = ?1 RETURNING " META_INODE_COLUMNS);
    st.BindAll(ino, to_volume);
    if (size) {
      st.Bind(3, *size);
    } else {
      st.BindNull(3);
    }
    if (store_version) {
      st.Bind(4, *store_version);
    } else {
      st.BindNull(4);
    }
    // EINVAL (foreign key) for an unknown volume.
    META_ASSIGN_OR_RETURN(after, RunInodeUpdate(db, st, ino));
  }
  {
    Statement st = db->Prepare("DELETE FROM pending_objects WHERE ino = ?1 AND volume_id = ?2");
    st.BindAll(ino, to_volume);
    TIERFS_RETURN_IF_ERROR(st.Run());
  }
  {
    Statement st = db->Prepare(
        "INSERT OR REPLACE INTO pending_objects(ino, generation, volume_id) VALUES (?1, ?2, ?3)");
    st.BindAll(ino, inode.generation, from_volume);
    TIERFS_RETURN_IF_ERROR(st.Run());
  }
  std::string detail = "vol" + std::to_string(from_volume) + "->vol" + std::to_string(to_volume);
  if (size && *size != inode.size) {
    detail += " size " + std::to_string(inode.size) + "->" + std::to_string(*size);
  }
  TIERFS_RETURN_IF_ERROR(LogFcl(db, now, "relocate", ino, 0, {}, detail));
  TIERFS_RETURN_IF_ERROR(txn.Commit());
  return after;
}

Status Metadata::AddPendingObject(const PendingObject& object) {
  auto lock = db_->Lock();
  Statement st = db_->Prepare(
      "INSERT OR REPLACE INTO pending_objects(ino, generation, volume_id) VALUES (?1, ?2, ?3)");
  st.BindAll(object.ino, object.generation, object.volume_id);
  return st.Run();
}

Result<bool> Metadata::IsPendingObject(uint64_t ino, uint32_t volume_id) {
  auto lock = db_->Lock();
  Statement st = db_->Prepare("SELECT 1 FROM pending_objects WHERE ino = ?1 AND volume_id = ?2");
  st.BindAll(ino, volume_id);
  return st.Step();
}

Status Metadata::RemovePendingObject(uint64_t ino, uint32_t volume_id) {
  auto lock = db_->Lock();
  Statement st = db_->Prepare("DELETE FROM pending_objects WHERE ino = ?1 AND volume_id = ?2");
  st.BindAll(ino, volume_id);
  return st.Run();
}

Result<std::vector<PendingObject>> Metadata::ListPendingObjects() {
  auto lock = db_->Lock();
  Statement st = db_->Prepare("SELECT ino, generation, volume_id FROM pending_objects");
  std::vector<PendingObject> out;
  for (;;) {
    META_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    out.push_back(PendingObject{st.Uint64(0), st.Uint64(1), static_cast<uint32_t>(st.Int64(2))});
  }
  return out;
}

Status Metadata::ReadDir(uint64_t dir, int64_t offset,
                         const std::function<bool(const Dirent&)>& visit, size_t first_batch) {
  int64_t after = offset;
  size_t limit = std::max<size_t>(first_batch, 1);
  bool first = true;
  std::vector<Dirent> batch;
  for (;;) {
    batch.clear();
    {
      auto lock = db_->Lock();
      Database* db = db_.get();
      if (first) {
        // A removed directory still open is read as empty, so no LoadDirectory.
        META_ASSIGN_OR_RETURN(Inode inode, LoadInode(db, dir));
        if (!S_ISDIR(inode.mode)) {
          return Status::Error(ENOTDIR, "inode " + std::to_string(dir) + " is not a directory");
        }
        first = false;
      }
      // The whole inode comes with each entry: readdirplus needs no query per entry.
      Statement st = db->Prepare(
          "SELECT d.cookie, d.name, " META_INODE_COLUMNS_I
          " FROM dirents d JOIN inodes i ON i.ino = d.ino "
          "WHERE d.parent = ?1 AND d.cookie > ?2 ORDER BY d.cookie LIMIT ?3");
      st.BindAll(dir, after, static_cast<int64_t>(limit));
      for (;;) {
        META_ASSIGN_OR_RETURN(bool row, st.Step());
        if (!row) break;
        Inode attr = InodeFromRow(st, 2);
        attr.row_epoch = db->ChangeEpoch();
        batch.push_back(Dirent{st.Text(1), attr.ino, attr.mode, st.Int64(0), attr});
      }
    }
    for (const Dirent& entry : batch) {
      if (!visit(entry)) return Status::Ok();
    }
    if (batch.size() < limit) return Status::Ok();
    after = batch.back().cookie;
    limit = kDefaultReadDirBatch;
  }
}

Status Metadata::DeleteInode(uint64_t ino) {
  auto [lock, now] = LockForChange();
  Database* db = db_.get();
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  META_ASSIGN_OR_RETURN(Inode inode, LoadInode(db, ino));
  if (inode.nlink != 0) {
    return Status::Error(EBUSY, "inode " + std::to_string(ino) + " still has " +
                                    std::to_string(inode.nlink) + " links");
  }
  TIERFS_RETURN_IF_ERROR(DeleteUnlinkedRow(db, now, ino).status());
  return txn.Commit();
}

Result<std::vector<uint64_t>> Metadata::DeleteInodes(const std::vector<uint64_t>& inos) {
  std::vector<uint64_t> kept;
  if (inos.empty()) return kept;
  auto [lock, now] = LockForChange();
  Database* db = db_.get();
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  for (uint64_t ino : inos) {
    META_ASSIGN_OR_RETURN(bool deleted, DeleteUnlinkedRow(db, now, ino));
    if (!deleted) kept.push_back(ino);
  }
  TIERFS_RETURN_IF_ERROR(txn.Commit());
  return kept;
}

Result<std::vector<Inode>> Metadata::ListOrphans() {
  auto lock = db_->Lock();
  Statement st =
      db_->Prepare("SELECT " META_INODE_COLUMNS " FROM inodes WHERE nlink = 0 ORDER BY ino");
  std::vector<Inode> orphans;
  for (;;) {
    META_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    orphans.push_back(InodeFromRow(st, 0));
  }
  return orphans;
}

}  // namespace tierfs::meta
