// Policy variants: a placement policy's XML rewritten with its temperature
// periods and thresholds scaled and its fast class's capacity limit changed,
// as the advisor (policy/advisor.h) tries them.
//
// The rewrite edits the document itself (libxml2, parsed as safely as
// LoadPolicy parses), so a variant keeps its comments, rules and layout and
// its text is what the user assigns. Only data rules' DELETE and RELOCATE
// statements are touched. Pure (no I/O); thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace tierfs::policy {

// How one variant differs from the policy it is made from.
struct VariantSpec {
  // Every PERIOD of an IOTEMP or ACCESSTEMP is multiplied by this (> 0; its
  // Units are kept).
  double period_factor = 1;
  // Every MIN and MAX of an IOTEMP or ACCESSTEMP is multiplied by this (> 0):
  // above 1 the fast class gets harder to enter and easier to leave.
  double threshold_factor = 1;
  // The capacity limit of the fast class, percent in (0, 100]: its
  // CLASS_LIMIT (added when the policy has none) and the PERCENT of every
  // RELOCATE DESTINATION naming the class that has one. nullopt: as written.
  std::optional<double> fast_limit;

  bool IsIdentity() const {
    return period_factor == 1 && threshold_factor == 1 && !fast_limit.has_value();
  }
  // "periods x2, thresholds x0.5, ssd limit 90%" (`fast_class` names the
  // class); "as written" for the identity.
  std::string Label(const std::string& fast_class) const;
  // A short tag for policy names: "p2-t0.5-l90", "" for the identity.
  std::string Tag() const;
};

// A number as policies write it: plain decimal, no exponent, the shortest
// text that reads back as `value` ("0.5", "90", "0.025"). `value` >= 0.
std::string FormatPolicyNumber(double value);

// Rewrites `xml` (a policy document) by `spec`, `fast_class` being the class
// whose limit spec.fast_limit sets. The PLACEMENT_POLICY Name gets "-" and
// spec.Tag() appended unless spec is the identity (so `fsppadm list` tells
// an advised policy from its origin). The result is a complete document
// (XML declaration, DOCTYPE and comments kept) that still has to be loaded
// (LoadPolicy) to be checked. EINVAL when `xml` is not well-formed or has no
// PLACEMENT_POLICY root, or when a factor is not positive or a limit is
// outside (0, 100]; a PERIOD, MIN or MAX that is not a number is left as is
// (LoadPolicy reports it).
Result<std::string> RewritePolicyXml(std::string_view xml, const VariantSpec& spec,
                                     const std::string& fast_class);

}  // namespace tierfs::policy
