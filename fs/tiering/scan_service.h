// ScanService: fsppadm enforce / analyze / query, run inside the daemon.
//
// One run: flush the in-memory counters and inodes, gather file records (the
// whole tree, given paths, files on given classes -T, or FCL-active files -C),
// add their I/O buckets per policy window and the file-system average, ask the
// policy planner for decisions (policy/planner.h), and for enforce carry them out
// with the Relocator (and, for DELETE, unlink(2) of the file's path through the
// daemon's own mount point, so the kernel forgets the name at once). Returns the
// report as JSON in the shape fs/control/control_protocol.md documents for "scan"; query
// rows also carry every temperature the governing rule measures.
//
// Thread-safe. Two enforce runs never overlap: the second waits for the first
// (docs/admin.md "Schedules").
#pragma once

#include <cstdint>
#include <functional>
#include <thread>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/mutex.h"
#include "common/status.h"
#include "common/thread_annotations.h"
#include "fs/core/file_system.h"
#include "fs/core/relocator.h"
#include "fs/tiering/scan_records.h"
#include "policy/planner.h"

namespace tierfs {

// The largest -t limit a scan request may carry: 1,000,000 hours, in seconds.
constexpr double kMaxScanSeconds = 3.6e9;

struct ScanRequest {
  enum class Mode { kEnforce, kAnalyze, kQuery };
  Mode mode = Mode::kAnalyze;
  bool active_only = false;               // -C: only files with activity in the longest PERIOD
  std::vector<std::string> classes;       // -T: only files on these placement classes
  std::vector<std::string> paths;         // mount-relative ("/dir"); empty = whole file system
  std::optional<std::string> policy_xml;  // -F: this policy instead of the assigned one
  uint64_t max_bytes = 0;                 // -s: stop after moving this many bytes (0 = no limit)
  uint64_t max_files = 0;                 // -n: stop after this many files
  double max_seconds = 0;                 // -t: stop after this long (the tool sends hours x 3600)
  bool no_wait = false;                   // --no-wait: fail with EBUSY instead of waiting
                                          // for another enforce to finish
  int io_nice = 50;                       // -p 1..100: relocation parallelism
                                          // (docs/commands.md "fsppadm": 1 -> 1 worker,
                                          // 50 -> 16, 100 -> 32)
};
// The control protocol's "scan" request is read into a ScanRequest by
// ParseScanRequest (fs/control/scan_request_json.h): no JSON parsing here.

// Called with ("scan"|"move", done, total) as the run proceeds.
using ScanProgress = std::function<void(const std::string& phase, uint64_t done, uint64_t total)>;

// Worker threads for -p io_nice (docs/commands.md "fsppadm"): 1 -> 1, 50 -> 16, 100 -> 32.
int RelocationWorkers(int io_nice);

// The outcome an enforce reports for one relocation: the relocator's outcome,
// "error: MESSAGE" when it refused the move, except that a move that failed
// because its destination was full (ENOSPC or EDQUOT: a local volume that
// filled since the plan, or an object volume's bucket over its quota, which
// the gateway answers 403 QuotaExceeded) is "nospace", as a move the planner
// found no room for: not an error, the next enforce retries it (docs/commands.md);
// and a move skipped because another mover had moved the file first
// (RelocationOutcome::skipped) is "gone", as a file renamed since the scan.
std::string EnforceOutcome(const Result<RelocationOutcome>& moved);

class ScanService {
 public:
  ScanService(FileSystem& fs, Relocator& relocator) : fs_(fs), relocator_(relocator) {}

  // Runs one scan. EINVAL when there is no policy (none assigned and no -F) or the
  // -F policy does not validate; ENOENT for a path that does not exist; EBUSY with
  // no_wait while another enforce runs. Moves run on RelocationWorkers(io_nice)
  // threads, wave by wave (see Execute below).
  Result<nlohmann::json> Run(const ScanRequest& request, const ScanProgress& progress);

 private:
  // Run() without counting the run in the daemon's metrics.
  Result<nlohmann::json> RunOnce(const ScanRequest& request, const ScanProgress& progress)
      EXCLUDES(enforce_mu_);
  // Carries out one planned move or delete; returns its outcome ("moved", "busy",
  // "gone", "deleted", "error: ...").
  std::string Execute(const policy::PlannedMove& move);
  // Carries out the plan's moves (enforce) and returns one outcome per move, in plan
  // order ("stopped" past a -n/-s/-t limit). Moves run in waves: a move into a
  // volume waits for every earlier-planned move out of that volume, so the space
  // they free is there (the planner's out-before-in order); within a wave up to
  // `workers` moves run at once.
  std::vector<std::string> ExecuteAll(const std::vector<policy::PlannedMove>& moves,
                                      const ScanRequest& request, int workers,
                                      const std::function<double()>& elapsed,
                                      const ScanProgress& progress);
  // The rows of a query: every scanned file in path-name order, with its governing
  // rule, statement and temperatures, merged with the planned `rows`.
  nlohmann::json QueryRows(const policy::PlacementPolicy& pol, const ScanInputs& inputs,
                           const std::vector<policy::VolumeState>& space, int64_t now_s,
                           nlohmann::json rows);

  FileSystem& fs_;
  Relocator& relocator_;
  Mutex enforce_mu_;  // held for the whole of an enforce run
};

}  // namespace tierfs
