// policy_bench: the pure policy engine at scale, with no FUSE and no SQL:
// LoadPolicy() on a policy document, then PlanScan() over --files synthetic
// FileRecords, timed, with this process's peak RSS (getrusage).
//
//   policy_bench --policy FILE.xml [--files 1000000] [--seed 1]
//
// run.sh passes the Veritas paper's read-intensive template
// (tests/policy/data/ssd_read_intensive_template.xml: classes ssdtier and
// nonssdtier; IOTEMP over 3 h and 6 h windows against the 24 h average).
//
// The synthetic file system: 1000 files per directory, paths in path-name
// order (as the daemon hands them over), sizes log-uniform from 4 KiB to
// 64 MiB, 10% of the files on the ssdtier volume. 30% of the files had I/O
// in the last 24 hours; of those, 10% are read-hot (hundreds of times the
// typical read rate), 5% write-hot, the rest lukewarm. The ssdtier volume's
// free space cannot take every read-hot file, so the planner's Prefer
// ordering and free-space accounting do real work ("nospace" skips).
//
// Output (bench_util.h): "policy<TAB>metric<TAB>value".
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "policy/file_record.h"
#include "policy/loader.h"
#include "policy/planner.h"

namespace tierfs::bench {
namespace {

using policy::FileRecord;
using policy::IoCounters;

constexpr uint64_t kGiB = uint64_t{1} << 30;
constexpr uint64_t kTiB = kGiB << 10;
constexpr int64_t kNow = 1'700'000'000;  // a fixed clock: the engine is pure

std::vector<FileRecord> MakeFiles(int n, const std::vector<double>& windows, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const size_t w24 = windows.size() - 1;  // the longest window (AveragePeriod, 24 h)
  std::vector<FileRecord> files(n);
  for (int i = 0; i < n; ++i) {
    FileRecord& f = files[i];
    char path[48];
    std::snprintf(path, sizeof path, "/d%04d/f%07d", i / 1000, i);
    f.ino = static_cast<uint64_t>(i) + 2;
    f.path = path;
    f.user = "app";
    f.group = "app";
    f.uid = f.gid = 1000;
    f.size = static_cast<uint64_t>(4096.0 * std::pow(16384.0, unit(rng)));  // 4 KiB .. 64 MiB
    f.atime_s = kNow - static_cast<int64_t>(unit(rng) * 86400 * 30);
    f.mtime_s = f.atime_s - static_cast<int64_t>(unit(rng) * 86400 * 30);
    f.volume_id = unit(rng) < 0.1 ? 1 : 2;
    if (unit(rng) >= 0.3) continue;  // no I/O in the last day: empty windows
    const double kind = unit(rng);
    const double size = static_cast<double>(std::max<uint64_t>(f.size, 4096));
    double r = size * 0.5 * unit(rng), w = size * 0.1 * unit(rng);
    if (kind < 0.10)
      r = size * (50 + 500 * unit(rng));  // read-hot
    else if (kind < 0.15)
      w = size * (20 + 100 * unit(rng));  // write-hot
    f.windows.assign(windows.size(), IoCounters{});
    // Nested windows: the 3 h and 6 h windows hold a share of the 24 h I/O.
    const double share6 = 0.3 + 0.7 * unit(rng), share3 = share6 * (0.4 + 0.6 * unit(rng));
    for (size_t k = 0; k < windows.size(); ++k) {
      const double share = k == w24 ? 1.0 : (windows[k] <= 3 ? share3 : share6);
      f.windows[k] = IoCounters{r * share, w * share, std::ceil(r * share / 65536),
                                std::ceil(w * share / 65536)};
    }
  }
  return files;
}

int Main(int argc, char** argv) {
  Flags flags(argc, argv);
  const std::string policy_path = flags.Str("policy", "");
  const int n = static_cast<int>(flags.Int("files", 1'000'000));
  if (policy_path.empty() || n <= 0) {
    std::fprintf(stderr, "usage: policy_bench --policy FILE.xml [--files N] [--seed S]\n");
    return 2;
  }
  std::ifstream in(policy_path);
  if (!in) Die("open " + policy_path);
  std::stringstream xml;
  xml << in.rdbuf();

  Emit("policy", "peak_rss_kib_start", PeakRssKib());
  Timer timer;
  policy::LoadResult loaded = policy::LoadPolicy(xml.str());
  Emit("policy", "load_ms", timer.Seconds() * 1e3);
  if (!loaded.ok()) {
    for (const policy::Diagnostic& d : loaded.errors)
      std::fprintf(stderr, "%s\n", d.ToString().c_str());
    return 1;
  }
  const policy::PlacementPolicy& pol = *loaded.policy;
  const std::vector<double> windows = pol.WindowHours();
  if (windows.empty()) {
    std::fprintf(stderr, "the policy has no temperature criterion: nothing to time\n");
    return 1;
  }

  timer.Restart();
  std::vector<FileRecord> files =
      MakeFiles(n, windows, static_cast<uint64_t>(flags.Int("seed", 1)));
  Emit("policy", "make_records_s", timer.Seconds());
  Emit("policy", "peak_rss_kib_records", PeakRssKib());

  const std::vector<policy::VolumeState> volumes = {
      {1, "vol1", {"ssdtier"}, 2 * kTiB, 200 * kGiB, 20 * kGiB},
      {2, "vol2", {"nonssdtier"}, 100 * kTiB, 50 * kTiB, 1 * kTiB}};

  // The file-system activity for Average="*", as the daemon sums it per scan.
  timer.Restart();
  policy::ActivityTotals totals;
  for (const FileRecord& f : files) {
    if (!f.windows.empty()) policy::AddActivity(f.windows.back(), f.size, &totals);
  }
  Emit("policy", "totals_s", timer.Seconds());

  timer.Restart();
  policy::ScanPlan plan = policy::PlanScan(pol, files, volumes, totals, kNow);
  const double plan_s = timer.Seconds();
  Emit("policy", "files", n);
  Emit("policy", "plan_s", plan_s);
  Emit("policy", "plan_ns_per_file", plan_s * 1e9 / n);
  Emit("policy", "files_scanned", static_cast<double>(plan.files_scanned));
  Emit("policy", "moves", static_cast<double>(plan.moves.size()));
  Emit("policy", "skipped_nospace", static_cast<double>(plan.skipped.size()));
  Emit("policy", "stays", static_cast<double>(plan.stays.size()));
  Emit("policy", "peak_rss_kib_end", PeakRssKib());
  return 0;
}

}  // namespace
}  // namespace tierfs::bench

int main(int argc, char** argv) { return tierfs::bench::Main(argc, argv); }
