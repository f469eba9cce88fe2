// Comparisons of a measured value against MIN and MAX bounds.
//
// MIN Flags gt|gteq|eq and MAX Flags lt|lteq (docs/policies.md "WHEN criteria") compare
// real numbers (temperatures, ages in hours, sizes), so equality is
// approximate: a and b are equal when |a - b| <= 1e-9 * max(|a|, |b|)
// (relative epsilon; exact for 0). gt and lt are strict beyond that band,
// gteq = gt or eq, lteq = lt or eq, so a threshold computed a rounding error
// away from a value never flips a decision. Pure; thread-safe.
#pragma once

#include "policy/policy.h"

namespace tierfs::policy {

// The relative tolerance of eq (and of the equal part of gteq/lteq).
constexpr double kEqRelativeEpsilon = 1e-9;

// |a - b| <= kEqRelativeEpsilon * max(|a|, |b|).
bool NearlyEqual(double a, double b);

// Whether `value` satisfies `bound` when the bound's value is multiplied by
// `scale` (1, or the file-system average for Average="*").
bool MinHolds(const MinBound& bound, double value, double scale = 1.0);
bool MaxHolds(const MaxBound& bound, double value, double scale = 1.0);

}  // namespace tierfs::policy
