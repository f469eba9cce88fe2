// CREATE placement: where a new file goes (docs/policies.md "Rules" and
// "CREATE: where new files go").
//
// ChooseCreateClasses() finds the governing rule of the new file (SELECT on
// path and owner; a new file has no tags, so a TAG-only SELECT never governs
// a create) and reads its CREATE. ChooseCreateVolume() then picks the volume
// against current free space. fs/ calls both on every create (and may cache
// the first per directory and owner). Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "policy/policy.h"
#include "policy/volume_state.h"

namespace tierfs::policy {

// The new file.
struct CreateRequest {
  std::string path;   // "/dir/name" relative to the mount root
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string user;   // name of uid, "" if none
  std::string group;  // name of gid, "" if none
};

// What the policy says about a new file.
struct CreatePlacement {
  bool governed = false;            // a rule selected the file
  std::string rule;                 // that rule's Name
  bool has_create = false;          // the rule has a CREATE
  std::vector<std::string> classes; // CREATE classes in preference order
  std::vector<uint64_t> balance_sizes;  // parallel to `classes`: BALANCE_SIZE bytes, 0 = none
  bool any = false;                 // ON or DESTINATION Flags="any"
};

// Reads the CREATE of the rule that governs `request` (first data rule with
// a matching SELECT). Not governed, or governed by a rule without CREATE:
// the default allocator places the file.
CreatePlacement ChooseCreateClasses(const PlacementPolicy& policy, const CreateRequest& request);

// Picks the volume id for a new file of `needed_bytes` (0 for an empty
// file), among the volumes that take creates (not object volumes): the first class in order with a volume that has room (within the
// class: most free space, or least used with BALANCE_SIZE; a class without
// volumes is skipped). When no class has room and `any` is set, or the file
// is not governed, or its rule has no CREATE: the default allocator (the
// volume with most free space overall that has room). Otherwise nullopt:
// the caller fails the create with ENOSPC, as VxFS does.
std::optional<uint32_t> ChooseCreateVolume(const CreatePlacement& placement,
                                           const std::vector<VolumeState>& volumes,
                                           uint64_t needed_bytes);

}  // namespace tierfs::policy
