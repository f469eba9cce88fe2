#include "policy/replay.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "policy/oracle_placement.h"
#include "policy/plan_apply.h"

namespace tierfs::policy {
namespace {

constexpr int64_t kSecondsPerHour = 3600;

// What the replay keeps per volume.
struct VolumeInfo {
  VolumeState state;     // as of history.now_s
  uint64_t other_used = 0;  // bytes held by anything but the history's files
  bool fast = false;
};

std::vector<VolumeInfo> DescribeVolumes(const IoHistory& history,
                                        const std::vector<std::string>& fast_classes) {
  std::vector<VolumeInfo> out;
  for (const VolumeState& v : history.volumes) {
    VolumeInfo info{v, 0, false};
    for (const std::string& c : fast_classes) info.fast = info.fast || v.HasClass(c);
    uint64_t files = 0;
    for (const HistoryFile& f : history.files) {
      if (f.record.volume_id == v.id) files += f.record.size;
    }
    const uint64_t used = v.total_bytes > v.free_bytes ? v.total_bytes - v.free_bytes : 0;
    info.other_used = used > files ? used - files : 0;
    out.push_back(info);
  }
  return out;
}

// The index in `volumes` of volume `id`, or -1.
int IndexOf(const std::vector<VolumeInfo>& volumes, uint32_t id) {
  for (size_t i = 0; i < volumes.size(); ++i) {
    if (volumes[i].state.id == id) return static_cast<int>(i);
  }
  return -1;
}

bool Exists(const HistoryFile& f, int64_t t) {
  return f.record.mtime_s < t || (!f.buckets.empty() && f.buckets.front().start_s < t);
}

// The file's atime (reads) or mtime (writes) as of instant t (see the top of replay.h).
int64_t TimeAt(const HistoryFile& f, int64_t now_value, bool reads, int64_t t,
               int64_t bucket_seconds) {
  if (now_value < t) return now_value;
  for (auto it = f.buckets.rbegin(); it != f.buckets.rend(); ++it) {
    if (it->start_s >= t) continue;
    const bool hit = reads ? (it->io.rbytes > 0 || it->io.rops > 0)
                           : (it->io.wbytes > 0 || it->io.wops > 0);
    if (hit) return std::min(it->start_s + bucket_seconds, t);
  }
  return t;
}

// Index of the first bucket of `f` starting at or after `t`.
size_t FirstAtOrAfter(const HistoryFile& f, int64_t t) {
  return static_cast<size_t>(
      std::lower_bound(f.buckets.begin(), f.buckets.end(), t,
                       [](const HistoryBucket& b, int64_t s) { return b.start_s < s; }) -
      f.buckets.begin());
}

// Read + written bytes of `f` in the buckets starting in [from, to).
double BytesIn(const HistoryFile& f, int64_t from, int64_t to) {
  double bytes = 0;
  for (size_t i = FirstAtOrAfter(f, from); i < f.buckets.size() && f.buckets[i].start_s < to;
       ++i) {
    bytes += f.buckets[i].io.rbytes + f.buckets[i].io.wbytes;
  }
  return bytes;
}

// The placement (volume id per file) as of instant t1: the current one with the
// relocations committed at or after t1 undone.
std::vector<uint32_t> PlacementAt(const IoHistory& history, int64_t t1) {
  std::unordered_map<uint64_t, size_t> index;
  std::vector<uint32_t> placement(history.files.size());
  for (size_t i = 0; i < history.files.size(); ++i) {
    placement[i] = history.files[i].record.volume_id;
    index.emplace(history.files[i].record.ino, i);
  }
  std::vector<HistoryRelocation> later;
  for (const HistoryRelocation& r : history.relocations) {
    if (r.time_s >= t1) later.push_back(r);
  }
  // Newest first, so the oldest relocation after t1 sets the file's volume last.
  std::stable_sort(later.begin(), later.end(),
                   [](const HistoryRelocation& a, const HistoryRelocation& b) {
                     return a.time_s > b.time_s;
                   });
  for (const HistoryRelocation& r : later) {
    if (auto it = index.find(r.ino); it != index.end()) placement[it->second] = r.from_volume;
  }
  return placement;
}

}  // namespace

Result<ReplayWindow> ChooseReplayWindow(const IoHistory& history, int64_t interval_s) {
  const int64_t bucket = history.bucket_seconds;
  if (bucket <= 0) return Status::Invalid("the heat bucket length must be positive");
  if (interval_s <= 0 || interval_s % bucket != 0) {
    return Status::Invalid("the enforce interval (" + std::to_string(interval_s) +
                           " s) must be a positive multiple of the heat bucket (" +
                           std::to_string(bucket) + " s)");
  }
  ReplayWindow w;
  w.interval_s = interval_s;
  int64_t first = std::numeric_limits<int64_t>::max(), last = std::numeric_limits<int64_t>::min();
  for (const HistoryFile& f : history.files) {
    if (f.buckets.empty()) continue;
    first = std::min(first, f.buckets.front().start_s);
    last = std::max(last, f.buckets.back().start_s);
  }
  if (first > last) {  // no bucket at all
    w.start_s = (history.now_s / bucket + 1) * bucket;
    return w;
  }
  const int64_t end = last + bucket;
  w.first_bucket_s = first;
  w.periods = static_cast<int>(std::min<int64_t>((end - first) / interval_s, 1'000'000));
  w.start_s = end - interval_s * w.periods;
  return w;
}

ReplayResult ReplayPolicy(const PlacementPolicy& policy, const IoHistory& history,
                          const ReplayOptions& options) {
  ReplayResult result;
  const ReplayWindow& w = options.window;
  if (w.periods < 2) return result;
  const int64_t bucket = history.bucket_seconds;
  const std::vector<VolumeInfo> volumes = DescribeVolumes(history, options.fast_classes);
  const size_t n = history.files.size();
  std::vector<uint32_t> placement = PlacementAt(history, w.start_s + w.interval_s);
  std::unordered_map<uint64_t, size_t> by_ino;
  for (size_t i = 0; i < n; ++i) by_ino.emplace(history.files[i].record.ino, i);

  const std::vector<double> window_hours = policy.WindowHours();
  const double longest_hours = window_hours.empty() ? 0 : window_hours.back();
  const auto average_at =
      std::find(window_hours.begin(), window_hours.end(), policy.average_period_hours);
  const bool uses_average = policy.UsesAverage() && average_at != window_hours.end();

  for (int k = 1; k < w.periods; ++k) {
    const int64_t t = w.start_s + w.interval_s * k;
    // Buckets that can overlap a window ending at t.
    const int64_t since = t - static_cast<int64_t>(std::ceil(longest_hours * kSecondsPerHour)) -
                          bucket;
    std::vector<FileRecord> records;
    std::vector<uint64_t> placed(volumes.size(), 0);
    ActivityTotals totals;
    records.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      const HistoryFile& f = history.files[i];
      if (!Exists(f, t)) continue;
      FileRecord rec = f.record;
      rec.volume_id = placement[i];
      rec.atime_s = TimeAt(f, f.record.atime_s, /*reads=*/true, t, bucket);
      rec.mtime_s = TimeAt(f, f.record.mtime_s, /*reads=*/false, t, bucket);
      rec.windows.clear();
      if (!window_hours.empty()) {
        for (size_t b = FirstAtOrAfter(f, since); b < f.buckets.size() && f.buckets[b].start_s < t;
             ++b) {
          AccumulateBucket(window_hours, t, f.buckets[b].start_s, bucket, f.buckets[b].io,
                           &rec.windows);
        }
      }
      if (uses_average && !rec.windows.empty()) {
        AddActivity(rec.windows[static_cast<size_t>(average_at - window_hours.begin())], rec.size,
                    &totals);
      }
      if (int v = IndexOf(volumes, rec.volume_id); v >= 0) {
        placed[static_cast<size_t>(v)] += rec.size;
      }
      records.push_back(std::move(rec));
    }
    std::vector<VolumeState> space;
    for (size_t v = 0; v < volumes.size(); ++v) {
      VolumeState s = volumes[v].state;
      const uint64_t used = volumes[v].other_used + placed[v];
      s.free_bytes = s.total_bytes > used ? s.total_bytes - used : 0;
      space.push_back(s);
    }
    const ScanPlan plan = PlanScan(policy, records, space, totals, t, options.plan);
    const AppliedPlan applied = ApplyPlan(plan, &space, [&](const PlannedMove& m) {
      if (m.action != FileVerdict::kRelocate) return;  // a deleted file stays (see top)
      if (auto it = by_ino.find(m.ino); it != by_ino.end()) placement[it->second] = m.to_volume;
    });

    ReplayPeriod p;
    p.start_s = t;
    p.bytes_moved = applied.bytes_moved;
    p.files_moved = applied.files_moved;
    p.files_deleted = applied.files_deleted;
    p.swaps = applied.swaps;
    for (size_t i = 0; i < n; ++i) {
      const int v = IndexOf(volumes, placement[i]);
      const bool fast = v >= 0 && volumes[static_cast<size_t>(v)].fast;
      if (fast && Exists(history.files[i], t)) p.fast_used_bytes += history.files[i].record.size;
      const double bytes = BytesIn(history.files[i], t, t + w.interval_s);
      p.io_bytes += bytes;
      if (fast) p.served_bytes += bytes;
    }
    result.io_bytes += p.io_bytes;
    result.served_bytes += p.served_bytes;
    result.bytes_moved += p.bytes_moved;
    result.files_moved += p.files_moved;
    result.files_deleted += p.files_deleted;
    result.swaps += p.swaps;
    result.periods.push_back(p);
  }
  result.served_share = result.io_bytes > 0 ? result.served_bytes / result.io_bytes : 0;
  return result;
}

OracleReplay ReplayOracles(const IoHistory& history, const ReplayOptions& options) {
  OracleReplay out;
  const ReplayWindow& w = options.window;
  const std::vector<VolumeInfo> volumes = DescribeVolumes(history, options.fast_classes);
  for (const VolumeInfo& v : volumes) {
    if (!v.fast) continue;
    const uint64_t taken = v.other_used + v.state.reserve_bytes;
    out.fast_room_bytes += v.state.total_bytes > taken ? v.state.total_bytes - taken : 0;
  }
  if (w.periods < 2) return out;
  const size_t n = history.files.size();
  std::vector<uint64_t> sizes(n);
  for (size_t i = 0; i < n; ++i) sizes[i] = std::max<uint64_t>(history.files[i].record.size, 1);
  auto heat_of = [&](const std::vector<double>& bytes) {
    std::vector<double> heat(n);
    for (size_t i = 0; i < n; ++i) heat[i] = bytes[i] / static_cast<double>(sizes[i]);
    return heat;
  };
  std::vector<double> previous(n);
  for (size_t i = 0; i < n; ++i) {
    previous[i] = BytesIn(history.files[i], w.start_s, w.start_s + w.interval_s);
  }
  double total = 0, oracle = 0, prev = 0;
  for (int k = 1; k < w.periods; ++k) {
    const int64_t t = w.start_s + w.interval_s * k;
    std::vector<double> bytes(n);
    double period_total = 0;
    for (size_t i = 0; i < n; ++i) {
      bytes[i] = BytesIn(history.files[i], t, t + w.interval_s);
      period_total += bytes[i];
    }
    const double o = OracleShare(heat_of(bytes), bytes, sizes, out.fast_room_bytes);
    const double po = OracleShare(heat_of(previous), bytes, sizes, out.fast_room_bytes);
    out.oracle_share.push_back(o);
    out.prev_oracle_share.push_back(po);
    total += period_total;
    oracle += o * period_total;
    prev += po * period_total;
    previous = std::move(bytes);
  }
  out.oracle = total > 0 ? oracle / total : 0;
  out.prev_oracle = total > 0 ? prev / total : 0;
  return out;
}

}  // namespace tierfs::policy
