// tierfs: mounts a tierfs file system (the FUSE daemon).
//
//   tierfs [options] METADATA_VOLUME_DIR MOUNTPOINT
//
//   tierfs check ... | tierfs backup ...   (cli/check_command.h)
//
// Also usable as a mount helper: `mount -t fuse.tierfs DIR MOUNTPOINT -o opts`
// and /etc/fstab lines of type fuse.tierfs call it with `-o opts`.
#include <gflags/gflags.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/check_command.h"
#include "fs/session.h"

DEFINE_bool(f, false, "stay in the foreground (do not detach)");
DEFINE_bool(d, false, "trace every FUSE request (implies -f)");
DEFINE_string(o, "", "mount options, comma separated (passed to FUSE; e.g. allow_other,ro)");
DEFINE_bool(sync_full, false, "SQLite synchronous=FULL: every metadata commit reaches the disk");
DEFINE_double(entry_timeout, 60, "seconds the kernel may cache directory entries (0..31536000)");
DEFINE_double(attr_timeout, 60, "seconds the kernel may cache attributes (0..31536000)");
DEFINE_int32(writeback_seconds, 5,
             "period of the I/O counter and inode writeback, seconds (1..3600)");
DEFINE_int32(threads, 16, "maximum FUSE worker threads (1..1024)");
DEFINE_double(fcl_keep_hours, 14 * 24,
              "File Change Log retention: drop records older than this many hours "
              "(0 = keep; at most 876000)");
DEFINE_uint64(fcl_max_records, 1000000,
              "File Change Log retention: keep at most this many records (0 = no limit)");
DEFINE_double(iostat_keep_days, 31,
              "keep I/O statistics buckets this many days (0 = keep all; at most 36500)");

// Range checks: gflags refuses what does not parse (and a negative uint64), but
// takes any int32 and any double, "inf" and "nan" included; a value out of range
// would overflow a conversion later (hours to int64 seconds, seconds to the
// kernel's timeouts). Each says which flag and which range.
static bool InRange(const char* flag, double value, double min, double max) {
  if (value >= min && value <= max) return true;  // false for NaN
  std::fprintf(stderr, "tierfs: --%s must be from %.15g to %.15g, got %.15g\n", flag, min, max,
               value);
  return false;
}
static bool ValidateTimeout(const char* flag, double value) {
  return InRange(flag, value, 0, 31'536'000);  // a year
}
static bool ValidateWriteback(const char* flag, int32_t value) {
  return InRange(flag, value, 1, 3600);
}
static bool ValidateThreads(const char* flag, int32_t value) {
  return InRange(flag, value, 1, 1024);
}
static bool ValidateFclHours(const char* flag, double value) {
  return InRange(flag, value, 0, 876'000);  // 100 years
}
static bool ValidateIostatDays(const char* flag, double value) {
  return InRange(flag, value, 0, 36'500);  // 100 years
}
static bool ValidateRecords(const char* flag, uint64_t value) {
  if (value <= static_cast<uint64_t>(INT64_MAX)) return true;  // stored as an SQLite integer
  std::fprintf(stderr, "tierfs: --%s must be at most %lld, got %llu\n", flag,
               static_cast<long long>(INT64_MAX), static_cast<unsigned long long>(value));
  return false;
}
DEFINE_validator(entry_timeout, &ValidateTimeout);
DEFINE_validator(attr_timeout, &ValidateTimeout);
DEFINE_validator(writeback_seconds, &ValidateWriteback);
DEFINE_validator(threads, &ValidateThreads);
DEFINE_validator(fcl_keep_hours, &ValidateFclHours);
DEFINE_validator(fcl_max_records, &ValidateRecords);
DEFINE_validator(iostat_keep_days, &ValidateIostatDays);

int main(int argc, char** argv) {
  // Subcommands (cli/check_command.h); anything else mounts. A metadata volume
  // directory literally named "check" or "backup" is mounted as ./check.
  if (argc >= 2 && (std::string(argv[1]) == "check" || std::string(argv[1]) == "backup")) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    const tierfs::cli::CliEnv env = tierfs::cli::DefaultCliEnv();
    return args[0] == "check" ? tierfs::cli::CheckMain(args, env)
                              : tierfs::cli::BackupMain(args, env);
  }
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
