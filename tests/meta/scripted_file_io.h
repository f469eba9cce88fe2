// ScriptedFileIo: a FileIo for meta/'s tests that fails the calls a test names,
// by the names the daemon's fault plans use (fs/volume/fault_injecting_volume_io.h:
// "open", "read", "write", "fsync", "truncate", "fallocate", "unlink", "stat",
// "close", "db-write", "db-truncate", "db-sync"), without the volume layer.
#pragma once

#include <cerrno>
#include <cstdint>
#include <string>
#include <unordered_map>

#include "common/file_io.h"
#include "common/mutex.h"
#include "common/thread_annotations.h"

namespace tierfs::meta::testing {

class ScriptedFileIo : public FileIo {
 public:
  // From now on the `nth` call named `op` ("any": every name) on a path containing `path` (for an
  // fd: the path it was opened with) fails with `error` and does nothing; with
  // `every_later`, every later one too. Replaces the previous rule.
  void FailAt(const std::string& op, const std::string& path, uint64_t nth, int error,
              bool every_later = false) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    op_ = op;
    path_ = path;
    nth_ = nth;
    error_ = error;
    every_later_ = every_later;
    seen_ = 0;
    failed_ = 0;
  }
  // No call fails from now on.
  void Lift() EXCLUDES(mu_) { FailAt("", "", 0, 0); }
  // How many calls the rule failed.
  uint64_t failed() const EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return failed_;
  }

  int Open(const std::string& path, int flags, mode_t mode) override {
    if (Fails("open", path)) return -1;
    const int fd = FileIo::Open(path, flags, mode);
    MutexLock lock(mu_);
    if (fd >= 0) paths_[fd] = path;
    return fd;
  }
  ssize_t Pread(int fd, void* buf, size_t count, off_t offset) override {
    return Fails("read", PathOf(fd)) ? -1 : FileIo::Pread(fd, buf, count, offset);
  }
  ssize_t Pwrite(int fd, const void* buf, size_t count, off_t offset) override {
    return Fails("write", PathOf(fd)) ? -1 : FileIo::Pwrite(fd, buf, count, offset);
  }
  int Fsync(int fd, bool datasync) override {
    return Fails("fsync", PathOf(fd)) ? -1 : FileIo::Fsync(fd, datasync);
  }
  int Ftruncate(int fd, off_t length) override {
    return Fails("truncate", PathOf(fd)) ? -1 : FileIo::Ftruncate(fd, length);
  }
  int Fallocate(int fd, int mode, off_t offset, off_t length) override {
    return Fails("fallocate", PathOf(fd)) ? -1 : FileIo::Fallocate(fd, mode, offset, length);
  }
  int Unlink(const std::string& path) override {
    return Fails("unlink", path) ? -1 : FileIo::Unlink(path);
  }
  int Stat(const std::string& path, struct stat* st) override {
    return Fails("stat", path) ? -1 : FileIo::Stat(path, st);
  }
  int Lstat(const std::string& path, struct stat* st) override {
    return Fails("stat", path) ? -1 : FileIo::Lstat(path, st);
  }
  int Fstat(int fd, struct stat* st) override {
    return Fails("stat", PathOf(fd)) ? -1 : FileIo::Fstat(fd, st);
  }
  int Close(int fd) override {
    const bool fails = Fails("close", PathOf(fd));
    {
      MutexLock lock(mu_);
      paths_.erase(fd);
    }
    const int rc = FileIo::Close(fd);  // freed either way, as close(2) does
    return fails ? -1 : rc;
  }
  int BeforeDbCall(DbCall call, const std::string& path) override {
    const char* op = call == DbCall::kWrite      ? "db-write"
                     : call == DbCall::kTruncate ? "db-truncate"
                                                 : "db-sync";
    return Fails(op, path) ? -1 : 0;
  }

 private:
  // Counts a call against the rule; true (errno set) when it must fail.
  bool Fails(const char* op, const std::string& path) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    if (op_.empty() || (op_ != "any" && op_ != op) || path.find(path_) == std::string::npos) {
      return false;
    }
    ++seen_;
    if (seen_ != nth_ && !(every_later_ && seen_ > nth_)) return false;
    ++failed_;
    errno = error_;
    return true;
  }
  std::string PathOf(int fd) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    auto it = paths_.find(fd);
    return it == paths_.end() ? std::string() : it->second;
  }

  mutable Mutex mu_;
  std::string op_ GUARDED_BY(mu_);
  std::string path_ GUARDED_BY(mu_);
  uint64_t nth_ GUARDED_BY(mu_) = 0;
  int error_ GUARDED_BY(mu_) = 0;
  bool every_later_ GUARDED_BY(mu_) = false;
  uint64_t seen_ GUARDED_BY(mu_) = 0;
  uint64_t failed_ GUARDED_BY(mu_) = 0;
  std::unordered_map<int, std::string> paths_ GUARDED_BY(mu_);
};

}  // namespace tierfs::meta::testing
