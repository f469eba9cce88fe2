// The scan planner: one enforcement scan's decisions, ordered and bounded by
// free space (docs/policies.md "What a scan does" and "Prefer").
//
// PlanScan() evaluates every file (each inode once, by its first path), then
// places the candidates statement by statement in document order of the
// rules and statements. A statement's candidates are ordered by its Prefer
// temperature (high: hottest first; low: coldest first; ties and statements
// without Prefer keep the scan's path-name order). Each candidate goes to
// the first TO class with a volume that keeps its reserve after the move;
// the planned move debits that volume's projected free space and credits the
// source volume's, so evacuations earlier in the policy make room for
// promotions later in it. A candidate no TO class can take is skipped with
// reason "nospace". A DELETE always succeeds and credits its source.
//
// Capacity limits (tierfs extension, docs/policies.md "Capacity limits"): a
// TO DESTINATION with PERCENT p (or, without one, the policy's CLASS_LIMIT
// for the class) takes a candidate only while the class's projected use
// plus the file stays at or under p% of the class's capacity;
// a candidate whose FROM class has a SOURCE PERCENT q and is already at or
// below q% full is skipped with reason "drained".
//
// Swapping cold for hot (tierfs extension, docs/policies.md "Swapping"; the
// behaviour of GPFS GROUP POOL LIMIT and THRESHOLD/WEIGHT): when a candidate
// of a Prefer="high" RELOCATE fits in none of its TO classes, the planner
// takes the class's residents that its rules do not pin, coldest first by
// the same statement's temperature, and plans them out (to another class
// their own rule's RELOCATEs name, else to the class the candidate comes
// from) until the candidate fits, provided every one of them is colder than
// the candidate by the hysteresis factor (the policy's SwapHysteresis,
// default kDefaultSwapHysteresis = 1.25; PlanOptions may override it).
// Such moves are labelled "<statement> swap-out" and the candidate's
// "<statement> swap-in"; OrderForExecution runs the swap-outs first.
//
// Pure: nothing is moved. Thread-safe (no shared state); the inputs are read
// only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "policy/evaluator.h"
#include "policy/file_record.h"
#include "policy/policy.h"
#include "policy/volume_state.h"

namespace tierfs::policy {

// One decided file.
struct PlannedMove {
  uint64_t ino = 0;
  std::string path;
  std::string rule;       // governing rule Name
  std::string statement;  // "RELOCATE 2", "DELETE 1"
  FileVerdict::Action action = FileVerdict::kNone;  // kRelocate, kDelete or kStay
  uint32_t from_volume = 0;
  uint32_t to_volume = 0;     // 0 for a delete or a skipped move; from_volume for a stay
  std::string from_class;     // the class of from_volume that the statement's FROM named
                              // (else the volume's first class; "" if the volume is unknown)
  std::string to_class;       // chosen class; for a skipped move the first TO class; "" for delete
  double temperature = 0;     // FileVerdict::temperature
  std::string temperature_kind;
  uint64_t bytes = 0;         // file size
  // "" or why the move is skipped: "nospace" (no TO class has room under
  // its limit) or "drained" (the FROM class is at or below its SOURCE PERCENT).
  std::string skip_reason;
  // The move's part in a swap (see the top of this file).
  enum Swap { kNoSwap, kSwapIn, kSwapOut } swap = kNoSwap;
};

// Space of one placement class, summed over its volumes, for the report.
struct ClassSpace {
  std::string name;
  uint64_t size_bytes = 0;
  uint64_t free_before = 0;
  uint64_t free_after = 0;  // projected, once every planned move has run
};

struct ScanPlan {
  // Deletes and relocations to carry out, in execution order (see
  // OrderForExecution in execution_order.h): deletes first, then moves out
  // of a volume before moves into it wherever the space allows.
  std::vector<PlannedMove> moves;
  std::vector<PlannedMove> skipped;  // skip_reason set, in placement order
  std::vector<PlannedMove> stays;    // action kStay, in scan order
  uint64_t files_scanned = 0;        // distinct inodes evaluated
  std::vector<ClassSpace> classes;   // every class of `volumes`, in order of first appearance
};

// Planner switches, for tests and benchmarks; the defaults are what
// fsppadm and the scan daemon use.
struct PlanOptions {
  bool swap = true;  // swap cold residents for hot candidates
  // The hysteresis factor (>= 1): a candidate displaces a resident only when
  // its temperature > factor * the resident's. nullopt: the policy's
  // SwapHysteresis (PlacementPolicy::swap_hysteresis).
  std::optional<double> swap_hysteresis = std::nullopt;
};

// Plans one scan. `files` come in path-name order and are regular files;
// their windows follow policy.WindowHours(). `volumes` are the file
// system's volumes with current free space and reserves; `totals` the
// file-system activity for Average="*"; `now_s` the scan start (seconds).
// Residents are only the files in `files`: a scan that sees part of the file
// system (-C, paths) swaps out only what it saw.
ScanPlan PlanScan(const PlacementPolicy& policy, const std::vector<FileRecord>& files,
                  const std::vector<VolumeState>& volumes, const ActivityTotals& totals,
                  int64_t now_s, const PlanOptions& options = PlanOptions{});

}  // namespace tierfs::policy
