#include "fs/session.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/file.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "fs/control_handlers.h"
#include "fs/control_server.h"
#include "fs/file_system.h"
#include "fs/fuse_ops.h"
#include "fs/volume_label.h"

namespace tierfs {
namespace {

// Periodic writeback of I/O counters and dirty inodes, plus retention pruning
// (at start and then every minute).
class WritebackThread {
 public:
  WritebackThread(FileSystem& fs, const SessionOptions& options)
      : fs_(fs), options_(options), thread_([this] { Run(); }) {}
  ~WritebackThread() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  void Run() {
    auto last_prune = std::chrono::steady_clock::time_point{};
    std::unique_lock lock(mu_);
    while (!stop_) {
      cv_.wait_for(lock, std::chrono::seconds(options_.writeback_seconds));
      if (stop_) break;
      lock.unlock();
      Status st = fs_.FlushAll();
      if (!st.ok()) std::fprintf(stderr, "tierfs: writeback: %s\n", st.ToString().c_str());
      auto now = std::chrono::steady_clock::now();
      if (now - last_prune > std::chrono::minutes(1)) {
        last_prune = now;
        st = fs_.ApplyRetention();
        if (!st.ok()) std::fprintf(stderr, "tierfs: retention: %s\n", st.ToString().c_str());
      }
      lock.lock();
    }
  }

  FileSystem& fs_;
  const SessionOptions& options_;
  std::mutex mu_;  // guards stop_
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

// Tells the waiting parent how the mount went (one status byte, then a message).
class StartupPipe {
 public:
  bool Create() { return pipe2(fds_, O_CLOEXEC) == 0; }
  void Report(bool ok, const std::string& message) {
    if (fds_[1] < 0) return;
    std::string packet = std::string(1, ok ? '0' : '1') + message;
    (void)!write(fds_[1], packet.data(), packet.size());
    close(fds_[1]);
    fds_[1] = -1;
  }
  // Parent side: waits for the child's report; returns the exit status.
  int Wait() {
    close(fds_[1]);
    std::string packet;
    char buf[4096];
    ssize_t n;
    while ((n = read(fds_[0], buf, sizeof buf)) > 0) packet.append(buf, n);
    if (packet.empty()) {
      std::fprintf(stderr, "tierfs: the daemon exited before mounting\n");
      return 1;
    }
    if (packet.size() > 1) std::fprintf(stderr, "%s\n", packet.c_str() + 1);
    return packet[0] == '0' ? 0 : 1;
  }
  void CloseRead() { close(fds_[0]); }

 private:
  int fds_[2] = {-1, -1};
};

std::string Absolute(const std::string& path) {
  char buf[PATH_MAX];
  if (realpath(path.c_str(), buf) == nullptr) return path;
  return buf;
}

void Detach(const std::string& log_path) {
  setsid();
  if (chdir("/") != 0) return;
  int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  int log_fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
  if (null_fd >= 0) dup2(null_fd, STDOUT_FILENO);
  if (log_fd >= 0) dup2(log_fd, STDERR_FILENO);
  else if (null_fd >= 0) dup2(null_fd, STDERR_FILENO);
}

// Holds <metadata volume>/.tierfs/daemon.lock (flock) for the daemon's life, so one
// file system is never served by two daemons; tests and tools wait on it to know
// that an unmounted daemon has finished its final flush.
class DaemonLock {
 public:
  ~DaemonLock() {
    if (fd_ >= 0) close(fd_);
  }
  Status Acquire(const std::string& metadata_dir) {
    const std::string path = DaemonLockPath(metadata_dir);
    fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0) return Status::FromErrno("open " + path);
    if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      char pid[32] = {0};
      (void)!pread(fd_, pid, sizeof pid - 1, 0);
      return Status::Error(EBUSY, "the file system on " + metadata_dir +
                                      " is already mounted (daemon pid " + pid + ")");
    }
    const std::string pid = std::to_string(getpid()) + "\n";
    if (ftruncate(fd_, 0) != 0 || pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
      return Status::FromErrno("write " + path);
    }
    return Status::Ok();
  }

 private:
  int fd_ = -1;
};

// Mounts and serves; reports the mount result through `startup`.
int Serve(const SessionOptions& options, StartupPipe* startup) {
  auto fail = [&](const std::string& message) {
    if (startup != nullptr) startup->Report(false, message);
    else std::fprintf(stderr, "%s\n", message.c_str());
    return 1;
  };
  const std::string metadata_dir = Absolute(options.metadata_dir);
  const std::string mountpoint = Absolute(options.mountpoint);
  struct stat st;
  if (stat(mountpoint.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return fail("tierfs: mount point " + mountpoint + " is not a directory");
  }
  DaemonLock daemon_lock;
  if (Status st = daemon_lock.Acquire(metadata_dir); !st.ok()) return fail("tierfs: " + st.message());
  FileSystemOptions fs_options;
  fs_options.mountpoint = mountpoint;
  fs_options.sync_full = options.sync_full;
  fs_options.fcl_keep_seconds = options.fcl_keep_seconds;
  fs_options.fcl_max_records = options.fcl_max_records;
  fs_options.iostat_keep_seconds = options.iostat_keep_seconds;
  auto fs = FileSystem::Open(metadata_dir, fs_options);
  if (!fs.ok()) return fail("tierfs: " + fs.status().message());
  if (Status st = (*fs)->ApplyRetention(); !st.ok()) {
    return fail("tierfs: FCL retention: " + st.message());
  }

  std::string mount_opts = "fsname=" + metadata_dir + ",subtype=tierfs,default_permissions";
  // Mounted by root: shared like a local file system (allow_other), with device
  // nodes and setuid honoured as on ext4; -o nodev,nosuid still narrows it.
  if (getuid() == 0) mount_opts += ",allow_other,dev,suid";
  if (!options.fuse_options.empty()) mount_opts += "," + options.fuse_options;
  std::vector<std::string> argv_strings = {"tierfs", "-o", mount_opts};
  if (options.debug) argv_strings.push_back("-d");
  std::vector<char*> argv;
  for (std::string& s : argv_strings) argv.push_back(s.data());
  fuse_args args = FUSE_ARGS_INIT(static_cast<int>(argv.size()), argv.data());

  FuseContext context;
  context.fs = fs->get();
  context.entry_timeout = options.entry_timeout;
  context.attr_timeout = options.attr_timeout;
  const fuse_lowlevel_ops& ops = TierfsOperations();
  fuse_session* se = fuse_session_new(&args, &ops, sizeof ops, &context);
  if (se == nullptr) return fail("tierfs: bad mount options: " + mount_opts);
  context.session = se;  // for attribute invalidations the kernel did not ask for
  if (fuse_set_signal_handlers(se) != 0) {
    fuse_session_destroy(se);
    return fail("tierfs: cannot install signal handlers");
  }
  if (fuse_session_mount(se, mountpoint.c_str()) != 0) {
    fuse_remove_signal_handlers(se);
    fuse_session_destroy(se);
    return fail("tierfs: cannot mount on " + mountpoint + " (is /dev/fuse usable, and " +
                mountpoint + " not already mounted?)");
  }

  // Names the daemon removes itself (policy DELETEs) must leave the kernel's cache.
  (*fs)->SetEntryRemovedHook([se](uint64_t parent, uint64_t ino, std::string_view name) {
    fuse_lowlevel_notify_delete(se, parent, ino, name.data(), name.size());
  });
  ControlHandlers handlers(**fs);
  auto control = ControlServer::Start(
      ControlSocketPath(metadata_dir), getuid(),
      [&](const nlohmann::json& request, const ControlPeer& peer, ControlReply& reply) {
        return handlers.Handle(request, peer, reply);
      });
  if (!control.ok()) {
    fuse_session_unmount(se);
    fuse_remove_signal_handlers(se);
    fuse_session_destroy(se);
    return fail("tierfs: control socket: " + control.status().message());
  }
  if (startup != nullptr) {
    startup->Report(true, "");
    Detach(TierfsDir(metadata_dir) + "/tierfs.log");
  }

  int rc;
  {
    WritebackThread writeback(**fs, options);
    fuse_loop_config* config = fuse_loop_cfg_create();
    fuse_loop_cfg_set_clone_fd(config, 0);
    fuse_loop_cfg_set_max_threads(config, options.max_threads);
    rc = fuse_session_loop_mt(se, config);
    fuse_loop_cfg_destroy(config);
  }
  (*control)->Stop();
  fuse_session_unmount(se);
  fuse_remove_signal_handlers(se);
  fuse_session_destroy(se);
  fuse_opt_free_args(&args);
  return rc == 0 ? 0 : 1;
}

}  // namespace

int RunSession(const SessionOptions& options) {
  if (options.foreground || options.debug) return Serve(options, nullptr);
  StartupPipe startup;
  if (!startup.Create()) {
    std::perror("tierfs: pipe");
    return 1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    std::perror("tierfs: fork");
    return 1;
  }
  if (pid > 0) return startup.Wait();
  startup.CloseRead();
  _exit(Serve(options, &startup));
}

}  // namespace tierfs
