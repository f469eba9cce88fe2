#include "policy/planner.h"

#include <algorithm>
#include <map>
#include <unordered_set>
#include <utility>

#include "policy/execution_order.h"
#include "policy/volume_choice.h"

namespace tierfs::policy {
namespace {

struct Candidate {
  const FileRecord* file;
  FileVerdict verdict;
};

VolumeState* FindMutable(std::vector<VolumeState>* volumes, uint32_t id) {
  for (VolumeState& v : *volumes) {
    if (v.id == id) return &v;
  }
  return nullptr;
}

// The class of `volume` to report as the source: the first FROM class it
// carries, else its first class.
std::string SourceClass(const VolumeState* volume, const Statement& st) {
  if (volume == nullptr) return "";
  for (const auto& from : st.from_classes) {
    if (volume->HasClass(from.value)) return from.value;
  }
  return volume->classes.empty() ? "" : volume->classes.front();
}

PlannedMove Base(const Candidate& c, const Statement& st, const Evaluator& ev) {
  PlannedMove m;
  m.ino = c.file->ino;
  m.path = c.file->path;
  m.rule = c.verdict.rule;
  m.statement = c.verdict.statement;
  m.action = c.verdict.action;
  m.from_volume = c.file->volume_id;
  m.from_class = SourceClass(ev.FindVolume(c.file->volume_id), st);
  m.temperature = c.verdict.temperature;
  m.temperature_kind = c.verdict.temperature_kind;
  m.bytes = c.file->size;
  return m;
}

void Credit(std::vector<VolumeState>* projected, uint32_t id, uint64_t bytes) {
  if (VolumeState* v = FindMutable(projected, id)) {
    v->free_bytes += bytes;
    if (v->total_bytes > 0) v->free_bytes = std::min(v->free_bytes, v->total_bytes);
  }
}

std::vector<ClassSpace> ClassTable(const std::vector<VolumeState>& before,
                                   const std::vector<VolumeState>& after) {
  std::vector<ClassSpace> classes;
  for (size_t i = 0; i < before.size(); ++i) {
    for (const std::string& name : before[i].classes) {
      auto it = std::find_if(classes.begin(), classes.end(),
                             [&](const ClassSpace& c) { return c.name == name; });
      if (it == classes.end()) {
        classes.push_back({name, 0, 0, 0});
        it = classes.end() - 1;
      }
      it->size_bytes += before[i].total_bytes;
      it->free_before += before[i].free_bytes;
      it->free_after += after[i].free_bytes;
    }
  }
  return classes;
}

}  // namespace

ScanPlan PlanScan(const PlacementPolicy& policy, const std::vector<FileRecord>& files,
                  const std::vector<VolumeState>& volumes, const ActivityTotals& totals,
                  int64_t now_s) {
  Evaluator ev(policy, volumes, totals, now_s);
  ScanPlan plan;
  // Candidates per statement, keyed (rule, statement): document order.
  std::map<std::pair<int, int>, std::vector<Candidate>> by_statement;
  std::unordered_set<uint64_t> seen;
  for (const FileRecord& file : files) {
    if (!seen.insert(file.ino).second) continue;  // a hard link met again (dst-spec 10 item 21)
    ++plan.files_scanned;
    FileVerdict v = ev.Evaluate(file);
    if (v.action == FileVerdict::kNone) continue;
    const Statement& st = policy.rules[v.rule_index].statements[v.statement_index];
    if (v.action == FileVerdict::kStay) {
      PlannedMove m = Base({&file, v}, st, ev);
      m.to_volume = m.from_volume;
      const VolumeState* vol = ev.FindVolume(file.volume_id);
      for (const std::string& c : v.to_classes) {
        if (vol != nullptr && vol->HasClass(c)) {
          m.to_class = c;
          break;
        }
      }
      plan.stays.push_back(std::move(m));
      continue;
    }
    by_statement[{v.rule_index, v.statement_index}].push_back({&file, std::move(v)});
  }

  std::vector<VolumeState> projected = volumes;
  std::vector<PlannedMove> placed;
  for (auto& [key, candidates] : by_statement) {
    const Statement& st = policy.rules[key.first].statements[key.second];
    Prefer prefer = st.OrderingPrefer();
    if (prefer != Prefer::kNone) {
      std::stable_sort(candidates.begin(), candidates.end(),
                       [prefer](const Candidate& a, const Candidate& b) {
                         return prefer == Prefer::kHigh
                                    ? a.verdict.temperature > b.verdict.temperature
                                    : a.verdict.temperature < b.verdict.temperature;
                       });
    }
    for (const Candidate& c : candidates) {
      PlannedMove m = Base(c, st, ev);
      if (m.action == FileVerdict::kDelete) {
        Credit(&projected, m.from_volume, m.bytes);
        placed.push_back(std::move(m));
        continue;
      }
      bool found = false;
      for (const Destination& d : st.to_classes) {
        if (d.class_name.empty()) continue;
        const VolumeState* to = PickClassVolume(projected, d.class_name, m.bytes,
                                                d.balance_size > 0);
        if (to == nullptr) continue;  // full, or no volume carries the class
        m.to_volume = to->id;
        m.to_class = d.class_name;
        FindMutable(&projected, to->id)->free_bytes -= m.bytes;
        Credit(&projected, m.from_volume, m.bytes);
        found = true;
        break;
      }
      if (!found) {
        m.skip_reason = "nospace";
        m.to_class = c.verdict.to_classes.empty() ? "" : c.verdict.to_classes.front();
        plan.skipped.push_back(std::move(m));
      } else {
        placed.push_back(std::move(m));
      }
    }
  }
  plan.moves = OrderForExecution(std::move(placed), volumes);
  plan.classes = ClassTable(volumes, projected);
  return plan;
}

}  // namespace tierfs::policy
