// The advisor behind `fsppadm advise` (docs/policies.md "Advisor"): replays
// the recorded I/O history (policy/replay.h) against a policy and against
// variants of it with other temperature periods, thresholds and fast-class
// limits (policy/policy_variants.h), and ranks them by the share of I/O the
// fast class would have served.
//
// Every variant is replayed over the same periods with the real planner,
// from the same starting placement, so the only difference is the policy.
// Pure computation (no I/O), deterministic; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "policy/planner.h"
#include "policy/policy.h"
#include "policy/policy_variants.h"
#include "policy/replay.h"

namespace tierfs::policy {

// The grid of variants and how to replay them.
struct AdviseOptions {
  // Each variant combines one of each list (the policy as written, 1, 1 and
  // no limit change, is always tried). Factors > 0; limits in (0, 100].
  std::vector<double> period_factors = {0.5, 1, 2};
  std::vector<double> threshold_factors = {0.5, 1, 2};
  std::vector<double> limits = {80, 90, 100};  // percent of the fast class's capacity
  // The class whose files count as served (the SSD class) and whose limit
  // the variants change; some volume must carry it.
  std::string fast_class = "ssd";
  // The enforce interval, seconds: a positive multiple of the heat bucket.
  // 0: the policy's shortest temperature PERIOD (1 hour without one), rounded
  // up to a whole number of buckets.
  int64_t interval_s = 0;
  PlanOptions plan;  // planner switches, as enforce uses them by default
};

// One variant and its replay.
struct VariantOutcome {
  VariantSpec spec;
  std::string label;  // spec.Label(fast_class)
  std::string name;   // the variant's PLACEMENT_POLICY Name
  std::string xml;    // the variant's policy text, ready for `fsppadm assign`
  bool as_written = false;
  ReplayResult replay;
};

struct Advice {
  ReplayWindow window;        // the periods replayed (window.periods - 1 are scored)
  int64_t bucket_seconds = 0;
  OracleReplay oracles;       // the yardsticks over the same periods
  // Best first: highest served share, then fewest bytes moved, then the
  // policy as written, then grid order.
  std::vector<VariantOutcome> ranked;
  // Variants not replayed, each "LABEL: why" (e.g. a PERIOD shorter than the
  // heat bucket after scaling).
  std::vector<std::string> skipped;
};

// The error code Advise returns when the history holds fewer than 2
// periods: there is nothing to score.
inline constexpr int kAdviseTooShort = ENODATA;

// Runs the advisor. `base_xml` is the policy (assigned or given); `history`
// the file system's recorded I/O. Errors: EINVAL with the loader's
// diagnostics when base_xml does not load or fails the file system's heat
// resolution; EINVAL "no volume carries class C" for options.fast_class;
// EINVAL for a bad grid value or interval (message names the value);
// kAdviseTooShort with a message saying how much history there is and how
// much is needed when the window holds fewer than 2 periods.
Result<Advice> Advise(std::string_view base_xml, const IoHistory& history,
                      const AdviseOptions& options);

// The default enforce interval for `policy` with buckets of `bucket_seconds`
// (see AdviseOptions::interval_s), seconds.
int64_t DefaultReplayInterval(const PlacementPolicy& policy, int64_t bucket_seconds);

}  // namespace tierfs::policy
