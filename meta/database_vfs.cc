#include "meta/database_vfs.h"

#include <sqlite3.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <vector>

#include "common/blocking_section.h"
#include "common/mutex.h"
#include "common/thread_annotations.h"
#include "meta/space_reserve.h"

namespace tierfs::meta {
namespace {

// The registered seams, latest last.
Mutex g_seams_mu;
std::vector<const DatabaseSeam*> g_seams GUARDED_BY(g_seams_mu);

// The seam of the database file `name`, or null.
FileIo* SeamFor(const char* name) {
  if (name == nullptr) return nullptr;  // a temporary file
  MutexLock lock(g_seams_mu);
  for (auto it = g_seams.rbegin(); it != g_seams.rend(); ++it) {
    const std::string& db = (*it)->db_path();
    if (std::strncmp(name, db.c_str(), db.size()) == 0 &&
        (name[db.size()] == '\0' || name[db.size()] == '-')) {
      return &(*it)->io();
    }
  }
  return nullptr;
}

// ---- The VFS -----------------------------------------------------------------
// A copy of the default VFS whose files forward every call to the real file,
// asking the file's seam first and retrying a write that failed with SQLITE_FULL
// after a slice of the reserve was released. The real file's memory follows the
// wrapper's header in the same block (szOsFile covers both), the usual layout of
// SQLite shim VFSes.

sqlite3_vfs* g_real_vfs = nullptr;
sqlite3_vfs g_vfs;

struct ShimFile {
  sqlite3_file base;
  sqlite3_file* real;
  const char* name;  // SQLite keeps it valid until xClose; null for temporary files
  FileIo* seam;      // null: no seam for this file
};

ShimFile* Shim(sqlite3_file* f) { return reinterpret_cast<ShimFile*>(f); }
sqlite3_file* Real(sqlite3_file* f) { return Shim(f)->real; }

// What the seam says of `call` on `f`: SQLITE_OK to go on, else the error
// SQLite's unix VFS returns for the errno the seam gave.
int AskSeam(sqlite3_file* f, DbCall call) {
  ShimFile* shim = Shim(f);
  if (shim->seam == nullptr || shim->seam->BeforeDbCall(call, shim->name) == 0) return SQLITE_OK;
  switch (call) {
    case DbCall::kWrite:
      return errno == ENOSPC ? SQLITE_FULL : SQLITE_IOERR_WRITE;
    case DbCall::kTruncate:
      return SQLITE_IOERR_TRUNCATE;
    case DbCall::kSync:
      return SQLITE_IOERR_FSYNC;
  }
  return SQLITE_IOERR;
}

int ShimClose(sqlite3_file* f) { return Real(f)->pMethods->xClose(Real(f)); }
// Reads, writes, truncates and syncs may wait for the disk: a FUSE worker
// making them lets another serve meanwhile (common/blocking_section.h).
int ShimRead(sqlite3_file* f, void* buf, int amount, sqlite3_int64 offset) {
  BlockingSection blocking(BlockingKind::kRead);
  return Real(f)->pMethods->xRead(Real(f), buf, amount, offset);
}
int WriteOnce(sqlite3_file* f, const void* buf, int amount, sqlite3_int64 offset) {
  const int rc = AskSeam(f, DbCall::kWrite);
  return rc != SQLITE_OK ? rc : Real(f)->pMethods->xWrite(Real(f), buf, amount, offset);
}
int ShimWrite(sqlite3_file* f, const void* buf, int amount, sqlite3_int64 offset) {
  BlockingSection blocking(BlockingKind::kWrite);
  int rc = WriteOnce(f, buf, amount, offset);
  while (rc == SQLITE_FULL && SpaceReserve::ReleaseSliceFor(Shim(f)->name)) {
    rc = WriteOnce(f, buf, amount, offset);
  }
  return rc;
}
int ShimTruncate(sqlite3_file* f, sqlite3_int64 size) {
  BlockingSection blocking(BlockingKind::kNamespace);
  const int rc = AskSeam(f, DbCall::kTruncate);
  return rc != SQLITE_OK ? rc : Real(f)->pMethods->xTruncate(Real(f), size);
}
int ShimSync(sqlite3_file* f, int flags) {
  BlockingSection blocking(BlockingKind::kSync);
  const int rc = AskSeam(f, DbCall::kSync);
  return rc != SQLITE_OK ? rc : Real(f)->pMethods->xSync(Real(f), flags);
}
int ShimFileSize(sqlite3_file* f, sqlite3_int64* size) {
  return Real(f)->pMethods->xFileSize(Real(f), size);
}
int ShimLock(sqlite3_file* f, int level) { return Real(f)->pMethods->xLock(Real(f), level); }
int ShimUnlock(sqlite3_file* f, int level) { return Real(f)->pMethods->xUnlock(Real(f), level); }
int ShimCheckReservedLock(sqlite3_file* f, int* out) {
  return Real(f)->pMethods->xCheckReservedLock(Real(f), out);
}
int ShimFileControl(sqlite3_file* f, int op, void* arg) {
  return Real(f)->pMethods->xFileControl(Real(f), op, arg);
}
int ShimSectorSize(sqlite3_file* f) { return Real(f)->pMethods->xSectorSize(Real(f)); }
int ShimDeviceCharacteristics(sqlite3_file* f) {
  return Real(f)->pMethods->xDeviceCharacteristics(Real(f));
}
int ShimShmMap(sqlite3_file* f, int page, int size, int extend, void volatile** out) {
  return Real(f)->pMethods->xShmMap(Real(f), page, size, extend, out);
}
int ShimShmLock(sqlite3_file* f, int offset, int n, int flags) {
  return Real(f)->pMethods->xShmLock(Real(f), offset, n, flags);
}
void ShimShmBarrier(sqlite3_file* f) { Real(f)->pMethods->xShmBarrier(Real(f)); }
int ShimShmUnmap(sqlite3_file* f, int delete_flag) {
  return Real(f)->pMethods->xShmUnmap(Real(f), delete_flag);
}
int ShimFetch(sqlite3_file* f, sqlite3_int64 offset, int amount, void** out) {
  return Real(f)->pMethods->xFetch(Real(f), offset, amount, out);
}
int ShimUnfetch(sqlite3_file* f, sqlite3_int64 offset, void* p) {
  return Real(f)->pMethods->xUnfetch(Real(f), offset, p);
}

// One method table per io_methods version, so a shim file never advertises a
// method its real file lacks.
const sqlite3_io_methods* ShimMethods(int version) {
  static const std::vector<sqlite3_io_methods> tables = [] {
    std::vector<sqlite3_io_methods> t(4);
    for (int v = 0; v < 4; ++v) {
      t[v] = sqlite3_io_methods{v,
                                ShimClose,
                                ShimRead,
                                ShimWrite,
                                ShimTruncate,
                                ShimSync,
                                ShimFileSize,
                                ShimLock,
                                ShimUnlock,
                                ShimCheckReservedLock,
                                ShimFileControl,
                                ShimSectorSize,
                                ShimDeviceCharacteristics,
                                ShimShmMap,
                                ShimShmLock,
                                ShimShmBarrier,
                                ShimShmUnmap,
                                ShimFetch,
                                ShimUnfetch};
    }
    return t;
  }();
  return &tables[std::clamp(version, 1, 3)];
}

int ShimOpen(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags, int* out_flags) {
  ShimFile* shim = Shim(file);
  shim->real = reinterpret_cast<sqlite3_file*>(shim + 1);
  shim->name = name;
  shim->seam = SeamFor(name);
  int rc = g_real_vfs->xOpen(g_real_vfs, name, shim->real, flags, out_flags);
  // SQLite calls xClose only on files whose pMethods is set.
  shim->base.pMethods = shim->real->pMethods != nullptr
                            ? ShimMethods(shim->real->pMethods->iVersion)
                            : nullptr;
  return rc;
}

}  // namespace

void ConfigureSqliteOnce() {
  static std::once_flag once;
  // SQLITE_MISUSE when SQLite is initialized already: the defaults then stay.
  std::call_once(once, [] { (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); });
}

Status RegisterDatabaseVfs() {
  ConfigureSqliteOnce();
  static std::once_flag once;
  static int rc = SQLITE_OK;
  std::call_once(once, [] {
    g_real_vfs = sqlite3_vfs_find(nullptr);
    if (g_real_vfs == nullptr) {
      rc = SQLITE_ERROR;
      return;
    }
    g_vfs = *g_real_vfs;  // every VFS method but xOpen forwards unchanged
    g_vfs.zName = "tierfs-database";
    g_vfs.szOsFile = static_cast<int>(sizeof(ShimFile)) + g_real_vfs->szOsFile;
    g_vfs.xOpen = ShimOpen;
    g_vfs.pNext = nullptr;
    rc = sqlite3_vfs_register(&g_vfs, /*makeDflt=*/1);
  });
  if (rc != SQLITE_OK) return Status::Io("cannot register the SQLite database VFS");
  return Status::Ok();
}

DatabaseSeam::DatabaseSeam(std::string db_path, FileIo& io)
    : db_path_(std::move(db_path)), io_(io) {
  MutexLock lock(g_seams_mu);
  g_seams.push_back(this);
}

DatabaseSeam::~DatabaseSeam() {
  MutexLock lock(g_seams_mu);
  g_seams.erase(std::find(g_seams.begin(), g_seams.end(), this));
}

}  // namespace tierfs::meta
