// Loading placement policies: XML text in, validated PlacementPolicy out.
//
// LoadPolicy() checks a document in three stages, each adding Diagnostics
// with line numbers: well-formedness (libxml2 with network, external
// entities and external DTDs disabled), the DTD compiled into tierfs
// (placement_policy.dtd, never the DOCTYPE's SYSTEM path), then semantic
// checks. CheckClasses() and CheckHeatResolution() add the checks against a
// file system's classes and heat bucket.
// Pure (no I/O besides parsing the string); thread-safe.
// docs/policies.md "The document", "Validation", "Rules" and "WHEN criteria".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policy/diagnostic.h"
#include "policy/policy.h"

namespace tierfs::policy {

// The outcome of loading a policy.
struct LoadResult {
  std::optional<PlacementPolicy> policy;  // set only when `errors` is empty
  std::vector<Diagnostic> errors;         // in document order
  std::vector<Diagnostic> warnings;       // in document order; never block assignment

  bool ok() const { return errors.empty() && policy.has_value(); }
};

// Parses and validates `xml` (well-formedness, our DTD, then semantic
// checks). Errors never stop the later stages when the tree exists, so one
// call reports as many problems as it can. `policy` is set only when no
// error was found.
LoadResult LoadPolicy(std::string_view xml);

// Checks every class `policy` names (CREATE destinations, FROM sources, TO
// destinations of data rules) against `known_classes`, the classes the file
// system's volumes carry (docs/policies.md "Validation"). An unknown class is an error,
// or a warning when `force` (that class is then skipped at placement time).
// Appends to `result` (sorted by line); when `result` then holds any error,
// result->policy is reset. `policy` may be *result->policy: it is read fully
// before the reset.
void CheckClasses(const PlacementPolicy& policy, const std::vector<std::string>& known_classes,
                  bool force, LoadResult* result);

// Checks the PERIODs of the data rules' IOTEMP/ACCESSTEMP criteria, and the
// AveragePeriod when some criterion uses Average="*", against
// `bucket_seconds`, the length of the file system's iostat buckets (its heat
// resolution, > 0). A window shorter than one bucket cannot be measured: the
// counts would mean "since the current bucket began" and depend on the
// minute the scan runs; each such window is an error (tierfs extension;
// docs/policies.md "Temperatures"). Appends to `result` (sorted by
// line); when `result` then holds any error, result->policy is reset.
// `policy` may be *result->policy.
void CheckHeatResolution(const PlacementPolicy& policy, int64_t bucket_seconds,
                         LoadResult* result);

}  // namespace tierfs::policy
