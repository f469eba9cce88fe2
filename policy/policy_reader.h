// PolicyReader: builds the PlacementPolicy model from a parsed XML tree.
//
// Used by LoadPolicy() after DTD validation. The reader trusts nothing: it
// walks whatever tree it is given, skips what the DTD already reported
// (unknown elements, bad enumerated attributes), and adds the semantic errors
// a DTD cannot express: numbers, units, Version, Average="*", PERIOD > 0,
// '/' in PATTERN, empty names, ".." in DIRECTORY, MIN or MAX present, a CLASS
// for every DESTINATION that needs one. It also warns about accepted but
// ineffective grammar (PERCENT, DESTINATION Flags, checkpoint rules).
// Grammar: docs/policies.md "The document", "Rules" and "WHEN criteria".
// Thread-compatible: one reader per document.
#pragma once

#include <libxml/tree.h>

#include <vector>

#include "policy/diagnostic.h"
#include "policy/policy.h"

namespace tierfs::policy {

class PolicyReader {
 public:
  // Diagnostics are appended to `errors` and `warnings`, which must outlive
  // the reader.
  PolicyReader(std::vector<Diagnostic>* errors, std::vector<Diagnostic>* warnings)
      : errors_(errors), warnings_(warnings) {}

  // Reads the <PLACEMENT_POLICY> element `root`. The result is meaningful
  // only when no error was added (here or by the DTD).
  PlacementPolicy Read(const xmlNode* root);

 private:
  Rule ReadRule(const xmlNode* node);
  ClassLimit ReadClassLimit(const xmlNode* node);
  Select ReadSelect(const xmlNode* node);
  Create ReadCreate(const xmlNode* node);
  Destination ReadDestination(const xmlNode* node, bool in_create);
  Statement ReadStatement(const xmlNode* node, Statement::Kind kind, int number);
  Criterion ReadCriterion(const xmlNode* node);
  // Reads the MIN or MAX value of `c` from `node`, scaled by `unit`.
  void ReadBound(const xmlNode* node, double unit, Criterion* c);
  void ReadPeriod(const xmlNode* node, Criterion* c);

  // A non-empty text value, or an error naming the element.
  std::string NonEmptyText(const xmlNode* node);
  // A non-negative decimal, or an error "expected ..." and nullopt.
  std::optional<double> Number(const xmlNode* node, const std::string& what);
  // A PERCENT value (tierfs extension, docs/policies.md "Capacity limits"):
  // a decimal in (0, 100], or [0, 100] with `allow_zero` (a SOURCE may be
  // drained completely; a DESTINATION limit of 0 would forbid every move).
  // Otherwise an error and nullopt.
  std::optional<double> Percent(const xmlNode* node, bool allow_zero);

  void Error(const xmlNode* node, std::string message);
  void Warn(const xmlNode* node, std::string message);

  std::vector<Diagnostic>* errors_;
  std::vector<Diagnostic>* warnings_;
};

}  // namespace tierfs::policy
