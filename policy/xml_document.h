// Safe libxml2 parsing and validation of policy documents (docs/policies.md
// "The document" and "Validation").
//
// ParseXml() reads a document with the network, external entities and
// external DTD loading disabled, and refuses DOCTYPEs that declare anything,
// so a policy can never make the parser read a file, open a socket or expand
// entities. ValidateWithEmbeddedDtd() checks the tree against the DTD
// compiled into the library (placement_policy_dtd.h), never against the
// DOCTYPE's SYSTEM path. Errors come back as Diagnostics with line numbers.
//
// The node helpers below are thin read-only views used by the policy reader.
// Thread-safe: each call installs libxml2's per-thread error handlers for its
// own duration and restores the previous ones; documents are not shared.
#pragma once

#include <libxml/tree.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policy/diagnostic.h"

namespace tierfs::policy {

struct XmlDocFree {
  void operator()(xmlDoc* doc) const { xmlFreeDoc(doc); }
};
// An owned libxml2 document (move-only).
using XmlDocument = std::unique_ptr<xmlDoc, XmlDocFree>;

// The largest policy document accepted (bytes); policies are a few KiB.
constexpr size_t kMaxPolicyBytes = 16 * 1024 * 1024;

// Parses `xml` for well-formedness. Returns the document, or nullptr after
// appending at least one error (with the line libxml2 stopped at) to
// `*errors`. A document whose DOCTYPE has an internal subset, or that uses an
// entity reference, or that is larger than kMaxPolicyBytes, is refused with
// an error. A DOCTYPE naming another root than PLACEMENT_POLICY adds a
// warning.
XmlDocument ParseXml(std::string_view xml, std::vector<Diagnostic>* errors,
                     std::vector<Diagnostic>* warnings);

// Validates `doc` against the embedded DTD; appends one error per violation,
// rewritten to name the element and what was expected (for example
// "<MIN>: Flags must be gt, gteq or eq, got \"lt\"").
void ValidateWithEmbeddedDtd(xmlDoc* doc, std::vector<Diagnostic>* errors);

// The 1-based source line of `node`.
int LineOf(const xmlNode* node);
// The element name of `node` ("" for a null node).
std::string_view NameOf(const xmlNode* node);
// The attribute value as written, or nullopt when absent.
std::optional<std::string> AttributeOf(const xmlNode* node, const char* name);
// The attribute value with surrounding whitespace removed; "" when absent.
std::string TrimmedAttribute(const xmlNode* node, const char* name);
// The text directly inside `node`, whitespace-trimmed at both ends.
std::string TextOf(const xmlNode* node);
// The element children of `node` in document order.
std::vector<const xmlNode*> ChildElements(const xmlNode* node);

}  // namespace tierfs::policy
