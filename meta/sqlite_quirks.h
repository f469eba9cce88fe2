// Workarounds for defects of the SQLite this project builds against (Debian 12's
// 3.40.1), kept in one place so each can go when the library is fixed.
//
// Internal to meta/. Free functions over a Database; the caller holds its lock.
#pragma once

#include <string>

#include "meta/database.h"

namespace tierfs::meta {

// SQLite 3.40's PRAGMA integrity_check and quick_check report "NULL value in T.C"
// for every row of a WITHOUT ROWID table whose NOT NULL column C sits between its
// primary-key columns (here pending_objects.generation, i.e. after any crash in the
// middle of a relocation), although no value is NULL; fixed in SQLite 3.41. True
// when `line` is such a report and no row of T really has C NULL (the line is then
// to be dropped). T and C are checked against the schema before they are quoted
// into the probe query (identifiers, never values).
bool IsFalseNullReport(Database* db, const std::string& line);

}  // namespace tierfs::meta
