// scan_scale_bench: fills the database of an unmounted tierfs (made by
// `mkdstfs --no-mount`) with many regular files and their I/O history, so that
// a real `fsppadm analyze` / `enforce` can be timed at a scale that creating
// files through FUSE would take hours to reach. bench/scan_scale.sh drives it.
//
//   scan_scale_bench --db SSDDIR/.tierfs/meta.db [--files 1000000] [--per_dir 1000]
//                    [--ssd_share 0.1] [--active 0.3] [--hot 0.1] [--seed 1]
//                    [--history 24]
//
// The files: `--per_dir` per directory (/d00000/f000000 ...), sizes
// log-uniform from 4 KiB to 1 MiB, a `--ssd_share` of them on volume 1 (the
// metadata volume, class ssd), the rest on volume 2. Their objects are not
// made: a scan reads only the database, and an enforce of such a file fails
// its copy (so time `analyze`, which plans exactly what enforce would).
// I/O: an `--active` share of the files had reads in each of the last
// `--history` iostat buckets (24 by default); a `--hot` share of those read
// 100 times more. The hot files are
// drawn independently of where the files are, so the ssd volume holds mostly
// cold files and the planner has hot candidates to swap in.
//
// Output (bench_util.h): "scale<TAB>metric<TAB>value".
#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "common/clock.h"
#include "meta/metadata.h"

namespace tierfs::bench {
namespace {

int Run(const Flags& flags) {
  const std::string db = flags.Str("db", "");
  if (db.empty()) {
    std::fprintf(stderr, "scan_scale_bench: --db PATH is required\n");
    return 2;
  }
  const int64_t files = flags.Int("files", 1'000'000);
  const int64_t per_dir = std::max<int64_t>(1, flags.Int("per_dir", 1000));
  const double ssd_share = flags.Double("ssd_share", 0.1);
  const double active = flags.Double("active", 0.3);
  const double hot = flags.Double("hot", 0.1);
  // Buckets of history per active file, newest first (24: the last day;
  // 744: the 31 days the default retention keeps of hourly buckets).
  const int64_t history = std::max<int64_t>(1, flags.Int("history", 24));
  std::mt19937_64 rng(static_cast<uint64_t>(flags.Int("seed", 1)));
  std::uniform_real_distribution<double> unit(0, 1);

  auto opened = meta::Metadata::Open(db, meta::MetadataOptions{});
  if (!opened.ok()) {
    std::fprintf(stderr, "scan_scale_bench: %s\n", opened.status().ToString().c_str());
    return 1;
  }
  meta::Metadata& meta = **opened;
  auto info = meta.GetFsInfo();
  if (!info.ok()) return 1;
  const int64_t bucket = info->iostat_bucket_seconds;
  // Changes gather in large groups, as the daemon's writeback does.
  meta.StartGroupCommit(std::chrono::microseconds(200'000), nullptr);

  Timer timer;
  std::vector<meta::IoDelta> deltas;
  const int64_t now_s = SystemClock::Get().NowSeconds();
  const int64_t current = now_s / bucket * bucket;
  uint64_t dir = 0;
  char name[32];
  for (int64_t i = 0; i < files; ++i) {
    if (i % per_dir == 0) {
      std::snprintf(name, sizeof name, "d%05lld", static_cast<long long>(i / per_dir));
      meta::Inode proto;
      proto.mode = S_IFDIR | 0755;
      auto made = meta.Create(meta::kRootIno, name, proto);
      if (!made.ok()) {
        std::fprintf(stderr, "scan_scale_bench: %s\n", made.status().ToString().c_str());
        return 1;
      }
      dir = made->ino;
    }
    std::snprintf(name, sizeof name, "f%06lld", static_cast<long long>(i % per_dir));
    meta::Inode proto;
    proto.mode = S_IFREG | 0644;
    proto.volume_id = unit(rng) < ssd_share ? 1 : 2;
    auto made = meta.Create(dir, name, proto);
    if (!made.ok()) {
      std::fprintf(stderr, "scan_scale_bench: %s\n", made.status().ToString().c_str());
      return 1;
    }
    meta::Inode sized = *made;
    sized.size = static_cast<uint64_t>(std::exp(std::log(4096.0) + unit(rng) * std::log(256.0)));
    if (auto r = meta.UpdateAttributes(sized, meta::kAttrSize); !r.ok()) return 1;
    if (unit(rng) < active) {
      const uint64_t scale = unit(rng) < hot ? 100 : 1;
      for (int64_t b = 0; b < history; ++b) {
        deltas.push_back({made->ino, current - b * bucket, scale * sized.size, 0, scale, 0});
      }
    }
    if (deltas.size() >= 100'000 || i + 1 == files) {
      if (Status st = meta.AddIoStats(deltas); !st.ok()) {
        std::fprintf(stderr, "scan_scale_bench: %s\n", st.ToString().c_str());
        return 1;
      }
      deltas.clear();
    }
  }
  if (!meta.Sync().ok()) return 1;
  Emit("scale", "files", static_cast<double>(files));
  Emit("scale", "fill_seconds", timer.Seconds());
  return 0;
}

}  // namespace
}  // namespace tierfs::bench

int main(int argc, char** argv) { return tierfs::bench::Run(tierfs::bench::Flags(argc, argv)); }
