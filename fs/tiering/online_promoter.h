// OnlinePromoter: runs the policy's Online="yes" RELOCATE statements in the
// daemon as files heat up, between enforce runs (docs/policies.md "Online
// promotion", docs/design.md "Online promotion").
//
// Two threads, both idle (one policy pointer read a second) while the
// assigned policy has no online statement:
//  - the evaluator, every `tick` (1 s): takes the I/O counts not yet flushed
//    (IoAccounting::Peek; the flushed ones arrive through the periodic
//    flush's drained hook), and for each file whose counts changed since the
//    last tick evaluates the policy (policy/evaluator.h) on its in-memory
//    history (fs/tiering/online_heat.h). A file whose deciding statement is an
//    online RELOCATE is queued. Nothing here touches the database except the
//    first sight of a file (its path and row) and the seeding of the history
//    at start or at a new policy; reads and writes themselves pay nothing
//    beyond the counting they always did.
//  - the worker takes the hottest queued file, evaluates it again on fresh
//    attributes (a file gone cold is skipped), plans its move with the scan
//    planner (policy/planner.h: class limits, PERCENT, CLASS_LIMIT and, when
//    the class is full, swapping the coldest residents out under the policy's
//    SwapHysteresis), and runs the moves with the same Relocator as enforce,
//    swap-outs first. Every move waits for the rate limit (the policy's
//    OnlineBudget, fs/tiering/online_budget.h). A move found "busy" (written
//    during the copy, or open by a passthrough writer) is queued again after
//    a pause, up to kMaxAttempts times; enforce settles the rest.
// Anti-thrash: a file the online path moved in stays there for its
// statement's OnlineHoldHours(); until then the online path never offers it
// to the planner as a resident to swap out. Enforce ignores the hold.
//
// The queue holds at most kQueueLimit files; a candidate beyond it is counted
// (OnlineCounters::dropped) and waits for the next change of its heat or for
// enforce. Thread-safe; Start once, Stop (or the destructor) ends both threads
// after the move in progress.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/cond_var.h"
#include "common/mutex.h"
#include "common/thread_annotations.h"
#include "fs/core/file_system.h"
#include "fs/core/relocator.h"
#include "fs/tiering/online_budget.h"
#include "fs/tiering/online_heat.h"
#include "policy/planner.h"

namespace tierfs {

class OnlinePromoter {
 public:
  // Files queued at most; beyond, candidates are dropped (counted).
  static constexpr size_t kQueueLimit = 1024;
  // Tries of a move found busy before it is left to enforce.
  static constexpr int kMaxAttempts = 5;

  // `fs` and `relocator` must outlive the promoter. `tick`: how often the
  // evaluator looks at the counts (> 0).
  OnlinePromoter(FileSystem& fs, Relocator& relocator,
                 std::chrono::milliseconds tick = std::chrono::seconds(1));
  ~OnlinePromoter() { Stop(); }
  OnlinePromoter(const OnlinePromoter&) = delete;
  OnlinePromoter& operator=(const OnlinePromoter&) = delete;

  // Starts both threads and hooks the periodic flush. Once.
  void Start() EXCLUDES(mu_);
  // Unhooks the flush and ends both threads after the move in progress.
  void Stop() EXCLUDES(mu_);

  // What `fsppadm status` shows: {"online": bool, "budget_bytes_per_s",
  // "bytes_per_s" (copied over the last 10 s), "promotions", "demotions",
  // "bytes_moved", "skipped": {...}, "queued": [{"ino", "path",
  // "temperature", "attempts"}] hottest first, "held": files under their hold}.
  nlohmann::json StatusJson() EXCLUDES(mu_);

 private:
  struct Queued {
    double temperature = 0;
    int attempts = 0;
    std::chrono::steady_clock::time_point ready;  // not before
  };
  // A file's path, row and when they were read, for the evaluator.
  struct Known {
    std::string path;
    meta::Inode attr;
    std::chrono::steady_clock::time_point read_at;
  };

  void Evaluate() EXCLUDES(mu_);
  void Work() EXCLUDES(mu_);
  // Evaluates, plans and moves one queued file.
  void Process(uint64_t ino, Queued entry) EXCLUDES(mu_);
  // The policy's record of `ino` now (attributes from memory or the
  // database, windows from the history); nullopt when it is gone or not a
  // regular file. `path` when known saves a look-up.
  std::optional<policy::FileRecord> RecordOf(uint64_t ino, const policy::PlacementPolicy& pol,
                                             int64_t now_s, const std::string* path)
      EXCLUDES(mu_);
  // Adapts to a new policy or heat bucket: resets and seeds the history.
  // Returns the policy when it has online statements, else nullptr.
  std::shared_ptr<const policy::PlacementPolicy> CurrentPolicy() EXCLUDES(mu_);
  // Queues `ino` (or raises its temperature); counts a drop when full.
  void EnqueueLocked(uint64_t ino, double temperature, int attempts,
                     std::chrono::steady_clock::time_point ready) REQUIRES(mu_);
  // Waits until `bytes` fit in the budget (false: stopping).
  bool WaitForBudget(uint64_t bytes) EXCLUDES(mu_);
  // Runs one move with the Relocator; records it in the counters.
  std::string Move(const policy::PlannedMove& m, bool swap_out) EXCLUDES(mu_);
  // Whether statement `label` ("RELOCATE 1") of rule `rule` is online; its
  // hold in *hold_hours.
  static const policy::Statement* OnlineStatement(const policy::PlacementPolicy& pol,
                                                  const std::string& rule,
                                                  const std::string& label);

  FileSystem& fs_;
  Relocator& relocator_;
  const std::chrono::milliseconds tick_;

  Mutex mu_;
  CondVar wake_;  // the worker (a file queued), the evaluator (kernel heat arrived), stopping
  bool started_ GUARDED_BY(mu_) = false;
  bool stop_ GUARDED_BY(mu_) = false;
  bool heat_arrived_ GUARDED_BY(mu_) = false;  // kernel counts since the last evaluation
  // The assigned policy as last seen (so a policy without online statements
  // is looked at once, not every tick), and the one in force: nullptr while
  // the assigned one has no online statement.
  std::shared_ptr<const policy::PlacementPolicy> seen_policy_ GUARDED_BY(mu_);
  std::shared_ptr<const policy::PlacementPolicy> policy_ GUARDED_BY(mu_);
  OnlineHeat heat_ GUARDED_BY(mu_);
  policy::ActivityTotals totals_ GUARDED_BY(mu_);  // as of the last tick
  std::unordered_map<uint64_t, Known> known_ GUARDED_BY(mu_);
  std::map<uint64_t, Queued> queue_ GUARDED_BY(mu_);
  uint64_t in_flight_ GUARDED_BY(mu_) = 0;  // the file the worker is on, 0: none
  // Files the online path moved in, and when their hold ends.
  std::unordered_map<uint64_t, std::chrono::steady_clock::time_point> held_ GUARDED_BY(mu_);
  // Bytes copied, by second, over the last 10 s (StatusJson's rate).
  std::map<int64_t, uint64_t> recent_bytes_ GUARDED_BY(mu_);
  OnlineBudget budget_;  // the worker's only
  std::thread evaluator_;
  std::thread worker_;
};

}  // namespace tierfs
