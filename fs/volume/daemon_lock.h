// DaemonLock: the flock on <metadata volume>/.tierfs/daemon.lock (fs/volume/volume_label.h
// DaemonLockPath) that tells whether a daemon is serving a file system, for the
// tools that work on an unmounted one (`tierfs check`, `tierfs check --repair`).
//
// The daemon (fs/daemon/session.cc) holds the lock, with its pid written in the file, for
// its whole life. A tool that takes it keeps a daemon from starting underneath it
// (the mount then fails with "already mounted"), and fails with EBUSY, naming the
// daemon's pid, while a daemon holds it. The lock goes with the object (RAII).
//
// Thread-safety: a DaemonLock is owned by one thread; Acquire is thread-safe.
#pragma once

#include <string>

#include "common/status.h"
#include "common/unique_fd.h"

namespace tierfs {

class DaemonLock {
 public:
  enum class Mode {
    // Writes nothing: opens the lock file read-only (never creates it) and takes
    // a shared lock; when the file does not exist (never mounted) there is nothing
    // to lock and no daemon can be running, so Acquire succeeds without a lock.
    // For read-only checks.
    kInspect,
    // Creates the file if needed (mode 0600), takes the exclusive lock and writes
    // this process's pid into it, as the daemon does. For repairs.
    kExclusive,
  };

  // Takes the lock of the file system whose metadata volume is `metadata_dir`,
  // without waiting. Errors: EBUSY "the file system on DIR is mounted (daemon pid
  // N)" when a daemon (or another tool) holds it; the open/flock errno naming the
  // lock file otherwise.
  static Result<DaemonLock> Acquire(const std::string& metadata_dir, Mode mode);

  DaemonLock() = default;
  DaemonLock(DaemonLock&&) noexcept = default;
  DaemonLock& operator=(DaemonLock&&) noexcept = default;

  // Whether a lock is held (false only for kInspect without a lock file).
  bool held() const { return fd_.get() >= 0; }

 private:
  explicit DaemonLock(UniqueFd fd) : fd_(std::move(fd)) {}
  UniqueFd fd_;
};

}  // namespace tierfs
