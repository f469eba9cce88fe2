// Metadata: the queries and repairs of the consistency check (`tierfs check`,
// fs/check/fsck.h). The check itself (objects against rows, what to repair and in which
// order) lives in fs/check/fsck.cc; this file only reads and writes rows.
//
// The link-count convention checked here is the one namespace_ops.cc keeps: a
// non-directory's nlink is the number of entries naming it; a directory's nlink is
// 2 + its subdirectories and exactly one entry names it (none for the root). Rows
// with nlink 0 that no entry names are orphans the next mount reclaims, not damage.
#include <sys/stat.h>

#include <cerrno>


#include "meta/database.h"
#include "meta/fcl_log.h"
#include "meta/info_table.h"
#include "meta/inode_rows.h"
#include "meta/metadata.h"
#include "meta/schema.h"

namespace tierfs::meta {
namespace {

constexpr int64_t kRegularFileBatch = 1024;

// S_IFMT, S_IFDIR and S_IFREG as the SQL below spells them (61440, 16384, 32768).
static_assert(S_IFMT == 61440 && S_IFDIR == 16384 && S_IFREG == 32768);

constexpr char kDirentProblems[] =
    "SELECT d.parent, d.name, d.ino, i.ino IS NULL, p.ino IS NULL, "
    "       p.ino IS NOT NULL AND (p.mode & 61440) != 16384 "
    "FROM dirents d LEFT JOIN inodes i ON i.ino = d.ino LEFT JOIN inodes p ON p.ino = d.parent "
    "WHERE i.ino IS NULL OR p.ino IS NULL OR (p.mode & 61440) != 16384 "
    "ORDER BY d.parent, d.name";

// names: entries naming each inode; subdirs: entries of each directory that are
// directories. ?1 is the root's inode number (named by no entry).
constexpr char kLinkCountProblems[] =
    "WITH names(ino, n) AS (SELECT ino, COUNT(*) FROM dirents GROUP BY ino), "
    "     subdirs(ino, n) AS (SELECT d.parent, COUNT(*) FROM dirents d "
    "                         JOIN inodes c ON c.ino = d.ino "
    "                         WHERE (c.mode & 61440) = 16384 GROUP BY d.parent) "
    "SELECT i.ino, i.mode, i.nlink, COALESCE(nm.n, 0), COALESCE(sd.n, 0) "
    "FROM inodes i LEFT JOIN names nm ON nm.ino = i.ino LEFT JOIN subdirs sd ON sd.ino = i.ino "
    "WHERE NOT (COALESCE(nm.n, 0) = 0 AND i.nlink = 0 AND i.ino != ?1) "
    "  AND CASE WHEN (i.mode & 61440) = 16384 "
    "           THEN i.nlink != 2 + COALESCE(sd.n, 0) "
    "                OR COALESCE(nm.n, 0) != (CASE WHEN i.ino = ?1 THEN 0 ELSE 1 END) "
    "           ELSE i.nlink != COALESCE(nm.n, 0) END "
    "ORDER BY i.ino";

// The tierfs identity of a database opened for checking: application id and a
// schema version this tierfs reads without migrating.
Status CheckIdentityForCheck(Database* db, const std::string& db_path) {
  {
    Statement st = db->Prepare("PRAGMA application_id");
    META_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row || st.Int64(0) != kApplicationId) {
      return Status::Invalid(db_path + " is not a tierfs metadata database");
    }
  }
  Result<int64_t> version = GetInfoInt(db, kInfoSchemaVersion);
  if (!version.ok()) {
    return Status::Invalid(db_path + ": no schema version (" + version.status().message() + ")");
  }
  if (*version != kSchemaVersion) {
    return Status::Invalid(db_path + " has metadata schema version " + std::to_string(*version) +
                           ", this tierfs reads version " + std::to_string(kSchemaVersion) +
                           " (mount it once, or run tierfs check --repair, to migrate)");
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<Metadata>> Metadata::OpenForCheck(const std::string& db_path) {
  META_ASSIGN_OR_RETURN(Database db, Database::OpenForCheck(db_path));
  {
    auto lock = db.Lock();
    TIERFS_RETURN_IF_ERROR(CheckIdentityForCheck(&db, db_path));
  }
  return std::unique_ptr<Metadata>(
      new Metadata(std::make_unique<Database>(std::move(db)), MetadataOptions{}));
}

Result<std::vector<std::string>> Metadata::IntegrityCheck(int max_errors) {
  auto lock = db_->Lock();
  Statement st = db_->Prepare("SELECT * FROM pragma_integrity_check(?1)");
  st.Bind(1, max_errors > 0 ? max_errors : 100);
  std::vector<std::string> problems;
  for (;;) {
    Result<bool> row = st.Step();
    if (!row.ok()) {
      const int code = row.status().code();
      if (code == EBUSY || code == ENOMEM) return row.status();
      problems.push_back("integrity_check stopped: " + row.status().message());
      break;
    }
    if (!*row) break;
    std::string line = st.Text(0);
    if (line != "ok") problems.push_back(std::move(line));
  }
  return problems;
}

Status Metadata::ForEachRegularFile(const std::function<void(const Inode&)>& visit) {
  uint64_t after = 0;
  for (;;) {
    std::vector<Inode> batch;
    {
      auto lock = db_->Lock();
      Statement st = db_->Prepare("SELECT " META_INODE_COLUMNS
                                  " FROM inodes WHERE ino > ?1 AND (mode & 61440) = 32768"
                                  " ORDER BY ino LIMIT ?2");
      st.BindAll(after, kRegularFileBatch);
      TIERFS_RETURN_IF_ERROR(
          st.AppendRows(&batch, [](const Statement& r) { return InodeFromRow(r, 0); }));
    }
    for (const Inode& inode : batch) visit(inode);
    if (static_cast<int64_t>(batch.size()) < kRegularFileBatch) return Status::Ok();
    after = batch.back().ino;
  }
}

Result<std::vector<DirentProblem>> Metadata::DirentProblems() {
  auto lock = db_->Lock();
  Statement st = db_->Prepare(kDirentProblems);
  std::vector<DirentProblem> out;
  TIERFS_RETURN_IF_ERROR(st.AppendRows(&out, [](const Statement& r) {
    DirentProblem p;
    p.parent = r.Uint64(0);
    p.name = r.Text(1);
    p.ino = r.Uint64(2);
    p.inode_missing = r.Int64(3) != 0;
    p.parent_missing = r.Int64(4) != 0;
    p.parent_not_directory = r.Int64(5) != 0;
    return p;
  }));
  return out;
}

Result<std::vector<LinkCountProblem>> Metadata::LinkCountProblems() {
  auto lock = db_->Lock();
  Statement st = db_->Prepare(kLinkCountProblems);
  st.Bind(1, kRootIno);
  std::vector<LinkCountProblem> out;
  TIERFS_RETURN_IF_ERROR(st.AppendRows(&out, [](const Statement& r) {
    LinkCountProblem p;
    p.ino = r.Uint64(0);
    p.mode = static_cast<uint32_t>(r.Int64(1));
    p.nlink = static_cast<uint32_t>(r.Int64(2));
    p.names = r.Uint64(3);
    p.subdirs = r.Uint64(4);
    p.expected = static_cast<uint32_t>(S_ISDIR(p.mode) ? 2 + p.subdirs : p.names);
    return p;
  }));
  return out;
}

Result<uint64_t> Metadata::LastInodeNumber() {
  auto lock = db_->Lock();
  Statement st = db_->Prepare(
      "SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'inodes'), 0), "
      "           COALESCE((SELECT MAX(ino) FROM inodes), 0))");
  META_ASSIGN_OR_RETURN(bool row, st.Step());
  return row ? st.Uint64(0) : 0;
}

Status Metadata::RepairInodeSequence(uint64_t ino) {
  auto lock = db_->Lock();
  Database* db = db_.get();
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  {
    Statement st = db->Prepare(
        "UPDATE sqlite_sequence SET seq = ?1 WHERE name = 'inodes' AND seq < ?1");
    st.Bind(1, ino);
    TIERFS_RETURN_IF_ERROR(st.Run());
  }
  {
    Statement st = db->Prepare(
        "INSERT INTO sqlite_sequence(name, seq) SELECT 'inodes', ?1 "
        "WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'inodes')");
    st.Bind(1, ino);
    TIERFS_RETURN_IF_ERROR(st.Run());
  }
  return txn.Commit();
}

Status Metadata::RepairInode(const InodeRepair& repair) {
  auto [lock, now] = LockForChange();
  Database* db = db_.get();
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  META_ASSIGN_OR_RETURN(Inode inode, LoadInode(db, repair.ino));
  std::string detail = repair.why;
  auto note = [&](const std::string& what) {
    if (repair.why.empty()) detail += (detail.empty() ? "" : " ") + what;
  };
  if (repair.nlink) {
    Statement st = db->Prepare("UPDATE inodes SET nlink = ?2 WHERE ino = ?1");
    st.BindAll(repair.ino, *repair.nlink);
    TIERFS_RETURN_IF_ERROR(st.Run());
    note("nlink " + std::to_string(inode.nlink) + "->" + std::to_string(*repair.nlink));
  }
  if (repair.size) {
    Statement st = db->Prepare("UPDATE inodes SET size = ?2, blocks = NULL WHERE ino = ?1");
    st.BindAll(repair.ino, *repair.size);
    TIERFS_RETURN_IF_ERROR(st.Run());
    note("size " + std::to_string(inode.size) + "->" + std::to_string(*repair.size));
  }
  if (repair.volume_id) {
    if (!S_ISREG(inode.mode) || *repair.volume_id == 0) {
      return Status::Invalid("inode " + std::to_string(repair.ino) +
                             ": only a regular file has a volume");
    }
    {
      Statement known = db->Prepare("SELECT 1 FROM volumes WHERE id = ?1");
      known.Bind(1, *repair.volume_id);
      META_ASSIGN_OR_RETURN(bool row, known.Step());
      if (!row) return Status::Invalid("no volume " + std::to_string(*repair.volume_id));
    }
    Statement st = db->Prepare("UPDATE inodes SET volume_id = ?2, blocks = NULL WHERE ino = ?1");
    st.BindAll(repair.ino, *repair.volume_id);
    TIERFS_RETURN_IF_ERROR(st.Run());
    note("volume " + std::to_string(inode.volume_id) + "->" + std::to_string(*repair.volume_id));
  }
  if (repair.store_version) {
    if (!S_ISREG(inode.mode)) {
      return Status::Invalid("inode " + std::to_string(repair.ino) +
                             ": only a regular file has an object");
    }
    Statement st = db->Prepare("UPDATE inodes SET store_version = ?2 WHERE ino = ?1");
    st.BindAll(repair.ino, *repair.store_version);
    TIERFS_RETURN_IF_ERROR(st.Run());
    note("upload " + std::to_string(inode.store_version) + "->" +
         std::to_string(*repair.store_version));
  }
  TIERFS_RETURN_IF_ERROR(SetCtime(db, repair.ino, now));
  TIERFS_RETURN_IF_ERROR(LogFcl(db, now, "repair", repair.ino, 0, "", detail));
  return txn.Commit();
}

Status Metadata::RepairRemoveDirent(uint64_t parent, std::string_view name) {
  auto [lock, now] = LockForChange();
  Database* db = db_.get();
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  META_ASSIGN_OR_RETURN(std::optional<DirentRow> entry, FindDirent(db, parent, name));
  if (!entry) {
    return Status::NotFound("no entry '" + std::string(name) + "' in directory " +
                            std::to_string(parent));
  }
  {
    Statement st = db->Prepare("DELETE FROM dirents WHERE cookie = ?1");
    st.Bind(1, entry->cookie);
    TIERFS_RETURN_IF_ERROR(st.Run());
  }
  Result<Inode> dir = LoadInode(db, parent);
  if (dir.ok() && S_ISDIR(dir->mode)) {
    TIERFS_RETURN_IF_ERROR(TouchDirectory(db, parent, now, 0).status());
  }
  TIERFS_RETURN_IF_ERROR(LogFcl(db, now, "repair", entry->ino, parent, name, "entry removed"));
  TIERFS_RETURN_IF_ERROR(txn.Commit());
  dentries_.PutAbsent(parent, name);
  return Status::Ok();
}

Status Metadata::RepairAddDirent(uint64_t parent, std::string_view name, uint64_t ino) {
  TIERFS_RETURN_IF_ERROR(ValidateName(name));
  auto [lock, now] = LockForChange();
  Database* db = db_.get();
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  TIERFS_RETURN_IF_ERROR(LoadDirectory(db, parent).status());
  TIERFS_RETURN_IF_ERROR(LoadInode(db, ino).status());
  META_ASSIGN_OR_RETURN(std::optional<DirentRow> existing, FindDirent(db, parent, name));
  if (existing) {
    return Status::Exists("'" + std::string(name) + "' exists in directory " +
                          std::to_string(parent));
  }
  {
    Statement st = db->Prepare("INSERT INTO dirents(parent, name, ino) VALUES (?1, ?2, ?3)");
    st.BindAll(parent, name, ino);
    TIERFS_RETURN_IF_ERROR(st.Run());
  }
  TIERFS_RETURN_IF_ERROR(TouchDirectory(db, parent, now, 0).status());
  TIERFS_RETURN_IF_ERROR(LogFcl(db, now, "repair", ino, parent, name, "entry added"));
  TIERFS_RETURN_IF_ERROR(txn.Commit());
  dentries_.Put(parent, name, ino);
  return Status::Ok();
}

Status Metadata::RepairAdoptObject(uint64_t parent, std::string_view name, uint64_t ino,
                                   uint64_t generation, uint64_t store_version,
                                   uint32_t volume_id, uint64_t size) {
  TIERFS_RETURN_IF_ERROR(ValidateName(name));
  if (ino == 0) return Status::Invalid("inode number 0");
  auto [lock, now] = LockForChange();
  Database* db = db_.get();
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  TIERFS_RETURN_IF_ERROR(LoadDirectory(db, parent).status());
  if (Result<Inode> existing = LoadInode(db, ino); existing.ok()) {
    return Status::Exists("inode " + std::to_string(ino) + " exists");
  } else if (existing.status().code() != ENOENT) {
    return existing.status();
  }
  META_ASSIGN_OR_RETURN(std::optional<DirentRow> entry, FindDirent(db, parent, name));
  if (entry) {
    return Status::Exists("'" + std::string(name) + "' exists in directory " +
                          std::to_string(parent));
  }
  {
    Statement known = db->Prepare("SELECT 1 FROM volumes WHERE id = ?1");
    known.Bind(1, volume_id);
    META_ASSIGN_OR_RETURN(bool row, known.Step());
    if (!row) return Status::Invalid("no volume " + std::to_string(volume_id));
  }
  {
    Statement st = db->Prepare(
        "INSERT INTO inodes(ino, generation, mode, uid, gid, nlink, size, atime_ns, mtime_ns, "
        "ctime_ns, rdev, symlink, volume_id, blocks, store_version) "
        "VALUES (?1, ?2, ?3, 0, 0, 1, ?4, ?5, ?5, ?5, 0, NULL, ?6, NULL, ?7)");
    st.BindAll(ino, generation, static_cast<uint32_t>(S_IFREG | 0600), size, now, volume_id,
               store_version);
    TIERFS_RETURN_IF_ERROR(st.Run());
  }
  {
    Statement st = db->Prepare("INSERT INTO dirents(parent, name, ino) VALUES (?1, ?2, ?3)");
    st.BindAll(parent, name, ino);
    TIERFS_RETURN_IF_ERROR(st.Run());
  }
  TIERFS_RETURN_IF_ERROR(TouchDirectory(db, parent, now, 0).status());
  TIERFS_RETURN_IF_ERROR(LogFcl(db, now, "repair", ino, parent, name,
                                "object adopted: volume " + std::to_string(volume_id) + ", " +
                                    std::to_string(size) + " bytes"));
  TIERFS_RETURN_IF_ERROR(txn.Commit());
  dentries_.Put(parent, name, ino);
  return Status::Ok();
}

}  // namespace tierfs::meta
