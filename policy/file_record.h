// FileRecord: what the policy engine knows about one regular file at scan
// time, and the helpers that turn iostat buckets into its I/O windows.
//
// fs/ builds FileRecords from meta/ rows (inode, path, owner names, tags,
// iostat buckets) and hands them to the evaluator and planner. Value types;
// the functions are pure and thread-safe.
// docs/policies.md "Temperatures".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tierfs::policy {

// I/O counted over some time span: bytes and calls (docs/policies.md "Temperatures").
// Doubles because a bucket that straddles a window edge counts in proportion.
struct IoCounters {
  double rbytes = 0;  // bytes read
  double wbytes = 0;  // bytes written
  double rops = 0;    // read calls
  double wops = 0;    // write calls

  bool Any() const { return rbytes > 0 || wbytes > 0 || rops > 0 || wops > 0; }
  IoCounters& operator+=(const IoCounters& o) {
    rbytes += o.rbytes;
    wbytes += o.wbytes;
    rops += o.rops;
    wops += o.wops;
    return *this;
  }
};

// One regular file as a scan sees it.
struct FileRecord {
  uint64_t ino = 0;
  std::string path;              // relative to the mount root: "/dir/name"
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string user;              // owner name resolved by the caller, "" if none
  std::string group;             // group name resolved by the caller, "" if none
  uint64_t size = 0;             // bytes, at scan time
  int64_t atime_s = 0;           // seconds since the epoch
  int64_t mtime_s = 0;           // seconds since the epoch
  uint32_t volume_id = 0;        // the volume that holds the object now
  std::vector<std::string> tags; // words of xattr user.tierfs.tags
  // I/O in each window of PlacementPolicy::WindowHours(), same order; each
  // window ends at the scan's `now_s`. Either empty (the file had no I/O) or
  // exactly one entry per window: any other size is a caller bug and aborts.
  std::vector<IoCounters> windows;
};

// The extended attribute that holds a file's tags for <TAG> (docs/policies.md
// "SELECT: which files").
inline constexpr char kFileTagsXattr[] = "user.tierfs.tags";
// The words of a tags attribute value: separated by commas or white space, empty
// words dropped, each word once, in first-seen order.
std::vector<std::string> ParseFileTags(std::string_view value);

// Adds `bucket`, the counters of [bucket_start_s, bucket_start_s +
// bucket_seconds), into each window i = [now_s - window_hours[i] * 3600,
// now_s), in proportion to the overlap (docs/policies.md "Temperatures"). A bucket still
// open at now_s counts as [bucket_start_s, now_s): its I/O all happened before
// now. Resizes *windows to window_hours.size() first if it is shorter. A bucket
// with bucket_seconds <= 0, or starting at or after now_s, is ignored.
void AccumulateBucket(const std::vector<double>& window_hours, int64_t now_s,
                      int64_t bucket_start_s, int64_t bucket_seconds, const IoCounters& bucket,
                      std::vector<IoCounters>* windows);

// File-system-wide activity over the last AveragePeriod hours, for
// Average="*" (docs/policies.md "Temperatures"): sums over the files ACTIVE in that
// window, i.e. with any I/O in it. Build it with AddActivity() over every
// file of the file system (not only the files a -C/-T scan looks at).
struct ActivityTotals {
  IoCounters io;            // summed counters of the active files over the window
  double size_sum = 0;      // sum of max(size, 4096) bytes of the active files
  uint64_t active_files = 0;
};

// Adds one file to `totals` if `io_in_average_period` (its I/O over the
// AveragePeriod window) shows any activity; `size` in bytes at scan time.
void AddActivity(const IoCounters& io_in_average_period, uint64_t size, ActivityTotals* totals);

}  // namespace tierfs::policy
