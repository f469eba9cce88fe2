// The oracle placement: the share of a period's I/O that a fast class of a
// given capacity would serve if it held the files with the most I/O per byte,
// chosen greedily. The yardstick of placement (docs/policies.md "Advisor") and
// of the NetApp Hybrid Aggregates paper: with the period's own I/O as the ranking it is the
// oracle that knows the future; with the previous period's it is the best a
// history-based placement can do.
//
// Used by the advisor's replay (policy/replay.h) and the placement
// simulation (bench/placement_sim.h). Pure; thread-safe.
#pragma once

#include <cstdint>
#include <vector>

namespace tierfs::policy {

// Ranks the files by `rank_heat` (any per-byte measure, e.g. bytes moved per
// byte of file, or whole-file reads; descending, ties in index order), puts
// them on a class of `capacity_bytes` in that order, passing over a file that
// no longer fits for smaller ones after it and stopping at the first file
// whose heat is 0, and returns the share (0..1) of sum(period_bytes) that the
// chosen files account for. `period_bytes[i]` is file i's I/O in bytes over
// the period being judged, `sizes[i]` its size in bytes; the three vectors
// must have one entry per file (a mismatch aborts). 0 when there is no I/O.
double OracleShare(const std::vector<double>& rank_heat, const std::vector<double>& period_bytes,
                   const std::vector<uint64_t>& sizes, uint64_t capacity_bytes);

}  // namespace tierfs::policy
