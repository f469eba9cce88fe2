// The evaluator: which rule and statement govern one file, and what they
// decide (docs/policies.md "Rules", "WHEN criteria", "Temperatures" and
// "What a scan does").
//
// The first data rule with a matching SELECT governs the file. Within it,
// DELETE and RELOCATE statements are tried in document order; the first
// whose FROM (the file's volume carries one of the classes; no FROM =
// anywhere) and WHEN (every criterion) hold decides, even if the planner
// later finds no room: no later statement is tried. A RELOCATE whose TO
// classes include one of the file's volume classes decides "stay".
//
// ACCAGE = now - atime and MODAGE = now - mtime, in hours. With Average="*"
// a bound is a multiple of the file-system average of the same Type over
// AveragePeriod; when that average is 0 (no activity), a criterion with a
// MIN is false and one with only a MAX is true.
//
// Thread-safety: an Evaluator is immutable after construction and may be
// used from several threads; it keeps references to the policy, volumes
// and totals given to it, which must outlive it.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "policy/file_record.h"
#include "policy/policy.h"
#include "policy/volume_state.h"

namespace tierfs::policy {

// The decision for one file.
struct FileVerdict {
  int rule_index = -1;      // governing rule in PlacementPolicy::rules; -1 = none
  std::string rule;         // its Name
  int statement_index = -1; // deciding statement in Rule::statements; -1 = none
  std::string statement;    // "RELOCATE 2", "DELETE 1" (1-based among its kind in the rule)
  enum Action {
    kNone,      // no rule, or no statement holds: leave the file alone
    kRelocate,  // move to the first of to_classes with room
    kDelete,    // delete the file
    kStay,      // the statement holds but the file is already on one of its TO classes
  } action = kNone;
  // The statement's reported temperature (Statement::ReportedCriterion()):
  // what Prefer orders by. 0 when the statement has no temperature criterion.
  double temperature = 0;
  // How to read `temperature`, e.g. "IOTEMP nrbytes 6h x1.73 avg" (type,
  // PERIOD, and for Average="*" the file's multiple of the average, or
  // "avg 0" when there was no activity); "" when none.
  std::string temperature_kind;
  std::vector<std::string> to_classes;  // the statement's TO classes in order
};

class Evaluator {
 public:
  // `now_s`: the scan start, seconds since the epoch; every window ends there.
  Evaluator(const PlacementPolicy& policy, const std::vector<VolumeState>& volumes,
            const ActivityTotals& totals, int64_t now_s);

  // Decides for `file`. Aborts if file.windows is neither empty nor one
  // entry per window_hours() (a caller bug).
  FileVerdict Evaluate(const FileRecord& file) const;

  const PlacementPolicy& policy() const { return policy_; }
  // PlacementPolicy::WindowHours(), computed once.
  const std::vector<double>& window_hours() const { return window_hours_; }
  // The volume with this id, or nullptr.
  const VolumeState* FindVolume(uint32_t id) const;
  // The file-system average of `type` (0 when the policy uses no Average).
  double Average(TempType type) const;
  // What criterion `c` measures for `file`: bytes for SIZE, hours for
  // ACCAGE/MODAGE, the temperature for IOTEMP/ACCESSTEMP (0 without I/O).
  // `c` must belong to this evaluator's policy (its PERIOD is one of
  // window_hours()). The planner uses it to weigh a class's residents by a
  // promoting statement's temperature (tierfs extension, planner.h).
  double Measure(const Criterion& c, const FileRecord& file) const;
  // How reports name temperature `value` of criterion `c`, e.g.
  // "IOTEMP nrbytes 6h x1.73 avg" (FileVerdict::temperature_kind).
  std::string TemperatureKind(const Criterion& c, double value) const;

 private:
  bool Holds(const Criterion& c, const FileRecord& file) const;
  void Report(const Statement& st, const FileRecord& file, FileVerdict* verdict) const;

  const PlacementPolicy& policy_;
  int64_t now_s_;
  std::vector<double> window_hours_;
  double averages_[7] = {};  // by TempType
  std::unordered_map<uint32_t, const VolumeState*> volumes_;
};

// One-shot form of Evaluator(policy, volumes, totals, now_s).Evaluate(file).
FileVerdict EvaluateFile(const PlacementPolicy& policy, const FileRecord& file,
                         const std::vector<VolumeState>& volumes, const ActivityTotals& totals,
                         int64_t now_s);

}  // namespace tierfs::policy
