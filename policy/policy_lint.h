// Whole-policy checks that look across rules and statements.
//
// Run by LoadPolicy() after the reader: the VxFS constraint that a directory
// named in several rules uses one Flags value (an error), and warnings for
// rules and statements that can never be reached (docs/policies.md "Validation"), for
// duplicate rule names, for several Prefer attributes in one statement, and
// for Prefer on DELETE. Pure; thread-safe.
#pragma once

#include <vector>

#include "policy/diagnostic.h"
#include "policy/policy.h"

namespace tierfs::policy {

// Appends findings about `policy` to `errors` and `warnings`.
void LintPolicy(const PlacementPolicy& policy, std::vector<Diagnostic>* errors,
                std::vector<Diagnostic>* warnings);

// True when `select` matches every file: no DIRECTORY (or the root,
// recursive), no owner or tag criteria, and no PATTERN or a "*" PATTERN.
bool SelectsEverything(const Select& select);

}  // namespace tierfs::policy
