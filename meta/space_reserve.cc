#include "meta/space_reserve.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "common/log.h"
#include "meta/database_vfs.h"

namespace tierfs::meta {
namespace {

constexpr uint64_t kMinSlice = 1 << 20;

// The installed reserve (at most one per process) and the directory it covers.
Mutex g_reserve_mu;
SpaceReserve* g_reserve GUARDED_BY(g_reserve_mu) = nullptr;

// Whether `name` lives in `dir`.
bool InDirectory(const char* name, const std::string& dir) {
  return name != nullptr && std::strncmp(name, dir.c_str(), dir.size()) == 0 &&
         name[dir.size()] == '/';
}

uint64_t AllocatedBytes(FileIo& io, int fd) {
  struct stat st;
  if (io.Fstat(fd, &st) != 0) return 0;
  return std::min<uint64_t>(uint64_t(st.st_blocks) * 512, uint64_t(st.st_size));
}

}  // namespace

uint64_t DefaultReserveBytes(uint64_t database_bytes, uint64_t volume_bytes) {
  constexpr uint64_t kMinimum = 16 << 20;
  const uint64_t wanted = std::max(kMinimum, database_bytes / 4);
  return volume_bytes == 0 ? wanted : std::min(wanted, volume_bytes / 8);
}

SpaceReserve::SpaceReserve(std::string path, int fd, uint64_t target, FileIo& io)
    : path_(std::move(path)),
      dir_(path_.substr(0, path_.rfind('/'))),
      io_(io),
      fd_(fd),
      target_(target) {
  held_ = AllocatedBytes(io_, fd_);
}

Result<std::unique_ptr<SpaceReserve>> SpaceReserve::Install(const std::string& path,
                                                            uint64_t target_bytes, FileIo& io) {
  TIERFS_RETURN_IF_ERROR(RegisterDatabaseVfs());
  int fd = io.Open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return Status::FromErrno("open reserve " + path);
  std::unique_ptr<SpaceReserve> reserve(new SpaceReserve(path, fd, target_bytes, io));
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
  io_.Close(fd_);
}

Status SpaceReserve::Refill() {
  MutexLock lock(mu_);
  uint64_t held = AllocatedBytes(io_, fd_);
  if (held >= target_) {
    held_ = target_;
    return Status::Ok();
  }
  // Grow in slices, so a volume with some room gets part of the reserve back.
  const uint64_t slice = std::max(kMinSlice, target_ / 4);
  while (held < target_) {
    const uint64_t next = std::min(target_, held + slice);
    int rc = io_.Fallocate(fd_, 0, 0, static_cast<off_t>(next));
    if (rc != 0 && errno == EOPNOTSUPP) {
      // No fallocate (some FUSE or network file systems): write real zeros.
      std::vector<char> zeros(next - held, 0);
      rc = io_.Pwrite(fd_, zeros.data(), zeros.size(), static_cast<off_t>(held)) ==
                   static_cast<ssize_t>(zeros.size())
               ? 0
               : -1;
      if (rc == 0) rc = io_.Fsync(fd_, /*datasync=*/false);
    }
    if (rc != 0) {
      if (errno == ENOSPC || errno == EDQUOT) break;  // no room yet: stays depleted
      held_ = AllocatedBytes(io_, fd_);
      return Status::FromErrno("grow reserve " + path_);
    }
    held = next;
  }
  held_ = AllocatedBytes(io_, fd_);
  return Status::Ok();
}

bool SpaceReserve::ReleaseSlice() {
  MutexLock lock(mu_);
  const uint64_t held = AllocatedBytes(io_, fd_);
  if (held == 0) return false;
  const uint64_t slice = std::max(kMinSlice, target_ / 4);
  const uint64_t keep = held > slice ? held - slice : 0;
  if (io_.Ftruncate(fd_, static_cast<off_t>(keep)) != 0) return false;
  held_ = keep;
  releases_++;
  LogWarning("metadata volume full: released {} bytes of the database reserve ({} left)",
             held - keep, keep);
  return true;
}

bool SpaceReserve::ReleaseSliceFor(const char* file_name) {
  MutexLock lock(g_reserve_mu);
  return g_reserve != nullptr && InDirectory(file_name, g_reserve->directory()) &&
         g_reserve->ReleaseSlice();
}

}  // namespace tierfs::meta
