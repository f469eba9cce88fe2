// placement_bench: how much of a shifting hot set's reads the ssd class
// serves under a policy, with and without the planner's swapping, against
// the oracles (bench/placement_sim.h has the model). Run by hand from the
// source tree; reported in docs/benchmarks.md ("Placement under a shifting
// hot set").
//
//   placement_bench [--policy docs/examples/shifting_hot_set.xml] [--files 2000]
//                   [--ssd_share 0.10] [--zipf 1.0] [--reads 20000] [--period_hours 6]
//                   [--shift_every 4] [--periods 40] [--seed 1] [--hysteresis F]
//                   [--distribution zipf|80-20|95-5] [--write_fraction 0] [--partial]
//                   [--heat_half_life PERIODS] [--per_period] [--csv FILE] [--trace FILE]
//                   [--online] [--online_steps 24]
//
// stdout (bench_util.h): "placement<TAB>metric<TAB>value" for each of
// swap=on and swap=off: the shares over all periods and over the periods
// whose hot set had been seen for one period, bytes moved per period as a
// share of the ssd class (over all periods, and over the enforces that end
// a period whose hot set was the same as the period before's: churn), the
// ssd class's lowest fill, and the slowest PlanScan.
// The shares are of read bytes; "_write" and "_all" variants give the
// shares of written bytes and of both (with --write_fraction > 0).
// With --per_period, also one line per period:
// "period<TAB>swap<TAB>p<TAB>served<TAB>oracle<TAB>prev_oracle<TAB>seen<TAB>moved_bytes<TAB>swaps".
// --csv FILE writes one row per run and period (header in the first line:
// swap, period, seen, the read/write/all shares of the policy and both
// oracles, bytes moved and as a share of the ssd class, swaps, ssd fill,
// PlanScan seconds), which bench/plot_placement.py draws.
// --online adds a third run, "online": swapping on and the policy's RELOCATE
// also run online (Online="yes" is set on every RELOCATE of the policy as
// loaded), evaluated --online_steps times a period (bench/placement_online_sim.h);
// its lines are "placement_online", its CSV rows swap=online.
// --trace FILE writes the workload (of the swap=on run; the accesses are the
// same in both) for bench/placement_mount.py: a header line
// "files<TAB>N<TAB>ssd_capacity<TAB>BYTES", one line "file<TAB>index<TAB>path<TAB>size"
// per file, then per access "period<TAB>index<TAB>offset<TAB>length<TAB>r|w".
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "bench/bench_util.h"
#include "bench/placement_sim.h"
#include "policy/loader.h"

namespace tierfs::bench {
namespace {

policy::PlacementPolicy Load(const std::string& path) {
  std::ifstream in(path);
  if (!in) Die("cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  policy::LoadResult r = policy::LoadPolicy(text.str());
  if (!r.ok()) {
    for (const auto& d : r.errors) std::fprintf(stderr, "%s\n", d.ToString().c_str());
    Die("cannot load " + path);
  }
  return *r.policy;
}

// A bad option value: says which and exits 2 (Die would append errno).
[[noreturn]] void BadFlag(const std::string& what) {
  std::fprintf(stderr, "placement_bench: %s\n", what.c_str());
  std::exit(2);
}

int Main(int argc, char** argv) {
  Flags flags(argc, argv);
  WorkloadOptions w;
  w.files = static_cast<int>(flags.Int("files", w.files));
  w.ssd_share = flags.Double("ssd_share", w.ssd_share);
  w.zipf_s = flags.Double("zipf", w.zipf_s);
  w.reads_per_period = static_cast<int>(flags.Int("reads", w.reads_per_period));
  w.period_hours = static_cast<int>(flags.Int("period_hours", w.period_hours));
  w.shift_every = static_cast<int>(flags.Int("shift_every", w.shift_every));
  w.periods = static_cast<int>(flags.Int("periods", w.periods));
  w.seed = static_cast<uint64_t>(flags.Int("seed", 1));
  w.distribution = flags.Str("distribution", w.distribution);
  if (w.distribution != "zipf" && w.distribution != "80-20" && w.distribution != "95-5") {
    BadFlag("--distribution must be zipf, 80-20 or 95-5, not " + w.distribution);
  }
  w.write_fraction = flags.Double("write_fraction", w.write_fraction);
  if (!(w.write_fraction >= 0 && w.write_fraction <= 1)) BadFlag("--write_fraction must be in [0, 1]");
  w.partial = flags.Bool("partial");
  w.heat_half_life = flags.Double("heat_half_life", 0);
  if (!(w.heat_half_life >= 0)) BadFlag("--heat_half_life must be >= 0 (periods)");
  const std::string csv_path = flags.Str("csv", "");
  const std::string trace_path = flags.Str("trace", "");
  std::FILE* csv = nullptr;
  if (!csv_path.empty()) {
    csv = std::fopen(csv_path.c_str(), "w");
    if (csv == nullptr) Die("--csv: cannot write " + csv_path);
    std::fprintf(csv,
                 "swap,period,seen,served_read,served_write,served_all,oracle_read,oracle_write,"
                 "oracle_all,prev_oracle_read,prev_oracle_write,prev_oracle_all,read_bytes,"
                 "write_bytes,bytes_moved,moved_of_ssd,swaps,ssd_fill,plan_seconds\n");
  }
  std::FILE* trace = nullptr;
  if (!trace_path.empty()) {
    trace = std::fopen(trace_path.c_str(), "w");
    if (trace == nullptr) Die("--trace: cannot write " + trace_path);
  }
  const policy::PlacementPolicy pol =
      Load(flags.Str("policy", "docs/examples/shifting_hot_set.xml"));
  const bool per_period = flags.Bool("per_period");
  const bool with_online = flags.Bool("online");
  const int online_steps = static_cast<int>(flags.Int("online_steps", 24));
  if (online_steps < 1) BadFlag("--online_steps must be at least 1");
  policy::PlacementPolicy online_pol = pol;
  for (policy::Rule& rule : online_pol.rules) {
    for (policy::Statement& st : rule.statements) {
      if (st.kind == policy::Statement::kRelocate) st.online = true;
    }
  }

  std::vector<std::string> runs = {"on", "off"};
  if (with_online) runs.push_back("online");
  for (const std::string& mode : runs) {
    const bool swap = mode != "off";
    const bool online = mode == "online";
    policy::PlanOptions options;
    options.swap = swap;
    if (flags.Str("hysteresis", "") != "") options.swap_hysteresis = flags.Double("hysteresis", 0);
    WorkloadOptions run = w;
    run.online = online;
    run.online_steps = online_steps;
    if (trace != nullptr && mode == "on") {
      run.on_access = [trace](int period, size_t file, uint64_t offset, uint64_t length,
                              bool write) {
        std::fprintf(trace, "%d\t%zu\t%llu\t%llu\t%c\n", period, file,
                     static_cast<unsigned long long>(offset),
                     static_cast<unsigned long long>(length), write ? 'w' : 'r');
      };
      // The file table first: the simulation draws sizes before any access,
      // so a dry run with no accesses and the same seed gives them.
      WorkloadOptions sizes_only = w;
      sizes_only.periods = 0;
      const RunResult shape = RunShiftingHotSet(pol, sizes_only, options);
      std::fprintf(trace, "files\t%d\tssd_capacity\t%llu\n", w.files,
                   static_cast<unsigned long long>(shape.ssd_capacity));
      for (size_t i = 0; i < shape.sizes.size(); ++i) {
        std::fprintf(trace, "file\t%zu\t%s\t%llu\n", i, SimulatedPath(i).c_str(),
                     static_cast<unsigned long long>(shape.sizes[i]));
      }
    }
    const RunResult r = RunShiftingHotSet(online ? online_pol : pol, run, options);
    const std::string group =
        online ? "placement_online" : swap ? "placement_swap" : "placement_noswap";
    double moved = 0, moved_stable = 0, fill_min = 1, slowest = 0;
    int stable = 0;
    for (size_t p = 0; p < r.periods.size(); ++p) {
      const PeriodResult& x = r.periods[p];
      moved += static_cast<double>(x.bytes_moved);
      if (x.hot_set_seen) {  // the enforce after a second period of the same hot set
        moved_stable += static_cast<double>(x.bytes_moved);
        ++stable;
      }
      slowest = std::max(slowest, x.plan_seconds);
      if (p > 0) {
        fill_min = std::min(fill_min, static_cast<double>(x.ssd_used) /
                                          static_cast<double>(r.ssd_capacity));
      }
      if (csv != nullptr) {
        std::fprintf(csv,
                     "%s,%zu,%d,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.0f,%.0f,%llu,%.5f,"
                     "%llu,%.5f,%.4f\n",
                     mode.c_str(), p, x.hot_set_seen ? 1 : 0, x.served_rw.read,
                     x.served_rw.write, x.served_rw.all, x.oracle_rw.read, x.oracle_rw.write,
                     x.oracle_rw.all, x.prev_oracle_rw.read, x.prev_oracle_rw.write,
                     x.prev_oracle_rw.all, x.read_bytes, x.write_bytes,
                     static_cast<unsigned long long>(x.bytes_moved),
                     static_cast<double>(x.bytes_moved) / static_cast<double>(r.ssd_capacity),
                     static_cast<unsigned long long>(x.swaps),
                     static_cast<double>(x.ssd_used) / static_cast<double>(r.ssd_capacity),
                     x.plan_seconds);
      }
      if (per_period) {
        std::printf("period\t%s\t%zu\t%.4f\t%.4f\t%.4f\t%d\t%llu\t%llu\n", mode.c_str(), p,
                    x.served, x.oracle, x.prev_oracle, x.hot_set_seen ? 1 : 0,
                    static_cast<unsigned long long>(x.bytes_moved),
                    static_cast<unsigned long long>(x.swaps));
      }
    }
    {
      // The first periods of new hot sets (not the very first period): what
      // online promotion is for.
      double served_new = 0, oracle_new = 0, prev_new = 0, total_new = 0, online_moved = 0;
      for (size_t p = 1; p < r.periods.size(); ++p) {
        const PeriodResult& x = r.periods[p];
        online_moved += static_cast<double>(x.online_moved);
        if (x.hot_set_seen) continue;
        served_new += x.served * x.read_bytes;
        oracle_new += x.oracle * x.read_bytes;
        prev_new += x.prev_oracle * x.read_bytes;
        total_new += x.read_bytes;
      }
      if (total_new > 0) {
        Emit(group, "served_share_new", served_new / total_new);
        Emit(group, "oracle_share_new", oracle_new / total_new);
        Emit(group, "prev_oracle_share_new", prev_new / total_new);
      }
      if (online) {
        Emit(group, "online_moved_per_period_of_ssd",
             online_moved / static_cast<double>(r.periods.size()) /
                 static_cast<double>(r.ssd_capacity));
      }
    }
    Emit(group, "served_share", r.served);
    Emit(group, "oracle_share", r.oracle);
    Emit(group, "prev_oracle_share", r.prev_oracle);
    Emit(group, "served_share_seen", r.served_seen);
    Emit(group, "oracle_share_seen", r.oracle_seen);
    Emit(group, "prev_oracle_share_seen", r.prev_oracle_seen);
    if (w.write_fraction > 0) {
      Emit(group, "served_share_write", r.served_rw.write);
      Emit(group, "oracle_share_write", r.oracle_rw.write);
      Emit(group, "prev_oracle_share_write", r.prev_oracle_rw.write);
      Emit(group, "served_share_all", r.served_rw.all);
      Emit(group, "oracle_share_all", r.oracle_rw.all);
      Emit(group, "prev_oracle_share_all", r.prev_oracle_rw.all);
      Emit(group, "served_share_all_seen", r.served_rw_seen.all);
      Emit(group, "oracle_share_all_seen", r.oracle_rw_seen.all);
      Emit(group, "prev_oracle_share_all_seen", r.prev_oracle_rw_seen.all);
    }
    if (w.heat_half_life > 0 && swap) {
      // FILE_HEAT vs an IOTEMP window, both as plain greedy placements.
      Shares heat, heat_seen, total, total_seen;
      double heat_moved = 0, heat_moved_stable = 0, window_moved = 0, window_moved_stable = 0;
      int stable_n = 0;
      for (const PeriodResult& x : r.periods) {
        const double all = x.read_bytes + x.write_bytes;
        heat.read += x.heat_rw.read * x.read_bytes;
        heat.all += x.heat_rw.all * all;
        total.read += x.read_bytes;
        total.all += all;
        heat_moved += static_cast<double>(x.heat_moved);
        window_moved += static_cast<double>(x.window_moved);
        if (x.hot_set_seen) {
          heat_seen.read += x.heat_rw.read * x.read_bytes;
          heat_seen.all += x.heat_rw.all * all;
          total_seen.read += x.read_bytes;
          total_seen.all += all;
          heat_moved_stable += static_cast<double>(x.heat_moved);
          window_moved_stable += static_cast<double>(x.window_moved);
          ++stable_n;
        }
      }
      const double cap = static_cast<double>(r.ssd_capacity);
      const double np = static_cast<double>(r.periods.size());
      Emit("file_heat", "served_share", total.read > 0 ? heat.read / total.read : 0);
      Emit("file_heat", "served_share_seen",
           total_seen.read > 0 ? heat_seen.read / total_seen.read : 0);
      Emit("file_heat", "served_share_all", total.all > 0 ? heat.all / total.all : 0);
      Emit("file_heat", "moved_per_period_of_ssd", heat_moved / np / cap);
      Emit("file_heat", "moved_stable_per_period_of_ssd",
           stable_n ? heat_moved_stable / stable_n / cap : 0);
      Emit("iotemp_window_greedy", "moved_per_period_of_ssd", window_moved / np / cap);
      Emit("iotemp_window_greedy", "moved_stable_per_period_of_ssd",
           stable_n ? window_moved_stable / stable_n / cap : 0);
    }
    Emit(group, "moved_per_period_of_ssd",
         moved / static_cast<double>(r.periods.size()) / static_cast<double>(r.ssd_capacity));
    Emit(group, "moved_stable_per_period_of_ssd",
         stable == 0 ? 0 : moved_stable / stable / static_cast<double>(r.ssd_capacity));
    Emit(group, "min_ssd_fill_after_first", fill_min);
    Emit(group, "slowest_plan_seconds", slowest);
  }
  if (csv != nullptr) std::fclose(csv);
  if (trace != nullptr) std::fclose(trace);
  return 0;
}

}  // namespace
}  // namespace tierfs::bench

int main(int argc, char** argv) { return tierfs::bench::Main(argc, argv); }
