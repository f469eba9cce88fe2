#include "policy/loader.h"

#include <libxml/tree.h>

#include <algorithm>
#include <cstdio>
#include <set>

#include "policy/policy_lint.h"
#include "policy/policy_reader.h"
#include "policy/xml_document.h"

namespace tierfs::policy {
namespace {

void SortByLine(std::vector<Diagnostic>* diags) {
  std::stable_sort(diags->begin(), diags->end(),
                   [](const Diagnostic& a, const Diagnostic& b) { return a.line < b.line; });
}

}  // namespace

LoadResult LoadPolicy(std::string_view xml) {
  LoadResult result;
  XmlDocument doc = ParseXml(xml, &result.errors, &result.warnings);
  if (doc == nullptr) return result;
  const xmlNode* root = xmlDocGetRootElement(doc.get());
  if (root == nullptr || NameOf(root) != "PLACEMENT_POLICY") {
    result.errors.push_back({LineOf(root), std::string(NameOf(root)),
                             "the root element must be <PLACEMENT_POLICY>"});
    return result;
  }
  ValidateWithEmbeddedDtd(doc.get(), &result.errors);
  PolicyReader reader(&result.errors, &result.warnings);
  PlacementPolicy policy = reader.Read(root);
  LintPolicy(policy, &result.errors, &result.warnings);
  SortByLine(&result.errors);
  SortByLine(&result.warnings);
  if (result.errors.empty()) result.policy = std::move(policy);
  return result;
}

void CheckClasses(const PlacementPolicy& policy, const std::vector<std::string>& known_classes,
                  bool force, LoadResult* result) {
  std::set<std::string> known(known_classes.begin(), known_classes.end());
  std::vector<Diagnostic> found;
  auto check = [&](const std::string& name, int line) {
    if (name.empty() || known.count(name) != 0) return;
    std::string message = "class \"" + name + "\" has no volume in this file system";
    message += force ? " (forced: the class is skipped until a volume carries it)"
                     : " (use -f to assign anyway)";
    found.push_back({line, "CLASS", message});
  };
  for (const ClassLimit& l : policy.class_limits) check(l.class_name, l.class_line);
  for (const Rule& rule : policy.rules) {
    if (rule.flags != RuleFlags::kData) continue;
    if (rule.create) {
      for (const Destination& d : rule.create->destinations) check(d.class_name, d.class_line);
    }
    for (const Statement& st : rule.statements) {
      for (const auto& from : st.from_classes) check(from.value, from.line);
      for (const Destination& d : st.to_classes) check(d.class_name, d.class_line);
    }
  }
  std::vector<Diagnostic>* target = force ? &result->warnings : &result->errors;
  target->insert(target->end(), found.begin(), found.end());
  SortByLine(target);
  if (!result->errors.empty()) result->policy.reset();  // after the last use of `policy`
}

void CheckHeatResolution(const PlacementPolicy& policy, int64_t bucket_seconds,
                         LoadResult* result) {
  std::vector<Diagnostic> found;
  const double bucket = static_cast<double>(bucket_seconds);
  auto describe = [](double seconds) {
    char buf[48];
    if (seconds >= 3600) {
      snprintf(buf, sizeof buf, "%g h", seconds / 3600);
    } else {
      snprintf(buf, sizeof buf, "%g s", seconds);
    }
    return std::string(buf);
  };
  auto check = [&](double hours, int line, const std::string& element, const std::string& what) {
    if (hours * 3600 >= bucket) return;
    found.push_back({line, element,
                     what + " of " + describe(hours * 3600) +
                         " is shorter than this file system's heat bucket of " +
                         describe(bucket) +
                         ": I/O is counted per bucket, so it cannot be measured (use at least " +
                         describe(bucket) + ", or a shorter bucket)"});
  };
  if (policy.UsesAverage()) {
    check(policy.average_period_hours, policy.line, "PLACEMENT_POLICY", "AveragePeriod");
  }
  for (const Rule& rule : policy.rules) {
    if (rule.flags != RuleFlags::kData) continue;
    for (const Statement& st : rule.statements) {
      for (const Criterion& c : st.criteria) {
        if (c.IsTemperature()) check(c.period_hours, c.line, CriterionKindName(c.kind), "PERIOD");
      }
    }
  }
  result->errors.insert(result->errors.end(), found.begin(), found.end());
  SortByLine(&result->errors);
  if (!result->errors.empty()) result->policy.reset();  // after the last use of `policy`
}

}  // namespace tierfs::policy
