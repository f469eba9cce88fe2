#include "policy/policy_lint.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace tierfs::policy {
namespace {

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

// True when every file that reaches `later` was already taken by `earlier`:
// `earlier` is unconditional and its FROM covers the FROM of `later`.
bool Shadows(const Statement& earlier, const Statement& later) {
  if (!earlier.criteria.empty()) return false;
  if (earlier.from_classes.empty()) return true;
  if (later.from_classes.empty()) return false;
  for (const auto& c : later.from_classes) {
    bool covered = std::any_of(earlier.from_classes.begin(), earlier.from_classes.end(),
                               [&](const auto& e) { return e.value == c.value; });
    if (!covered) return false;
  }
  return true;
}

void LintStatements(const Rule& rule, std::vector<Diagnostic>* warnings) {
  for (size_t j = 0; j < rule.statements.size(); ++j) {
    const Statement& st = rule.statements[j];
    const char* elem = st.kind == Statement::kDelete ? "DELETE" : "RELOCATE";
    for (size_t i = 0; i < j; ++i) {
      if (Shadows(rule.statements[i], st)) {
        warnings->push_back({st.line, elem, st.Label() + " of rule " + Quoted(rule.name) +
                                                " is never reached: " +
                                                rule.statements[i].Label() + " (line " +
                                                std::to_string(rule.statements[i].line) +
                                                ") takes every file first"});
        break;
      }
    }
    if (st.online_hold_hours && !st.online) {
      warnings->push_back({st.line, elem, "OnlineHold has effect only with Online=\"yes\"; "
                                          "ignored"});
    }
    if (st.online && st.ReportedCriterion() == nullptr) {
      warnings->push_back({st.line, elem, "Online=\"yes\" on a " + st.Label() +
                                              " without IOTEMP or ACCESSTEMP: the daemon "
                                              "relocates each file it selects at its first I/O"});
    }
    int prefers = 0;
    for (const Criterion& c : st.criteria) {
      if (c.prefer == Prefer::kNone) continue;
      if (st.kind == Statement::kDelete) {
        warnings->push_back({c.line, CriterionKindName(c.kind), "Prefer has no effect in DELETE"});
      } else if (++prefers == 2) {
        warnings->push_back({c.line, CriterionKindName(c.kind),
                             "only the first Prefer of a statement orders its candidates; "
                             "this one is ignored"});
      }
    }
  }
}

}  // namespace

bool SelectsEverything(const Select& s) {
  if (!s.users.empty() || !s.groups.empty() || !s.uids.empty() || !s.gids.empty() ||
      !s.tags.empty()) {
    return false;
  }
  bool all_dirs = s.directories.empty() ||
                  std::any_of(s.directories.begin(), s.directories.end(),
                              [](const Directory& d) { return d.path.empty() && d.recursive; });
  bool all_names = s.patterns.empty() ||
                   std::any_of(s.patterns.begin(), s.patterns.end(),
                               [](const Pattern& p) { return p.glob == "*"; });
  return all_dirs && all_names;
}

void LintPolicy(const PlacementPolicy& policy, std::vector<Diagnostic>* errors,
                std::vector<Diagnostic>* warnings) {
  std::map<std::string, const Rule*> names;
  std::map<std::string, const Directory*> directory_flags;
  const Rule* catch_all = nullptr;
  for (const Rule& rule : policy.rules) {
    auto [it, inserted] = names.emplace(rule.name, &rule);
    if (!inserted) {
      warnings->push_back({rule.line, "RULE", "another rule is also named " + Quoted(rule.name) +
                                                  " (line " + std::to_string(it->second->line) +
                                                  "); reports will not tell them apart"});
    }
    // VxFS's DTD: a directory named in several rules uses one Flags value.
    for (const Select& select : rule.selects) {
      for (const Directory& dir : select.directories) {
        auto [d, fresh] = directory_flags.emplace(dir.path, &dir);
        if (!fresh && d->second->recursive != dir.recursive) {
          errors->push_back(
              {dir.line, "DIRECTORY",
               "directory " + Quoted(dir.path.empty() ? "/" : dir.path) + " is " +
                   (dir.recursive ? "recursive" : "nonrecursive") + " here but " +
                   (d->second->recursive ? "recursive" : "nonrecursive") + " at line " +
                   std::to_string(d->second->line) +
                   "; a directory must use the same Flags everywhere"});
        }
      }
    }
    if (rule.flags != RuleFlags::kData) continue;
    if (catch_all != nullptr) {
      warnings->push_back({rule.line, "RULE", "rule " + Quoted(rule.name) +
                                                  " is never used: rule " +
                                                  Quoted(catch_all->name) + " (line " +
                                                  std::to_string(catch_all->line) +
                                                  ") selects every file first"});
    } else if (std::any_of(rule.selects.begin(), rule.selects.end(), SelectsEverything)) {
      catch_all = &rule;
    }
    LintStatements(rule, warnings);
  }
}

}  // namespace tierfs::policy
