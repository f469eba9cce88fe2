// placement_bench: how much of a shifting hot set's reads the ssd class
// serves under a policy, with and without the planner's swapping, against
// the oracles (bench/placement_sim.h has the model). Run by hand from the
// source tree; reported in docs/benchmarks.md ("Placement under a shifting
// hot set").
//
//   placement_bench [--policy docs/examples/shifting_hot_set.xml] [--files 2000]
//                   [--ssd_share 0.10] [--zipf 1.0] [--reads 20000] [--period_hours 6]
//                   [--shift_every 4] [--periods 40] [--seed 1] [--hysteresis F]
//                   [--per_period]
//
// stdout (bench_util.h): "placement<TAB>metric<TAB>value" for each of
// swap=on and swap=off: the shares over all periods and over the periods
// whose hot set had been seen for one period, bytes moved per period as a
// share of the ssd class (over all periods, and over the enforces that end
// a period whose hot set was the same as the period before's: churn), the
// ssd class's lowest fill, and the slowest PlanScan.
// With --per_period, also one line per period:
// "period<TAB>swap<TAB>p<TAB>served<TAB>oracle<TAB>prev_oracle<TAB>seen<TAB>moved_bytes<TAB>swaps".
#include <algorithm>
#include <cstdio>
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
  const policy::PlacementPolicy pol =
      Load(flags.Str("policy", "docs/examples/shifting_hot_set.xml"));
  const bool per_period = flags.Bool("per_period");

  for (bool swap : {true, false}) {
    policy::PlanOptions options;
    options.swap = swap;
    if (flags.Str("hysteresis", "") != "") options.swap_hysteresis = flags.Double("hysteresis", 0);
    const RunResult r = RunShiftingHotSet(pol, w, options);
    const std::string group = swap ? "placement_swap" : "placement_noswap";
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
      if (per_period) {
        std::printf("period\t%s\t%zu\t%.4f\t%.4f\t%.4f\t%d\t%llu\t%llu\n", swap ? "on" : "off", p,
                    x.served, x.oracle, x.prev_oracle, x.hot_set_seen ? 1 : 0,
                    static_cast<unsigned long long>(x.bytes_moved),
                    static_cast<unsigned long long>(x.swaps));
      }
    }
    Emit(group, "served_share", r.served);
    Emit(group, "oracle_share", r.oracle);
    Emit(group, "prev_oracle_share", r.prev_oracle);
    Emit(group, "served_share_seen", r.served_seen);
    Emit(group, "oracle_share_seen", r.oracle_seen);
    Emit(group, "prev_oracle_share_seen", r.prev_oracle_seen);
    Emit(group, "moved_per_period_of_ssd",
         moved / static_cast<double>(r.periods.size()) / static_cast<double>(r.ssd_capacity));
    Emit(group, "moved_stable_per_period_of_ssd",
         stable == 0 ? 0 : moved_stable / stable / static_cast<double>(r.ssd_capacity));
    Emit(group, "min_ssd_fill_after_first", fill_min);
    Emit(group, "slowest_plan_seconds", slowest);
  }
  return 0;
}

}  // namespace
}  // namespace tierfs::bench

int main(int argc, char** argv) { return tierfs::bench::Main(argc, argv); }
