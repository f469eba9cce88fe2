#include "policy/policy_variants.h"

#include <libxml/tree.h>

#include <charconv>
#include <memory>
#include <vector>

#include "policy/value_parse.h"
#include "policy/xml_document.h"

namespace tierfs::policy {
namespace {

const xmlChar* X(const char* s) { return reinterpret_cast<const xmlChar*>(s); }

std::vector<xmlNode*> Children(xmlNode* node) {
  std::vector<xmlNode*> out;
  for (xmlNode* c = node == nullptr ? nullptr : node->children; c != nullptr; c = c->next) {
    if (c->type == XML_ELEMENT_NODE) out.push_back(c);
  }
  return out;
}

xmlNode* Child(xmlNode* node, std::string_view name) {
  for (xmlNode* c : Children(node)) {
    if (NameOf(c) == name) return c;
  }
  return nullptr;
}

void SetText(xmlNode* node, const std::string& text) {
  // xmlNodeSetContent takes entity-encoded text; numbers and class names need none,
  // but encode anyway so any text round-trips.
  xmlChar* encoded = xmlEncodeSpecialChars(node->doc, X(text.c_str()));
  xmlNodeSetContent(node, encoded);
  xmlFree(encoded);
}

// Multiplies the number inside `node` by `factor`; leaves anything else alone.
void Scale(xmlNode* node, double factor) {
  if (node == nullptr || factor == 1) return;
  std::optional<double> value = ParseDecimal(TextOf(node));
  if (value) SetText(node, FormatPolicyNumber(*value * factor));
}

void RewriteStatement(xmlNode* statement, const VariantSpec& spec, const std::string& fast_class) {
  if (xmlNode* when = Child(statement, "WHEN")) {
    for (xmlNode* criterion : Children(when)) {
      const std::string_view kind = NameOf(criterion);
      if (kind != "IOTEMP" && kind != "ACCESSTEMP") continue;
      for (xmlNode* part : Children(criterion)) {
        const std::string_view name = NameOf(part);
        if (name == "PERIOD") Scale(part, spec.period_factor);
        if (name == "MIN" || name == "MAX") Scale(part, spec.threshold_factor);
      }
    }
  }
  if (!spec.fast_limit || NameOf(statement) != "RELOCATE") return;
  for (xmlNode* destination : Children(Child(statement, "TO"))) {
    xmlNode* cls = Child(destination, "CLASS");
    xmlNode* percent = Child(destination, "PERCENT");
    if (cls != nullptr && percent != nullptr && Trim(TextOf(cls)) == fast_class) {
      SetText(percent, FormatPolicyNumber(*spec.fast_limit));
    }
  }
}

// Sets the CLASS_LIMIT of `fast_class` to `percent`, adding one before the first
// RULE when the policy has none.
void SetClassLimit(xmlNode* root, const std::string& fast_class, double percent) {
  const std::string text = FormatPolicyNumber(percent);
  for (xmlNode* limit : Children(root)) {
    if (NameOf(limit) != "CLASS_LIMIT") continue;
    xmlNode* cls = Child(limit, "CLASS");
    if (cls == nullptr || Trim(TextOf(cls)) != fast_class) continue;
    if (xmlNode* p = Child(limit, "PERCENT")) SetText(p, text);
    return;
  }
  xmlNode* limit = xmlNewDocNode(root->doc, nullptr, X("CLASS_LIMIT"), nullptr);
  xmlNode* cls = xmlNewChild(limit, nullptr, X("CLASS"), nullptr);
  SetText(cls, fast_class);
  xmlNode* p = xmlNewChild(limit, nullptr, X("PERCENT"), nullptr);
  SetText(p, text);
  xmlNode* first_rule = Child(root, "RULE");
  if (first_rule == nullptr) {
    xmlAddChild(root, limit);
    return;
  }
  xmlAddPrevSibling(first_rule, limit);
  // Keep the layout: the indentation that preceded the rule now precedes the limit.
  if (limit->prev != nullptr && limit->prev->type == XML_TEXT_NODE) {
    xmlNode* indent = xmlNewDocText(root->doc, limit->prev->content);
    xmlAddPrevSibling(first_rule, indent);
  }
}

struct XmlCharFree {
  void operator()(xmlChar* p) const { xmlFree(p); }
};

}  // namespace

std::string FormatPolicyNumber(double value) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed);
  if (ec != std::errc()) return "0";
  return std::string(buf, end);
}

std::string VariantSpec::Label(const std::string& fast_class) const {
  if (IsIdentity()) return "as written";
  std::string out;
  auto add = [&out](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
  if (period_factor != 1) add("periods x" + FormatPolicyNumber(period_factor));
  if (threshold_factor != 1) add("thresholds x" + FormatPolicyNumber(threshold_factor));
  if (fast_limit) add(fast_class + " limit " + FormatPolicyNumber(*fast_limit) + "%");
  return out;
}

std::string VariantSpec::Tag() const {
  std::string out;
  auto add = [&out](const std::string& part) { out += (out.empty() ? "" : "-") + part; };
  if (period_factor != 1) add("p" + FormatPolicyNumber(period_factor));
  if (threshold_factor != 1) add("t" + FormatPolicyNumber(threshold_factor));
  if (fast_limit) add("l" + FormatPolicyNumber(*fast_limit));
  return out;
}

Result<std::string> RewritePolicyXml(std::string_view xml, const VariantSpec& spec,
                                     const std::string& fast_class) {
  if (!(spec.period_factor > 0) || !(spec.threshold_factor > 0)) {
    return Status::Invalid("variant factors must be positive");
  }
  if (spec.fast_limit && !(*spec.fast_limit > 0 && *spec.fast_limit <= 100)) {
    return Status::Invalid("a class limit must be a percentage in (0, 100], got " +
                           FormatPolicyNumber(*spec.fast_limit));
  }
  std::vector<Diagnostic> errors, warnings;
  XmlDocument doc = ParseXml(xml, &errors, &warnings);
  if (doc == nullptr) {
    return Status::Invalid("the policy is not well-formed XML" +
                           (errors.empty() ? std::string() : ": " + errors.front().ToString()));
  }
  xmlNode* root = xmlDocGetRootElement(doc.get());
  if (root == nullptr || NameOf(root) != "PLACEMENT_POLICY") {
    return Status::Invalid("the policy's root element is not PLACEMENT_POLICY");
  }
  for (xmlNode* rule : Children(root)) {
    if (NameOf(rule) != "RULE" || Trim(TrimmedAttribute(rule, "Flags")) != "data") continue;
    for (xmlNode* statement : Children(rule)) {
      const std::string_view name = NameOf(statement);
      if (name == "RELOCATE" || name == "DELETE") RewriteStatement(statement, spec, fast_class);
    }
  }
  if (spec.fast_limit) SetClassLimit(root, fast_class, *spec.fast_limit);
  if (!spec.IsIdentity()) {
    std::string name = AttributeOf(root, "Name").value_or("policy");
    name += "-" + spec.Tag();
    xmlSetProp(root, X("Name"), X(name.c_str()));
  }
  xmlChar* out = nullptr;
  int size = 0;
  xmlDocDumpMemoryEnc(doc.get(), &out, &size, "UTF-8");
  std::unique_ptr<xmlChar, XmlCharFree> owned(out);
  if (out == nullptr) return Status::Io("cannot serialize the rewritten policy");
  return std::string(reinterpret_cast<const char*>(out), static_cast<size_t>(size));
}

}  // namespace tierfs::policy
