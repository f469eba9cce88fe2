#include "policy/evaluator.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "policy/criteria.h"
#include "policy/select_match.h"
#include "policy/temperature.h"

namespace tierfs::policy {
namespace {

std::string FormatHours(double hours) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%gh", hours);
  return buf;
}

bool VolumeInAny(const VolumeState* vol, const std::vector<std::string>& classes) {
  if (vol == nullptr) return false;
  return std::any_of(classes.begin(), classes.end(),
                     [&](const std::string& c) { return vol->HasClass(c); });
}

}  // namespace

Evaluator::Evaluator(const PlacementPolicy& policy, const std::vector<VolumeState>& volumes,
                     const ActivityTotals& totals, int64_t now_s)
    : policy_(policy), now_s_(now_s), window_hours_(policy.WindowHours()) {
  for (const VolumeState& v : volumes) volumes_.emplace(v.id, &v);
  if (policy.UsesAverage()) {
    for (int t = 1; t < 7; ++t) {
      averages_[t] =
          AverageTemperature(static_cast<TempType>(t), totals, policy.average_period_hours);
    }
  }
}

const VolumeState* Evaluator::FindVolume(uint32_t id) const {
  auto it = volumes_.find(id);
  return it == volumes_.end() ? nullptr : it->second;
}

double Evaluator::Average(TempType type) const { return averages_[static_cast<int>(type)]; }

double Evaluator::Measure(const Criterion& c, const FileRecord& file) const {
  switch (c.kind) {
    case CriterionKind::kSize:
      return static_cast<double>(file.size);
    case CriterionKind::kAccAge:
      return static_cast<double>(now_s_ - file.atime_s) / 3600.0;
    case CriterionKind::kModAge:
      return static_cast<double>(now_s_ - file.mtime_s) / 3600.0;
    case CriterionKind::kIoTemp:
    case CriterionKind::kAccessTemp:
      break;
  }
  if (file.windows.empty()) return 0;  // no I/O recorded
  auto it = std::lower_bound(window_hours_.begin(), window_hours_.end(), c.period_hours);
  size_t index = static_cast<size_t>(it - window_hours_.begin());
  return FileTemperature(c, file.windows[index], file.size);
}

bool Evaluator::Holds(const Criterion& c, const FileRecord& file) const {
  const double value = Measure(c, file);
  double scale = 1.0;
  if (c.IsTemperature() && c.average) {
    scale = Average(c.type);
    if (scale <= 0) return !c.min.has_value();  // docs/policies.md "Temperatures"
  }
  if (c.min && !MinHolds(*c.min, value, scale)) return false;
  if (c.max && !MaxHolds(*c.max, value, scale)) return false;
  return true;
}

std::string Evaluator::TemperatureKind(const Criterion& c, double value) const {
  std::string kind = std::string(CriterionKindName(c.kind)) + " " + TempTypeName(c.type) + " " +
                     FormatHours(c.period_hours);
  if (c.average) {
    double avg = Average(c.type);
    char buf[48];
    if (avg > 0) {
      snprintf(buf, sizeof(buf), " x%.2f avg", value / avg);
    } else {
      snprintf(buf, sizeof(buf), " avg 0");
    }
    kind += buf;
  }
  return kind;
}

void Evaluator::Report(const Statement& st, const FileRecord& file, FileVerdict* v) const {
  const Criterion* c = st.ReportedCriterion();
  if (c == nullptr) return;
  v->temperature = Measure(*c, file);
  v->temperature_kind = TemperatureKind(*c, v->temperature);
}

FileVerdict Evaluator::Evaluate(const FileRecord& file) const {
  if (!file.windows.empty() && file.windows.size() != window_hours_.size()) {
    fprintf(stderr,
            "tierfs policy: FileRecord ino %llu has %zu I/O windows, the policy needs %zu\n",
            static_cast<unsigned long long>(file.ino), file.windows.size(),
            window_hours_.size());
    abort();
  }
  FileVerdict verdict;
  FileIdentity id{file.path, file.uid, file.gid, file.user, file.group, &file.tags};
  verdict.rule_index = GoverningRuleIndex(policy_, id);
  if (verdict.rule_index < 0) return verdict;
  const Rule& rule = policy_.rules[static_cast<size_t>(verdict.rule_index)];
  verdict.rule = rule.name;
  const VolumeState* volume = FindVolume(file.volume_id);
  for (size_t s = 0; s < rule.statements.size(); ++s) {
    const Statement& st = rule.statements[s];
    if (!st.from_classes.empty()) {
      bool from = volume != nullptr &&
                  std::any_of(st.from_classes.begin(), st.from_classes.end(),
                              [&](const auto& c) { return volume->HasClass(c.value); });
      if (!from) continue;
    }
    bool all = std::all_of(st.criteria.begin(), st.criteria.end(),
                           [&](const Criterion& c) { return Holds(c, file); });
    if (!all) continue;
    verdict.statement_index = static_cast<int>(s);
    verdict.statement = st.Label();
    for (const Destination& d : st.to_classes) {
      if (!d.class_name.empty()) verdict.to_classes.push_back(d.class_name);
    }
    if (st.kind == Statement::kDelete) {
      verdict.action = FileVerdict::kDelete;
    } else {
      verdict.action =
          VolumeInAny(volume, verdict.to_classes) ? FileVerdict::kStay : FileVerdict::kRelocate;
    }
    Report(st, file, &verdict);
    return verdict;
  }
  return verdict;
}

FileVerdict EvaluateFile(const PlacementPolicy& policy, const FileRecord& file,
                         const std::vector<VolumeState>& volumes, const ActivityTotals& totals,
                         int64_t now_s) {
  return Evaluator(policy, volumes, totals, now_s).Evaluate(file);
}

}  // namespace tierfs::policy
