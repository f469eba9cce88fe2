#include "fs/volume/fault_injecting_volume_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <chrono>
#include <sstream>
#include <string_view>
#include <thread>

#include "common/blocking_section.h"

namespace tierfs {
namespace {

constexpr std::array<const char*, 22> kOps = {
    "open",  "read",  "write",    "fsync",    "truncate", "fallocate",   "copy",
    "rename", "unlink", "mkdir",  "dup2",     "close",    "stat",        "statfs",
    "readdir", "lease", "backing", "point",  "db-write", "db-truncate", "db-sync", "any"};

// How long a `hold` waits for its release before it lets the call go on.
constexpr auto kHoldLimit = std::chrono::seconds(120);
constexpr auto kHoldPoll = std::chrono::milliseconds(5);

struct NamedErrno {
  const char* name;
  int value;
};
constexpr std::array<NamedErrno, 12> kErrnos = {{{"ENOSPC", ENOSPC},
                                                 {"EIO", EIO},
                                                 {"EDQUOT", EDQUOT},
                                                 {"EROFS", EROFS},
                                                 {"ENOENT", ENOENT},
                                                 {"EACCES", EACCES},
                                                 {"EXDEV", EXDEV},
                                                 {"EFBIG", EFBIG},
                                                 {"ENOMEM", ENOMEM},
                                                 {"EINTR", EINTR},
                                                 {"EAGAIN", EAGAIN},
                                                 {"EINVAL", EINVAL}}};

bool KnownOp(const std::string& op) {
  for (const char* o : kOps) {
    if (op == o) return true;
  }
  return false;
}

bool MovesBytes(const std::string& op) { return op == "read" || op == "write" || op == "copy"; }

}  // namespace

Result<std::unique_ptr<FaultInjectingVolumeIo>> FaultInjectingVolumeIo::Create(
    const std::string& spec, VolumeIo& base, const std::string& hold_dir) {
  std::unique_ptr<FaultInjectingVolumeIo> io(new FaultInjectingVolumeIo(base));
  io->hold_dir_ = hold_dir;
  // No other thread sees `io` yet; held so that its rules are written as the
  // rule for rules_ says (and as the analysis checks).
  MutexLock lock(io->mu_);
  std::stringstream in(spec);
  std::string token;
  while (std::getline(in, token, ',')) {
    if (token.empty()) continue;
    auto bad = [&](const std::string& why) {
      return Status::Invalid("fault rule '" + token + "': " + why +
                             " (expected OP[:PATH]@N[+]=ACTION)");
    };
    const size_t at = token.find('@');
    const size_t eq = token.find('=', at == std::string::npos ? 0 : at);
    if (at == std::string::npos || eq == std::string::npos) return bad("missing @ or =");
    Rule rule;
    std::string head = token.substr(0, at);
    if (size_t colon = head.find(':'); colon != std::string::npos) {
      rule.path = head.substr(colon + 1);
      head.resize(colon);
    }
    rule.op = head;
    if (!KnownOp(rule.op)) return bad("unknown operation '" + rule.op + "'");
    std::string count = token.substr(at + 1, eq - at - 1);
    if (!count.empty() && count.back() == '+') {
      rule.and_later = true;
      count.pop_back();
    }
    auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), rule.nth);
    if (ec != std::errc() || end != count.data() + count.size() || rule.nth == 0) {
      return bad("N must be a whole number from 1");
    }
    const std::string action = token.substr(eq + 1);
    if (rule.op == "point" && action != "stop" && action != "hold" &&
        action.rfind("delay", 0) != 0) {
      return bad("a point takes only stop, delayMS or hold");
    }
    if (action == "stop") {
      rule.action = Action::kStop;
    } else if (action == "hold") {
      if (hold_dir.empty()) return bad("'hold' needs TIERFS_FAULTS_HOLD_DIR");
      rule.action = Action::kHold;
    } else if (action.rfind("delay", 0) == 0) {
      const std::string ms = action.substr(5);
      auto [end, ec] = std::from_chars(ms.data(), ms.data() + ms.size(), rule.delay_ms);
      if (ec != std::errc() || end != ms.data() + ms.size() || rule.delay_ms == 0 ||
          rule.delay_ms > 600000) {
        return bad("'delayMS' needs MS from 1 to 600000");
      }
      rule.action = Action::kDelay;
    } else if (action == "short") {
      if (!MovesBytes(rule.op)) return bad("'short' applies to read, write and copy only");
      rule.action = Action::kShort;
    } else {
      rule.action = Action::kErrno;
      for (const NamedErrno& e : kErrnos) {
        if (action == e.name) rule.error = e.value;
      }
      if (rule.error == 0) return bad("unknown action '" + action + "'");
    }
    io->rules_.push_back(std::move(rule));
  }
  if (io->rules_.empty()) return Status::Invalid("fault spec '" + spec + "' has no rule");
  return io;
}

Result<std::unique_ptr<FaultInjectingVolumeIo>> FaultInjectingVolumeIo::FromEnvironment(
    VolumeIo& base) {
  const char* spec = std::getenv("TIERFS_FAULTS");
  if (spec == nullptr || *spec == '\0') return std::unique_ptr<FaultInjectingVolumeIo>();
  const char* hold_dir = std::getenv("TIERFS_FAULTS_HOLD_DIR");
  return Create(spec, base, hold_dir != nullptr ? hold_dir : "");
}

FaultInjectingVolumeIo::Verdict FaultInjectingVolumeIo::Check(const char* op,
                                                              const std::string& path) {
  MutexLock lock(mu_);
  Verdict verdict;
  for (Rule& rule : rules_) {
    if (rule.op != "any" && rule.op != op) continue;
    if (!rule.path.empty() && path.find(rule.path) == std::string::npos) continue;
    rule.seen++;
    const bool fires = rule.seen == rule.nth || (rule.and_later && rule.seen > rule.nth);
    if (!fires || verdict.fail || verdict.shorten) continue;  // first firing rule wins
    injected_++;
    switch (rule.action) {
      case Action::kDelay:
        verdict.delay_ms = std::max(verdict.delay_ms, rule.delay_ms);
        break;
      case Action::kHold:
        verdict.hold = true;
        break;
      case Action::kStop:
        _exit(70);
      case Action::kShort:
        if (MovesBytes(op)) verdict.shorten = true;
        break;
      case Action::kErrno:
        verdict.fail = true;
        verdict.error = rule.error;
        break;
    }
  }
  return verdict;
}

std::string FaultInjectingVolumeIo::PathOf(int fd) {
  MutexLock lock(mu_);
  auto it = fd_paths_.find(fd);
  return it == fd_paths_.end() ? std::string() : it->second;
}

uint64_t FaultInjectingVolumeIo::faults_injected() const {
  MutexLock lock(mu_);
  return injected_;
}

namespace {

// What a delayed call stands for, to the FUSE worker pool.
BlockingKind KindOf(std::string_view op) {
  if (op == "read") return BlockingKind::kRead;
  if (op == "write" || op == "copy" || op == "db-write") return BlockingKind::kWrite;
  if (op == "fsync" || op == "db-sync") return BlockingKind::kSync;
  return BlockingKind::kNamespace;
}

}  // namespace

void FaultInjectingVolumeIo::Wait(const char* op, const Verdict& verdict) {
  if (verdict.delay_ms == 0 && !verdict.hold) return;
  BlockingSection blocking(KindOf(op));  // a slow device: the wait blocks as its I/O would
  if (verdict.delay_ms > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(verdict.delay_ms));
  }
  if (!verdict.hold) return;
  const std::string marker = hold_dir_ + "/" + op + ".held";
  const int fd = open(marker.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;  // nowhere to say so: the call goes on rather than hang
  close(fd);
  const auto deadline = std::chrono::steady_clock::now() + kHoldLimit;
  while (access(marker.c_str(), F_OK) == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(kHoldPoll);
  }
}

void FaultInjectingVolumeIo::ReachPoint(const char* name) { Wait("point", Check("point", name)); }

#define TIERFS_FAULT_OR_PASS(op, path)   \
  Verdict verdict = Check(op, path);     \
  Wait(op, verdict);                     \
  if (verdict.fail) {                    \
    errno = verdict.error;               \
    return -1;                           \
  }

int FaultInjectingVolumeIo::Open(const std::string& path, int flags, mode_t mode) {
  TIERFS_FAULT_OR_PASS("open", path);
  int fd = base_.Open(path, flags, mode);
  if (fd >= 0) {
    MutexLock lock(mu_);
    fd_paths_[fd] = path;
  }
  return fd;
}

int FaultInjectingVolumeIo::ReopenDirect(int fd) {
  const std::string path = PathOf(fd);
  TIERFS_FAULT_OR_PASS("open", path);
  const int direct = base_.ReopenDirect(fd);
  if (direct >= 0) {
    MutexLock lock(mu_);
    fd_paths_[direct] = path;
  }
  return direct;
}

ssize_t FaultInjectingVolumeIo::Pread(int fd, void* buf, size_t count, off_t offset) {
  TIERFS_FAULT_OR_PASS("read", PathOf(fd));
  return base_.Pread(fd, buf, verdict.shorten ? Half(count) : count, offset);
}

ssize_t FaultInjectingVolumeIo::Pwrite(int fd, const void* buf, size_t count, off_t offset) {
  TIERFS_FAULT_OR_PASS("write", PathOf(fd));
  return base_.Pwrite(fd, buf, verdict.shorten ? Half(count) : count, offset);
}

ssize_t FaultInjectingVolumeIo::PwriteDirect(int fd, const void* buf, size_t count,
                                             off_t offset) {
  TIERFS_FAULT_OR_PASS("write", PathOf(fd));
  return base_.PwriteDirect(fd, buf, verdict.shorten ? Half(count) : count, offset);
}

int FaultInjectingVolumeIo::Fsync(int fd, bool datasync) {
  TIERFS_FAULT_OR_PASS("fsync", PathOf(fd));
  return base_.Fsync(fd, datasync);
}

int FaultInjectingVolumeIo::Ftruncate(int fd, off_t length) {
  TIERFS_FAULT_OR_PASS("truncate", PathOf(fd));
  return base_.Ftruncate(fd, length);
}

int FaultInjectingVolumeIo::Truncate(const std::string& path, off_t length) {
  TIERFS_FAULT_OR_PASS("truncate", path);
  return base_.Truncate(path, length);
}

int FaultInjectingVolumeIo::Fallocate(int fd, int mode, off_t offset, off_t length) {
  TIERFS_FAULT_OR_PASS("fallocate", PathOf(fd));
  return base_.Fallocate(fd, mode, offset, length);
}

ssize_t FaultInjectingVolumeIo::CopyFileRange(int fd_in, off_t* off_in, int fd_out,
                                              off_t* off_out, size_t length,
                                              unsigned int flags) {
  // Matched against the destination: a copy fails where it writes.
  TIERFS_FAULT_OR_PASS("copy", PathOf(fd_out));
  return base_.CopyFileRange(fd_in, off_in, fd_out, off_out,
                             verdict.shorten ? Half(length) : length, flags);
}

int FaultInjectingVolumeIo::Rename(const std::string& from, const std::string& to) {
  TIERFS_FAULT_OR_PASS("rename", to);
  return base_.Rename(from, to);
}

int FaultInjectingVolumeIo::RenameNoReplace(const std::string& from, const std::string& to) {
  TIERFS_FAULT_OR_PASS("rename", to);
  return base_.RenameNoReplace(from, to);
}

int FaultInjectingVolumeIo::Unlink(const std::string& path) {
  TIERFS_FAULT_OR_PASS("unlink", path);
  return base_.Unlink(path);
}

int FaultInjectingVolumeIo::Mkdir(const std::string& path, mode_t mode) {
  TIERFS_FAULT_OR_PASS("mkdir", path);
  return base_.Mkdir(path, mode);
}

int FaultInjectingVolumeIo::Stat(const std::string& path, struct stat* st) {
  TIERFS_FAULT_OR_PASS("stat", path);
  return base_.Stat(path, st);
}

int FaultInjectingVolumeIo::Lstat(const std::string& path, struct stat* st) {
  TIERFS_FAULT_OR_PASS("stat", path);
  return base_.Lstat(path, st);
}

int FaultInjectingVolumeIo::Fstat(int fd, struct stat* st) {
  TIERFS_FAULT_OR_PASS("stat", PathOf(fd));
  return base_.Fstat(fd, st);
}

int FaultInjectingVolumeIo::StatVfs(const std::string& path, struct statvfs* st) {
  TIERFS_FAULT_OR_PASS("statfs", path);
  return base_.StatVfs(path, st);
}

int FaultInjectingVolumeIo::ListDir(const std::string& path, std::vector<std::string>* names) {
  names->clear();
  TIERFS_FAULT_OR_PASS("readdir", path);
  return base_.ListDir(path, names);
}

int FaultInjectingVolumeIo::BackingOpen(int device_fd, int object_fd) {
  TIERFS_FAULT_OR_PASS("backing", PathOf(object_fd));
  return base_.BackingOpen(device_fd, object_fd);
}

int FaultInjectingVolumeIo::HasWriters(int fd) {
  TIERFS_FAULT_OR_PASS("lease", PathOf(fd));
  return base_.HasWriters(fd);
}

int FaultInjectingVolumeIo::Dup2(int old_fd, int new_fd) {
  const std::string path = PathOf(old_fd);
  TIERFS_FAULT_OR_PASS("dup2", path);
  int fd = base_.Dup2(old_fd, new_fd);
  if (fd >= 0) {
    MutexLock lock(mu_);
    fd_paths_[new_fd] = path;
  }
  return fd;
}

int FaultInjectingVolumeIo::Close(int fd) {
  // close(2) frees the descriptor even when it reports an error.
  const Verdict verdict = Check("close", PathOf(fd));
  {
    MutexLock lock(mu_);
    fd_paths_.erase(fd);
  }
  const int rc = base_.Close(fd);
  if (verdict.fail) {
    errno = verdict.error;
    return -1;
  }
  return rc;
}

int FaultInjectingVolumeIo::BeforeDbCall(DbCall call, const std::string& path) {
  const char* op = call == DbCall::kWrite      ? "db-write"
                   : call == DbCall::kTruncate ? "db-truncate"
                                               : "db-sync";
  TIERFS_FAULT_OR_PASS(op, path);
  return base_.BeforeDbCall(call, path);
}

#undef TIERFS_FAULT_OR_PASS

}  // namespace tierfs
