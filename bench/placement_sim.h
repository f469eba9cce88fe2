// A shifting-hot-set workload run against the pure policy engine on a
// simulated clock: the measure of placement that follows the workload
// (docs/benchmarks.md "Placement under a shifting hot set") and of the NetApp
// Hybrid Aggregates paper, the share of read bytes that files on the ssd class
// serve, next to two oracles.
//
// The file system: `files` files of log-uniform sizes in [min_size,
// max_size], all created on hdd; one ssd volume holding `ssd_share` of the
// stored bytes, one hdd volume with room for everything. Time runs in
// periods of `period_hours`; in each, `reads_per_period` accesses are drawn
// over a random ranking of the files from `distribution`: Zipf(zipf_s), or
// "80-20" (80% of the accesses uniformly over the top 20% of the ranking, the
// rest uniformly over the other 80%), or "95-5" (95% over the top 5%). An
// access is a write with probability `write_fraction` (an overwrite: sizes
// do not change), and covers the whole file, or with `partial` a random
// extent (length uniform in [1, size], offset uniform where it fits). The
// ranking (the hot set) is redrawn every `shift_every` periods. The reads of a period are spread evenly over its hours and kept
// as hourly iostat buckets, from which every scan builds its FileRecord
// windows with AccumulateBucket, as fs/ does from meta/. At the end of each
// period PlanScan runs (an enforce) and its moves are applied.
//
// Per period it reports the share of that period's read bytes, write bytes
// and both together served by the files on ssd during it (placement chosen
// by the previous enforce), and the same shares for two placements of the
// same capacity chosen greedily by accessed (read + written) bytes per byte: the oracle, which knows the period's reads, and the
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
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "bench/placement_online_sim.h"
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
  int reads_per_period = 20000;      // accesses (reads and writes) per period
  std::string distribution = "zipf"; // "zipf", "80-20" or "95-5" over the hot ranking
  double write_fraction = 0;         // probability that an access is a write
  bool partial = false;              // random extents instead of whole files
  int period_hours = 6;              // one enforce at the end of each period
  int shift_every = 4;               // periods between hot-set changes
  int periods = 40;
  uint64_t seed = 1;
  // FILE_HEAT model (GPFS's exponentially decaying per-file heat), measured
  // next to the policy: half-life in periods; 0 turns it off. See
  // HeatPlacement below.
  double heat_half_life = 0;
  // Online promotion (bench/placement_online_sim.h): the policy's Online="yes"
  // RELOCATEs also run between enforces, `online_steps` times a period.
  bool online = false;
  int online_steps = 24;
  // Called for every access in drawing order, for a trace (bench --trace):
  // period, file index (its ino is index + 2, its path "/dNNN/fNNNNNNN"),
  // offset and length in bytes, write or read. Empty: no trace.
  std::function<void(int period, size_t file, uint64_t offset, uint64_t length, bool write)>
      on_access;
};

// Read, write and combined shares of one placement over one period.
struct Shares {
  double read = 0, write = 0, all = 0;
};

struct PeriodResult {
  double served = 0;        // share of the period's read bytes served by files on ssd
  double oracle = 0;        // the same for the oracle placement
  double prev_oracle = 0;   // and for the previous-period oracle
  bool hot_set_seen = false;  // the hot set was the same in the period before
  uint64_t bytes_moved = 0;   // by the enforce at the end of the period (and, online, during it)
  uint64_t online_moved = 0;  // of which by online promotion during the period
  uint64_t online_promotions = 0, online_swap_outs = 0;
  uint64_t swaps = 0;         // swap-in moves of that enforce
  uint64_t ssd_used = 0;      // bytes on ssd after that enforce
  double plan_seconds = 0;    // PlanScan's wall time
  // Read / write / combined shares (served, oracle and prev_oracle above are
  // the read shares).
  Shares served_rw, oracle_rw, prev_oracle_rw;
  double read_bytes = 0, write_bytes = 0;  // the period's I/O
  // With heat_half_life > 0: the read / write / combined shares served by a
  // greedy placement by decayed heat per byte after the period before, and
  // the bytes it moved at the end of this period (in and out); and the same
  // for a greedy placement by the previous period's accesses (an IOTEMP
  // window of one period with no hysteresis, the previous-period oracle's
  // placement) for comparison.
  Shares heat_rw;
  uint64_t heat_moved = 0, window_moved = 0;
};

struct RunResult {
  std::vector<PeriodResult> periods;
  uint64_t ssd_capacity = 0;
  uint64_t stored_bytes = 0;
  std::vector<uint64_t> sizes;  // file sizes in bytes, by file index
  // Read-byte-weighted shares over every period, and over the periods whose
  // hot set had been seen for one period.
  double served = 0, oracle = 0, prev_oracle = 0;
  double served_seen = 0, oracle_seen = 0, prev_oracle_seen = 0;
  // The same, read / write / combined, byte-weighted over all periods.
  Shares served_rw, oracle_rw, prev_oracle_rw;
  Shares served_rw_seen, oracle_rw_seen, prev_oracle_rw_seen;
};

// The file path the simulation gives file `index` (also the trace's).
inline std::string SimulatedPath(size_t index) {
  char path[32];
  std::snprintf(path, sizeof path, "/d%03zu/f%07zu", index % 100, index);
  return path;
}

// The files a class of `capacity` bytes holds when filled greedily by
// `rank` (descending, ties in index order, a file that does not fit passed
// over, stopping at rank 0): OracleShare's placement, as a set.
inline std::vector<char> GreedySet(const std::vector<double>& rank,
                                   const std::vector<uint64_t>& sizes, uint64_t capacity) {
  std::vector<size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return rank[a] > rank[b]; });
  std::vector<char> in(sizes.size(), 0);
  uint64_t used = 0;
  for (size_t i : order) {
    if (rank[i] <= 0) break;
    if (sizes[i] > capacity - used) continue;
    used += sizes[i];
    in[i] = 1;
  }
  return in;
}

// Bytes moved going from placement `from` to `to` (both directions).
inline uint64_t MovedBetween(const std::vector<char>& from, const std::vector<char>& to,
                             const std::vector<uint64_t>& sizes) {
  uint64_t moved = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (from[i] != to[i]) moved += sizes[i];
  }
  return moved;
}

// Draws a rank in [0, n) for `distribution` (see WorkloadOptions); `cdf` is
// the Zipf cumulative weight over ranks (sum = cdf.back()). One uniform draw
// for "zipf", two for the others.
inline size_t DrawRank(const std::string& distribution, const std::vector<double>& cdf,
                       std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0, 1);
  const size_t n = cdf.size();
  if (distribution == "zipf") {
    const double u = unit(rng) * cdf.back();
    const size_t k = static_cast<size_t>(std::lower_bound(cdf.begin(), cdf.end(), u) -
                                         cdf.begin());
    return std::min(k, n - 1);
  }
  const double hot_access = distribution == "95-5" ? 0.95 : 0.80;
  const double hot_files = distribution == "95-5" ? 0.05 : 0.20;
  const size_t hot = std::max<size_t>(1, static_cast<size_t>(hot_files * static_cast<double>(n)));
  const bool in_hot = unit(rng) < hot_access || hot >= n;
  const double v = unit(rng);
  const size_t k = in_hot ? static_cast<size_t>(v * static_cast<double>(hot))
                          : hot + static_cast<size_t>(v * static_cast<double>(n - hot));
  return std::min(k, n - 1);
}


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
    files[i].ino = i + 2;
    files[i].path = SimulatedPath(i);
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
  result.sizes = sizes;
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
  // I/O per file per hour, newest last; the hours of one period share one vector.
  std::deque<std::shared_ptr<const std::vector<policy::IoCounters>>> history;
  std::vector<double> previous(n, 0);  // the previous period's accessed bytes per byte
  Shares served_sum, oracle_sum, prev_sum, total_sum;
  // FILE_HEAT: decayed accessed bytes per byte, and the two greedy placements.
  std::vector<double> file_heat(n, 0);
  std::vector<char> heat_set(n, 0), window_set(n, 0);
  const double decay = w.heat_half_life > 0 ? std::exp2(-1.0 / w.heat_half_life) : 0;
  OnlineSimState online_state;
  Shares seen_served_sum, seen_oracle_sum, seen_prev_sum, seen_total_sum;
  auto add = [](Shares* to, const Shares& share, double rb, double wb) {
    to->read += share.read * rb;
    to->write += share.write * wb;
    to->all += share.all * (rb + wb);
  };

  for (int p = 0; p < w.periods; ++p) {
    PeriodResult r;
    if (p % w.shift_every == 0) {
      std::shuffle(ranking.begin(), ranking.end(), rng);
    } else {
      r.hot_set_seen = true;
    }
    // The period's accesses. A whole-file read or write draws nothing more
    // than its rank, so the default workload's draws are what they were
    // before writes and extents were modelled.
    std::vector<policy::IoCounters> io(n);
    std::vector<SimAccess> accesses;  // online only
    for (int i = 0; i < w.reads_per_period; ++i) {
      const size_t f = ranking[DrawRank(w.distribution, cdf, rng)];
      const bool write = w.write_fraction > 0 && unit(rng) < w.write_fraction;
      uint64_t offset = 0, length = sizes[f];
      if (w.partial) {
        length = 1 + std::min(sizes[f] - 1, static_cast<uint64_t>(
                                                unit(rng) * static_cast<double>(sizes[f])));
        offset = static_cast<uint64_t>(unit(rng) * static_cast<double>(sizes[f] - length + 1));
        offset = std::min(offset, sizes[f] - length);
      }
      if (write) {
        io[f].wbytes += static_cast<double>(length);
        io[f].wops += 1;
      } else {
        io[f].rbytes += static_cast<double>(length);
        io[f].rops += 1;
      }
      if (w.on_access) w.on_access(p, f, offset, length, write);
      if (w.online) accesses.push_back({f, length, write});
    }
    // Online promotion during the period: the placement changes as it goes.
    OnlinePeriodResult online;
    if (w.online) {
      const int64_t period_start = kStart + static_cast<int64_t>(p) * w.period_hours * 3600;
      online = SimulateOnlinePeriod(policy, accesses, w.online_steps, period_start,
                                    static_cast<int64_t>(w.period_hours) * 3600, history,
                                    scan_order, kSsd, options, &files, &volumes, &online_state);
      r.online_moved = online.moved_bytes;
      r.online_promotions = online.promotions;
      r.online_swap_outs = online.swap_outs;
    }
    std::vector<double> read_bytes(n), write_bytes(n), all_bytes(n), heat(n);
    Shares total, on_ssd;
    for (size_t i = 0; i < n; ++i) {
      read_bytes[i] = io[i].rbytes;
      write_bytes[i] = io[i].wbytes;
      all_bytes[i] = io[i].rbytes + io[i].wbytes;
      heat[i] = all_bytes[i] / static_cast<double>(sizes[i]);
      total.read += read_bytes[i];
      total.write += write_bytes[i];
      if (!w.online && files[i].volume_id == kSsd) {
        on_ssd.read += read_bytes[i];
        on_ssd.write += write_bytes[i];
      }
    }
    if (w.online) {
      on_ssd.read = online.ssd_read_bytes;
      on_ssd.write = online.ssd_write_bytes;
    }
    total.all = total.read + total.write;
    on_ssd.all = on_ssd.read + on_ssd.write;
    auto ratio = [](double a, double b) { return b > 0 ? a / b : 0; };
    r.served_rw = {ratio(on_ssd.read, total.read), ratio(on_ssd.write, total.write),
                   ratio(on_ssd.all, total.all)};
    // The oracles rank by accessed bytes per byte of file (for whole-file
    // reads: the number of reads).
    auto oracle = [&](const std::vector<double>& rank) {
      return Shares{policy::OracleShare(rank, read_bytes, sizes, result.ssd_capacity),
                    policy::OracleShare(rank, write_bytes, sizes, result.ssd_capacity),
                    policy::OracleShare(rank, all_bytes, sizes, result.ssd_capacity)};
    };
    if (w.heat_half_life > 0) {
      Shares on_heat;
      for (size_t i = 0; i < n; ++i) {
        if (!heat_set[i]) continue;
        on_heat.read += read_bytes[i];
        on_heat.write += write_bytes[i];
      }
      on_heat.all = on_heat.read + on_heat.write;
      r.heat_rw = {ratio(on_heat.read, total.read), ratio(on_heat.write, total.write),
                   ratio(on_heat.all, total.all)};
      for (size_t i = 0; i < n; ++i) file_heat[i] = file_heat[i] * decay + heat[i];
      std::vector<char> next = GreedySet(file_heat, sizes, result.ssd_capacity);
      r.heat_moved = MovedBetween(heat_set, next, sizes);
      heat_set = std::move(next);
      next = GreedySet(heat, sizes, result.ssd_capacity);
      r.window_moved = MovedBetween(window_set, next, sizes);
      window_set = std::move(next);
    }
    r.oracle_rw = oracle(heat);
    r.prev_oracle_rw = oracle(previous);
    previous = heat;
    r.served = r.served_rw.read;
    r.oracle = r.oracle_rw.read;
    r.prev_oracle = r.prev_oracle_rw.read;
    r.read_bytes = total.read;
    r.write_bytes = total.write;
    add(&served_sum, r.served_rw, total.read, total.write);
    add(&oracle_sum, r.oracle_rw, total.read, total.write);
    add(&prev_sum, r.prev_oracle_rw, total.read, total.write);
    add(&total_sum, {1, 1, 1}, total.read, total.write);
    if (r.hot_set_seen) {
      add(&seen_served_sum, r.served_rw, total.read, total.write);
      add(&seen_oracle_sum, r.oracle_rw, total.read, total.write);
      add(&seen_prev_sum, r.prev_oracle_rw, total.read, total.write);
      add(&seen_total_sum, {1, 1, 1}, total.read, total.write);
    }

    // The period's I/O, spread over its hours.
    {
      auto hour = std::make_shared<std::vector<policy::IoCounters>>(std::move(io));
      for (policy::IoCounters& c : *hour) {
        c.rbytes /= w.period_hours;
        c.wbytes /= w.period_hours;
        c.rops /= w.period_hours;
        c.wops /= w.period_hours;
      }
      for (int h = 0; h < w.period_hours; ++h) {
        history.push_back(hour);
        if (history.size() > keep) history.pop_front();
      }
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
        const policy::IoCounters& io = (*history[b])[i];
        if (!io.Any()) continue;
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
    r.bytes_moved = applied.bytes_moved + r.online_moved;
    r.swaps = applied.swaps;
    r.ssd_used = volumes[0].total_bytes - volumes[0].free_bytes;
    result.periods.push_back(r);
  }
  auto share = [](const Shares& a, const Shares& b) {
    auto ratio = [](double x, double y) { return y > 0 ? x / y : 0; };
    return Shares{ratio(a.read, b.read), ratio(a.write, b.write), ratio(a.all, b.all)};
  };
  result.served_rw = share(served_sum, total_sum);
  result.oracle_rw = share(oracle_sum, total_sum);
  result.prev_oracle_rw = share(prev_sum, total_sum);
  result.served_rw_seen = share(seen_served_sum, seen_total_sum);
  result.oracle_rw_seen = share(seen_oracle_sum, seen_total_sum);
  result.prev_oracle_rw_seen = share(seen_prev_sum, seen_total_sum);
  result.served = result.served_rw.read;
  result.oracle = result.oracle_rw.read;
  result.prev_oracle = result.prev_oracle_rw.read;
  result.served_seen = result.served_rw_seen.read;
  result.oracle_seen = result.oracle_rw_seen.read;
  result.prev_oracle_seen = result.prev_oracle_rw_seen.read;
  return result;
}

}  // namespace tierfs::bench
