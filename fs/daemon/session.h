// Session: mounts a tierfs file system and serves it until it is unmounted.
//
// Order of work: open and check everything (database, volume labels, orphans)
// while errors can still reach the terminal; mount; detach from the terminal
// unless foreground (the parent exits 0 only once the mount is up, or prints the
// child's error and exits 1); start the control socket and the periodic flush;
// run the multi-threaded FUSE loop; on unmount (fusermount3 -u, umount, SIGTERM)
// stop the threads, flush counters and dirty inodes, and close the database.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fs/core/file_system.h"
#include "fs/fuse/passthrough_mode.h"
#include "fs/metrics/metrics_options.h"

namespace tierfs {

// The defaults of what the session hands the file system are FileSystemOptions'
// own (one source; `tierfs --help` shows them, cli/tierfs/main.cc).
struct SessionOptions {
  std::string metadata_dir;          // the metadata volume's directory
  std::string mountpoint;
  bool foreground = false;
  bool debug = false;                // libfuse request tracing (implies foreground)
  std::string fuse_options;          // extra -o options, comma separated
  bool sync_full = FileSystemOptions{}.sync_full;  // SQLite synchronous=FULL
  double entry_timeout = 60;         // seconds
  double attr_timeout = 60;          // seconds
  // Period of the periodic flush of I/O counters and dirty inode attributes
  // to the database (FileSystem::FlushAll), seconds: --flush_seconds.
  int flush_seconds = 5;
  int max_threads = 16;              // FUSE worker threads
  int running_threads = 0;           // FuseWorkerPoolOptions::runners (0 = DefaultFuseRunners)
  // Group commit window (0 = commit every change).
  int64_t commit_window_us = FileSystemOptions{}.commit_window_us;
  bool exact_atime = FileSystemOptions{}.exact_atime;
  bool direct_writes = FileSystemOptions{}.direct_writes;
  bool writeback_cache = true;       // FUSE_CAP_WRITEBACK_CACHE (fs/fuse/fuse_ops.cc OpInit)
  // Passthrough opens (fs/fuse/passthrough.h); when on, the writeback cache and
  // no-open are off whatever the two flags below say. auto: rw where the
  // kernel grants it and a cheap counter counts its heat, off elsewhere.
  PassthroughMode passthrough = PassthroughMode::kAuto;
  bool io_uring = true;              // requests over io_uring when offered (fs/fuse/uring_transport.h)
  int cached_inodes = static_cast<int>(FileSystemOptions{}.cached_inodes);
  int cached_dentries = static_cast<int>(FileSystemOptions{}.cached_dentries);
  bool no_open = true;               // FuseContext::no_open (fs/fuse/fuse_ops.h)
  int cached_opens = static_cast<int>(FileSystemOptions{}.cached_opens);
  // Retention: FCL by age and size, iostat by age (0 = keep all).
  int64_t fcl_keep_seconds = FileSystemOptions{}.fcl_keep_seconds;
  uint64_t fcl_max_records = FileSystemOptions{}.fcl_max_records;
  int64_t iostat_keep_seconds = FileSystemOptions{}.iostat_keep_seconds;
  MetricsOptions metrics;            // Prometheus endpoint / textfile (off when empty)
  bool syslog = true;                // also log to syslog (common/log.h)
  // Logged as warnings once the daemon's log is open (retired options:
  // cli/tierfs/retired_options.h).
  std::vector<std::string> startup_warnings;
};

// Runs the file system; returns the process exit status (0 after a clean unmount,
// 1 when it could not be mounted, with the reason printed on stderr).
int RunSession(const SessionOptions& options);

}  // namespace tierfs
