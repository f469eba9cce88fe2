// Metadata::BackupTo: a consistent copy of the live database with SQLite's online
// backup API (fs/check/db_backup.h writes it beside its destination, fsyncs and renames).
//
// Why this is consistent while the daemon serves: the backup reads the source
// through the daemon's own connection, a few pages per hold of the database lock.
// Between steps other threads change the database through that same connection,
// and SQLite then updates the pages already copied as well ("if the source database
// is modified by ... the same database connection as is used by the backup
// operation, then the backup database is automatically updated at the same time",
// sqlite3_backup_step(3)). Transactions never span two holds of the lock, so every
// step sees committed state only, and the copy equals the database as it stands
// when the last step finishes.
//
// This file calls the SQLite C API directly (database.h wraps no backup calls):
// the destination is a connection of its own, closed before returning.
#include <sqlite3.h>

#include <chrono>
#include <thread>

#include "meta/database.h"
#include "meta/metadata.h"

namespace tierfs::meta {
namespace {

// Closes the destination connection on every path.
struct DestConnection {
  sqlite3* db = nullptr;
  ~DestConnection() {
    if (db != nullptr) sqlite3_close_v2(db);
  }
};

}  // namespace

Status Metadata::BackupTo(const std::string& dest_path, int pages_per_step,
                          const std::function<void(uint64_t done, uint64_t total)>& progress) {
  if (pages_per_step <= 0) pages_per_step = 256;
  DestConnection dest;
  int rc = sqlite3_open_v2(dest_path.c_str(), &dest.db,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX |
                               SQLITE_OPEN_EXRESCODE,
                           nullptr);
  if (rc != SQLITE_OK) return SqliteStatus(dest.db, rc, "open backup " + dest_path);
  // The copy is written to a temporary name and renamed only when complete, so it
  // needs no journal of its own; the caller fsyncs it.
  rc = sqlite3_exec(dest.db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF", nullptr, nullptr,
                    nullptr);
  if (rc != SQLITE_OK) return SqliteStatus(dest.db, rc, "prepare backup " + dest_path);

  sqlite3_backup* backup = nullptr;
  {
    auto lock = db_->Lock();
    backup = sqlite3_backup_init(dest.db, "main", db_->handle(), "main");
  }
  if (backup == nullptr) {
    return SqliteStatus(dest.db, sqlite3_errcode(dest.db), "start backup to " + dest_path);
  }
  int busy_rounds = 0;
  for (;;) {
    uint64_t done = 0, total = 0;
    {
      auto lock = db_->Lock();
      // A step cannot read through a connection that is writing: end the open
      // commit group first (its changes then belong in the copy anyway).
      if (Status st = db_->CommitGroup(); !st.ok()) return st;
      rc = sqlite3_backup_step(backup, pages_per_step);
      total = static_cast<uint64_t>(sqlite3_backup_pagecount(backup));
      done = total - static_cast<uint64_t>(sqlite3_backup_remaining(backup));
    }
    if (progress) progress(done, total);
    if (rc == SQLITE_DONE) break;
    if (rc == SQLITE_OK) continue;
    // The source is locked by our own connection only, so BUSY/LOCKED come from the
    // destination (another process opened it): wait a little, bounded.
    if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED) {
      if (++busy_rounds > 500) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    break;
  }
  {
    auto lock = db_->Lock();
    // finish returns the error of the failed step, if one failed.
    int finish_rc = sqlite3_backup_finish(backup);
    if (rc == SQLITE_DONE) rc = finish_rc;
  }
  if (rc != SQLITE_OK && rc != SQLITE_DONE) {
    return SqliteStatus(dest.db, rc, "backup to " + dest_path);
  }
  rc = sqlite3_close_v2(dest.db);
  dest.db = nullptr;
  if (rc != SQLITE_OK) return SqliteStatus(nullptr, rc, "close backup " + dest_path);
  return Status::Ok();
}

}  // namespace tierfs::meta
