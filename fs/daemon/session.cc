#include "fs/daemon/session.h"

#include "common/sanitizers.h"
#ifdef TIERFS_ASAN_BUILD
#include <sanitizer/lsan_interface.h>
#endif

#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>
#include <thread>
#include <vector>

#include "common/log.h"
#include "common/periodic_thread.h"
#include "fs/bpf/passthrough_io_counter.h"
#include "fs/control/control_handlers.h"
#include "fs/control/control_server.h"
#include "fs/volume/daemon_lock.h"
#include "fs/volume/fault_injecting_volume_io.h"
#include "fs/metrics/metrics_exporter.h"
#include "fs/core/file_system.h"
#include "fs/fuse/fuse_ops.h"
#include "fs/fuse/fuse_worker_pool.h"
#include "fs/fuse/passthrough.h"
#include "fs/fuse/uring_transport.h"
#include "fs/daemon/passthrough_heat.h"
#include "fs/volume/volume_label.h"

namespace tierfs {
namespace {

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

// How long a new daemon waits for the lock of one whose mount is gone (after
// `fusermount3 -u` it still flushes, checkpoints and closes the database) before
// it gives up (docs/man/tierfs.8).
constexpr int kExitingDaemonWaitSeconds = 10;

// Raises the daemon's soft limit of open files to its hard limit, and returns
// `wanted` cached opens (FileSystemOptions::cached_opens), fewer when two fds
// each would not fit in that limit beside kFdsForTheRest (the database,
// volumes, /dev/fuse, pipes, sockets).
size_t CachedOpensWithinFdLimit(int wanted) {
  constexpr rlim_t kFdsForTheRest = 512;
  struct rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return static_cast<size_t>(wanted);
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  const rlim_t room =
      limit.rlim_cur > 2 * kFdsForTheRest ? (limit.rlim_cur - kFdsForTheRest) / 2 : 256;
  if (static_cast<rlim_t>(wanted) <= room) return static_cast<size_t>(wanted);
  LogWarning("--cached_opens {} lowered to {}: the open-file limit is {}", wanted, room,
             limit.rlim_cur);
  return static_cast<size_t>(room);
}

// What the session hands the file system, from its own options.
FileSystemOptions FileSystemOptionsFor(const SessionOptions& options,
                                       const std::string& mountpoint) {
  FileSystemOptions fs_options;
  fs_options.mountpoint = mountpoint;
  fs_options.sync_full = options.sync_full;
  fs_options.fcl_keep_seconds = options.fcl_keep_seconds;
  fs_options.fcl_max_records = options.fcl_max_records;
  fs_options.iostat_keep_seconds = options.iostat_keep_seconds;
  fs_options.commit_window_us = options.commit_window_us;
  fs_options.cached_inodes = static_cast<size_t>(options.cached_inodes);
  fs_options.cached_dentries = static_cast<size_t>(options.cached_dentries);
  fs_options.exact_atime = options.exact_atime;
  fs_options.direct_writes = options.direct_writes;
  fs_options.cached_opens = CachedOpensWithinFdLimit(options.cached_opens);
  return fs_options;
}

// The log, from the mount's first step on (recovery at open included): the
// log file and syslog; in the foreground standard error instead of the file
// (systemd's journal). A log file that cannot be opened is a warning.
void OpenDaemonLog(const SessionOptions& options, const std::string& metadata_dir,
                   const std::string& mountpoint, bool foreground) {
  LogOptions log_options;
  log_options.file = foreground ? "" : TierfsDir(metadata_dir) + "/tierfs.log";
  log_options.to_stderr = foreground;
  log_options.to_syslog = options.syslog;
  log_options.tag = mountpoint;
  if (Status st = InitDaemonLog(log_options); !st.ok()) {
    Log(LogLevel::kWarning, st.message() + "; logging to standard error");
  }
  for (const std::string& warning : options.startup_warnings) Log(LogLevel::kWarning, warning);
}

// What a refused mount tells the terminal: a damaged database (meta::Metadata::Open
// checks it, changing nothing, EUCLEAN) with what to do about it.
std::string MountRefusal(const Status& st, const std::string& metadata_dir) {
  std::string message = "tierfs: " + st.message();
  if (st.code() == EUCLEAN) {
    message += "\ntierfs: the file system is not mounted; run `tierfs check --repair " +
               metadata_dir + "` or restore a backup (see docs/reliability.md)";
  }
  return message;
}

// The file system a session serves, and what lives as long: declared in the
// order they are made, so they go in the reverse (the metrics exporter stops
// before the file system closes, and that before its fault seam goes).
struct OpenedFileSystem {
  std::unique_ptr<FaultInjectingVolumeIo> faults;
  std::unique_ptr<FileSystem> fs;
  std::unique_ptr<MetricsExporter> metrics;
};

// Mounts the file system of `metadata_dir` (FileSystem::Mount), records the
// daemon's pid, applies retention and starts the metrics exporter, all before
// the FUSE mount so that errors reach the terminal. The error's message is
// the terminal's.
Status OpenFileSystem(const SessionOptions& options, const std::string& metadata_dir,
                      const std::string& mountpoint, DaemonLock& daemon_lock,
                      OpenedFileSystem* out) {
  FileSystemOptions fs_options = FileSystemOptionsFor(options, mountpoint);
  // Test seam: TIERFS_FAULTS fails chosen volume I/O calls (fs/volume/fault_injecting_volume_io.h),
  // the metadata layer's on the database volume too (FileSystem::Mount hands it
  // the same instance), in builds with test hooks only (CMake option
  // TIERFS_TEST_HOOKS; packages have none).
#ifdef TIERFS_TEST_HOOKS
  auto created = FaultInjectingVolumeIo::FromEnvironment(VolumeIo::Posix());
  if (!created.ok()) {
    return Status::Invalid("tierfs: TIERFS_FAULTS: " + created.status().message());
  }
  out->faults = std::move(*created);
  if (out->faults) fs_options.volume_io = out->faults.get();
#endif
  auto fs = FileSystem::Mount(metadata_dir, fs_options);
  if (!fs.ok()) return Status::Invalid(MountRefusal(fs.status(), metadata_dir));
  out->fs = std::move(*fs);
  if (Status st = daemon_lock.RecordPid(); !st.ok()) return Status::Invalid("tierfs: " + st.message());
  if (Status st = out->fs->ApplyRetention(); !st.ok()) {
    return Status::Invalid("tierfs: FCL retention: " + st.message());
  }
  // Before the mount, so a port in use is reported to the terminal.
  if (!options.metrics.listen.empty() || !options.metrics.textfile.empty()) {
    auto started = MetricsExporter::Start(*out->fs, options.metrics);
    if (!started.ok()) return Status::Invalid("tierfs: " + started.status().message());
    out->metrics = std::move(*started);
  }
  return Status::Ok();
}

// The -o options of the FUSE mount.
std::string FuseMountOptions(const SessionOptions& options, const std::string& metadata_dir) {
  std::string mount_opts = "fsname=" + metadata_dir + ",subtype=tierfs,default_permissions";
  // Mounted by root: shared like a local file system (allow_other), with device
  // nodes and setuid honoured as on ext4; -o nodev,nosuid still narrows it.
  if (getuid() == 0) mount_opts += ",allow_other,dev,suid";
  if (!options.fuse_options.empty()) mount_opts += "," + options.fuse_options;
  return mount_opts;
}

// A new FUSE session on `args`, with its signal handlers, mounted on
// `mountpoint`; what failed, for the terminal, otherwise (nothing left over).
Result<fuse_session*> MountFuseSession(fuse_args* args, FuseContext* context,
                                       const std::string& mount_opts,
                                       const std::string& mountpoint) {
  const fuse_lowlevel_ops& ops = TierfsOperations();
  fuse_session* se = fuse_session_new(args, &ops, sizeof ops, context);
  if (se == nullptr) return Status::Invalid("tierfs: bad mount options: " + mount_opts);
  context->session = se;  // for attribute invalidations the kernel did not ask for
  if (fuse_set_signal_handlers(se) != 0) {
    fuse_session_destroy(se);
    return Status::Invalid("tierfs: cannot install signal handlers");
  }
  if (fuse_session_mount(se, mountpoint.c_str()) != 0) {
    fuse_remove_signal_handlers(se);
    fuse_session_destroy(se);
    return Status::Invalid("tierfs: cannot mount on " + mountpoint + " (is /dev/fuse usable, and " +
                           mountpoint + " not already mounted?)");
  }
  return se;
}

// The handlers' context of a session serving `fs`; its session and
// passthrough opens are set once they exist.
FuseContext FuseContextFor(const SessionOptions& options, FileSystem& fs) {
  FuseContext context;
  context.fs = &fs;
  context.entry_timeout = options.entry_timeout;
  context.attr_timeout = options.attr_timeout;
  context.writeback_cache = options.writeback_cache;
  context.no_open = options.no_open;
  return context;
}

// The control socket, served by `handlers`; when it cannot start, the mounted
// session `se` is unmounted and ended, and the error is the terminal's.
Result<std::unique_ptr<ControlServer>> StartControlServer(const std::string& metadata_dir,
                                                          ControlHandlers& handlers,
                                                          fuse_session* se) {
  auto control = ControlServer::Start(
      ControlSocketPath(metadata_dir), getuid(),
      [&handlers](const nlohmann::json& request, const ControlPeer& peer, ControlReply& reply) {
        return handlers.Handle(request, peer, reply);
      });
  if (control.ok()) return control;
  fuse_session_unmount(se);
  fuse_remove_signal_handlers(se);
  fuse_session_destroy(se);
  return Status::Invalid("tierfs: control socket: " + control.status().message());
}

// The session's custom I/O on `se`: the rings (--io_uring) and
// FUSE_HANDLE_KILLPRIV_V2 (fs/fuse/uring_transport.h); null, logged, when it
// cannot be installed (plain /dev/fuse reads then).
std::unique_ptr<UringTransport> InstallUringTransport(fuse_session* se, bool io_uring) {
  auto installed = UringTransport::Install(se, io_uring);
  if (installed.ok()) return std::move(*installed);
  LogWarning("custom /dev/fuse I/O: {}; serving over /dev/fuse without io_uring and "
             "without FUSE_HANDLE_KILLPRIV_V2", installed.status().ToString());
  return nullptr;
}

// The counter's options for `mode`: with auto, not the syscall hook, whose
// cost falls on every system call of the machine. Test seam (builds with test
// hooks): TIERFS_TEST_REFUSE_HOOKS, a comma-separated list of hook names
// ("pagecache,fexit"), makes the counter take those as refused by the kernel.
Result<PassthroughIoCounterOptions> CounterOptionsFor(PassthroughMode mode) {
  PassthroughIoCounterOptions options;
  options.allow_syscall_hook = mode != PassthroughMode::kAuto;
#ifdef TIERFS_TEST_HOOKS
  if (const char* refused = std::getenv("TIERFS_TEST_REFUSE_HOOKS"); refused != nullptr) {
    std::string_view list(refused);
    while (!list.empty()) {
      const size_t comma = list.find(',');
      std::string_view name = list.substr(0, comma);
      list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
      if (name.empty()) continue;
      auto hook = ParsePassthroughIoHook(name);
      if (!hook) {
        return Status::Invalid("TIERFS_TEST_REFUSE_HOOKS: unknown hook \"" + std::string(name) +
                               "\" (pagecache, fexit, kprobe, syscall)");
      }
      options.refused.push_back(*hook);
    }
  }
#endif
  return options;
}

// INIT's handler would ask for passthrough (PassthroughOpens::DecideAtInit):
// starts counting its I/O for heat (fs/daemon/passthrough_heat.h; the counter
// goes to *heat) and records the mount as one the kernel may write
// (FileSystem::EnablePassthrough). An error leaves passthrough off and nothing
// attached (the counter, started first, is detached at once); a mount that
// never passes through has no counter.
Result<PassthroughOpens::Grant> StartPassthrough(FileSystem& fs, PassthroughMode mode,
                                                 const std::string& canonical_mountpoint,
                                                 std::unique_ptr<PassthroughHeat>* heat) {
  auto options = CounterOptionsFor(mode);
  if (!options.ok()) return options.status();
  auto started = PassthroughHeat::Start(fs, canonical_mountpoint, *options);
  if (!started.ok()) {
    return Status::Error(started.status().code(), "its I/O could not be counted for heat (" +
                                                      started.status().message() + ")");
  }
  if (Status st = fs.EnablePassthrough(); !st.ok()) {
    return Status::Error(st.code(), "the database cannot record it (" + st.message() + ")");
  }
  *heat = std::move(*started);
  LogInfo("passthrough={}: its reads and writes are counted for heat by BPF ({} hook)",
          PassthroughModeName(mode), (*heat)->hook());
  return PassthroughOpens::Grant{.watcher = heat->get(), .hook = (*heat)->hook()};
}

// Serves `se` with the FUSE workers until it is unmounted, with the periodic
// flush and the store probe running meanwhile; `passthrough_heat` stops after
// the workers, before the periodic flush does.
FuseServeEnd ServeUntilUnmounted(const SessionOptions& options, FileSystem& fs,
                                 fuse_session* se, bool page_aligned_writes,
                                 std::unique_ptr<PassthroughHeat>& passthrough_heat) {
  FuseServeEnd end;
  {
    // The periodic flush, with the volume check and retention (FileSystem::StartPeriodicFlush).
    fs.StartPeriodicFlush(std::chrono::seconds(options.flush_seconds));
    // The health probe of object volumes (VolumeSet::ProbeStores): every
    // second, so that a store that went away shows offline, and one that came
    // back online, within seconds. A thread of its own: a probe of a dead store
    // waits a few seconds (ObjectVolume's quick bounds), which must not delay
    // the periodic flush.
    PeriodicThread store_probe(std::chrono::seconds(1),
                               [&volumes = fs.volumes()] { volumes.ProbeStores(); });
    FuseWorkerPoolOptions pool;
    pool.max_threads = options.max_threads;
    pool.runners = options.running_threads > 0 ? options.running_threads
                                               : DefaultFuseRunners(options.max_threads);
    pool.page_aligned_writes = page_aligned_writes;  // the uring's read hook keeps to their size
    end = ServeFuseSession(se, pool);
    // Its last counts, before the writeback thread's last flush.
    passthrough_heat.reset();
  }
  fs.StopPeriodicFlush();  // after the store probe, as before
  return end;
}

// Unmounts and ends the session `se` once the workers are done: the control
// socket first, the rings' threads before the session that holds their I/O.
// Returns the exit status.
int EndSession(fuse_session* se, fuse_args* args, ControlServer& control,
               std::unique_ptr<UringTransport> uring, const FuseServeEnd& end,
               const std::string& mountpoint) {
  control.Stop();
  if (uring) uring->CloseDevice();
  fuse_session_unmount(se);
  // The unmount ends the connection, which cancels the rings' commands: their
  // threads end, before the session (which holds the transport's I/O) goes.
  uring.reset();
  fuse_remove_signal_handlers(se);
  fuse_session_destroy(se);
  fuse_opt_free_args(args);
  // SIGTERM, SIGINT and SIGHUP are how systemd and a terminal stop a foreground
  // daemon, and the unmount above was clean, so they are a success (exit 0).
  const int status = end.error == 0 ? 0 : 1;
  if (status == 0) {
    LogInfo("unmounted {}{}", mountpoint, end.by_signal ? " (stopped by a signal)" : "");
  } else {
    LogError("reading /dev/fuse for {} failed: {}", mountpoint, std::strerror(end.error));
  }
  return status;
}

// Mounts and serves; reports the mount result through `startup`.
int Serve(const SessionOptions& options, StartupPipe* startup) {
  // The lease the daemon takes to learn whether a mapping still writes an
  // object (VolumeIo::HasWriters) is broken by any open of that object for
  // writing meanwhile, one of the daemon's own threads included, and the
  // kernel then sends the lease holder SIGIO, whose default action ends the
  // process. The probe gives the lease back at once, so the opener waits
  // microseconds either way: the signal has nothing to tell.
  signal(SIGIO, SIG_IGN);
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
  // As the mount table will name it (without symbolic links), resolved before
  // the mount: afterwards a lookup under it waits for this daemon.
  char resolved[PATH_MAX];
  const std::string canonical_mountpoint =
      realpath(mountpoint.c_str(), resolved) != nullptr ? resolved : mountpoint;
  // Held for the daemon's life, so one file system is never served by two
  // daemons; tests and tools wait on it to know an unmounted daemon has finished.
  Result<DaemonLock> daemon_lock =
      DaemonLock::Acquire(metadata_dir, DaemonLock::Mode::kDaemon, kExitingDaemonWaitSeconds);
  if (!daemon_lock.ok()) return fail("tierfs: " + daemon_lock.status().message());
  const bool foreground = startup == nullptr;
  OpenDaemonLog(options, metadata_dir, mountpoint, foreground);
  struct LogCloser {
    ~LogCloser() { ShutdownDaemonLog(); }
  } log_closer;
  OpenedFileSystem opened;
  if (Status st = OpenFileSystem(options, metadata_dir, mountpoint, *daemon_lock, &opened);
      !st.ok()) {
    return fail(st.message());
  }
  FileSystem& fs = *opened.fs;

  const std::string mount_opts = FuseMountOptions(options, metadata_dir);
  std::vector<std::string> argv_strings = {"tierfs", "-o", mount_opts};
  if (options.debug) argv_strings.push_back("-d");
  std::vector<char*> argv;
  for (std::string& s : argv_strings) argv.push_back(s.data());
  fuse_args args = FUSE_ARGS_INIT(static_cast<int>(argv.size()), argv.data());

  FuseContext context = FuseContextFor(options, fs);
  Result<fuse_session*> mounted = MountFuseSession(&args, &context, mount_opts, mountpoint);
  if (!mounted.ok()) return fail(mounted.status().message());
  fuse_session* se = *mounted;

  // Names the daemon removes itself (policy DELETEs) must leave the kernel's cache,
  // and so must the parent's cached listing (no-opendir mode caches listings): the
  // kernel drops it at a notify_delete only while it still caches the name.
  fs.SetEntryRemovedHook([se](uint64_t parent, uint64_t ino, std::string_view name) {
    fuse_lowlevel_notify_delete(se, parent, ino, name.data(), name.size());
    fuse_lowlevel_notify_inval_inode(se, parent, 0, 0);
  });
  ControlHandlers handlers(fs);
  auto control = StartControlServer(metadata_dir, handlers, se);
  if (!control.ok()) return fail(control.status().message());
  if (startup != nullptr) {
    startup->Report(true, "");
    Detach(TierfsDir(metadata_dir) + "/tierfs.log");
  }
  LogInfo("mounted {} on {} (pid {}, {} volumes, options {})", metadata_dir, mountpoint, getpid(),
          fs.volumes().volumes().size(), mount_opts);

  // Passthrough opens: the mode, and the backing ids registered on this
  // connection's /dev/fuse (OpInit decides whether they are used). Only where
  // their I/O can be counted for heat (fs/daemon/passthrough_heat.h), whose
  // counter INIT's handler starts once it would ask for passthrough (written by
  // that worker, reset after the workers are done).
  std::unique_ptr<PassthroughHeat> passthrough_heat;
  PassthroughOpens passthrough(options.passthrough, fuse_session_fd(se),
                               [&fs, mode = options.passthrough, &canonical_mountpoint,
                                &passthrough_heat] {
                                 return StartPassthrough(fs, mode, canonical_mountpoint,
                                                         &passthrough_heat);
                               });
#ifdef TIERFS_TEST_HOOKS
  // Test seam: a kernel that does not offer passthrough at INIT (before 6.9).
  if (const char* no_offer = std::getenv("TIERFS_TEST_NO_PASSTHROUGH_OFFER");
      no_offer != nullptr && *no_offer != '\0') {
    passthrough.IgnoreKernelOffer();
  }
#endif
  context.passthrough = &passthrough;
  std::unique_ptr<UringTransport> uring = InstallUringTransport(se, options.io_uring);
  // Online promotion (fs/tiering/online_promoter.h) while the mount serves.
  handlers.StartOnlinePromotion();
  const FuseServeEnd end =
      ServeUntilUnmounted(options, fs, se, uring != nullptr, passthrough_heat);
  handlers.StopOnlinePromotion();
  return EndSession(se, &args, **control, std::move(uring), end, mountpoint);
}

// LeakSanitizer's check of the whole process, in builds with AddressSanitizer
// (which reports through ASAN_OPTIONS' log_path and ends the process with an
// error on a leak); nothing otherwise.
void RunLeakCheck() {
#ifdef TIERFS_ASAN_BUILD
  __lsan_do_leak_check();
#endif
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
  const int rc = Serve(options, &startup);
  // _exit: the forked child must not run the parent's atexit handlers or flush
  // its copy of the parent's stdio buffers. That also skips LeakSanitizer's
  // check at exit, so a sanitized build (scripts/sanitize.sh) runs it here.
  RunLeakCheck();
  _exit(rc);
}

}  // namespace tierfs
