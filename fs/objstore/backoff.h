// The pause before a retry: exponential, capped, with full jitter (AWS's
// architecture blog's "full jitter": the pause is drawn from [0, base], which
// spreads many clients that failed together the most widely). Pure; thread-safe.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace tierfs {

// Seconds to wait after failed attempt number `attempt` (1 = the first) when
// the first pause is at most `initial` and no pause exceeds `max`: base =
// min(max, initial * 2^(attempt-1)), and the pause lies in [0, base], placed
// by `unit_random` in [0, 1).
inline double BackoffSeconds(int attempt, double initial, double max, double unit_random) {
  double base = initial * std::ldexp(1.0, std::clamp(attempt - 1, 0, 30));
  base = std::min(base, max);
  return base * std::clamp(unit_random, 0.0, 1.0);
}

}  // namespace tierfs
