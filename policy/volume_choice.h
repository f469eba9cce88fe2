// Choosing a volume inside a class, and the default allocator.
//
// Shared by CREATE placement and the scan planner. Room means the volume
// keeps its reserve: free_bytes - reserve_bytes >= needed (docs/policies.md
// "What a scan does"). Inside a class (docs/policies.md "CREATE: where new files
// go"): the volume with the most free bytes; with BALANCE_SIZE, the least used
// one (lowest used/total), which spreads a destination's files over its volumes
// by fill ratio instead of by absolute space. Ties go to the volume listed
// first. The default allocator (docs/policies.md "Rules") takes the volume with
// the most free bytes among all that have room. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "policy/volume_state.h"

namespace tierfs::policy {

// True when `volume` accepts data and can take `needed` bytes and keep its reserve.
bool HasRoom(const VolumeState& volume, uint64_t needed);

// The volume of class `class_name` chosen for `needed` bytes, or nullptr
// when no volume of the class has room (or the class has no volume).
// `balance`: the destination has a BALANCE_SIZE.
const VolumeState* PickClassVolume(const std::vector<VolumeState>& volumes,
                                   const std::string& class_name, uint64_t needed, bool balance);

// Capacity and use of a class, summed over the volumes carrying it (bytes).
// used = total - free per volume (never negative).
struct ClassUsage {
  uint64_t capacity = 0;
  uint64_t used = 0;
};
ClassUsage UsageOf(const std::vector<VolumeState>& volumes, const std::string& class_name);

// True when adding `adding` bytes keeps class `class_name` at or under
// `percent` (0-100) of its capacity: the DESTINATION PERCENT test (tierfs
// extension, docs/policies.md "Capacity limits"). A class without capacity
// is never under a limit.
bool FitsUnderLimit(const std::vector<VolumeState>& volumes, const std::string& class_name,
                    uint64_t adding, double percent);

// True when class `class_name` is at or below `percent` (0-100) of its
// capacity: the SOURCE PERCENT test (tierfs extension). A class without
// capacity counts as drained.
bool DrainedTo(const std::vector<VolumeState>& volumes, const std::string& class_name,
               double percent);

// The default allocator: the volume with the most free bytes that has room
// for `needed`, or nullptr.
const VolumeState* PickAnyVolume(const std::vector<VolumeState>& volumes, uint64_t needed);

}  // namespace tierfs::policy
