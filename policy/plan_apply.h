// Applying a scan plan to a simulated file system: what a completed enforce
// does to the volumes' free space and to the files' placement, without moving
// a byte. The step shared by every replay of the planner on a simulated clock
// (policy/replay.h, bench/placement_sim.h).
//
// Pure; thread-compatible (the caller owns the vectors it passes).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "policy/planner.h"
#include "policy/volume_state.h"

namespace tierfs::policy {

// What one applied plan did.
struct AppliedPlan {
  uint64_t bytes_moved = 0;    // sum of the relocated files' sizes, bytes
  uint64_t files_moved = 0;    // relocations
  uint64_t files_deleted = 0;  // deletes
  uint64_t swaps = 0;          // relocations that were swap-ins (PlannedMove::kSwapIn)
};

// Applies every move of `plan` (plan.moves; skipped moves and stays change
// nothing) as if each had succeeded: a relocation's bytes are credited to its
// from volume's free_bytes and debited from its to volume's in `*volumes`
// (each clamped to [0, total_bytes]; volumes not in the vector are ignored),
// a delete's bytes are credited to its from volume. `on_move`, when set, is
// called once per applied move in plan order, so the caller can update the
// file's placement (m.to_volume) or drop a deleted file.
AppliedPlan ApplyPlan(const ScanPlan& plan, std::vector<VolumeState>* volumes,
                      const std::function<void(const PlannedMove& m)>& on_move = nullptr);

}  // namespace tierfs::policy
