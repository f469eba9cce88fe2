// FaultInjectingVolumeIo: a VolumeIo that fails chosen calls, for tests.
//
// Rules are written as a spec string, a comma-separated list of
//
//     OP[:PATH]@N[+]=ACTION
//
//   OP      open read write fsync truncate fallocate copy rename unlink mkdir dup2
//           close, stat (stat, lstat and fstat), statfs (statvfs of a volume),
//           readdir (a directory listing, VolumeIo::ListDir), lease (HasWriters),
//           backing (a passthrough backing file's registration), point (a named step,
//           VolumeIo::ReachPoint, with its name as PATH), db-write db-truncate
//           db-sync (a write, truncate or sync SQLite makes on the database, its
//           "-wal" or "-journal", FileIo::BeforeDbCall), or `any`; `open` also
//           names the O_DIRECT reopen of an object (ReopenDirect). The metadata
//           layer's own calls (the database's checks, its reserve file
//           `.tierfs/meta.reserve`) go through the same ops as the volumes'.
//   PATH    only calls on paths containing this text (for fd calls: the path the
//           fd was opened with, followed through dup2), e.g. `/ssd/` or `.tierfs/tmp`
//   N       the Nth matching call (1-based, counted from when the rules were set);
//           with `+`, that call and every later one
//   ACTION  an errno name (ENOSPC, EIO, EDQUOT, EROFS, ENOENT, EACCES, EXDEV,
//           EFBIG, ENOMEM, EINTR, EAGAIN, EINVAL): the call fails with it and does
//           nothing (EINVAL from a write: a file system that refuses O_DIRECT);
//           `short`: a read, write or copy moves only half of what was asked (at
//           least one byte); `stop`: the process dies at once (_exit(70), as in a
//           crash: the page cache survives, nothing is cleaned up); `delayMS`
//           (e.g. `delay2000`): the call waits MS milliseconds (1..600000), then
//           runs normally: a slow device, or a relocation that takes its time;
//           `hold`: the call creates the file HOLD_DIR/OP.held (HOLD_DIR from the
//           environment variable TIERFS_FAULTS_HOLD_DIR, required by this action)
//           and waits until a test removes it (at most 120 s), then runs
//           normally: a test that sees the file knows the daemon is exactly there
//
// Example: `write:/ssd/@1+=ENOSPC` makes the ssd volume full for data writes;
// `rename@2=stop` kills the daemon at the second rename; `db-write:-wal@1+=ENOSPC`
// makes the database volume full for the WAL; `fallocate:meta.reserve@1=EIO`
// fails the first growth of the database's reserve. The daemon reads a spec
// from the environment variable TIERFS_FAULTS at mount (fs/daemon/session.cc), and
// so does an unmounted `tierfs check` (cli/tierfs/check_command.cc), so integration tests
// can fail any step of writes, creates, relocations, recovery and checks through
// the mounted file system and the real command.
//
// Thread-safe: rule counters and the fd->path map are guarded by one mutex (test
// use only; the production path uses the plain VolumeIo).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/mutex.h"
#include "common/status.h"
#include "common/thread_annotations.h"
#include "fs/volume/volume_io.h"

namespace tierfs {

class FaultInjectingVolumeIo : public VolumeIo {
 public:
  // Parses `spec` (grammar above) over `base`, which must outlive this object;
  // `hold_dir` is where `hold` rules leave their files ("" when none is given).
  // EINVAL naming the bad rule when the spec does not parse, or when a `hold`
  // rule has no `hold_dir`.
  static Result<std::unique_ptr<FaultInjectingVolumeIo>> Create(const std::string& spec,
                                                                VolumeIo& base,
                                                                const std::string& hold_dir = "");

  // The rules a process was started with: Create over `base` with the spec of the
  // environment variable TIERFS_FAULTS and the hold directory of
  // TIERFS_FAULTS_HOLD_DIR; null when TIERFS_FAULTS is unset or empty. EINVAL (as
  // Create) when the spec does not parse. For the daemon and `tierfs check`, in
  // builds with test hooks only (CMake option TIERFS_TEST_HOOKS).
  static Result<std::unique_ptr<FaultInjectingVolumeIo>> FromEnvironment(VolumeIo& base);

  int Open(const std::string& path, int flags, mode_t mode) override;
  int ReopenDirect(int fd) override;  // op "open"; the new fd keeps `fd`'s path
  ssize_t Pread(int fd, void* buf, size_t count, off_t offset) override;
  ssize_t Pwrite(int fd, const void* buf, size_t count, off_t offset) override;
  ssize_t PwriteDirect(int fd, const void* buf, size_t count, off_t offset) override;  // "write"
  int Fsync(int fd, bool datasync) override;
  int Ftruncate(int fd, off_t length) override;
  int Truncate(const std::string& path, off_t length) override;  // op "truncate"
  int Fallocate(int fd, int mode, off_t offset, off_t length) override;
  ssize_t CopyFileRange(int fd_in, off_t* off_in, int fd_out, off_t* off_out, size_t length,
                        unsigned int flags) override;
  int Rename(const std::string& from, const std::string& to) override;
  int RenameNoReplace(const std::string& from, const std::string& to) override;  // op "rename"
  int Unlink(const std::string& path) override;
  int Mkdir(const std::string& path, mode_t mode) override;
  int Stat(const std::string& path, struct stat* st) override;   // op "stat"
  int Lstat(const std::string& path, struct stat* st) override;  // op "stat"
  int Fstat(int fd, struct stat* st) override;                   // op "stat"
  int StatVfs(const std::string& path, struct statvfs* st) override;  // op "statfs"
  int ListDir(const std::string& path, std::vector<std::string>* names) override;  // "readdir"
  int HasWriters(int fd) override;  // op "lease"
  int BackingOpen(int device_fd, int object_fd) override;  // op "backing", object_fd's path
  int Dup2(int old_fd, int new_fd) override;
  int Close(int fd) override;
  void ReachPoint(const char* name) override;  // op "point"; `stop`, `delay` and `hold` only
  int BeforeDbCall(DbCall call, const std::string& path) override;  // "db-write", ...

  // How many calls some rule has failed so far.
  uint64_t faults_injected() const;

 private:
  enum class Action { kErrno, kShort, kStop, kDelay, kHold };
  struct Rule {
    std::string op;    // "write", ..., or "any"
    std::string path;  // substring filter, "" = every path
    uint64_t nth = 1;
    bool and_later = false;
    Action action = Action::kErrno;
    int error = 0;
    uint32_t delay_ms = 0;  // kDelay
    uint64_t seen = 0;  // matching calls so far
  };
  // What a call must do.
  struct Verdict {
    bool fail = false;   // return -1 with errno = error
    int error = 0;
    bool shorten = false;
    uint32_t delay_ms = 0;  // wait this long first (outside the lock)
    bool hold = false;      // wait for the test's release first (outside the lock)
  };

  explicit FaultInjectingVolumeIo(VolumeIo& base) : base_(base) {}
  // Counts the call against every rule; dies on `stop`.
  Verdict Check(const char* op, const std::string& path) EXCLUDES(mu_);
  // Runs a verdict's delay and hold for a call of `op` (outside mu_).
  void Wait(const char* op, const Verdict& verdict) EXCLUDES(mu_);
  std::string PathOf(int fd);
  static size_t Half(size_t count) { return count > 1 ? count / 2 : count; }

  VolumeIo& base_;
  std::string hold_dir_;  // TIERFS_FAULTS_HOLD_DIR, for `hold`
  mutable Mutex mu_;
  std::vector<Rule> rules_ GUARDED_BY(mu_);
  std::unordered_map<int, std::string> fd_paths_ GUARDED_BY(mu_);
  uint64_t injected_ GUARDED_BY(mu_) = 0;
};

}  // namespace tierfs
