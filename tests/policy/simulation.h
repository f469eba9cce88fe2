// A simulated file system on a fake clock, for behaviour tests of policies.
//
// Each file has a load function giving its I/O for every hour. Step() adds
// one hour of iostat buckets, rebuilds every FileRecord's windows from all
// buckets with AccumulateBucket (as fs/ would from meta/), computes the
// ActivityTotals over the AveragePeriod, runs PlanScan, and applies the
// planned moves to the records and the volumes' free space.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "policy/file_record.h"
#include "policy/planner.h"
#include "policy/policy.h"
#include "policy/volume_state.h"

namespace tierfs::policy::testing {

class Simulation {
 public:
  using Load = std::function<IoCounters(int hour)>;
  static constexpr int64_t kStart = 1'700'000'000 / 3600 * 3600;  // an hour boundary

  Simulation(PlacementPolicy policy, std::vector<VolumeState> volumes)
      : policy_(std::move(policy)), volumes_(std::move(volumes)) {}

  // Adds a file of `size` bytes on `volume`; its space is taken from the volume.
  void AddFile(const std::string& path, uint64_t size, uint32_t volume, Load load) {
    Sim f;
    f.rec.ino = files_.size() + 2;
    f.rec.path = path;
    f.rec.size = size;
    f.rec.volume_id = volume;
    f.rec.atime_s = f.rec.mtime_s = kStart;
    f.load = std::move(load);
    Find(volume)->free_bytes -= size;
    files_.push_back(std::move(f));
  }

  // Simulates hour `hour_` (its I/O), then scans at its end. Returns the plan.
  ScanPlan Step() {
    for (Sim& f : files_) f.buckets.push_back(f.load(hour_));
    ++hour_;
    const int64_t now = kStart + hour_ * 3600;
    const std::vector<double> hours = policy_.WindowHours();
    const auto avg_at = std::find(hours.begin(), hours.end(), policy_.average_period_hours);
    ActivityTotals totals;
    std::vector<FileRecord> records;
    for (Sim& f : files_) {
      f.rec.windows.clear();
      for (size_t b = 0; b < f.buckets.size(); ++b) {
        AccumulateBucket(hours, now, kStart + static_cast<int64_t>(b) * 3600, 3600, f.buckets[b],
                         &f.rec.windows);
      }
      if (avg_at != hours.end()) {
        AddActivity(f.rec.windows[static_cast<size_t>(avg_at - hours.begin())], f.rec.size,
                    &totals);
      }
      records.push_back(f.rec);
    }
    std::sort(records.begin(), records.end(),
              [](const FileRecord& a, const FileRecord& b) { return a.path < b.path; });
    ScanPlan plan = PlanScan(policy_, records, volumes_, totals, now);
    for (const PlannedMove& m : plan.moves) Apply(m);
    for (Sim& f : files_) f.classes.push_back(ClassOf(f.rec.volume_id));
    return plan;
  }

  // The class of `path` after each step so far.
  const std::vector<std::string>& Timeline(const std::string& path) const {
    return Get(path).classes;
  }
  // How many times `path` was relocated.
  int Moves(const std::string& path) const { return Get(path).moves; }
  // The first step (0-based) after which `path` was on `cls`, or -1.
  int FirstOn(const std::string& path, const std::string& cls) const {
    const auto& t = Get(path).classes;
    auto it = std::find(t.begin(), t.end(), cls);
    return it == t.end() ? -1 : static_cast<int>(it - t.begin());
  }
  const std::vector<VolumeState>& volumes() const { return volumes_; }
  bool deleted(const std::string& path) const { return Get(path).deleted; }

 private:
  struct Sim {
    FileRecord rec;
    Load load;
    std::vector<IoCounters> buckets;
    std::vector<std::string> classes;
    int moves = 0;
    bool deleted = false;
  };

  VolumeState* Find(uint32_t id) {
    for (VolumeState& v : volumes_) {
      if (v.id == id) return &v;
    }
    return nullptr;
  }
  std::string ClassOf(uint32_t id) {
    VolumeState* v = Find(id);
    return v == nullptr ? "" : v->classes.front();
  }
  const Sim& Get(const std::string& path) const {
    for (const Sim& f : files_) {
      if (f.rec.path == path) return f;
    }
    ADD_FAILURE() << "no file " << path;
    return files_.front();
  }
  void Apply(const PlannedMove& m) {
    for (Sim& f : files_) {
      if (f.rec.ino != m.ino) continue;
      Find(m.from_volume)->free_bytes += m.bytes;
      if (m.action == FileVerdict::kDelete) {
        f.deleted = true;
        continue;
      }
      VolumeState* to = Find(m.to_volume);
      EXPECT_TRUE(to->free_bytes >= to->reserve_bytes + m.bytes) << m.path;
      to->free_bytes -= m.bytes;
      f.rec.volume_id = m.to_volume;
      ++f.moves;
    }
  }

  PlacementPolicy policy_;
  std::vector<VolumeState> volumes_;
  std::vector<Sim> files_;
  int hour_ = 0;
};

// Loads: `mib_per_hour` MiB read (or written) in `ops` calls per hour, during
// hours [from, to).
inline Simulation::Load Reads(double mib_per_hour, int from = 0, int to = 1 << 30,
                              double ops = 0) {
  return [=](int h) {
    if (h < from || h >= to) return IoCounters{};
    return IoCounters{mib_per_hour * 1024 * 1024, 0, ops, 0};
  };
}
inline Simulation::Load Idle() {
  return [](int) { return IoCounters{}; };
}
inline Simulation::Load Both(Simulation::Load a, Simulation::Load b) {
  return [=](int h) {
    IoCounters x = a(h);
    x += b(h);
    return x;
  };
}
inline Simulation::Load Writes(double mib_per_hour, int from = 0, int to = 1 << 30,
                               double ops = 0) {
  return [=](int h) {
    if (h < from || h >= to) return IoCounters{};
    return IoCounters{0, mib_per_hour * 1024 * 1024, 0, ops};
  };
}

}  // namespace tierfs::policy::testing
