#include "policy/plan_apply.h"

#include <algorithm>

namespace tierfs::policy {
namespace {

void Credit(std::vector<VolumeState>* volumes, uint32_t id, uint64_t bytes) {
  for (VolumeState& v : *volumes) {
    if (v.id == id) v.free_bytes = std::min(v.total_bytes, v.free_bytes + bytes);
  }
}

void Debit(std::vector<VolumeState>* volumes, uint32_t id, uint64_t bytes) {
  for (VolumeState& v : *volumes) {
    if (v.id == id) v.free_bytes = v.free_bytes > bytes ? v.free_bytes - bytes : 0;
  }
}

}  // namespace

AppliedPlan ApplyPlan(const ScanPlan& plan, std::vector<VolumeState>* volumes,
                      const std::function<void(const PlannedMove& m)>& on_move) {
  AppliedPlan applied;
  for (const PlannedMove& m : plan.moves) {
    if (m.action == FileVerdict::kRelocate) {
      Credit(volumes, m.from_volume, m.bytes);
      Debit(volumes, m.to_volume, m.bytes);
      applied.bytes_moved += m.bytes;
      applied.files_moved++;
      applied.swaps += m.swap == PlannedMove::kSwapIn;
    } else if (m.action == FileVerdict::kDelete) {
      Credit(volumes, m.from_volume, m.bytes);
      applied.files_deleted++;
    } else {
      continue;
    }
    if (on_move) on_move(m);
  }
  return applied;
}

}  // namespace tierfs::policy
