// SELECT matching: which rule governs a file (docs/policies.md "Rules" and
// "SELECT: which files").
//
// Within one SELECT, entries of the same kind are OR-ed and different kinds
// AND-ed; the SELECTs of a rule are OR-ed; the first data rule with a
// matching SELECT governs. PATTERN is an fnmatch(3) glob (no flags: '*'
// also matches a leading '.') against the file name; a recursive PATTERN
// also matches any directory name on the path below the matched DIRECTORY
// (below the root when the SELECT has none) and then selects the file.
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "policy/policy.h"

namespace tierfs::policy {

// What a SELECT looks at. Views: the referenced strings must outlive it.
struct FileIdentity {
  std::string_view path;   // "/dir/name", relative to the mount root
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string_view user;   // "" when the uid has no name (USER never matches then)
  std::string_view group;  // "" when the gid has no name
  const std::vector<std::string>* tags = nullptr;  // nullptr = no tags
};

// True when `glob` matches `name` in the sense of fnmatch(3) with no flags.
bool GlobMatches(const std::string& glob, std::string_view name);

// True when `select` selects the file `id`.
bool SelectMatches(const Select& select, const FileIdentity& id);

// The index of the first data rule (checkpoint rules are skipped) with a
// SELECT that matches `id`, or -1 when no rule selects the file.
int GoverningRuleIndex(const PlacementPolicy& policy, const FileIdentity& id);

}  // namespace tierfs::policy
