#include "fs/volume/daemon_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <thread>

#include "common/mount_info.h"
#include "fs/volume/volume_label.h"

namespace tierfs {
namespace {

// How often a kDaemon Acquire looks again at a lock held by an exiting daemon.
constexpr auto kRetryInterval = std::chrono::milliseconds(20);

// The pid the holder wrote in the lock file ("123"; "unknown" when unreadable).
std::string HolderPid(int fd) {
  char buf[32] = {0};
  const ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  std::string pid(buf, n > 0 ? static_cast<size_t>(n) : 0);
  pid.erase(pid.find_last_not_of(" \t\r\n") + 1);
  pid.erase(0, pid.find_first_not_of(" \t\r\n"));
  return pid.empty() ? "unknown" : pid;
}

// Where the tierfs file system of `metadata_dir` (its mount source) is mounted,
// "" if nowhere (or the mount table cannot be read).
std::string MountPointOf(const std::string& metadata_dir) {
  Result<std::vector<MountEntry>> mounts = ReadMountInfo();
  if (!mounts.ok()) return "";
  std::optional<MountEntry> mount = TierfsMountFromSource(*mounts, metadata_dir);
  return mount ? mount->mount_point : "";
}

}  // namespace

Result<DaemonLock> DaemonLock::Acquire(const std::string& metadata_dir, Mode mode,
                                       int wait_seconds) {
  const std::string path = DaemonLockPath(metadata_dir);
  const bool inspect = mode == Mode::kInspect;
  UniqueFd fd(inspect ? open(path.c_str(), O_RDONLY | O_CLOEXEC)
                      : open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (fd.get() < 0) {
    if (inspect && errno == ENOENT) return DaemonLock();
    return Status::FromErrno("open " + path);
  }
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::seconds(mode == Mode::kDaemon ? wait_seconds : 0);
  while (flock(fd.get(), (inspect ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK) return Status::FromErrno("lock " + path);
    const std::string holder = "daemon pid " + HolderPid(fd.get());
    if (mode != Mode::kDaemon) {
      return Status::Error(EBUSY, "the file system on " + metadata_dir + " is mounted (" +
                                      holder + ")");
    }
    if (std::string mounted_on = MountPointOf(metadata_dir); !mounted_on.empty()) {
      return Status::Error(EBUSY, "the file system on " + metadata_dir +
                                      " is already mounted on " + mounted_on + " (" + holder +
                                      ")");
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      // The holder may also be a tool such as `tierfs check` (which leaves the
      // last daemon's pid in the file).
      return Status::Error(EBUSY, "the file system on " + metadata_dir +
                                      " is not mounted but its daemon lock is still held (by " +
                                      holder + ", still exiting? or by `tierfs check`); waited " +
                                      std::to_string(wait_seconds) + " s");
    }
    std::this_thread::sleep_for(kRetryInterval);
  }
  DaemonLock lock(std::move(fd), path);
  if (mode == Mode::kExclusive) TIERFS_RETURN_IF_ERROR(lock.RecordPid());
  return lock;
}

Status DaemonLock::RecordPid() {
  const std::string pid = std::to_string(getpid()) + "\n";
  if (ftruncate(fd_.get(), 0) != 0 || pwrite(fd_.get(), pid.data(), pid.size(), 0) < 0) {
    return Status::FromErrno("write " + path_);
  }
  return Status::Ok();
}

}  // namespace tierfs
