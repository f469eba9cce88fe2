#include "meta/schema.h"

#include <cerrno>
#include <string>

#include "meta/info_table.h"

namespace tierfs::meta {
namespace {

// Schema version 1. Notes on the choices:
//  - inodes.ino is AUTOINCREMENT: an inode number is never reused, so FCL rows,
//    iostat rows and object names keyed by inode number never point at a later
//    file. `generation` is therefore 1 for every inode today; it stays in the
//    row (and in object names) so that a future scheme that does reuse numbers
//    can bump it.
//  - volume_id is NULL except for regular files, so inodes_by_volume indexes
//    exactly the regular files; inodes_orphans indexes nlink = 0 only.
//  - dirents.cookie (AUTOINCREMENT, never reused) is the readdir offset; the
//    index on (parent) carries the rowid, so it walks a directory in cookie
//    order. Names are TEXT bound byte-for-byte with BINARY collation: lookups
//    and ordering are byte-exact.
//  - iostat is WITHOUT ROWID: small rows keyed by (ino, bucket_start).
constexpr char kSchemaV1[] = R"sql(
CREATE TABLE fs_info(
  key TEXT PRIMARY KEY NOT NULL,
  value);

CREATE TABLE volumes(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  path TEXT NOT NULL,
  placement_class TEXT NOT NULL,
  media_type TEXT NOT NULL,
  media_type_source TEXT NOT NULL,
  role TEXT NOT NULL,
  state TEXT NOT NULL);

CREATE TABLE inodes(
  ino INTEGER PRIMARY KEY AUTOINCREMENT,
  generation INTEGER NOT NULL,
  mode INTEGER NOT NULL,
  uid INTEGER NOT NULL,
  gid INTEGER NOT NULL,
  nlink INTEGER NOT NULL,
  size INTEGER NOT NULL,
  atime_ns INTEGER NOT NULL,
  mtime_ns INTEGER NOT NULL,
  ctime_ns INTEGER NOT NULL,
  rdev INTEGER NOT NULL,
  symlink TEXT,
  volume_id INTEGER REFERENCES volumes(id));
CREATE INDEX inodes_by_volume ON inodes(volume_id) WHERE volume_id IS NOT NULL;
CREATE INDEX inodes_orphans ON inodes(ino) WHERE nlink = 0;

CREATE TABLE dirents(
  cookie INTEGER PRIMARY KEY AUTOINCREMENT,
  parent INTEGER NOT NULL REFERENCES inodes(ino),
  name TEXT NOT NULL,
  ino INTEGER NOT NULL REFERENCES inodes(ino),
  UNIQUE(parent, name));
CREATE INDEX dirents_by_parent ON dirents(parent);
CREATE INDEX dirents_by_ino ON dirents(ino);
INSERT INTO sqlite_sequence(name, seq) VALUES ('dirents', 2);

CREATE TABLE xattrs(
  ino INTEGER NOT NULL REFERENCES inodes(ino) ON DELETE CASCADE,
  name TEXT NOT NULL,
  value BLOB NOT NULL,
  PRIMARY KEY(ino, name));

CREATE TABLE fcl(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  time_ns INTEGER NOT NULL,
  event TEXT NOT NULL,
  ino INTEGER NOT NULL,
  parent INTEGER NOT NULL,
  name TEXT NOT NULL,
  detail TEXT NOT NULL);
CREATE INDEX fcl_by_time ON fcl(time_ns);

CREATE TABLE iostat(
  ino INTEGER NOT NULL,
  bucket_start INTEGER NOT NULL,
  rbytes INTEGER NOT NULL,
  wbytes INTEGER NOT NULL,
  rops INTEGER NOT NULL,
  wops INTEGER NOT NULL,
  PRIMARY KEY(ino, bucket_start)) WITHOUT ROWID;
CREATE INDEX iostat_by_bucket ON iostat(bucket_start);

CREATE TABLE policy(
  id INTEGER PRIMARY KEY CHECK (id = 1),
  name TEXT NOT NULL,
  xml TEXT NOT NULL,
  assigned_ns INTEGER NOT NULL);

-- Objects that may exist on a volume without being their inode's location: a
-- relocation's copy before it commits, its source after. Cleared as each is
-- removed; whatever a crash leaves here is removed at the next mount.
CREATE TABLE pending_objects(
  ino INTEGER NOT NULL,
  generation INTEGER NOT NULL,
  volume_id INTEGER NOT NULL,
  PRIMARY KEY(ino, volume_id)) WITHOUT ROWID;

CREATE TABLE relocations(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  time_ns INTEGER NOT NULL,
  ino INTEGER NOT NULL,
  from_volume INTEGER NOT NULL,
  to_volume INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  seconds REAL NOT NULL,
  outcome TEXT NOT NULL);

CREATE TABLE scans(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  started_ns INTEGER NOT NULL,
  seconds REAL NOT NULL,
  kind TEXT NOT NULL,
  options TEXT NOT NULL,
  files_scanned INTEGER NOT NULL,
  files_moved INTEGER NOT NULL,
  bytes_moved INTEGER NOT NULL,
  errors INTEGER NOT NULL,
  files_deleted INTEGER NOT NULL DEFAULT 0);

PRAGMA application_id = 1414678099;
)sql";
static_assert(kApplicationId == 1414678099, "keep kSchemaV1's PRAGMA in step");
static_assert(kFirstDirentCookie == 3, "keep kSchemaV1's sqlite_sequence seed in step");

// Version 2: pending_objects with its primary-key columns first. SQLite 3.40
// (Debian 12) reports a false "NULL value in pending_objects.generation" from
// quick_check and integrity_check on a WITHOUT ROWID table whose NOT NULL
// column precedes a primary-key column, which would refuse every mount after a
// crash mid-relocation.
constexpr char kMigrateV1ToV2[] = R"sql(
CREATE TABLE pending_objects_v2(
  ino INTEGER NOT NULL,
  volume_id INTEGER NOT NULL,
  generation INTEGER NOT NULL,
  PRIMARY KEY(ino, volume_id)) WITHOUT ROWID;
INSERT INTO pending_objects_v2(ino, volume_id, generation)
  SELECT ino, volume_id, generation FROM pending_objects;
DROP TABLE pending_objects;
ALTER TABLE pending_objects_v2 RENAME TO pending_objects;
)sql";

// Version 3: the blocks (512-byte) allocated to a regular file's object as last
// recorded (at an attribute flush), so a stat of a closed file needs no stat(2) of its
// object; NULL = unknown (after a size change or a relocation), stat the object.
constexpr char kMigrateV2ToV3[] = "ALTER TABLE inodes ADD COLUMN blocks INTEGER";

// Version 4: why a scan run failed (NULL: it did not), so `fsppadm status`
// shows failed and refused runs, scheduled ones included, with their message.
constexpr char kMigrateV3ToV4[] = "ALTER TABLE scans ADD COLUMN failure TEXT";

// Version 5: object volumes. A volume whose path is "s3://BUCKET/PREFIX"
// keeps its objects on an S3 store: its endpoint URL and the path of its
// credentials file (never the secret) are stored with it; NULL for a directory.
constexpr char kMigrateV4ToV5[] =
    "ALTER TABLE volumes ADD COLUMN endpoint TEXT;"
    "ALTER TABLE volumes ADD COLUMN credentials_file TEXT;";

// Version 6: how an object volume reaches its store beyond the endpoint: the
// region its requests are signed for, path or virtual-hosted addressing, and
// the path of a PEM file of the CA certificates its HTTPS endpoint is verified
// against. NULL (a directory, or an object volume of version 5) reads as
// "" and means the defaults: us-east-1, path, the system's CAs.
constexpr char kMigrateV5ToV6[] =
    "ALTER TABLE volumes ADD COLUMN region TEXT;"
    "ALTER TABLE volumes ADD COLUMN addressing TEXT;"
    "ALTER TABLE volumes ADD COLUMN ca_file TEXT;";

// Version 7: the upload number of a regular file's object on an object volume.
// Every upload to a store writes a key of its own (ObjectKey's ".v<N>"
// suffix), so a reader can never be served an earlier upload's bytes under
// the key of a later one. 0 (every file of version 6) is the unversioned key
// "<ino>.<generation>". It stays when the file leaves the store, so the next
// upload takes the next number.
constexpr char kMigrateV6ToV7[] =
    "ALTER TABLE inodes ADD COLUMN store_version INTEGER NOT NULL DEFAULT 0";

// True when `table` already has `column` (a migration step must be idempotent).
Result<bool> HasColumn(Database* db, const char* table, const char* column) {
  Statement has = db->Prepare("SELECT COUNT(*) FROM pragma_table_info(?1) WHERE name = ?2");
  has.BindAll(std::string(table), std::string(column));
  META_ASSIGN_OR_RETURN(bool row, has.Step());
  return row && has.Int64(0) > 0;
}

// Brings a database at `version` to `version + 1`. One case per schema change,
// e.g. `case 1: return db->Exec("ALTER TABLE inodes ADD COLUMN pinned_class TEXT");`
Status MigrateStep(Database* db, int64_t version) {
  switch (version) {
    case 1:
      return db->Exec(kMigrateV1ToV2);
    case 2: {
      // Idempotent: a database that already has the column keeps it.
      META_ASSIGN_OR_RETURN(bool has, HasColumn(db, "inodes", "blocks"));
      return has ? Status::Ok() : db->Exec(kMigrateV2ToV3);
    }
    case 3: {
      META_ASSIGN_OR_RETURN(bool has, HasColumn(db, "scans", "failure"));
      return has ? Status::Ok() : db->Exec(kMigrateV3ToV4);
    }
    case 4: {
      META_ASSIGN_OR_RETURN(bool has, HasColumn(db, "volumes", "endpoint"));
      return has ? Status::Ok() : db->Exec(kMigrateV4ToV5);
    }
    case 5: {
      META_ASSIGN_OR_RETURN(bool has, HasColumn(db, "volumes", "region"));
      return has ? Status::Ok() : db->Exec(kMigrateV5ToV6);
    }
    case 6: {
      META_ASSIGN_OR_RETURN(bool has, HasColumn(db, "inodes", "store_version"));
      return has ? Status::Ok() : db->Exec(kMigrateV6ToV7);
    }
    default:
      return Status::Invalid("no migration from metadata schema version " +
                             std::to_string(version));
  }
}

// Checks that `db` is a tierfs database of a schema version this tierfs can
// bring up to date; returns that version. EINVAL otherwise.
Result<int64_t> CheckIdentity(Database* db) {
  {
    Statement st = db->Prepare("PRAGMA application_id");
    META_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row || st.Int64(0) != kApplicationId) {
      return Status::Invalid("not a tierfs metadata database");
    }
  }
  Result<int64_t> version = GetInfoInt(db, kInfoSchemaVersion);
  if (!version.ok()) {
    return Status::Invalid("tierfs metadata database without a schema version: " +
                           version.status().message());
  }
  if (*version > kSchemaVersion) {
    return Status::Invalid("metadata schema version " + std::to_string(*version) +
                           " is newer than this tierfs (" + std::to_string(kSchemaVersion) +
                           ")");
  }
  if (*version < 1) {
    return Status::Invalid("bad metadata schema version " + std::to_string(*version));
  }
  return *version;
}

// Whether pending_objects really holds a NULL generation (see kMigrateV1ToV2).
// A failed query counts as yes: the finding then stands.
bool PendingGenerationIsNull(Database* db) {
  Statement st = db->Prepare("SELECT 1 FROM pending_objects WHERE generation IS NULL LIMIT 1");
  Result<bool> row = st.Step();
  return !row.ok() || *row;
}

}  // namespace

Status CreateSchema(Database* db) {
  TIERFS_RETURN_IF_ERROR(db->Exec(kSchemaV1));
  for (int64_t v = 1; v < kSchemaVersion; ++v) TIERFS_RETURN_IF_ERROR(MigrateStep(db, v));
  return SetInfoInt(db, kInfoSchemaVersion, kSchemaVersion);
}

Status CheckDatabase(Database* db) {
  // quick_check, not integrity_check: it verifies every page of every b-tree
  // (page format, cell bounds, ordering, freelist, overflow chains, NOT NULL and
  // CHECK constraints) in time linear in the database, but skips matching each
  // index against its table, which costs about as much again on a large
  // database and would delay every mount. Damage that only integrity_check
  // finds is left to `tierfs check`.
  {
    Statement st = db->Prepare("PRAGMA quick_check(10)");
    std::string findings;
    for (;;) {
      Result<bool> row = st.Step();
      if (!row.ok()) {
        const int code = row.status().code();
        if (code == EBUSY || code == ENOMEM) return row.status();
        return Status::Error(EUCLEAN, "damaged (quick_check stopped: " +
                                          row.status().message() + ")");
      }
      if (!*row) break;
      const std::string line = st.Text(0);
      if (line == "ok") continue;
      if (line == "NULL value in pending_objects.generation" && !PendingGenerationIsNull(db)) {
        continue;  // SQLite 3.40's false positive on a version-1 table (kMigrateV1ToV2)
      }
      if (!findings.empty()) findings += "; ";
      findings += line;
    }
    if (!findings.empty()) {
      return Status::Error(EUCLEAN, "damaged (quick_check: " + findings + ")");
    }
  }
  Result<int64_t> version = CheckIdentity(db);
  if (!version.ok()) {
    // A read that fails on a database quick_check passed is damage as well.
    const int code = version.status().code();
    if (code == EIO) return Status::Error(EUCLEAN, "damaged (" + version.status().message() + ")");
    return version.status();
  }
  return Status::Ok();
}

Status Migrate(Database* db) {
  META_ASSIGN_OR_RETURN(int64_t version, CheckIdentity(db));
  for (int64_t v = version; v < kSchemaVersion; ++v) {
    META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
    TIERFS_RETURN_IF_ERROR(MigrateStep(db, v));
    TIERFS_RETURN_IF_ERROR(SetInfoInt(db, kInfoSchemaVersion, v + 1));
    TIERFS_RETURN_IF_ERROR(txn.Commit());
  }
  return Status::Ok();
}

}  // namespace tierfs::meta
