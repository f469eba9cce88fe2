#include "policy/policy.h"

#include <algorithm>

namespace tierfs::policy {

std::string Statement::Label() const {
  return std::string(kind == kDelete ? "DELETE " : "RELOCATE ") + std::to_string(number);
}

const Criterion* Statement::ReportedCriterion() const {
  for (const Criterion& c : criteria) {
    if (c.IsTemperature() && c.prefer != Prefer::kNone) return &c;
  }
  for (const Criterion& c : criteria) {
    if (c.IsTemperature()) return &c;
  }
  return nullptr;
}

Prefer Statement::OrderingPrefer() const {
  const Criterion* c = ReportedCriterion();
  return c == nullptr ? Prefer::kNone : c->prefer;
}

std::optional<double> PlacementPolicy::DestinationPercent(const Destination& d) const {
  if (d.percent) return d.percent;
  for (const ClassLimit& l : class_limits) {
    if (l.class_name == d.class_name) return l.percent;
  }
  return std::nullopt;
}

std::optional<double> Statement::SourcePercent(const std::string& class_name) const {
  for (const SourceLimit& l : from_limits) {
    if (l.class_name == class_name) return l.percent;
  }
  return std::nullopt;
}

double Statement::OnlineHoldHours() const {
  if (online_hold_hours) return *online_hold_hours;
  double longest = 0;
  for (const Criterion& c : criteria) {
    if (c.IsTemperature()) longest = std::max(longest, c.period_hours);
  }
  return longest > 0 ? longest : kDefaultOnlineHoldHours;
}

bool PlacementPolicy::HasOnlineStatements() const {
  for (const Rule& rule : rules) {
    if (rule.flags != RuleFlags::kData) continue;
    for (const Statement& st : rule.statements) {
      if (st.online) return true;
    }
  }
  return false;
}

bool PlacementPolicy::UsesAverage() const {
  for (const Rule& rule : rules) {
    if (rule.flags != RuleFlags::kData) continue;
    for (const Statement& st : rule.statements) {
      for (const Criterion& c : st.criteria) {
        if (c.IsTemperature() && c.average) return true;
      }
    }
  }
  return false;
}

bool PlacementPolicy::SelectsByOwnerName() const {
  for (const Rule& rule : rules) {
    for (const Select& select : rule.selects) {
      if (!select.users.empty() || !select.groups.empty()) return true;
    }
  }
  return false;
}

bool PlacementPolicy::SelectsByDirectory() const {
  for (const Rule& rule : rules) {
    for (const Select& select : rule.selects) {
      if (!select.directories.empty()) return true;
      for (const Pattern& pattern : select.patterns) {
        if (pattern.recursive) return true;
      }
    }
  }
  return false;
}

std::vector<double> PlacementPolicy::WindowHours() const {
  std::vector<double> hours;
  for (const Rule& rule : rules) {
    if (rule.flags != RuleFlags::kData) continue;
    for (const Statement& st : rule.statements) {
      for (const Criterion& c : st.criteria) {
        if (c.IsTemperature()) hours.push_back(c.period_hours);
      }
    }
  }
  if (UsesAverage()) hours.push_back(average_period_hours);
  std::sort(hours.begin(), hours.end());
  hours.erase(std::unique(hours.begin(), hours.end()), hours.end());
  return hours;
}

const char* CriterionKindName(CriterionKind kind) {
  switch (kind) {
    case CriterionKind::kSize:
      return "SIZE";
    case CriterionKind::kAccAge:
      return "ACCAGE";
    case CriterionKind::kModAge:
      return "MODAGE";
    case CriterionKind::kIoTemp:
      return "IOTEMP";
    case CriterionKind::kAccessTemp:
      return "ACCESSTEMP";
  }
  return "?";
}

const char* TempTypeName(TempType type) {
  switch (type) {
    case TempType::kNone:
      return "";
    case TempType::kNrBytes:
      return "nrbytes";
    case TempType::kNwBytes:
      return "nwbytes";
    case TempType::kNrwBytes:
      return "nrwbytes";
    case TempType::kNReads:
      return "nreads";
    case TempType::kNWrites:
      return "nwrites";
    case TempType::kNrws:
      return "nrws";
  }
  return "?";
}

}  // namespace tierfs::policy
