// tierfs: mounts a tierfs file system (the FUSE daemon).
//
//   tierfs [options] METADATA_VOLUME_DIR MOUNTPOINT
//
//   tierfs check ... | tierfs backup ...   (cli/tierfs/check_command.h, backup_command.h)
//
// Also usable as a mount helper: `mount -t fuse.tierfs DIR MOUNTPOINT -o opts`
// and /etc/fstab lines of type fuse.tierfs call it with `-o opts`.
#include <gflags/gflags.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/tierfs/backup_command.h"
#include "cli/tierfs/check_command.h"
#include "cli/tierfs/retired_options.h"
#include "cli/version.h"
#include "fs/daemon/session.h"

// One set of defaults: every flag that is a SessionOptions member starts from
// SessionOptions{}'s value, so an embedder or a test gets the daemon a user gets.
static const tierfs::SessionOptions kDefaults;

DEFINE_bool(f, false, "stay in the foreground (do not detach)");
DEFINE_bool(d, false, "trace every FUSE request (implies -f)");
DEFINE_string(o, "",
              "mount options, comma separated: tierfs's own options as name=value or "
              "name/noname (commit_ms=10, writeback_cache, nosync_full...: what fstab "
              "can give), the rest passed to FUSE (allow_other, default_permissions, ro...)");
DEFINE_bool(sync_full, kDefaults.sync_full, "SQLite synchronous=FULL: every metadata commit reaches the disk");
DEFINE_double(entry_timeout, kDefaults.entry_timeout, "seconds the kernel may cache directory entries (0..31536000)");
DEFINE_double(attr_timeout, kDefaults.attr_timeout, "seconds the kernel may cache attributes (0..31536000)");
DEFINE_int32(flush_seconds, kDefaults.flush_seconds,
             "period of the periodic flush of I/O counters and dirty inode attributes to the "
             "database, seconds (1..3600)");
// "Writeback" is the kernel's word (--writeback_cache); the flush's old name
// stays for the mount lines that carry it.
DEFINE_int32(writeback_seconds, kDefaults.flush_seconds,
             "the former name of --flush_seconds, still accepted");
DEFINE_int32(threads, kDefaults.max_threads, "maximum FUSE worker threads (1..1024)");
DEFINE_int32(running_threads, kDefaults.running_threads,
             "FUSE worker threads that read and serve requests at once over /dev/fuse "
             "(0..1024; 0, the default: the number of CPUs, at least 2); the others wait "
             "and serve only while a running one waits for a disk");
DEFINE_double(commit_ms, kDefaults.commit_window_us / 1000.0,
              "group commit window, milliseconds (0..1000): namespace changes gather this "
              "long in one database commit; fsync and fsyncdir commit at once; 0 = every "
              "change commits on its own");
DEFINE_bool(writeback_cache, kDefaults.writeback_cache,
            "let the kernel cache writes and send them to the daemon in large batches "
            "(FUSE writeback cache; on by default, --writeback_cache=false turns it off); "
            "write errors such as ENOSPC then show at fsync or close");
DEFINE_int32(cached_inodes, kDefaults.cached_inodes,
             "idle inodes whose attributes the daemon keeps in memory (about 500 bytes "
             "each; 0..10000000), so a file opened or stat'ed again needs no database "
             "read; every other inode the kernel knows costs about 60 bytes");
DEFINE_int32(cached_dentries, kDefaults.cached_dentries,
             "directory entries (names, and names known absent) the daemon keeps in "
             "memory (about 100 bytes each; 0..100000000), so a lookup needs no database "
             "read");
DEFINE_bool(direct_writes, kDefaults.direct_writes,
            "write whole pages of large writes (128 KiB or more) to the volume with "
            "O_DIRECT, past its page cache: the kernel's page cache of the tierfs file "
            "already holds them (on by default; a volume's file system without O_DIRECT "
            "gets buffered writes either way)");
DEFINE_bool(io_uring, kDefaults.io_uring,
            "serve FUSE requests over io_uring, on a ring of the CPU that made each one, "
            "when the kernel offers it (Linux 6.14+, with /sys/module/fuse/parameters/"
            "enable_uring set to 1 before the mount); else over /dev/fuse (on by default; "
            "--io_uring=false always serves over /dev/fuse)");
DEFINE_string(passthrough, tierfs::PassthroughModeName(kDefaults.passthrough),
              "which opens of regular files the kernel serves straight from the file's "
              "object on its volume, without the daemon (FUSE passthrough, Linux 6.9+, "
              "mounted as root): off, ro (read-only opens), rw (every open) or auto (the "
              "default: rw where the kernel grants passthrough at INIT and a BPF counter "
              "whose cost falls only on the mount's I/O counts its heat, the page-cache "
              "hook first; off elsewhere, and where only the counter on every system call "
              "of the machine loads). With ro or rw the writeback cache and no-open are "
              "off; a file open by passthrough is not relocated until it is closed; with "
              "rw a write that meets a full volume gets ENOSPC instead of moving the file. "
              "Falls back to off, logged, where the kernel or the privileges do not allow "
              "it; `fsppadm status` says which mode and hook were chosen and why");
DEFINE_bool(exact_atime, kDefaults.exact_atime,
            "move atime (relatime rules) only when a read reaches the daemon, which makes "
            "the kernel drop a file's cached pages at an open that would move it; off: an "
            "O_RDONLY open moves it and cached reads stay in the kernel");
DEFINE_bool(no_open, kDefaults.no_open,
            "FUSE no-open: the kernel sends no OPEN or RELEASE for regular files (nor OPENDIR, "
            "nor CREATE: new files come by MKNOD) and keeps their cached pages across "
            "opens, so a read of a cached file costs no request; "
            "atime then moves (relatime rules) at reads that reach the daemon, not at an "
            "open (on by default; off with --exact_atime, which needs the opens)");
DEFINE_int32(cached_opens, kDefaults.cached_opens,
             "with --no_open, files whose object stays open between requests (1..1000000; "
             "up to two fds each, within the daemon's open-file limit)");
DEFINE_double(fcl_keep_hours, kDefaults.fcl_keep_seconds / 3600.0,
              "File Change Log retention: drop records older than this many hours "
              "(0 = keep; at most 876000)");
DEFINE_uint64(fcl_max_records, kDefaults.fcl_max_records,
              "File Change Log retention: keep at most this many records (0 = no limit)");
DEFINE_double(iostat_keep_days, kDefaults.iostat_keep_seconds / 86400.0,
              "keep I/O statistics buckets this many days (0 = keep all; at most 36500)");
DEFINE_bool(syslog, kDefaults.syslog,
            "also send the daemon's log to syslog (the journal), ident tierfs, facility "
            "daemon; --syslog=false (or -o nosyslog) keeps it to the log file");
DEFINE_string(metrics_listen, "",
              "serve Prometheus metrics over HTTP at this HOST:PORT, path /metrics "
              "(e.g. 127.0.0.1:9105; no authentication: keep it on localhost); empty = off");
DEFINE_string(metrics_textfile, "",
              "write the same metrics to this absolute path every 15 seconds and at unmount, "
              "for node_exporter's textfile collector (a .prom file); empty = off");

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
static bool ValidateFlushPeriod(const char* flag, int32_t value) {
  return InRange(flag, value, 1, 3600);
}
static bool ValidateCommitMs(const char* flag, double value) {
  return InRange(flag, value, 0, 1000);
}
static bool ValidateThreads(const char* flag, int32_t value) {
  return InRange(flag, value, 1, 1024);
}
static bool ValidateRunningThreads(const char* flag, int32_t value) {
  return InRange(flag, value, 0, 1024);
}
static bool ValidateCachedInodes(const char* flag, int32_t value) {
  return InRange(flag, value, 0, 10'000'000);
}
static bool ValidateCachedDentries(const char* flag, int32_t value) {
  return InRange(flag, value, 0, 100'000'000);
}
static bool ValidateCachedOpens(const char* flag, int32_t value) {
  return InRange(flag, value, 1, 1'000'000);
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
static bool ValidateListen(const char* flag, const std::string& value) {
  if (value.empty()) return true;
  tierfs::Status st = tierfs::ValidateMetricsListen(value);
  if (!st.ok()) std::fprintf(stderr, "tierfs: %s\n", st.message().c_str());
  return st.ok();
}
static bool ValidatePassthrough(const char* flag, const std::string& value) {
  if (tierfs::ParsePassthroughMode(value)) return true;
  std::fprintf(stderr, "tierfs: --%s must be off, ro, rw or auto, got \"%s\"\n", flag,
               value.c_str());
  return false;
}
static bool ValidateTextfile(const char* flag, const std::string& value) {
  if (value.empty() || value.front() == '/') return true;
  std::fprintf(stderr, "tierfs: --%s must be an absolute path, got \"%s\"\n", flag,
               value.c_str());
  return false;
}
DEFINE_validator(entry_timeout, &ValidateTimeout);
DEFINE_validator(metrics_listen, &ValidateListen);
DEFINE_validator(metrics_textfile, &ValidateTextfile);
DEFINE_validator(passthrough, &ValidatePassthrough);
DEFINE_validator(attr_timeout, &ValidateTimeout);
DEFINE_validator(flush_seconds, &ValidateFlushPeriod);
DEFINE_validator(writeback_seconds, &ValidateFlushPeriod);
DEFINE_validator(threads, &ValidateThreads);
DEFINE_validator(running_threads, &ValidateRunningThreads);
DEFINE_validator(cached_inodes, &ValidateCachedInodes);
DEFINE_validator(cached_dentries, &ValidateCachedDentries);
DEFINE_validator(cached_opens, &ValidateCachedOpens);
DEFINE_validator(commit_ms, &ValidateCommitMs);
DEFINE_validator(fcl_keep_hours, &ValidateFclHours);
DEFINE_validator(fcl_max_records, &ValidateRecords);
DEFINE_validator(iostat_keep_days, &ValidateIostatDays);

namespace {

// tierfs's own --help and --version. gflags' built-in --help lists every flag
// linked into the program, its own internals (-tab_completion_word, -undefok,
// -flagfile...) among them, and exits 1; its --version prints "tierfs version
// X". Both are answered here instead, before gflags parses anything. The list
// is built from gflags' registry, keeping the flags defined in cli/, so a new
// DEFINE_ there shows up without touching this text; retired options
// (cli/tierfs/retired_options.h) are left out.

constexpr char kUsageHead[] =
    "usage: tierfs [OPTIONS] METADATA_VOLUME_DIR MOUNTPOINT\n"
    "       tierfs check ...    check the database against the volumes (check --help)\n"
    "       tierfs backup ...   copy the metadata database (backup --help)\n"
    "Mounts the tierfs file system whose metadata volume is METADATA_VOLUME_DIR (the\n"
    "directory holding .tierfs/meta.db, made by mkdstfs) on MOUNTPOINT and serves it\n"
    "until `fusermount3 -u MOUNTPOINT`. mount(8) runs it for type fuse.tierfs:\n"
    "`mount -t fuse.tierfs METADATA_VOLUME_DIR MOUNTPOINT -o OPTS` and /etc/fstab.\n"
    "\n"
    "Options (-name VALUE, -name=VALUE or --name=VALUE; switches -name or -noname):\n";

constexpr char kUsageTail[] =
    "  -h, --help                this text\n"
    "  --version                 print the version and exit\n"
    "Exit status: 0 after a clean unmount, 1 could not mount (or a bad option),\n"
    "2 wrong operands.\n";

// The placeholder after an option that takes a value: its unit where it has one.
std::string ValueName(const gflags::CommandLineFlagInfo& flag) {
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"o", "OPTS"},
      {"entry_timeout", "SECONDS"},
      {"attr_timeout", "SECONDS"},
      {"flush_seconds", "SECONDS"},
      {"writeback_seconds", "SECONDS"},
      {"threads", "N"},
      {"running_threads", "N"},
      {"cached_inodes", "N"},
      {"cached_dentries", "N"},
      {"cached_opens", "N"},
      {"commit_ms", "MILLISECONDS"},
      {"fcl_keep_hours", "HOURS"},
      {"fcl_max_records", "N"},
      {"iostat_keep_days", "DAYS"},
      {"metrics_listen", "HOST:PORT"},
      {"metrics_textfile", "PATH"},
      {"passthrough", "off|ro|rw|auto"},
  };
  for (const auto& [name, value] : kNames) {
    if (flag.name == name) return std::string(value);
  }
  if (flag.type == "bool") return "";
  return flag.type == "string" ? "STRING" : "N";
}

// True for a flag defined in a file under cli/ (DEFINE_ records __FILE__).
bool DefinedInCli(const gflags::CommandLineFlagInfo& flag) {
  const std::string& file = flag.filename;
  return file.rfind("cli/", 0) == 0 || file.find("/cli/") != std::string::npos;
}

// The words of `text`, split at spaces.
std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> words;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start) words.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return words;
}

// Appends `words` to *out as lines of at most 80 columns (a longer word gets a
// line of its own), the first continuing at column `column` (where *out's last
// line ends), the rest indented by `indent`.
void AppendWrapped(std::string* out, size_t column, size_t indent,
                   const std::vector<std::string>& words) {
  bool line_empty = true;
  for (const std::string& word : words) {
    if (!line_empty && column + 1 + word.size() > 80) {
      *out += "\n" + std::string(indent, ' ');
      column = indent;
      line_empty = true;
    }
    if (!line_empty) {
      *out += ' ';
      ++column;
    }
    *out += word;
    column += word.size();
    line_empty = false;
  }
  *out += '\n';
}

std::string TierfsUsage() {
  constexpr size_t kDescriptionColumn = 28;
  std::string usage = kUsageHead;
  std::vector<gflags::CommandLineFlagInfo> flags;
  gflags::GetAllFlags(&flags);  // sorted by file, then name
  for (const gflags::CommandLineFlagInfo& flag : flags) {
    if (!DefinedInCli(flag) || tierfs::cli::IsRetiredOption(flag.name)) continue;
    std::string value = ValueName(flag);
    std::string left = "  -" + flag.name + (value.empty() ? "" : " " + value);
    usage += left;
    if (left.size() + 1 > kDescriptionColumn) {
      usage += "\n" + std::string(kDescriptionColumn, ' ');
    } else {
      usage += std::string(kDescriptionColumn - left.size(), ' ');
    }
    std::string shown = flag.default_value == "true"    ? "on"
                        : flag.default_value == "false" ? "off"
                        : flag.default_value.empty()    ? "none"
                                                        : flag.default_value;
    // "(default: 336)" stays on one line.
    std::vector<std::string> words = Words(flag.description);
    words.push_back("(default: " + shown + ")");
    AppendWrapped(&usage, kDescriptionColumn, kDescriptionColumn, words);
  }
  return usage + kUsageTail;
}

// Takes tierfs's own options out of the -o list (fstab and mount(8) can pass
// nothing else): "name=value", "name" (a switch on) or "noname" (off) for a flag
// defined in cli/ other than -o, -f and -d; sets each through gflags, so its
// range check applies. Returns the rest, for FUSE. False, with a message naming
// the option, when one does not take its value.
bool TakeOwnMountOptions(const std::string& list, std::string* rest) {
  rest->clear();
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    const std::string item = list.substr(start, end - start);
    start = end + 1;
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    std::string name = item.substr(0, eq);
    std::string value = eq == std::string::npos ? "true" : item.substr(eq + 1);
    gflags::CommandLineFlagInfo info;
    bool own = gflags::GetCommandLineFlagInfo(name.c_str(), &info) && DefinedInCli(info);
    if (!own && eq == std::string::npos && name.rfind("no", 0) == 0 &&
        gflags::GetCommandLineFlagInfo(name.substr(2).c_str(), &info) && DefinedInCli(info) &&
        info.type == "bool") {
      name = name.substr(2);
      value = "false";
      own = true;
    }
    if (own && name != "o" && name != "f" && name != "d") {
      if (gflags::SetCommandLineOption(name.c_str(), value.c_str()).empty()) {
        std::fprintf(stderr, "tierfs: -o %s: not a valid value for %s\n", item.c_str(),
                     name.c_str());
        return false;
      }
      continue;
    }
    if (!rest->empty()) *rest += ",";
    *rest += item;
  }
  return true;
}

// What argv asks for before gflags sees it: help in any spelling gflags knows
// (-h, -help, --helpfull, --helpshort, --helpon=...), or the version.
enum class EarlyRequest { kNone, kHelp, kVersion };
EarlyRequest FindEarlyRequest(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg == "-h") return EarlyRequest::kHelp;
    if (arg.substr(0, 2) == "--") arg.remove_prefix(2);
    else if (arg.substr(0, 1) == "-") arg.remove_prefix(1);
    else continue;
    if (arg.substr(0, 4) == "help") return EarlyRequest::kHelp;
    if (arg == "version") return EarlyRequest::kVersion;
  }
  return EarlyRequest::kNone;
}

}  // namespace

int main(int argc, char** argv) {
  // Subcommands (check_command.h, backup_command.h); anything else mounts. A metadata volume
  // directory literally named "check" or "backup" is mounted as ./check.
  if (argc >= 2 && (std::string(argv[1]) == "check" || std::string(argv[1]) == "backup")) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    const tierfs::cli::CliEnv env = tierfs::cli::DefaultCliEnv();
    return args[0] == "check" ? tierfs::cli::CheckMain(args, env)
                              : tierfs::cli::BackupMain(args, env);
  }
  switch (FindEarlyRequest(argc, argv)) {
    case EarlyRequest::kHelp:
      std::fputs(TierfsUsage().c_str(), stdout);
      return 0;
    case EarlyRequest::kVersion:
      std::fputs(tierfs::cli::VersionText("tierfs").c_str(), stdout);
      return 0;
    case EarlyRequest::kNone:
      break;
  }
  gflags::SetUsageMessage("tierfs [OPTIONS] METADATA_VOLUME_DIR MOUNTPOINT (see tierfs --help)");
  gflags::SetVersionString(tierfs::cli::kTierfsVersion);
  gflags::ParseCommandLineFlags(&argc, &argv, /*remove_flags=*/true);
  if (argc != 3) {
    std::fprintf(stderr, "usage: tierfs [options] METADATA_VOLUME_DIR MOUNTPOINT (see --help)\n");
    return 2;
  }
  std::string fuse_options;
  if (!TakeOwnMountOptions(FLAGS_o, &fuse_options)) return 1;
  // --writeback_seconds, the former name of --flush_seconds, where it was given.
  int flush_seconds = FLAGS_flush_seconds;
  if (!gflags::GetCommandLineFlagInfoOrDie("writeback_seconds").is_default) {
    if (!gflags::GetCommandLineFlagInfoOrDie("flush_seconds").is_default &&
        FLAGS_flush_seconds != FLAGS_writeback_seconds) {
      std::fprintf(stderr,
                   "tierfs: --flush_seconds=%d and its former name --writeback_seconds=%d "
                   "disagree: give one\n",
                   FLAGS_flush_seconds, FLAGS_writeback_seconds);
      return 1;
    }
    flush_seconds = FLAGS_writeback_seconds;
  }
  tierfs::SessionOptions options;
  options.metadata_dir = argv[1];
  options.mountpoint = argv[2];
  options.foreground = FLAGS_f;
  options.debug = FLAGS_d;
  options.fuse_options = fuse_options;
  options.sync_full = FLAGS_sync_full;
  options.entry_timeout = FLAGS_entry_timeout;
  options.attr_timeout = FLAGS_attr_timeout;
  options.flush_seconds = flush_seconds;
  options.max_threads = FLAGS_threads;
  options.running_threads = FLAGS_running_threads;
  options.commit_window_us = static_cast<int64_t>(FLAGS_commit_ms * 1000);
  options.exact_atime = FLAGS_exact_atime;
  options.passthrough = *tierfs::ParsePassthroughMode(FLAGS_passthrough);
  options.direct_writes = FLAGS_direct_writes;
  options.writeback_cache = FLAGS_writeback_cache;
  options.io_uring = FLAGS_io_uring;
  options.cached_inodes = FLAGS_cached_inodes;
  options.cached_dentries = FLAGS_cached_dentries;
  options.no_open = FLAGS_no_open && !FLAGS_exact_atime;
  options.cached_opens = FLAGS_cached_opens;
  options.fcl_keep_seconds = static_cast<int64_t>(FLAGS_fcl_keep_hours * 3600);
  options.fcl_max_records = FLAGS_fcl_max_records;
  options.iostat_keep_seconds = static_cast<int64_t>(FLAGS_iostat_keep_days * 86400);
  options.syslog = FLAGS_syslog;
  options.metrics.listen = FLAGS_metrics_listen;
  options.metrics.textfile = FLAGS_metrics_textfile;
  options.startup_warnings = tierfs::cli::RetiredOptionWarnings();
  return tierfs::RunSession(options);
}
