// Evacuation: where the files of a volume that is being removed go
// (fsvoladm remove, fs/tiering/volume_admin.h), and whether the other volumes have room
// for them at all.
//
// Each file goes where its CREATE rule would place it now (ChooseCreateVolume,
// as a write that meets a full volume moves its file on), with the leaving
// volume excluded. A file whose allowed classes have no room left, or whose
// only class is the leaving volume's, goes where the default allocator would put
// it (the volume with most free space that has room): removing a volume is the
// administrator's decision, and a later `fsppadm enforce` puts such files right.
// Files are placed largest first, each taking its bytes from the projected free
// space of its volume, so the plan never counts one free byte twice.
//
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "policy/create_placement.h"
#include "policy/volume_state.h"

namespace tierfs::policy {

// One file on the leaving volume.
struct EvacuationFile {
  uint64_t ino = 0;
  uint64_t bytes = 0;           // room it needs on its new volume
  CreatePlacement placement;    // what its CREATE rule says (default: not governed)
};

struct EvacuationTarget {
  uint64_t ino = 0;
  uint32_t volume_id = 0;
  bool outside_create_classes = false;  // placed by the default allocator as a fallback
};

struct EvacuationPlan {
  std::vector<EvacuationTarget> targets;  // largest file first
  uint64_t unplaced_files = 0;            // files no volume has room for
  uint64_t unplaced_bytes = 0;            // their bytes: what is missing
  uint64_t outside_create_classes = 0;    // files placed outside their CREATE classes
  bool fits() const { return unplaced_files == 0; }
};

// Plans moving `files` off volume `leaving` given the volumes' state now
// (`volumes` may include `leaving`: it is never chosen). A file needs
// `bytes` of room above a volume's reserve (VolumeState::reserve_bytes).
EvacuationPlan PlanEvacuation(std::vector<EvacuationFile> files,
                              std::vector<VolumeState> volumes, uint32_t leaving);

// The volume for one file (the same rule as PlanEvacuation, for one file against
// live numbers): its CREATE classes first, else the default allocator. Sets
// *outside when the fallback was used. nullopt when no volume has room.
std::optional<uint32_t> ChooseEvacuationVolume(const CreatePlacement& placement,
                                               const std::vector<VolumeState>& volumes,
                                               uint32_t leaving, uint64_t bytes,
                                               bool* outside);

}  // namespace tierfs::policy
