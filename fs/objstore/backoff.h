// The pause before a retry: exponential, capped, with jitter (AWS's
// architecture blog's "equal jitter"). Pure; thread-safe.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace tierfs {

// Seconds to wait after failed attempt number `attempt` (1 = the first) when
// the first pause is `initial` and no pause exceeds `max`: base =
// min(max, initial * 2^(attempt-1)), and the pause lies in [base/2, base],
// placed by `unit_random` in [0, 1).
inline double BackoffSeconds(int attempt, double initial, double max, double unit_random) {
  double base = initial * std::ldexp(1.0, std::clamp(attempt - 1, 0, 30));
  base = std::min(base, max);
  return base / 2 + base / 2 * std::clamp(unit_random, 0.0, 1.0);
}

}  // namespace tierfs
