// The "tier_summary" control op (fs/control/control_protocol.md): how many bytes of each
// directory sit on each placement class and how hot they are, for
// `fsppadm report` (docs/admin.md "A picture of the tiers").
//
// The daemon aggregates, so a million files cost the answer one row per
// directory: every regular file (gathered by GatherScanInputs, the scan's own
// walker, fs/tiering/scan_records.h) counts in the directory that holds it, cut to
// `depth` path components ("/a/b/c/f" counts in "/a/b" at depth 2, "/f" in
// "/").
//
// Internal to fs/control/control_handlers.cc. Thread-safe: it only reads (after
// flushing the in-memory I/O counters).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "fs/core/file_system.h"

namespace tierfs {

// The directory a file at `path` ("/a/b/f", mount-relative) counts in at
// `depth` (>= 0) components: its parent directory cut to `depth` components;
// "/" for depth 0 or a file in the root. Pure.
std::string SummaryDirectory(const std::string& path, int64_t depth);

// The request's members: {"op":"tier_summary","depth":D,"hours":H}.
struct TierSummaryRequest {
  int64_t depth = 2;  // directory components, 0 to 1000
  double hours = 24;  // the heat window, more than 0 and at most 8784 (a leap year)
};
// Reads them (absent = the defaults). EINVAL naming the field for a value of
// the wrong type or out of range. Pure.
Result<TierSummaryRequest> ParseTierSummaryRequest(const nlohmann::json& request);

// Answers the request. Errors: those of ParseTierSummaryRequest; database
// errors (EIO...) as they come. The reply's shape is in fs/control/control_protocol.md.
Result<nlohmann::json> TierSummaryJson(FileSystem& fs, const nlohmann::json& request);

}  // namespace tierfs
