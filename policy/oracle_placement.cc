#include "policy/oracle_placement.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>

namespace tierfs::policy {

double OracleShare(const std::vector<double>& rank_heat, const std::vector<double>& period_bytes,
                   const std::vector<uint64_t>& sizes, uint64_t capacity_bytes) {
  if (rank_heat.size() != sizes.size() || period_bytes.size() != sizes.size()) std::abort();
  std::vector<size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return rank_heat[a] > rank_heat[b]; });
  double served = 0, total = 0;
  for (double b : period_bytes) total += b;
  uint64_t used = 0;
  for (size_t i : order) {
    if (rank_heat[i] <= 0) break;
    if (sizes[i] > capacity_bytes - used) continue;
    used += sizes[i];
    served += period_bytes[i];
  }
  return total > 0 ? served / total : 0;
}

}  // namespace tierfs::policy
