#include "fs/volume/daemon_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "fs/volume/volume_label.h"

namespace tierfs {

Result<DaemonLock> DaemonLock::Acquire(const std::string& metadata_dir, Mode mode) {
  const std::string path = DaemonLockPath(metadata_dir);
  const bool exclusive = mode == Mode::kExclusive;
  UniqueFd fd(exclusive ? open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)
                        : open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (!exclusive && errno == ENOENT) return DaemonLock();
    return Status::FromErrno("open " + path);
  }
  if (flock(fd.get(), (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK) return Status::FromErrno("lock " + path);
    char pid[32] = {0};
    ssize_t n = pread(fd.get(), pid, sizeof pid - 1, 0);
    std::string holder = n > 0 ? std::string(pid, static_cast<size_t>(n)) : "";
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    return Status::Error(EBUSY, "the file system on " + metadata_dir + " is mounted (daemon pid " +
                                    (holder.empty() ? "unknown" : holder) + ")");
  }
  if (exclusive) {
    const std::string pid = std::to_string(getpid()) + "\n";
    if (ftruncate(fd.get(), 0) != 0 || pwrite(fd.get(), pid.data(), pid.size(), 0) < 0) {
      return Status::FromErrno("write " + path);
    }
  }
  return DaemonLock(std::move(fd));
}

}  // namespace tierfs
