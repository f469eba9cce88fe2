// tierfs: mounts a tierfs file system (the FUSE daemon).
//
//   tierfs [options] METADATA_VOLUME_DIR MOUNTPOINT
//
// Also usable as a mount helper: `mount -t fuse.tierfs DIR MOUNTPOINT -o opts`
// and /etc/fstab lines of type fuse.tierfs call it with `-o opts`.
#include <gflags/gflags.h>

#include <cstdio>
#include <string>

#include "fs/session.h"

DEFINE_bool(f, false, "stay in the foreground (do not detach)");
DEFINE_bool(d, false, "trace every FUSE request (implies -f)");
DEFINE_string(o, "", "mount options, comma separated (passed to FUSE; e.g. allow_other,ro)");
DEFINE_bool(sync_full, false, "SQLite synchronous=FULL: every metadata commit reaches the disk");
DEFINE_double(entry_timeout, 60, "seconds the kernel may cache directory entries");
DEFINE_double(attr_timeout, 60, "seconds the kernel may cache attributes");
DEFINE_int32(writeback_seconds, 5, "period of the I/O counter and inode writeback, seconds");
DEFINE_int32(threads, 16, "maximum FUSE worker threads");
DEFINE_double(fcl_keep_hours, 14 * 24,
              "File Change Log retention: drop records older than this many hours (0 = keep)");
DEFINE_uint64(fcl_max_records, 1000000,
              "File Change Log retention: keep at most this many records (0 = no limit)");
DEFINE_double(iostat_keep_days, 31, "keep I/O statistics buckets this many days");

static bool ValidatePositive(const char* flag, int32_t value) {
  if (value > 0) return true;
  std::fprintf(stderr, "tierfs: --%s must be positive, got %d\n", flag, value);
  return false;
}
DEFINE_validator(writeback_seconds, &ValidatePositive);
DEFINE_validator(threads, &ValidatePositive);

int main(int argc, char** argv) {
  gflags::SetUsageMessage("mounts a tierfs file system\n  tierfs [options] METADATA_VOLUME_DIR MOUNTPOINT");
  gflags::SetVersionString("0.1.0");
  gflags::ParseCommandLineFlags(&argc, &argv, /*remove_flags=*/true);
  if (argc != 3) {
    std::fprintf(stderr, "usage: tierfs [options] METADATA_VOLUME_DIR MOUNTPOINT (see --help)\n");
    return 2;
  }
  tierfs::SessionOptions options;
  options.metadata_dir = argv[1];
  options.mountpoint = argv[2];
  options.foreground = FLAGS_f;
  options.debug = FLAGS_d;
  options.fuse_options = FLAGS_o;
  options.sync_full = FLAGS_sync_full;
  options.entry_timeout = FLAGS_entry_timeout;
  options.attr_timeout = FLAGS_attr_timeout;
  options.writeback_seconds = FLAGS_writeback_seconds;
  options.max_threads = FLAGS_threads;
  options.fcl_keep_seconds = static_cast<int64_t>(FLAGS_fcl_keep_hours * 3600);
  options.fcl_max_records = FLAGS_fcl_max_records;
  options.iostat_keep_seconds = static_cast<int64_t>(FLAGS_iostat_keep_days * 86400);
  return tierfs::RunSession(options);
}
