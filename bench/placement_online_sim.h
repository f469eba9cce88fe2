// Online promotion in the placement simulation (bench/placement_sim.h): what
// the daemon's online path (fs/tiering/online_promoter.h) does between two
// enforces, on the simulated clock, with the policy library's evaluator and
// planner.
//
// A period is cut into `steps` equal steps (the daemon looks once a second;
// the simulation, whose periods stand for hours, looks `steps` times a
// period). Each access is served by the placement of the moment it falls in.
// At the end of each step the files accessed in it are evaluated on their
// windows (the hourly history plus the period so far, one bucket from the
// period's start to now); those an Online="yes" RELOCATE decides are taken
// hottest first and planned one by one with the class's residents that are
// not under their OnlineHold, as the daemon does; the swap-outs and the move
// are applied while the policy's OnlineBudget (bytes per second of simulated
// time) allows. Header-only, pure; thread-compatible.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include "policy/evaluator.h"
#include "policy/file_record.h"
#include "policy/plan_apply.h"
#include "policy/planner.h"
#include "policy/policy.h"
#include "policy/volume_state.h"

namespace tierfs::bench {

// One access of the period, in drawing order.
struct SimAccess {
  size_t file = 0;      // index
  uint64_t length = 0;  // bytes
  bool write = false;
};

// What persists from period to period: the holds (simulated second each ends)
// and the budget's debt in bytes.
struct OnlineSimState {
  std::unordered_map<size_t, int64_t> held_until;
  double debt_bytes = 0;
};

struct OnlinePeriodResult {
  double ssd_read_bytes = 0, ssd_write_bytes = 0;  // served by the fast class
  uint64_t moved_bytes = 0;   // promotions and swap-outs
  uint64_t promotions = 0, swap_outs = 0;
};

// The Online="yes" RELOCATE that decides `v`, or nullptr.
inline const policy::Statement* OnlineStatementOf(const policy::PlacementPolicy& pol,
                                                  const policy::FileVerdict& v) {
  if (v.action != policy::FileVerdict::kRelocate || v.rule_index < 0 || v.statement_index < 0) {
    return nullptr;
  }
  const policy::Statement& st =
      pol.rules[static_cast<size_t>(v.rule_index)].statements[static_cast<size_t>(v.statement_index)];
  return st.online ? &st : nullptr;
}

// Runs one period of `accesses` with online promotion. `history`: hourly I/O
// per file, the newest bucket ending at `period_start` (s); `files` and
// `volumes` are the simulated file system, changed by the moves; files are
// planned in `scan_order` (path order); `ssd` is the fast volume's id.
inline OnlinePeriodResult SimulateOnlinePeriod(
    const policy::PlacementPolicy& pol, const std::vector<SimAccess>& accesses, int steps,
    int64_t period_start, int64_t period_seconds,
    const std::deque<std::shared_ptr<const std::vector<policy::IoCounters>>>& history,
    const std::vector<size_t>& scan_order, uint32_t ssd, const policy::PlanOptions& options,
    std::vector<policy::FileRecord>* files, std::vector<policy::VolumeState>* volumes,
    OnlineSimState* state) {
  OnlinePeriodResult out;
  const size_t n = files->size();
  const std::vector<double> window_hours = pol.WindowHours();
  const auto average_at =
      std::find(window_hours.begin(), window_hours.end(), pol.average_period_hours);
  const int64_t first_bucket = period_start - static_cast<int64_t>(history.size()) * 3600;
  std::vector<policy::IoCounters> partial(n);
  size_t next = 0;
  steps = std::max(1, steps);
  for (int k = 0; k < steps; ++k) {
    const int64_t now = period_start + period_seconds * (k + 1) / steps;
    const double step_seconds = static_cast<double>(period_seconds) / steps;
    const size_t end = accesses.size() * static_cast<size_t>(k + 1) / static_cast<size_t>(steps);
    std::vector<char> touched(n, 0);
    for (; next < end; ++next) {
      const SimAccess& a = accesses[next];
      const bool on_ssd = (*files)[a.file].volume_id == ssd;
      const double len = static_cast<double>(a.length);
      if (a.write) {
        partial[a.file].wbytes += len;
        partial[a.file].wops += 1;
        if (on_ssd) out.ssd_write_bytes += len;
      } else {
        partial[a.file].rbytes += len;
        partial[a.file].rops += 1;
        if (on_ssd) out.ssd_read_bytes += len;
      }
      touched[a.file] = 1;
    }
    // Every file's windows now, and the file-system average.
    std::vector<policy::FileRecord> records(n);
    policy::ActivityTotals totals;
    for (size_t i = 0; i < n; ++i) {
      policy::FileRecord rec = (*files)[i];
      rec.windows.clear();
      for (size_t b = 0; b < history.size(); ++b) {
        const policy::IoCounters& io = (*history[b])[i];
        if (io.Any()) {
          policy::AccumulateBucket(window_hours, now, first_bucket + static_cast<int64_t>(b) * 3600,
                                   3600, io, &rec.windows);
        }
      }
      if (partial[i].Any()) {
        policy::AccumulateBucket(window_hours, now, period_start, period_seconds, partial[i],
                                 &rec.windows);
      }
      if (!rec.windows.empty() && average_at != window_hours.end()) {
        policy::AddActivity(rec.windows[static_cast<size_t>(average_at - window_hours.begin())],
                            rec.size, &totals);
      }
      records[i] = std::move(rec);
    }
    // The budget of this step pays the debt first.
    state->debt_bytes = std::max(0.0, state->debt_bytes - pol.online_budget_bytes_per_s * step_seconds);
    const policy::Evaluator evaluator(pol, *volumes, totals, now);
    std::vector<std::pair<double, size_t>> queue;
    for (size_t i = 0; i < n; ++i) {
      if (!touched[i]) continue;
      const policy::FileVerdict v = evaluator.Evaluate(records[i]);
      if (OnlineStatementOf(pol, v) != nullptr) queue.emplace_back(v.temperature, i);
    }
    std::stable_sort(queue.begin(), queue.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& [temperature, f] : queue) {
      if (state->debt_bytes > 0) break;  // the rest waits for the next step
      // The candidate and the fast class's residents past their hold, in path order.
      std::vector<policy::FileRecord> subset;
      for (size_t i : scan_order) {
        const bool resident = (*files)[i].volume_id == ssd;
        auto held = state->held_until.find(i);
        if (i == f || (resident && (held == state->held_until.end() || held->second <= now))) {
          policy::FileRecord rec = records[i];
          rec.volume_id = (*files)[i].volume_id;
          subset.push_back(std::move(rec));
        }
      }
      const policy::ScanPlan plan = policy::PlanScan(pol, subset, *volumes, totals, now, options);
      policy::ScanPlan run;
      bool found = false;
      for (const policy::PlannedMove& m : plan.moves) {
        if (m.swap == policy::PlannedMove::kSwapOut ||
            (m.ino == (*files)[f].ino && m.action == policy::FileVerdict::kRelocate)) {
          run.moves.push_back(m);
          found = found || m.ino == (*files)[f].ino;
        }
      }
      if (!found) continue;
      const policy::FileVerdict v = evaluator.Evaluate(records[f]);
      const policy::Statement* st = OnlineStatementOf(pol, v);
      const policy::AppliedPlan applied =
          policy::ApplyPlan(run, volumes, [&](const policy::PlannedMove& m) {
            (*files)[m.ino - 2].volume_id = m.to_volume;
            if (m.swap == policy::PlannedMove::kSwapOut) ++out.swap_outs;
          });
      out.moved_bytes += applied.bytes_moved;
      out.promotions++;
      state->debt_bytes += static_cast<double>(applied.bytes_moved);
      if (st != nullptr) {
        state->held_until[f] = now + static_cast<int64_t>(st->OnlineHoldHours() * 3600);
      }
    }
  }
  return out;
}

}  // namespace tierfs::bench
