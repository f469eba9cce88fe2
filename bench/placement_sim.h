// A shifting-hot-set workload run against the pure policy engine on a
// simulated clock: the measure of issue 10 ("placement that follows the
// workload") and of the NetApp Hybrid Aggregates paper, the share of read
// bytes that files on the ssd class serve, next to two oracles.
//
// The file system: `files` files of log-uniform sizes in [min_size,
// max_size], all created on hdd; one ssd volume holding `ssd_share` of the
// stored bytes, one hdd volume with room for everything. Time runs in
// periods of `period_hours`; in each, `reads_per_period` whole-file reads
// are drawn from a Zipf(zipf_s) distribution over a random ranking of the
// files, and the ranking (the hot set) is redrawn every `shift_every`
// periods. The reads of a period are spread evenly over its hours and kept
// as hourly iostat buckets, from which every scan builds its FileRecord
// windows with AccumulateBucket, as fs/ does from meta/. At the end of each
// period PlanScan runs (an enforce) and its moves are applied.
//
// Per period it reports the share of that period's read bytes served by the
// files on ssd during it (placement chosen by the previous enforce), and the
// same share for two placements of the same capacity chosen greedily by
// reads per byte: the oracle, which knows the period's reads, and the
// previous-period oracle, which knows only the period before (the best any
// history-based rule can do). Also the bytes moved, the swaps, and the time
// PlanScan took.
//
// The oracle placement and the application of a plan are the policy
// library's (policy/oracle_placement.h, policy/plan_apply.h), shared with the
// replay behind `fsppadm advise` (policy/replay.h).
//
// Used by bench/placement_bench.cc (run by hand) and by the regression test
// tests/policy/placement_sim_test.cc. Pure computation, deterministic for a
// seed; single-threaded.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "policy/file_record.h"
#include "policy/oracle_placement.h"
#include "policy/plan_apply.h"
#include "policy/planner.h"
#include "policy/policy.h"
#include "policy/volume_state.h"

namespace tierfs::bench {

struct WorkloadOptions {
  int files = 2000;
  uint64_t min_size = 4096;          // bytes
  uint64_t max_size = 1024 * 1024;   // bytes
  double ssd_share = 0.10;           // ssd capacity / stored bytes
  double zipf_s = 1.0;               // Zipf exponent over the hot ranking
  int reads_per_period = 20000;      // whole-file reads per period
  int period_hours = 6;              // one enforce at the end of each period
  int shift_every = 4;               // periods between hot-set changes
  int periods = 40;
  uint64_t seed = 1;
};

struct PeriodResult {
  double served = 0;        // share of the period's read bytes served by files on ssd
  double oracle = 0;        // the same for the oracle placement
  double prev_oracle = 0;   // and for the previous-period oracle
  bool hot_set_seen = false;  // the hot set was the same in the period before
  uint64_t bytes_moved = 0;   // by the enforce at the end of the period
  uint64_t swaps = 0;         // swap-in moves of that enforce
  uint64_t ssd_used = 0;      // bytes on ssd after that enforce
  double plan_seconds = 0;    // PlanScan's wall time
};

struct RunResult {
  std::vector<PeriodResult> periods;
  uint64_t ssd_capacity = 0;
  uint64_t stored_bytes = 0;
  // Read-byte-weighted shares over every period, and over the periods whose
  // hot set had been seen for one period.
  double served = 0, oracle = 0, prev_oracle = 0;
  double served_seen = 0, oracle_seen = 0, prev_oracle_seen = 0;
};


// Runs the workload of `w` against `policy` (its classes must be "ssd" and
// "hdd") with planner `options`.
inline RunResult RunShiftingHotSet(const policy::PlacementPolicy& policy,
                                   const WorkloadOptions& w, const policy::PlanOptions& options) {
  constexpr int64_t kStart = 1'700'000'000 / 3600 * 3600;
  constexpr uint32_t kSsd = 1, kHdd = 2;
  std::mt19937_64 rng(w.seed);
  const size_t n = static_cast<size_t>(w.files);

  // Files: log-uniform sizes, all on hdd, paths in scan order.
  std::vector<policy::FileRecord> files(n);
  std::vector<uint64_t> sizes(n);
  std::uniform_real_distribution<double> unit(0, 1);
  uint64_t stored = 0;
  const double lo = std::log(static_cast<double>(w.min_size));
  const double hi = std::log(static_cast<double>(w.max_size));
  for (size_t i = 0; i < n; ++i) {
    char path[32];
    std::snprintf(path, sizeof path, "/d%03zu/f%07zu", i % 100, i);
    files[i].ino = i + 2;
    files[i].path = path;
    sizes[i] = static_cast<uint64_t>(std::exp(lo + (hi - lo) * unit(rng)));
    files[i].size = sizes[i];
    files[i].volume_id = kHdd;
    files[i].atime_s = files[i].mtime_s = kStart;
    stored += sizes[i];
  }
  std::vector<size_t> scan_order(n);
  std::iota(scan_order.begin(), scan_order.end(), 0);
  std::sort(scan_order.begin(), scan_order.end(),
            [&](size_t a, size_t b) { return files[a].path < files[b].path; });

  RunResult result;
  result.stored_bytes = stored;
  result.ssd_capacity = static_cast<uint64_t>(w.ssd_share * static_cast<double>(stored));
  std::vector<policy::VolumeState> volumes = {
      {kSsd, "ssd", {"ssd"}, result.ssd_capacity, result.ssd_capacity, 0},
      {kHdd, "hdd", {"hdd"}, stored * 10, stored * 10 - stored, 0}};

  // Zipf over ranks 0..n-1, and the ranking of files (the hot set).
  std::vector<double> cdf(n);
  double sum = 0;
  for (size_t k = 0; k < n; ++k) {
    sum += 1.0 / std::pow(static_cast<double>(k + 1), w.zipf_s);
    cdf[k] = sum;
  }
  std::vector<size_t> ranking(n);
  std::iota(ranking.begin(), ranking.end(), 0);

  const std::vector<double> window_hours = policy.WindowHours();
  const double longest = window_hours.empty() ? 0 : window_hours.back();
  const size_t keep = static_cast<size_t>(std::ceil(longest)) + 1;  // hourly buckets kept
  const auto average_at =
      std::find(window_hours.begin(), window_hours.end(), policy.average_period_hours);
  std::deque<std::vector<double>> history;  // reads per file per hour, newest last
  std::vector<double> previous(n, 0);

  double served_bytes = 0, oracle_bytes = 0, prev_bytes = 0, total_bytes = 0;
  double seen_served = 0, seen_oracle = 0, seen_prev = 0, seen_total = 0;
  for (int p = 0; p < w.periods; ++p) {
    PeriodResult r;
    if (p % w.shift_every == 0) {
      std::shuffle(ranking.begin(), ranking.end(), rng);
    } else {
      r.hot_set_seen = true;
    }
    std::vector<double> reads(n, 0);
    for (int i = 0; i < w.reads_per_period; ++i) {
      const double u = unit(rng) * sum;
      const size_t k = static_cast<size_t>(std::lower_bound(cdf.begin(), cdf.end(), u) -
                                           cdf.begin());
      reads[ranking[std::min(k, n - 1)]] += 1;
    }
    double period_total = 0, period_served = 0;
    for (size_t i = 0; i < n; ++i) {
      const double bytes = reads[i] * static_cast<double>(sizes[i]);
      period_total += bytes;
      if (files[i].volume_id == kSsd) period_served += bytes;
    }
    r.served = period_total > 0 ? period_served / period_total : 0;
    // The oracles rank by whole-file reads, i.e. read bytes per byte of file.
    std::vector<double> read_bytes(n);
    for (size_t i = 0; i < n; ++i) read_bytes[i] = reads[i] * static_cast<double>(sizes[i]);
    r.oracle = policy::OracleShare(reads, read_bytes, sizes, result.ssd_capacity);
    r.prev_oracle = policy::OracleShare(previous, read_bytes, sizes, result.ssd_capacity);
    previous = reads;
    served_bytes += period_served;
    oracle_bytes += r.oracle * period_total;
    prev_bytes += r.prev_oracle * period_total;
    total_bytes += period_total;
    if (r.hot_set_seen) {
      seen_served += period_served;
      seen_oracle += r.oracle * period_total;
      seen_prev += r.prev_oracle * period_total;
      seen_total += period_total;
    }

    // The period's reads, spread over its hours.
    for (int h = 0; h < w.period_hours; ++h) {
      std::vector<double> hour(n);
      for (size_t i = 0; i < n; ++i) hour[i] = reads[i] / w.period_hours;
      history.push_back(std::move(hour));
      if (history.size() > keep) history.pop_front();
    }

    // The enforce at the end of the period.
    const int64_t now = kStart + static_cast<int64_t>(p + 1) * w.period_hours * 3600;
    const int64_t first_bucket = now - static_cast<int64_t>(history.size()) * 3600;
    policy::ActivityTotals totals;
    std::vector<policy::FileRecord> records;
    records.reserve(n);
    for (size_t i : scan_order) {
      policy::FileRecord rec = files[i];
      for (size_t b = 0; b < history.size(); ++b) {
        const double count = history[b][i];
        if (count <= 0) continue;
        policy::IoCounters io{count * static_cast<double>(sizes[i]), 0, count, 0};
        policy::AccumulateBucket(window_hours, now, first_bucket + static_cast<int64_t>(b) * 3600,
                                 3600, io, &rec.windows);
      }
      if (!rec.windows.empty() && average_at != window_hours.end()) {
        policy::AddActivity(rec.windows[static_cast<size_t>(average_at - window_hours.begin())],
                            rec.size, &totals);
      }
      records.push_back(std::move(rec));
    }
    const auto t0 = std::chrono::steady_clock::now();
    policy::ScanPlan plan = policy::PlanScan(policy, records, volumes, totals, now, options);
    r.plan_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const policy::AppliedPlan applied =
        policy::ApplyPlan(plan, &volumes, [&](const policy::PlannedMove& m) {
          // The workload deletes nothing, so every move is a relocation.
          if (m.action == policy::FileVerdict::kRelocate) files[m.ino - 2].volume_id = m.to_volume;
        });
    r.bytes_moved = applied.bytes_moved;
    r.swaps = applied.swaps;
    r.ssd_used = volumes[0].total_bytes - volumes[0].free_bytes;
    result.periods.push_back(r);
  }
  auto share = [](double a, double b) { return b > 0 ? a / b : 0; };
  result.served = share(served_bytes, total_bytes);
  result.oracle = share(oracle_bytes, total_bytes);
  result.prev_oracle = share(prev_bytes, total_bytes);
  result.served_seen = share(seen_served, seen_total);
  result.oracle_seen = share(seen_oracle, seen_total);
  result.prev_oracle_seen = share(seen_prev, seen_total);
  return result;
}

}  // namespace tierfs::bench
