// DaemonLock: the flock on <metadata volume>/.tierfs/daemon.lock (fs/volume/volume_label.h
// DaemonLockPath) that keeps one file system from being served by two daemons,
// and tells the tools that work on an unmounted one (`tierfs check`, `tierfs
// check --repair`) whether a daemon is serving it.
//
// The daemon (fs/daemon/session.cc, Mode::kDaemon) holds the lock, with its pid
// written in the file, for its whole life; tests and tools wait on it to know
// that an unmounted daemon has finished its final flush. A tool that takes it
// keeps a daemon from starting underneath it (the mount then fails with "already
// mounted"), and fails with EBUSY, naming the daemon's pid, while a daemon holds
// it. The lock goes with the object (RAII).
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
    // The daemon's: as kExclusive, but the pid is written later (RecordPid, once
    // the file system opened, so that a refused mount changes nothing), and a
    // holder whose file system is no longer mounted (a daemon still flushing
    // after its unmount) is waited for, up to `wait_seconds`.
    kDaemon,
  };

  // Takes the lock of the file system whose metadata volume is `metadata_dir`.
  // Waits only in kDaemon mode, and only while the holder's file system is not
  // mounted (/proc/self/mountinfo). Errors: EBUSY "the file system on DIR is
  // mounted (daemon pid N)" (kDaemon: "is already mounted on MOUNTPOINT (daemon
  // pid N)", or after `wait_seconds` "... its daemon lock is still held") when a
  // daemon or another tool holds it; the open/flock errno naming the lock file
  // otherwise.
  static Result<DaemonLock> Acquire(const std::string& metadata_dir, Mode mode,
                                    int wait_seconds = 0);

  DaemonLock() = default;
  DaemonLock(DaemonLock&&) noexcept = default;
  DaemonLock& operator=(DaemonLock&&) noexcept = default;

  // Whether a lock is held (false only for kInspect without a lock file).
  bool held() const { return fd_.get() >= 0; }

  // Writes this process's pid into the held lock file (kDaemon). Errors: the
  // write's errno naming the file.
  Status RecordPid();

 private:
  DaemonLock(UniqueFd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}
  UniqueFd fd_;
  std::string path_;
};

}  // namespace tierfs
