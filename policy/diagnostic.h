// Diagnostic: one validation error or warning about a policy document.
//
// Produced by the loader (loader.h) and the class check; printed by fsppadm
// and returned over the control channel. Value type; thread-compatible.
#pragma once

#include <string>

namespace tierfs::policy {

// A finding about a policy document (docs/policies.md "Validation": every error
// says where, in which element, and what was expected).
struct Diagnostic {
  int line = 0;         // 1-based line in the document; 0 when unknown
  std::string element;  // element name without brackets ("MIN"); "" for document-level findings
  std::string message;  // what is wrong and what was expected

  // "line 12: <MIN>: Flags must be gt, gteq or eq, got \"lt\""; the
  // "<ELEMENT>: " part is left out when `element` is empty, "line N: " when
  // `line` is 0.
  std::string ToString() const;
};

}  // namespace tierfs::policy
