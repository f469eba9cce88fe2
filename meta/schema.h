// The metadata database schema: table definitions, the schema version and the
// migrations that bring an older database up to date.
//
// Internal to meta/. The caller holds the Database lock. Schema history:
//   1  initial schema (fs_info, volumes, inodes, dirents, xattrs, fcl, iostat,
//      policy, relocations, scans).
// To change the schema: bump kSchemaVersion, make CreateSchema produce the new
// shape, and add a step from the previous version to MigrateStep in schema.cc.
#pragma once

#include <cstdint>

#include "common/status.h"
#include "meta/database.h"

namespace tierfs::meta {

// The version CreateSchema writes and Migrate brings databases to
// (fs_info key "schema_version").
constexpr int64_t kSchemaVersion = 7;
// PRAGMA application_id of every tierfs database: "TRFS".
constexpr int32_t kApplicationId = 0x54524653;
// The first dirent cookie: readdir offsets 1 and 2 stay free for "." and "..".
constexpr int64_t kFirstDirentCookie = 3;

// Creates every table and index at kSchemaVersion in an empty database, marks
// it with kApplicationId and records the version. Run inside a Transaction.
Status CreateSchema(Database* db);

// Checks that `db` is a tierfs database (EINVAL if not, or if its schema is
// newer than kSchemaVersion) and runs the migrations from its version up to
// kSchemaVersion, each step in its own transaction.
Status Migrate(Database* db);

// The checks a mount runs before it serves, reading only (use it on a
// Database::OpenForCheck connection, so that a refused database is left as it
// was): PRAGMA quick_check finds nothing wrong, and the database is a tierfs
// database whose schema version Migrate can handle. Errors: EUCLEAN when SQLite
// finds damage (the message carries its first findings, or the error that
// stopped it), EINVAL when it is not a tierfs database or its schema is newer
// than kSchemaVersion, EBUSY/ENOMEM as they come.
Status CheckDatabase(Database* db);

}  // namespace tierfs::meta
