#include "policy/planner.h"

#include <algorithm>
#include <map>
#include <optional>
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

// A file the scan does not move (verdict kNone or kStay): a possible
// swap-out. Kept small, as most files of a scan are such files.
struct Settled {
  const FileRecord* file;
  int rule_index;       // FileVerdict::rule_index
  int statement_index;  // FileVerdict::statement_index
  FileVerdict::Action action;
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

// Debits `to` and credits `from` in `projected` for a planned relocation.
void Transfer(std::vector<VolumeState>* projected, uint32_t from, uint32_t to, uint64_t bytes) {
  FindMutable(projected, to)->free_bytes -= bytes;
  Credit(projected, from, bytes);
}

// The volume of `d`'s class that takes `bytes` within the class's limit for
// `d` (PlacementPolicy::DestinationPercent), or nullptr.
const VolumeState* PickDestination(const PlacementPolicy& policy,
                                   const std::vector<VolumeState>& projected,
                                   const Destination& d, uint64_t bytes) {
  if (d.class_name.empty()) return nullptr;
  std::optional<double> percent = policy.DestinationPercent(d);
  if (percent && !FitsUnderLimit(projected, d.class_name, bytes, *percent)) return nullptr;
  return PickClassVolume(projected, d.class_name, bytes, d.balance_size > 0);
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

// One scan's placement: the projected volumes, the moves placed so far and
// what swapping needs to know about the files that are not moving.
class Placer {
 public:
  Placer(const PlacementPolicy& policy, const Evaluator& ev,
         const std::vector<VolumeState>& volumes, const std::vector<Settled>& settled,
         const PlanOptions& options)
      : policy_(policy), ev_(ev), projected_(volumes), settled_(settled), options_(options) {}

  // Places one statement's candidates (already in Prefer order).
  void PlaceStatement(const Statement& st, const std::vector<Candidate>& candidates,
                      ScanPlan* plan) {
    const bool swap = options_.swap && st.kind == Statement::kRelocate &&
                      st.OrderingPrefer() == Prefer::kHigh;
    std::map<std::string, SwapState> swap_states;  // by TO class, for this statement only
    for (const Candidate& c : candidates) {
      PlannedMove m = Base(c, st, ev_);
      if (m.action == FileVerdict::kDelete) {
        Credit(&projected_, m.from_volume, m.bytes);
        placed_.push_back(std::move(m));
        continue;
      }
      if (std::optional<double> q = st.SourcePercent(m.from_class);
          q && DrainedTo(projected_, m.from_class, *q)) {
        Skip(c, "drained", std::move(m), plan);
        continue;
      }
      if (PlaceDirect(st, &m)) continue;
      bool swapped = false;
      for (size_t i = 0; swap && !swapped && i < st.to_classes.size(); ++i) {
        const Destination& d = st.to_classes[i];
        if (d.class_name.empty()) continue;
        swapped = SwapInto(st, d, c, &swap_states[d.class_name], &m);
      }
      if (!swapped) Skip(c, "nospace", std::move(m), plan);
    }
  }

  std::vector<PlannedMove> TakePlaced() { return std::move(placed_); }
  const std::vector<VolumeState>& projected() const { return projected_; }
  bool Evicted(uint64_t ino) const { return evicted_.count(ino) != 0; }

 private:
  // Residents of one class as one statement weighs them, coldest first, and
  // how far swapping into the class has gone.
  struct SwapState {
    bool built = false;
    bool closed = false;  // the coldest resident left is too hot to displace
    std::vector<std::pair<double, const Settled*>> residents;  // (temperature, file)
    size_t next = 0;                                             // first not yet displaced
    uint64_t failed_bytes = UINT64_MAX;  // a candidate this big could not be fitted
  };

  void Skip(const Candidate& c, const char* reason, PlannedMove m, ScanPlan* plan) {
    m.skip_reason = reason;
    m.to_class = c.verdict.to_classes.empty() ? "" : c.verdict.to_classes.front();
    plan->skipped.push_back(std::move(m));
  }

  // The first TO class with room under its limit, as DST places a file
  // (docs/policies.md "What a scan does"), plus the class limits.
  bool PlaceDirect(const Statement& st, PlannedMove* m) {
    for (const Destination& d : st.to_classes) {
      const VolumeState* to = PickDestination(policy_, projected_, d, m->bytes);
      if (to == nullptr) continue;  // full, over its limit, or no volume carries the class
      m->to_volume = to->id;
      m->to_class = d.class_name;
      Transfer(&projected_, m->from_volume, to->id, m->bytes);
      placed_.push_back(std::move(*m));
      return true;
    }
    return false;
  }

  // A resident may be displaced unless its rule pins it: a stay decided by
  // a statement that measures no temperature (an unconditional or
  // size/age-only placement) is the user's explicit wish.
  bool Displaceable(const Settled& r) const {
    if (evicted_.count(r.file->ino) != 0) return false;
    if (r.action == FileVerdict::kNone) return true;
    if (r.action != FileVerdict::kStay) return false;
    const Statement& own = policy_.rules[static_cast<size_t>(r.rule_index)]
                               .statements[static_cast<size_t>(r.statement_index)];
    return own.ReportedCriterion() != nullptr;
  }

  void Build(const Statement& st, const std::string& class_name, SwapState* s) {
    s->built = true;
    const Criterion* c = st.ReportedCriterion();
    for (const Settled& r : settled_) {
      const VolumeState* vol = ev_.FindVolume(r.file->volume_id);
      if (vol == nullptr || !vol->HasClass(class_name) || !Displaceable(r)) continue;
      s->residents.push_back({ev_.Measure(*c, *r.file), &r});
    }
    // Coldest first; equal temperatures in scan order, so plans are stable.
    std::stable_sort(s->residents.begin(), s->residents.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
  }

  // Where resident `r` of class `leaving` goes: the first other class its
  // own rule's RELOCATEs name that has room (under that destination's
  // limit), else `fallback` (the class the candidate comes from, under its
  // CLASS_LIMIT). Sets *to_class; nullptr when nothing can take it.
  const VolumeState* EvictionTarget(const std::vector<VolumeState>& trial, const Settled& r,
                                    const std::string& leaving, const std::string& fallback,
                                    std::string* to_class) const {
    const VolumeState* here = ev_.FindVolume(r.file->volume_id);
    auto usable = [&](const std::string& cls) {
      return !cls.empty() && cls != leaving && (here == nullptr || !here->HasClass(cls));
    };
    if (r.rule_index >= 0) {
      for (const Statement& own : policy_.rules[static_cast<size_t>(r.rule_index)].statements) {
        if (own.kind != Statement::kRelocate) continue;
        for (const Destination& d : own.to_classes) {
          if (!usable(d.class_name)) continue;
          if (const VolumeState* v = PickDestination(policy_, trial, d, r.file->size)) {
            *to_class = d.class_name;
            return v;
          }
        }
      }
    }
    if (!usable(fallback)) return nullptr;
    *to_class = fallback;
    Destination d;
    d.class_name = fallback;  // no PERCENT of its own: the CLASS_LIMIT, if any
    return PickDestination(policy_, trial, d, r.file->size);
  }

  // Tries to make room for candidate `c` in `d` by displacing residents
  // colder than it by the hysteresis factor, coldest first. All or nothing:
  // the displacements are planned only if the candidate then fits.
  bool SwapInto(const Statement& st, const Destination& d, const Candidate& c, SwapState* s,
                PlannedMove* m) {
    if (s->closed || m->bytes >= s->failed_bytes || c.verdict.temperature <= 0) return false;
    if (!s->built) Build(st, d.class_name, s);
    std::vector<VolumeState> trial = projected_;
    std::vector<PlannedMove> outs;
    std::vector<size_t> taken;
    for (size_t i = s->next;; ++i) {
      if (const VolumeState* to = PickDestination(policy_, trial, d, m->bytes)) {
        m->to_volume = to->id;
        m->to_class = d.class_name;
        m->statement += " swap-in";
        m->swap = PlannedMove::kSwapIn;
        Transfer(&trial, m->from_volume, to->id, m->bytes);
        projected_ = std::move(trial);
        for (size_t t : taken) evicted_.insert(s->residents[t].second->file->ino);
        while (s->next < s->residents.size() &&
               evicted_.count(s->residents[s->next].second->file->ino) != 0) {
          ++s->next;
        }
        for (PlannedMove& out : outs) placed_.push_back(std::move(out));
        placed_.push_back(std::move(*m));
        return true;
      }
      while (i < s->residents.size() && !Displaceable(*s->residents[i].second)) ++i;
      if (i >= s->residents.size()) {
        s->failed_bytes = std::min(s->failed_bytes, m->bytes);
        return false;
      }
      const auto& [temp, r] = s->residents[i];
      const double factor = options_.swap_hysteresis.value_or(policy_.swap_hysteresis);
      if (!(c.verdict.temperature > factor * temp)) {
        // Candidates come hottest first: if this one cannot displace the
        // coldest resident left, no later one can.
        if (taken.empty()) s->closed = true;
        return false;
      }
      std::string to_class;
      const VolumeState* to = EvictionTarget(trial, *r, d.class_name, m->from_class, &to_class);
      if (to == nullptr) continue;  // it has nowhere to go; try the next coldest
      PlannedMove out;
      out.ino = r->file->ino;
      out.path = r->file->path;
      out.rule = c.verdict.rule;
      out.statement = st.Label() + " swap-out";
      out.action = FileVerdict::kRelocate;
      out.from_volume = r->file->volume_id;
      out.from_class = d.class_name;
      out.to_volume = to->id;
      out.to_class = to_class;
      out.temperature = temp;
      out.temperature_kind = ev_.TemperatureKind(*st.ReportedCriterion(), temp);
      out.bytes = r->file->size;
      out.swap = PlannedMove::kSwapOut;
      Transfer(&trial, out.from_volume, out.to_volume, out.bytes);
      outs.push_back(std::move(out));
      taken.push_back(i);
    }
  }

  const PlacementPolicy& policy_;
  const Evaluator& ev_;
  std::vector<VolumeState> projected_;
  const std::vector<Settled>& settled_;  // files the scan does not move, in scan order
  const PlanOptions& options_;
  std::vector<PlannedMove> placed_;
  std::unordered_set<uint64_t> evicted_;
};

}  // namespace

ScanPlan PlanScan(const PlacementPolicy& policy, const std::vector<FileRecord>& files,
                  const std::vector<VolumeState>& volumes, const ActivityTotals& totals,
                  int64_t now_s, const PlanOptions& options) {
  Evaluator ev(policy, volumes, totals, now_s);
  ScanPlan plan;
  // Candidates per statement, keyed (rule, statement): document order.
  std::map<std::pair<int, int>, std::vector<Candidate>> by_statement;
  std::vector<Settled> settled;  // possible swap-outs, in scan order
  std::vector<Candidate> stays;  // kStay, in scan order
  std::unordered_set<uint64_t> seen;
  for (const FileRecord& file : files) {
    // A hard link met again (docs/policies.md "What a scan does").
    if (!seen.insert(file.ino).second) continue;
    ++plan.files_scanned;
    FileVerdict v = ev.Evaluate(file);
    if (v.action == FileVerdict::kNone || v.action == FileVerdict::kStay) {
      settled.push_back({&file, v.rule_index, v.statement_index, v.action});
      if (v.action == FileVerdict::kStay) stays.push_back({&file, std::move(v)});
      continue;
    }
    by_statement[{v.rule_index, v.statement_index}].push_back({&file, std::move(v)});
  }

  Placer placer(policy, ev, volumes, settled, options);
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
    placer.PlaceStatement(st, candidates, &plan);
  }

  // Stays, in scan order, except the files a swap moves out.
  for (const Candidate& c : stays) {
    if (placer.Evicted(c.file->ino)) continue;
    const Statement& st = policy.rules[c.verdict.rule_index].statements[c.verdict.statement_index];
    PlannedMove m = Base(c, st, ev);
    m.to_volume = m.from_volume;
    const VolumeState* vol = ev.FindVolume(c.file->volume_id);
    for (const std::string& cls : c.verdict.to_classes) {
      if (vol != nullptr && vol->HasClass(cls)) {
        m.to_class = cls;
        break;
      }
    }
    plan.stays.push_back(std::move(m));
  }
  plan.classes = ClassTable(volumes, placer.projected());
  plan.moves = OrderForExecution(placer.TakePlaced(), volumes);
  return plan;
}

}  // namespace tierfs::policy
