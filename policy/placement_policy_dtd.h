// The placement policy DTD compiled into the library.
//
// The text is policy/placement_policy.dtd itself, embedded at build time
// (policy/CMakeLists.txt generates placement_policy_dtd.cc from it), so the
// shipped file and the grammar the loader enforces cannot drift apart.
// Thread-safe: returns a view of immutable static storage.
#pragma once

#include <string_view>

namespace tierfs::policy {

// The full text of placement_policy.dtd (docs/policies.md "Validation").
std::string_view PlacementPolicyDtd();

}  // namespace tierfs::policy
