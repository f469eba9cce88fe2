// Execution order of a scan plan (docs/policies.md "What a scan does": moves out
// of a volume before moves into it).
//
// Deletes run first (they only free space). Relocations are then replayed
// against simulated free space: in passes over the remaining moves (plan
// order), a move runs once its destination volume has no pending move out
// of it and has room. When every remaining move waits on another (the usual
// two-tier case: demotions out of SSD are moves into HDD, promotions out of
// HDD are moves into SSD), the volume with the least headroom among the
// waiting destinations is drained first: its outgoing moves run, which
// unblocks the moves into it. Every move is checked for room against the
// simulation; if none fits at some point (only possible when free space was
// tight and the reordering consumed it), the rest keep plan order, and the
// relocator will report any that fail as "nospace" at run time.
// Pure; thread-safe.
#pragma once

#include <vector>

#include "policy/planner.h"
#include "policy/volume_state.h"

namespace tierfs::policy {

// Orders `planned` (in placement order) for execution against `volumes`
// (free space before the scan).
std::vector<PlannedMove> OrderForExecution(std::vector<PlannedMove> planned,
                                           const std::vector<VolumeState>& volumes);

}  // namespace tierfs::policy
