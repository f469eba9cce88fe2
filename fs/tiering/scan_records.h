// Gathering the inputs of a policy scan from the metadata database: file records
// in path-name order, their I/O per policy window, and the file-system activity
// totals over the AveragePeriod (docs/policies.md "Temperatures", "What a scan does"
// and "Which files a scan sees").
//
// Internal to fs/tiering/scan_service.cc; functions are thread-safe (they only read).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "fs/core/file_system.h"
#include "policy/file_record.h"
#include "policy/policy.h"

namespace tierfs {

struct ScanSelection {
  std::vector<std::string> paths;         // mount-relative; empty = "/"
  std::vector<uint32_t> volume_ids;       // -T: files on these volumes
  bool use_volumes = false;
  bool active_only = false;               // -C
  int64_t active_since_s = 0;             // start of the longest PERIOD
};

struct ScanInputs {
  std::vector<policy::FileRecord> files;  // regular files, path-name order, each inode once
  policy::ActivityTotals totals;          // over the AveragePeriod
};

// Resolves a mount-relative path ("/a/b", "" or "/" for the root) to an inode
// without following symlinks. ENOENT naming the path.
Result<meta::Inode> ResolvePath(FileSystem& fs, const std::string& path);

// Called now and then while files are gathered, with the number found so far.
using GatherProgress = std::function<void(uint64_t files_found)>;

// Builds the records the policy needs. `now_s` is the second the scan started in;
// the I/O windows end at the end of that second (now_s + 1), so nothing done
// before the scan is left out. An iostat bucket still open then (the current
// hour) counts as ending there: all of its I/O happened before the scan, so a
// window that covers [bucket start, now] holds all of it, not a share in
// proportion to the bucket's full length.
Result<ScanInputs> GatherScanInputs(FileSystem& fs, const policy::PlacementPolicy& policy,
                                    const ScanSelection& selection, int64_t now_s,
                                    const GatherProgress& progress = nullptr);

}  // namespace tierfs
