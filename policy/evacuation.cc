#include "policy/evacuation.h"

#include <algorithm>

namespace tierfs::policy {

std::optional<uint32_t> ChooseEvacuationVolume(const CreatePlacement& placement,
                                               const std::vector<VolumeState>& volumes,
                                               uint32_t leaving, uint64_t bytes,
                                               bool* outside) {
  std::vector<VolumeState> others = volumes;
  for (VolumeState& v : others) {
    if (v.id == leaving) v.accepts_data = false;
  }
  if (outside != nullptr) *outside = false;
  if (std::optional<uint32_t> id = ChooseCreateVolume(placement, others, bytes)) return id;
  // The file's classes are full (or only the leaving volume had them): the
  // default allocator, anywhere with room.
  std::optional<uint32_t> id = ChooseCreateVolume(CreatePlacement{}, others, bytes);
  if (id && outside != nullptr) *outside = true;
  return id;
}

EvacuationPlan PlanEvacuation(std::vector<EvacuationFile> files, std::vector<VolumeState> volumes,
                              uint32_t leaving) {
  std::stable_sort(files.begin(), files.end(),
                   [](const EvacuationFile& a, const EvacuationFile& b) { return a.bytes > b.bytes; });
  EvacuationPlan plan;
  for (const EvacuationFile& f : files) {
    bool outside = false;
    std::optional<uint32_t> id =
        ChooseEvacuationVolume(f.placement, volumes, leaving, f.bytes, &outside);
    if (!id) {
      plan.unplaced_files++;
      plan.unplaced_bytes += f.bytes;
      continue;
    }
    for (VolumeState& v : volumes) {
      if (v.id == *id) v.free_bytes -= std::min(v.free_bytes, f.bytes);
    }
    if (outside) plan.outside_create_classes++;
    plan.targets.push_back({f.ino, *id, outside});
  }
  return plan;
}

}  // namespace tierfs::policy
