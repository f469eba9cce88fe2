#include "policy/volume_choice.h"

namespace tierfs::policy {
namespace {

double UsedFraction(const VolumeState& v) {
  if (v.total_bytes == 0) return 1.0;
  uint64_t used = v.total_bytes > v.free_bytes ? v.total_bytes - v.free_bytes : 0;
  return static_cast<double>(used) / static_cast<double>(v.total_bytes);
}

// True when `a` is a better pick than `b`.
bool Better(const VolumeState& a, const VolumeState& b, bool balance) {
  if (balance) {
    double ua = UsedFraction(a);
    double ub = UsedFraction(b);
    if (ua != ub) return ua < ub;
  }
  return a.free_bytes > b.free_bytes;
}

}  // namespace

bool HasRoom(const VolumeState& volume, uint64_t needed) {
  if (!volume.accepts_data) return false;
  if (volume.free_bytes < volume.reserve_bytes) return false;
  return volume.free_bytes - volume.reserve_bytes >= needed;
}

const VolumeState* PickClassVolume(const std::vector<VolumeState>& volumes,
                                   const std::string& class_name, uint64_t needed, bool balance) {
  const VolumeState* best = nullptr;
  for (const VolumeState& v : volumes) {
    if (!v.HasClass(class_name) || !HasRoom(v, needed)) continue;
    if (best == nullptr || Better(v, *best, balance)) best = &v;
  }
  return best;
}

ClassUsage UsageOf(const std::vector<VolumeState>& volumes, const std::string& class_name) {
  ClassUsage u;
  for (const VolumeState& v : volumes) {
    if (!v.HasClass(class_name)) continue;
    u.capacity += v.total_bytes;
    u.used += v.total_bytes > v.free_bytes ? v.total_bytes - v.free_bytes : 0;
  }
  return u;
}

bool FitsUnderLimit(const std::vector<VolumeState>& volumes, const std::string& class_name,
                    uint64_t adding, double percent) {
  ClassUsage u = UsageOf(volumes, class_name);
  if (u.capacity == 0) return false;
  return static_cast<double>(u.used + adding) <=
         percent / 100.0 * static_cast<double>(u.capacity);
}

bool DrainedTo(const std::vector<VolumeState>& volumes, const std::string& class_name,
               double percent) {
  ClassUsage u = UsageOf(volumes, class_name);
  if (u.capacity == 0) return true;
  return static_cast<double>(u.used) <= percent / 100.0 * static_cast<double>(u.capacity);
}

const VolumeState* PickAnyVolume(const std::vector<VolumeState>& volumes, uint64_t needed) {
  const VolumeState* best = nullptr;
  for (const VolumeState& v : volumes) {
    if (!HasRoom(v, needed)) continue;
    if (best == nullptr || v.free_bytes > best->free_bytes) best = &v;
  }
  return best;
}

}  // namespace tierfs::policy
