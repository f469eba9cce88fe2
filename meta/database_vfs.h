// The database VFS: tierfs's SQLite VFS, a wrapper around SQLite's default one
// that the daemon's connections go through (SQLite writes the database and its
// WAL itself, not through FileIo). To every write, truncate and sync SQLite makes
// on a database file (the database, its "-wal" or "-journal") it adds:
//
//   - the seam: when the file belongs to a database opened with a FileIo (a
//     DatabaseSeam is registered for it), the step asks FileIo::BeforeDbCall
//     first, so a fault plan can fail it (fs/volume/fault_injecting_volume_io.h:
//     "db-write", "db-truncate", "db-sync"). A refused step does nothing and
//     fails as SQLite's unix VFS fails on that errno: a write with SQLITE_FULL
//     for ENOSPC and SQLITE_IOERR_WRITE for anything else, a truncate with
//     SQLITE_IOERR_TRUNCATE, a sync with SQLITE_IOERR_FSYNC;
//   - the reserve: a write that fails with SQLITE_FULL (from the file system or
//     the seam) has the process's SpaceReserve release a slice and is retried,
//     until it fits or the reserve is empty (meta/space_reserve.h).
//
// Every other call forwards to the default VFS unchanged. Thread-safe: SQLite
// calls it from whichever thread holds a connection's lock.
#pragma once

#include <string>

#include "common/file_io.h"
#include "common/status.h"

namespace tierfs::meta {

// Makes the database VFS SQLite's default, once per process; connections opened
// afterwards use it. OK when already done; EIO when SQLite refuses the VFS.
Status RegisterDatabaseVfs();

// Process-wide SQLite settings, made once before SQLite initializes (the first
// open or VFS registration of the process; later calls change nothing, and a
// process whose SQLite another user initialized first keeps the defaults):
// memory statistics off, so that every allocation SQLite makes does not take
// its global memory mutex (a tenth of a create's time under the database
// lock; tierfs never reads those statistics). Thread-safe.
void ConfigureSqliteOnce();

// While it lives, the files SQLite opens for the database `db_path` (`db_path`
// itself and names that begin with `db_path` and a '-', compared with the
// absolute names SQLite opens: `db_path` must be absolute, without symbolic
// links) ask `io` before each write, truncate and sync. Files opened earlier
// keep what they had. Register it before opening the connection and destroy it
// after closing it; `io` must outlive it. When two are registered for one path,
// the later one counts. Neither copied nor moved (the registry points to it).
class DatabaseSeam {
 public:
  DatabaseSeam(std::string db_path, FileIo& io);
  ~DatabaseSeam();
  DatabaseSeam(const DatabaseSeam&) = delete;
  DatabaseSeam& operator=(const DatabaseSeam&) = delete;

  const std::string& db_path() const { return db_path_; }
  FileIo& io() const { return io_; }

 private:
  const std::string db_path_;
  FileIo& io_;
};

}  // namespace tierfs::meta
