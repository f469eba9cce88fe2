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

#include "fs/fuse/passthrough_mode.h"
#include "fs/metrics/metrics_options.h"

namespace tierfs {

struct SessionOptions {
  std::string metadata_dir;          // the metadata volume's directory
  std::string mountpoint;
  bool foreground = false;
  bool debug = false;                // libfuse request tracing (implies foreground)
  std::string fuse_options;          // extra -o options, comma separated
  bool sync_full = false;            // SQLite synchronous=FULL
  double entry_timeout = 60;         // seconds
  double attr_timeout = 60;          // seconds
  // Period of the flush of I/O counters and dirty inode attributes to the
  // database (FileSystem::FlushAll); --writeback_seconds on the command line,
  // a name kept for existing mount lines.
  int flush_seconds = 5;
  int max_threads = 16;              // FUSE worker threads
  int running_threads = 0;           // FuseWorkerPoolOptions::runners (0 = DefaultFuseRunners)
  int64_t commit_window_us = 5000;   // group commit window (0 = commit every change)
  bool exact_atime = false;          // FileSystemOptions::exact_atime
  bool direct_writes = true;         // FileSystemOptions::direct_writes
  bool writeback_cache = true;       // FUSE_CAP_WRITEBACK_CACHE (fs/fuse/fuse_ops.cc OpInit)
  // Passthrough opens (fs/fuse/passthrough.h); when on, the writeback cache and
  // no-open are off whatever the two flags below say.
  PassthroughMode passthrough = PassthroughMode::kOff;
  bool io_uring = true;              // requests over io_uring when offered (fs/fuse/uring_transport.h)
  int cached_inodes = 16384;         // FileSystemOptions::cached_inodes
  bool no_open = true;               // FuseContext::no_open (fs/fuse/fuse_ops.h)
  int cached_opens = 4096;           // FileSystemOptions::cached_opens
  int64_t fcl_keep_seconds = 14 * 24 * 3600;  // FCL retention by age (0 = keep all)
  uint64_t fcl_max_records = 1'000'000;       // FCL retention by size (0 = no limit)
  int64_t iostat_keep_seconds = 31 * 24 * 3600;
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
