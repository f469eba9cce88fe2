// PolicyReader's WHEN criteria: SIZE, ACCAGE, MODAGE, IOTEMP, ACCESSTEMP and
// their MIN, MAX and PERIOD (docs/policies.md "WHEN criteria" and "Temperatures").
#include <cstdio>
#include <map>

#include "policy/policy_reader.h"
#include "policy/value_parse.h"
#include "policy/xml_document.h"

namespace tierfs::policy {
namespace {

// A PERIOD longer than this needs more I/O history than the daemon should
// keep (two weeks at most; docs/policies.md "Validation").
constexpr double kLongPeriodHours = 14 * 24;

const std::map<std::string_view, TempType>& TempTypes() {
  static const auto* types = new std::map<std::string_view, TempType>{
      {"nrbytes", TempType::kNrBytes}, {"nwbytes", TempType::kNwBytes},
      {"nrwbytes", TempType::kNrwBytes}, {"nreads", TempType::kNReads},
      {"nwrites", TempType::kNWrites}, {"nrws", TempType::kNrws}};
  return *types;
}

std::string FormatNumber(double v) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

}  // namespace

Criterion PolicyReader::ReadCriterion(const xmlNode* node) {
  Criterion c;
  c.line = LineOf(node);
  std::string_view name = NameOf(node);
  if (name == "SIZE") c.kind = CriterionKind::kSize;
  if (name == "ACCAGE") c.kind = CriterionKind::kAccAge;
  if (name == "MODAGE") c.kind = CriterionKind::kModAge;
  if (name == "IOTEMP") c.kind = CriterionKind::kIoTemp;
  if (name == "ACCESSTEMP") c.kind = CriterionKind::kAccessTemp;

  // Bounds are stored in bytes (SIZE), hours (ages) or as written (temperatures).
  // A missing or bad Units was reported by the DTD; 1 keeps the reader going.
  double unit = 1;
  c.units = TrimmedAttribute(node, "Units");
  if (c.kind == CriterionKind::kSize) unit = SizeUnitBytes(c.units).value_or(1);
  if (c.kind == CriterionKind::kAccAge || c.kind == CriterionKind::kModAge) {
    unit = TimeUnitHours(c.units).value_or(1);
  }

  if (c.IsTemperature()) {
    auto type = TempTypes().find(TrimmedAttribute(node, "Type"));
    if (type != TempTypes().end()) c.type = type->second;
    std::string prefer = TrimmedAttribute(node, "Prefer");
    if (prefer == "high") c.prefer = Prefer::kHigh;
    if (prefer == "low") c.prefer = Prefer::kLow;
    if (std::optional<std::string> avg = AttributeOf(node, "Average")) {
      if (Trim(*avg) == "*") {
        c.average = true;
      } else {
        Error(node, "Average must be \"*\" (a multiple of the file-system average over "
                    "AveragePeriod), got \"" + *avg + "\"");
      }
    }
  }

  bool has_period = false;
  for (const xmlNode* child : ChildElements(node)) {
    std::string_view cname = NameOf(child);
    if (cname == "MIN" || cname == "MAX") {
      ReadBound(child, unit, &c);
    } else if (cname == "PERIOD" && c.IsTemperature()) {
      has_period = true;
      ReadPeriod(child, &c);
    }
  }

  if (!c.IsTemperature() && !c.min && !c.max) {
    Error(node, "needs a <MIN> or a <MAX>");
  }
  if (c.IsTemperature() && has_period && !c.min && !c.max && c.prefer == Prefer::kNone) {
    Warn(node, "has neither MIN nor MAX nor Prefer: it always holds");
  }
  if (c.min && c.max) {
    bool empty = c.min->value > c.max->value ||
                 (c.min->value == c.max->value &&
                  (c.min->flag == MinFlag::kGt || c.max->flag == MaxFlag::kLt));
    if (empty) {
      Warn(node, "MIN " + FormatNumber(c.min->value / unit) + " and MAX " +
                     FormatNumber(c.max->value / unit) + " leave no value: it never holds");
    }
  }
  return c;
}

void PolicyReader::ReadBound(const xmlNode* node, double unit, Criterion* c) {
  std::optional<double> value = Number(node, "a non-negative number");
  if (!value) return;
  std::string flags = TrimmedAttribute(node, "Flags");
  if (NameOf(node) == "MIN") {
    MinBound b{*value * unit, MinFlag::kGtEq, LineOf(node)};
    if (flags == "gt") b.flag = MinFlag::kGt;
    if (flags == "eq") b.flag = MinFlag::kEq;
    c->min = b;
  } else {
    MaxBound b{*value * unit, MaxFlag::kLtEq, LineOf(node)};
    if (flags == "lt") b.flag = MaxFlag::kLt;
    c->max = b;
  }
}

void PolicyReader::ReadPeriod(const xmlNode* node, Criterion* c) {
  std::optional<double> unit = 24.0;  // docs/policies.md "WHEN criteria": days by default
  if (std::optional<std::string> units = AttributeOf(node, "Units")) {
    unit = TimeUnitHours(Trim(*units));  // a bad value was reported by the DTD
  }
  std::optional<double> value = Number(node, "a positive number");
  if (!value || !unit) return;
  if (*value <= 0) {
    Error(node, "PERIOD must be greater than 0");
    return;
  }
  if (*value * *unit > kMaxPeriodHours) {
    Error(node, "PERIOD may be at most 876000 hours (100 years)");
    return;
  }
  c->period_hours = *value * *unit;
  if (c->period_hours > kLongPeriodHours) {
    Warn(node, "a PERIOD of " + FormatNumber(c->period_hours) +
                   " hours needs I/O statistics kept that long (more than 14 days)");
  }
}

}  // namespace tierfs::policy
