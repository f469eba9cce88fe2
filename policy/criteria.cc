#include "policy/criteria.h"

#include <algorithm>
#include <cmath>

namespace tierfs::policy {

bool NearlyEqual(double a, double b) {
  return std::fabs(a - b) <= kEqRelativeEpsilon * std::max(std::fabs(a), std::fabs(b));
}

bool MinHolds(const MinBound& bound, double value, double scale) {
  const double threshold = bound.value * scale;
  const bool eq = NearlyEqual(value, threshold);
  switch (bound.flag) {
    case MinFlag::kEq:
      return eq;
    case MinFlag::kGt:
      return !eq && value > threshold;
    case MinFlag::kGtEq:
      return eq || value > threshold;
  }
  return false;
}

bool MaxHolds(const MaxBound& bound, double value, double scale) {
  const double threshold = bound.value * scale;
  const bool eq = NearlyEqual(value, threshold);
  switch (bound.flag) {
    case MaxFlag::kLt:
      return !eq && value < threshold;
    case MaxFlag::kLtEq:
      return eq || value < threshold;
  }
  return false;
}

}  // namespace tierfs::policy
