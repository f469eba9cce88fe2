// Replaying a file system's recorded I/O against a placement policy: the
// engine of `fsppadm advise` (docs/policies.md "Advisor").
//
// The history is what tierfs already keeps: each file's iostat buckets
// (meta/, fixed-length buckets of read and written bytes and calls), the
// files as they are now, the volumes' capacities, and the completed
// relocations. The replay cuts the recorded window into periods of one
// enforce interval, aligned so the last period ends where the newest bucket
// ends, and at the start of every period but the first runs the real planner
// (PlanScan) on the files' simulated placement, with temperature windows
// built from the buckets before that instant exactly as fs/ builds them
// (AccumulateBucket), and applies its moves (ApplyPlan). It then counts, over
// that period, the read+write bytes of the files and the share served by
// files on the fast class(es). The first period is history only.
//
// Approximations, stated in docs/policies.md: files are the ones that exist
// now, at their current size (I/O of deleted files is left out); a file
// takes part in a simulated enforce at instant t once it exists then (its
// mtime is before t, or it has a bucket that starts before t); its atime and
// mtime at t are the current ones when earlier than t, else the end of its
// last bucket with reads (writes) before t, else t; the placement the replay
// starts from is the current one with the relocations recorded since the
// first simulated enforce undone; a file the simulation deletes stays where
// it was for the accounting (the real file system kept it); space held on a
// volume by anything but the files is taken as constant.
//
// Pure computation, deterministic; thread-safe (inputs are read only).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "policy/file_record.h"
#include "policy/planner.h"
#include "policy/policy.h"
#include "policy/volume_state.h"

namespace tierfs::policy {

// One iostat bucket of one file: its counters over [start_s, start_s +
// IoHistory::bucket_seconds).
struct HistoryBucket {
  int64_t start_s = 0;  // seconds since the epoch, a multiple of the bucket length
  IoCounters io;
};

// One file of the history.
struct HistoryFile {
  // The file as a scan sees it now (path, owner, tags, size in bytes, times
  // in seconds, volume_id = the volume that holds it now); `windows` unused.
  FileRecord record;
  std::vector<HistoryBucket> buckets;  // ascending start_s, at most one per start
};

// A completed relocation (outcome "moved") from the relocation history.
struct HistoryRelocation {
  uint64_t ino = 0;
  int64_t time_s = 0;  // when it committed, seconds since the epoch
  uint32_t from_volume = 0;
  uint32_t to_volume = 0;
};

// Everything the replay reads.
struct IoHistory {
  int64_t bucket_seconds = 3600;       // the heat bucket length, > 0
  int64_t now_s = 0;                   // when the history was taken, seconds
  std::vector<VolumeState> volumes;    // capacities, reserves and free space as of now_s
  std::vector<HistoryFile> files;      // regular files in path-name order, each once
  std::vector<HistoryRelocation> relocations;  // any order
};

// The periods a replay scores: `periods` periods of `interval_s` seconds,
// the first starting at `start_s`; the last ends at the end of the bucket
// that holds the history's newest bucket (or now_s).
struct ReplayWindow {
  int64_t start_s = 0;
  int64_t interval_s = 0;  // a positive multiple of the bucket length
  int periods = 0;         // whole periods in the recorded window; a replay needs >= 2
  int64_t first_bucket_s = 0;  // start of the oldest bucket; 0 when there is none
  int64_t end_s() const { return start_s + interval_s * periods; }
};

// Cuts `history` into periods of `interval_s` seconds ending at the end of
// its newest bucket. EINVAL when interval_s is not a positive multiple of
// history.bucket_seconds. A history with no buckets, or shorter than one
// interval, gives periods = 0 or 1 (not an error here; the caller says so).
Result<ReplayWindow> ChooseReplayWindow(const IoHistory& history, int64_t interval_s);

// One scored period: the enforce at its start and the I/O during it.
struct ReplayPeriod {
  int64_t start_s = 0;
  double io_bytes = 0;        // read + written bytes of the history's files in the period
  double served_bytes = 0;    // of which by files on a fast class during it
  uint64_t bytes_moved = 0;   // by the simulated enforce at start_s
  uint64_t files_moved = 0;
  uint64_t files_deleted = 0;
  uint64_t swaps = 0;
  uint64_t fast_used_bytes = 0;  // bytes of the files on the fast class(es) after that enforce
};

// A policy's replay over the scored periods (every period but the first).
struct ReplayResult {
  std::vector<ReplayPeriod> periods;
  double io_bytes = 0;
  double served_bytes = 0;
  double served_share = 0;  // served_bytes / io_bytes; 0 without I/O
  uint64_t bytes_moved = 0;
  uint64_t files_moved = 0;
  uint64_t files_deleted = 0;
  uint64_t swaps = 0;
};

struct ReplayOptions {
  ReplayWindow window;                    // from ChooseReplayWindow; periods >= 2
  std::vector<std::string> fast_classes;  // the classes whose files count as served, e.g. {"ssd"}
  PlanOptions plan;                       // planner switches (defaults as enforce)
};

// Replays `policy` over `history` (see the top of this file). A window with
// fewer than 2 periods gives an empty result.
ReplayResult ReplayPolicy(const PlacementPolicy& policy, const IoHistory& history,
                          const ReplayOptions& options);

// The two oracles over the same scored periods (policy/oracle_placement.h),
// for a fast class of the room the fast volumes have for files (capacity
// minus reserve minus what other data holds there).
struct OracleReplay {
  uint64_t fast_room_bytes = 0;
  std::vector<double> oracle_share;       // per scored period: knows the period's I/O
  std::vector<double> prev_oracle_share;  // per scored period: knows the previous period's
  double oracle = 0;       // I/O-weighted over the scored periods
  double prev_oracle = 0;
};
OracleReplay ReplayOracles(const IoHistory& history, const ReplayOptions& options);

}  // namespace tierfs::policy
