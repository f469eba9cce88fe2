#include "policy/policy_reader.h"

#include <algorithm>

#include "policy/value_parse.h"
#include "policy/xml_document.h"

namespace tierfs::policy {
namespace {

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

// The largest OnlineBudget, MB per second: 1 TB/s, beyond any device.
constexpr double kMaxOnlineBudgetMb = 1e6;

}  // namespace

void PolicyReader::Error(const xmlNode* node, std::string message) {
  errors_->push_back({LineOf(node), std::string(NameOf(node)), std::move(message)});
}

void PolicyReader::Warn(const xmlNode* node, std::string message) {
  warnings_->push_back({LineOf(node), std::string(NameOf(node)), std::move(message)});
}

std::string PolicyReader::NonEmptyText(const xmlNode* node) {
  std::string text = TextOf(node);
  if (text.empty()) Error(node, "may not be empty");
  return text;
}

std::optional<double> PolicyReader::Number(const xmlNode* node, const std::string& what) {
  std::string text = TextOf(node);
  std::optional<double> value = ParseDecimal(text);
  if (!value) Error(node, "expected " + what + ", got " + Quoted(text));
  return value;
}

ClassLimit PolicyReader::ReadClassLimit(const xmlNode* node) {
  ClassLimit limit;
  limit.line = LineOf(node);
  for (const xmlNode* child : ChildElements(node)) {
    if (NameOf(child) == "CLASS") {
      limit.class_name = NonEmptyText(child);
      limit.class_line = LineOf(child);
    } else if (NameOf(child) == "PERCENT") {
      if (std::optional<double> percent = Percent(child, /*allow_zero=*/false)) {
        limit.percent = *percent;
      }
    }
  }
  return limit;
}

std::optional<double> PolicyReader::Percent(const xmlNode* node, bool allow_zero) {
  std::optional<double> value = Number(node, "a percentage");
  if (!value) return std::nullopt;
  if (*value > 100 || (*value == 0 && !allow_zero)) {
    Error(node, std::string("PERCENT must be ") + (allow_zero ? "from 0" : "greater than 0") +
                    " to 100, got " + Quoted(TextOf(node)));
    return std::nullopt;
  }
  return value;
}

PlacementPolicy PolicyReader::Read(const xmlNode* root) {
  PlacementPolicy policy;
  policy.line = LineOf(root);
  policy.name = TrimmedAttribute(root, "Name");
  if (policy.name.empty() && AttributeOf(root, "Name")) Error(root, "Name may not be empty");
  std::optional<std::string> version = AttributeOf(root, "Version");
  policy.version = version ? Trim(*version) : "";
  if (version && !IsSupportedVersion(policy.version)) {
    Error(root, "Version must be 5.0, 5.1 or a later 5.x, got " + Quoted(*version));
  }
  if (std::optional<std::string> avg = AttributeOf(root, "AveragePeriod")) {
    std::optional<double> hours = ParseDecimal(Trim(*avg));
    if (!hours || *hours <= 0) {
      Error(root, "AveragePeriod must be a positive number of hours, got " + Quoted(*avg));
    } else if (*hours > kMaxPeriodHours) {
      Error(root, "AveragePeriod may be at most 876000 hours (100 years), got " + Quoted(*avg));
    } else {
      policy.average_period_hours = *hours;
    }
  }
  if (std::optional<std::string> h = AttributeOf(root, "SwapHysteresis")) {
    // A tierfs extension (policy.h PlacementPolicy::swap_hysteresis).
    std::optional<double> factor = ParseDecimal(Trim(*h));
    if (!factor || *factor < 1 || *factor > 1000) {
      Error(root, "SwapHysteresis must be a number from 1 to 1000, got " + Quoted(*h));
    } else {
      policy.swap_hysteresis = *factor;
    }
  }
  if (std::optional<std::string> b = AttributeOf(root, "OnlineBudget")) {
    // A tierfs extension (policy.h PlacementPolicy::online_budget_bytes_per_s).
    std::optional<double> mb = ParseDecimal(Trim(*b));
    if (!mb || *mb <= 0 || *mb > kMaxOnlineBudgetMb) {
      Error(root, "OnlineBudget must be a number of MB per second above 0 and at most 1000000, "
                  "got " + Quoted(*b));
    } else {
      policy.online_budget_bytes_per_s = *mb * 1024 * 1024;
    }
  }
  for (const xmlNode* child : ChildElements(root)) {
    if (NameOf(child) == "RULE") policy.rules.push_back(ReadRule(child));
    if (NameOf(child) == "CLASS_LIMIT") {
      ClassLimit limit = ReadClassLimit(child);
      for (const ClassLimit& earlier : policy.class_limits) {
        if (!limit.class_name.empty() && earlier.class_name == limit.class_name) {
          Error(child, "class " + Quoted(limit.class_name) + " already has a CLASS_LIMIT (line " +
                           std::to_string(earlier.line) + ")");
        }
      }
      policy.class_limits.push_back(std::move(limit));
    }
  }
  return policy;
}

Rule PolicyReader::ReadRule(const xmlNode* node) {
  Rule rule;
  rule.line = LineOf(node);
  rule.name = TrimmedAttribute(node, "Name");
  if (rule.name.empty() && AttributeOf(node, "Name")) Error(node, "Name may not be empty");
  std::string flags = TrimmedAttribute(node, "Flags");
  if (flags == "checkpoint" || flags == "ckpt") {
    rule.flags = RuleFlags::kCheckpoint;
    Warn(node, "rule " + Quoted(rule.name) + " has Flags=" + Quoted(flags) +
                   ": accepted and ignored (tierfs has no Storage Checkpoints)");
  }
  int relocates = 0;
  int deletes = 0;
  for (const xmlNode* child : ChildElements(node)) {
    std::string_view name = NameOf(child);
    if (name == "SELECT") {
      rule.selects.push_back(ReadSelect(child));
    } else if (name == "CREATE") {
      rule.create = ReadCreate(child);
    } else if (name == "RELOCATE") {
      rule.statements.push_back(ReadStatement(child, Statement::kRelocate, ++relocates));
    } else if (name == "DELETE") {
      rule.statements.push_back(ReadStatement(child, Statement::kDelete, ++deletes));
    }
  }
  return rule;
}

Select PolicyReader::ReadSelect(const xmlNode* node) {
  Select select;
  select.line = LineOf(node);
  select.name = TrimmedAttribute(node, "Name");
  for (const xmlNode* child : ChildElements(node)) {
    std::string_view name = NameOf(child);
    int line = LineOf(child);
    if (name == "DIRECTORY") {
      std::string error;
      std::optional<std::string> path = NormalizeDirectory(TextOf(child), &error);
      if (!path) {
        Error(child, error);
        continue;
      }
      select.directories.push_back(
          {*path, TrimmedAttribute(child, "Flags") == "recursive", line});
    } else if (name == "PATTERN") {
      std::string glob = NonEmptyText(child);
      if (glob.find('/') != std::string::npos) {
        Error(child, "a PATTERN matches one name and may not contain '/' (use DIRECTORY for "
                     "paths), got " + Quoted(glob));
      }
      select.patterns.push_back({glob, TrimmedAttribute(child, "Flags") == "recursive", line});
    } else if (name == "USER" || name == "GROUP") {
      auto& list = name == "USER" ? select.users : select.groups;
      list.push_back({NonEmptyText(child), line});
    } else if (name == "UID" || name == "GID") {
      std::string text = TextOf(child);
      std::optional<uint32_t> id = ParseId(text);
      if (!id) {
        Error(child, "expected a numeric id (0 to 4294967295), got " + Quoted(text));
        continue;
      }
      (name == "UID" ? select.uids : select.gids).push_back({*id, line});
    } else if (name == "TAG") {
      std::string tag = NonEmptyText(child);
      if (tag.find_first_of(", \t\r\n") != std::string::npos) {
        Error(child, "a TAG is one word (no comma or space), got " + Quoted(tag));
      }
      select.tags.push_back({tag, line});
    }
  }
  return select;
}

Destination PolicyReader::ReadDestination(const xmlNode* node, bool in_create) {
  Destination dest;
  dest.line = LineOf(node);
  std::string flags = TrimmedAttribute(node, "Flags");
  if (flags == "any") {
    if (in_create) {
      dest.any = true;
    } else {
      Warn(node, "Flags=\"any\" has effect only in CREATE; ignored in TO");
    }
  } else if (flags == "disallow") {
    Warn(node, "Flags=\"disallow\" is not implemented (nor was it in VxFS); ignored");
  }
  for (const xmlNode* child : ChildElements(node)) {
    std::string_view name = NameOf(child);
    if (name == "CLASS") {
      dest.class_name = NonEmptyText(child);
      dest.class_line = LineOf(child);
    } else if (name == "PERCENT") {
      // A tierfs extension for relocations (policy.h Destination::percent);
      // a new file's size is unknown at create time, so CREATE cannot honour it.
      std::optional<double> percent = Percent(child, /*allow_zero=*/false);
      if (in_create) {
        Warn(child, "PERCENT limits relocations only; ignored in CREATE");
      } else if (percent) {
        dest.percent = *percent;
      }
    } else if (name == "BALANCE_SIZE") {
      std::optional<double> unit = SizeUnitBytes(TrimmedAttribute(child, "Units"));
      std::optional<double> value = Number(child, "a positive size");
      if (value && *value <= 0) Error(child, "BALANCE_SIZE must be greater than 0");
      if (value && unit && *value * *unit > kMaxBalanceSizeBytes) {
        Error(child, "BALANCE_SIZE must be less than 16 EiB (2^64 bytes)");
      } else if (value && unit && *value > 0) {
        dest.balance_size = std::max<uint64_t>(1, static_cast<uint64_t>(*value * *unit));
      }
    }
  }
  if (dest.class_line == 0 && !in_create) Error(node, "a TO destination needs a <CLASS>");
  return dest;
}

Create PolicyReader::ReadCreate(const xmlNode* node) {
  Create create;
  create.line = LineOf(node);
  for (const xmlNode* on : ChildElements(node)) {
    if (NameOf(on) != "ON") continue;
    if (TrimmedAttribute(on, "Flags") == "any") create.any = true;
    for (const xmlNode* child : ChildElements(on)) {
      if (NameOf(child) != "DESTINATION") continue;
      create.destinations.push_back(ReadDestination(child, /*in_create=*/true));
      if (create.destinations.back().any) create.any = true;
    }
  }
  if (!create.any) {
    for (const Destination& d : create.destinations) {
      if (d.class_line == 0) {
        errors_->push_back({d.line, "DESTINATION",
                            "needs a <CLASS> (only ON Flags=\"any\" allows none)"});
      }
    }
  }
  return create;
}

Statement PolicyReader::ReadStatement(const xmlNode* node, Statement::Kind kind, int number) {
  Statement st;
  st.kind = kind;
  st.number = number;
  st.line = LineOf(node);
  if (kind == Statement::kRelocate) {
    // tierfs extensions (policy.h Statement::online, online_hold_hours).
    st.online = TrimmedAttribute(node, "Online") == "yes";
    if (std::optional<std::string> h = AttributeOf(node, "OnlineHold")) {
      std::optional<double> hours = ParseDecimal(Trim(*h));
      if (!hours || *hours < 0 || *hours > kMaxPeriodHours) {
        Error(node, "OnlineHold must be a number of hours from 0 to 876000, got " + Quoted(*h));
      } else {
        st.online_hold_hours = *hours;
      }
    }
  }
  for (const xmlNode* child : ChildElements(node)) {
    std::string_view name = NameOf(child);
    if (name == "FROM") {
      for (const xmlNode* source : ChildElements(child)) {
        if (NameOf(source) != "SOURCE") continue;
        std::string class_name;
        for (const xmlNode* item : ChildElements(source)) {
          if (NameOf(item) == "CLASS") {
            class_name = NonEmptyText(item);
            st.from_classes.push_back({class_name, LineOf(item)});
          } else if (NameOf(item) == "PERCENT") {
            // The DTD puts PERCENT after CLASS, so class_name is known here.
            std::optional<double> percent = Percent(item, /*allow_zero=*/true);
            if (percent) st.from_limits.push_back({class_name, *percent, LineOf(item)});
          }
        }
      }
    } else if (name == "TO" && kind == Statement::kRelocate) {
      for (const xmlNode* dest : ChildElements(child)) {
        if (NameOf(dest) == "DESTINATION") {
          st.to_classes.push_back(ReadDestination(dest, /*in_create=*/false));
        }
      }
    } else if (name == "WHEN") {
      for (const xmlNode* crit : ChildElements(child)) {
        std::string_view cname = NameOf(crit);
        if (cname == "SIZE" || cname == "ACCAGE" || cname == "MODAGE" || cname == "IOTEMP" ||
            cname == "ACCESSTEMP") {
          st.criteria.push_back(ReadCriterion(crit));
        }
      }
    }
  }
  return st;
}

}  // namespace tierfs::policy
