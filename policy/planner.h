// The scan planner: one enforcement scan's decisions, ordered and bounded by
// free space (dst-spec section 4 reference algorithm, 3.6, and 10 items
// 17-19, 21).
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
// Pure: nothing is moved. Thread-safe (no shared state); the inputs are read
// only.
#pragma once

#include <cstdint>
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
  std::string skip_reason;    // "" or "nospace"
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
  std::vector<PlannedMove> skipped;  // skip_reason "nospace", in placement order
  std::vector<PlannedMove> stays;    // action kStay, in scan order
  uint64_t files_scanned = 0;        // distinct inodes evaluated
  std::vector<ClassSpace> classes;   // every class of `volumes`, in order of first appearance
};

// Plans one scan. `files` come in path-name order and are regular files;
// their windows follow policy.WindowHours(). `volumes` are the file
// system's volumes with current free space and reserves; `totals` the
// file-system activity for Average="*"; `now_s` the scan start (seconds).
ScanPlan PlanScan(const PlacementPolicy& policy, const std::vector<FileRecord>& files,
                  const std::vector<VolumeState>& volumes, const ActivityTotals& totals,
                  int64_t now_s);

}  // namespace tierfs::policy
