#include "policy/create_placement.h"

#include <algorithm>

#include "policy/select_match.h"
#include "policy/volume_choice.h"

namespace tierfs::policy {

CreatePlacement ChooseCreateClasses(const PlacementPolicy& policy, const CreateRequest& request) {
  CreatePlacement placement;
  FileIdentity id{request.path, request.uid, request.gid, request.user, request.group, nullptr};
  int index = GoverningRuleIndex(policy, id);
  if (index < 0) return placement;
  const Rule& rule = policy.rules[static_cast<size_t>(index)];
  placement.governed = true;
  placement.rule = rule.name;
  if (!rule.create) return placement;
  placement.has_create = true;
  placement.any = rule.create->any;
  for (const Destination& d : rule.create->destinations) {
    if (d.class_name.empty()) continue;  // a class-less DESTINATION under "any"
    placement.classes.push_back(d.class_name);
    placement.balance_sizes.push_back(d.balance_size);
  }
  return placement;
}

std::optional<uint32_t> ChooseCreateVolume(const CreatePlacement& placement,
                                           const std::vector<VolumeState>& all,
                                           uint64_t needed_bytes) {
  // Object volumes leave the choice (copied only when there are some: creates
  // are frequent, object volumes rare).
  std::vector<VolumeState> local;
  const bool any_store = std::any_of(all.begin(), all.end(),
                                     [](const VolumeState& v) { return !v.takes_creates; });
  if (any_store) {
    for (const VolumeState& v : all) {
      if (v.takes_creates) local.push_back(v);
    }
  }
  const std::vector<VolumeState>& volumes = any_store ? local : all;
  for (size_t i = 0; i < placement.classes.size(); ++i) {
    bool balance = i < placement.balance_sizes.size() && placement.balance_sizes[i] > 0;
    if (const VolumeState* v =
            PickClassVolume(volumes, placement.classes[i], needed_bytes, balance)) {
      return v->id;
    }
  }
  if (placement.any || !placement.governed || !placement.has_create) {
    if (const VolumeState* v = PickAnyVolume(volumes, needed_bytes)) return v->id;
  }
  return std::nullopt;
}

}  // namespace tierfs::policy
