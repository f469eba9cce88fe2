#include "meta/space_reserve.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "common/blocking_section.h"
#include "common/log.h"

namespace tierfs::meta {
namespace {

constexpr uint64_t kMinSlice = 1 << 20;

// The installed reserve (at most one per process) and the directory it covers.
Mutex g_reserve_mu;
SpaceReserve* g_reserve GUARDED_BY(g_reserve_mu) = nullptr;

// ---- The VFS shim ------------------------------------------------------------
// A copy of the default VFS whose files forward every call to the real file, but
// retry a write that fails with SQLITE_FULL after releasing a slice of the
// reserve. The real file's memory follows the shim's header in the same block
// (szOsFile covers both), the usual layout of SQLite shim VFSes.

sqlite3_vfs* g_real_vfs = nullptr;
sqlite3_vfs g_shim_vfs;

struct ShimFile {
  sqlite3_file base;
  sqlite3_file* real;
  const char* name;  // SQLite keeps it valid until xClose; null for temporary files
};

sqlite3_file* Real(sqlite3_file* f) { return reinterpret_cast<ShimFile*>(f)->real; }

// Whether `name` lives in `dir`.
bool InDirectory(const char* name, const std::string& dir) {
  return name != nullptr && std::strncmp(name, dir.c_str(), dir.size()) == 0 &&
         name[dir.size()] == '/';
}

// Releases a slice of the reserve when the file is in the reserve's directory;
// false if nothing was freed. Decided at failure time, so a connection opened
// before the reserve was installed (the mount's checks run first) is covered too.
bool FreeRoomFor(sqlite3_file* f) {
  MutexLock lock(g_reserve_mu);
  return g_reserve != nullptr &&
         InDirectory(reinterpret_cast<ShimFile*>(f)->name, g_reserve->directory()) &&
         g_reserve->ReleaseSlice();
}

int ShimClose(sqlite3_file* f) { return Real(f)->pMethods->xClose(Real(f)); }
// Reads, writes, truncates and syncs may wait for the disk: a FUSE worker
// making them lets another serve meanwhile (common/blocking_section.h).
int ShimRead(sqlite3_file* f, void* buf, int amount, sqlite3_int64 offset) {
  BlockingSection blocking(BlockingKind::kRead);
  return Real(f)->pMethods->xRead(Real(f), buf, amount, offset);
}
int ShimWrite(sqlite3_file* f, const void* buf, int amount, sqlite3_int64 offset) {
  BlockingSection blocking(BlockingKind::kWrite);
  int rc = Real(f)->pMethods->xWrite(Real(f), buf, amount, offset);
  while (rc == SQLITE_FULL && FreeRoomFor(f)) {
    rc = Real(f)->pMethods->xWrite(Real(f), buf, amount, offset);
  }
  return rc;
}
int ShimTruncate(sqlite3_file* f, sqlite3_int64 size) {
  BlockingSection blocking(BlockingKind::kNamespace);
  return Real(f)->pMethods->xTruncate(Real(f), size);
}
int ShimSync(sqlite3_file* f, int flags) {
  BlockingSection blocking(BlockingKind::kSync);
  return Real(f)->pMethods->xSync(Real(f), flags);
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
  auto* shim = reinterpret_cast<ShimFile*>(file);
  shim->real = reinterpret_cast<sqlite3_file*>(shim + 1);
  shim->name = name;
  int rc = g_real_vfs->xOpen(g_real_vfs, name, shim->real, flags, out_flags);
  // SQLite calls xClose only on files whose pMethods is set.
  shim->base.pMethods = shim->real->pMethods != nullptr
                            ? ShimMethods(shim->real->pMethods->iVersion)
                            : nullptr;
  return rc;
}

}  // namespace

Status SpaceReserve::RegisterVfs() {
  static std::once_flag once;
  static int rc = SQLITE_OK;
  std::call_once(once, [] {
    g_real_vfs = sqlite3_vfs_find(nullptr);
    if (g_real_vfs == nullptr) {
      rc = SQLITE_ERROR;
      return;
    }
    g_shim_vfs = *g_real_vfs;  // every VFS method but xOpen forwards unchanged
    g_shim_vfs.zName = "tierfs-reserve";
    g_shim_vfs.szOsFile = static_cast<int>(sizeof(ShimFile)) + g_real_vfs->szOsFile;
    g_shim_vfs.xOpen = ShimOpen;
    g_shim_vfs.pNext = nullptr;
    rc = sqlite3_vfs_register(&g_shim_vfs, /*makeDflt=*/1);
  });
  if (rc != SQLITE_OK) return Status::Io("cannot register the SQLite reserve VFS");
  return Status::Ok();
}

namespace {

uint64_t AllocatedBytes(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) return 0;
  return std::min<uint64_t>(uint64_t(st.st_blocks) * 512, uint64_t(st.st_size));
}

}  // namespace

uint64_t DefaultReserveBytes(uint64_t database_bytes, uint64_t volume_bytes) {
  constexpr uint64_t kMinimum = 16 << 20;
  const uint64_t wanted = std::max(kMinimum, database_bytes / 4);
  return volume_bytes == 0 ? wanted : std::min(wanted, volume_bytes / 8);
}

SpaceReserve::SpaceReserve(std::string path, int fd, uint64_t target)
    : path_(std::move(path)),
      dir_(path_.substr(0, path_.rfind('/'))),
      fd_(fd),
      target_(target) {
  held_ = AllocatedBytes(fd_);
}

Result<std::unique_ptr<SpaceReserve>> SpaceReserve::Install(const std::string& path,
                                                            uint64_t target_bytes) {
  TIERFS_RETURN_IF_ERROR(RegisterVfs());
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return Status::FromErrno("open reserve " + path);
  std::unique_ptr<SpaceReserve> reserve(new SpaceReserve(path, fd, target_bytes));
  {
    MutexLock lock(g_reserve_mu);
    if (g_reserve != nullptr) {
      return Status::Error(EBUSY, "a metadata reserve is already installed (" +
                                      g_reserve->path_ + ")");
    }
    g_reserve = reserve.get();
  }
  TIERFS_RETURN_IF_ERROR(reserve->Refill());
  return reserve;
}

SpaceReserve::~SpaceReserve() {
  {
    MutexLock lock(g_reserve_mu);
    if (g_reserve == this) g_reserve = nullptr;
  }
  close(fd_);
}

Status SpaceReserve::Refill() {
  MutexLock lock(mu_);
  uint64_t held = AllocatedBytes(fd_);
  if (held >= target_) {
    held_ = target_;
    return Status::Ok();
  }
  // Grow in slices, so a volume with some room gets part of the reserve back.
  const uint64_t slice = std::max(kMinSlice, target_ / 4);
  while (held < target_) {
    const uint64_t next = std::min(target_, held + slice);
    int rc = fallocate(fd_, 0, 0, static_cast<off_t>(next));
    if (rc != 0 && errno == EOPNOTSUPP) {
      // No fallocate (some FUSE or network file systems): write real zeros.
      std::vector<char> zeros(next - held, 0);
      rc = pwrite(fd_, zeros.data(), zeros.size(), static_cast<off_t>(held)) ==
                   static_cast<ssize_t>(zeros.size())
               ? 0
               : -1;
      if (rc == 0) rc = fsync(fd_);
    }
    if (rc != 0) {
      if (errno == ENOSPC || errno == EDQUOT) break;  // no room yet: stays depleted
      held_ = AllocatedBytes(fd_);
      return Status::FromErrno("grow reserve " + path_);
    }
    held = next;
  }
  held_ = AllocatedBytes(fd_);
  return Status::Ok();
}

bool SpaceReserve::ReleaseSlice() {
  MutexLock lock(mu_);
  const uint64_t held = AllocatedBytes(fd_);
  if (held == 0) return false;
  const uint64_t slice = std::max(kMinSlice, target_ / 4);
  const uint64_t keep = held > slice ? held - slice : 0;
  if (ftruncate(fd_, static_cast<off_t>(keep)) != 0) return false;
  held_ = keep;
  releases_++;
  LogWarning("metadata volume full: released {} bytes of the database reserve ({} left)",
             held - keep, keep);
  return true;
}

}  // namespace tierfs::meta
