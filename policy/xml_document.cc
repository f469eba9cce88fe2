#include "policy/xml_document.h"

#include <libxml/globals.h>
#include <libxml/parser.h>
#include <libxml/valid.h>
#include <libxml/xmlerror.h>

#include <algorithm>
#include <mutex>

#include "policy/placement_policy_dtd.h"
#include "policy/value_parse.h"

namespace tierfs::policy {
namespace {

struct XmlCharFree {
  void operator()(xmlChar* p) const { xmlFree(p); }
};
using XmlString = std::unique_ptr<xmlChar, XmlCharFree>;

struct XmlDtdFree {
  void operator()(xmlDtd* dtd) const { xmlFreeDtd(dtd); }
};
using XmlDtd = std::unique_ptr<xmlDtd, XmlDtdFree>;

struct XmlValidCtxtFree {
  void operator()(xmlValidCtxt* ctxt) const { xmlFreeValidCtxt(ctxt); }
};

const char* Str(const xmlChar* s) { return reinterpret_cast<const char*>(s); }
const xmlChar* XStr(const char* s) { return reinterpret_cast<const xmlChar*>(s); }

// One libxml2 error, copied out of the callback (the xmlError it gets is
// only valid during the call).
struct RawError {
  int domain = 0;
  int code = 0;
  int level = 0;
  int line = 0;
  const xmlNode* node = nullptr;
  std::string str1, str2, str3, message;
};

// Installs per-thread structured and generic error handlers that collect
// errors, and restores the previous handlers when destroyed.
class ErrorCollector {
 public:
  ErrorCollector()
      : saved_structured_(xmlStructuredError),
        saved_structured_ctx_(xmlStructuredErrorContext),
        saved_generic_(xmlGenericError),
        saved_generic_ctx_(xmlGenericErrorContext) {
    xmlSetStructuredErrorFunc(this, &ErrorCollector::OnError);
    xmlSetGenericErrorFunc(this, &ErrorCollector::OnGeneric);
  }
  ~ErrorCollector() {
    xmlSetStructuredErrorFunc(saved_structured_ctx_, saved_structured_);
    xmlSetGenericErrorFunc(saved_generic_ctx_, saved_generic_);
  }
  ErrorCollector(const ErrorCollector&) = delete;
  ErrorCollector& operator=(const ErrorCollector&) = delete;

  std::vector<RawError>& errors() { return errors_; }

 private:
  static void OnError(void* self, xmlErrorPtr err) {
    RawError raw;
    raw.domain = err->domain;
    raw.code = err->code;
    raw.level = err->level;
    raw.line = err->line;
    raw.node = static_cast<const xmlNode*>(err->node);
    if (err->str1) raw.str1 = err->str1;
    if (err->str2) raw.str2 = err->str2;
    if (err->str3) raw.str3 = err->str3;
    if (err->message) raw.message = Trim(err->message);
    static_cast<ErrorCollector*>(self)->errors_.push_back(std::move(raw));
  }
  // Unstructured messages (rare; printf-style fragments): kept out of stderr.
  static void OnGeneric(void*, const char*, ...) {}

  xmlStructuredErrorFunc saved_structured_;
  void* saved_structured_ctx_;
  xmlGenericErrorFunc saved_generic_;
  void* saved_generic_ctx_;
  std::vector<RawError> errors_;
};

void InitLibxml() {
  static std::once_flag once;
  std::call_once(once, [] { xmlInitParser(); });
}

int LineAtOffset(std::string_view text, size_t offset) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + offset, '\n'));
}

// "a, b or c" from a DTD enumeration.
std::string EnumList(const xmlEnumeration* e) {
  std::vector<std::string> names;
  for (; e != nullptr; e = e->next) names.emplace_back(Str(e->name));
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += (i + 1 == names.size()) ? " or " : ", ";
    out += names[i];
  }
  return out;
}

// "Name, Version, AveragePeriod": the attributes the DTD declares for `elem`.
std::string DeclaredAttributes(xmlDtd* dtd, const std::string& elem) {
  xmlElement* decl = xmlGetDtdElementDesc(dtd, XStr(elem.c_str()));
  std::vector<std::string> names;
  for (xmlAttribute* a = decl ? decl->attributes : nullptr; a != nullptr; a = a->nexth) {
    names.emplace_back(Str(a->name));
  }
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "no attributes" : out;
}

// libxml2 writes "(MIN? , MAX? , PERIOD)" and "(MIN )": drop the spaces
// before ',' and ')'.
std::string CompactModel(std::string s) {
  for (size_t p; (p = s.find(" ,")) != std::string::npos;) s.erase(p, 1);
  for (size_t p; (p = s.find(" )")) != std::string::npos;) s.erase(p, 1);
  return s;
}

// Turns one validity error into our wording: element, what is wrong, and
// what the DTD expects.
Diagnostic RewriteValidityError(const RawError& e, xmlDtd* dtd) {
  Diagnostic d;
  d.line = e.node ? LineOf(e.node) : e.line;
  d.element = e.node && e.node->type == XML_ELEMENT_NODE ? std::string(NameOf(e.node)) : "";
  switch (e.code) {
    case XML_DTD_ATTRIBUTE_VALUE: {  // str1 value, str2 attribute, str3 element
      xmlAttribute* a = xmlGetDtdAttrDesc(dtd, XStr(e.str3.c_str()), XStr(e.str2.c_str()));
      if (a != nullptr && a->tree != nullptr) {
        d.message = e.str2 + " must be " + EnumList(a->tree) + ", got \"" + e.str1 + "\"";
        return d;
      }
      break;
    }
    case XML_DTD_MISSING_ATTRIBUTE: {  // str1 element, str2 attribute
      xmlAttribute* a = xmlGetDtdAttrDesc(dtd, XStr(e.str1.c_str()), XStr(e.str2.c_str()));
      d.message = "missing required attribute " + e.str2;
      if (a != nullptr && a->tree != nullptr) d.message += " (" + EnumList(a->tree) + ")";
      return d;
    }
    case XML_DTD_UNKNOWN_ATTRIBUTE:  // str1 attribute, str2 element
      d.message = "unknown attribute " + e.str1 + " (<" + e.str2 + "> takes " +
                  DeclaredAttributes(dtd, e.str2) + ")";
      return d;
    case XML_DTD_UNKNOWN_ELEM:
      d.message = "unknown element <" + e.str1 + ">";
      return d;
    case XML_DTD_CONTENT_MODEL:
      if (!e.str2.empty()) {
        d.message = "content does not follow the DTD: expected " + CompactModel(e.str2) +
                    ", got " + (e.str3.empty() ? "nothing" : CompactModel(e.str3));
        return d;
      }
      break;
    case XML_DTD_NOT_PCDATA:
      d.message = "may contain only text";
      return d;
    default:
      break;
  }
  d.message = e.message;
  const std::string prefix = "Element " + d.element + " ";
  if (!d.element.empty() && d.message.rfind(prefix, 0) == 0) d.message.erase(0, prefix.size());
  return d;
}

void FindEntityRefs(const xmlNode* node, std::vector<Diagnostic>* errors) {
  for (const xmlNode* n = node; n != nullptr; n = n->next) {
    if (n->type == XML_ENTITY_REF_NODE) {
      errors->push_back({LineOf(n->parent), std::string(NameOf(n->parent)),
                         "entity reference &" + std::string(Str(n->name)) +
                             "; is not allowed (only the predefined XML entities are)"});
    }
    if (n->type == XML_ELEMENT_NODE) FindEntityRefs(n->children, errors);
  }
}

}  // namespace

XmlDocument ParseXml(std::string_view xml, std::vector<Diagnostic>* errors,
                     std::vector<Diagnostic>* warnings) {
  InitLibxml();
  if (xml.size() > kMaxPolicyBytes) {
    errors->push_back({0, "", "the policy is larger than " + std::to_string(kMaxPolicyBytes) +
                                  " bytes"});
    return nullptr;
  }
  XmlDocument doc;
  size_t errors_before = errors->size();
  {
    ErrorCollector collector;
    // No XML_PARSE_NOENT (entities are not substituted), no DTDLOAD/DTDATTR/
    // DTDVALID (the DOCTYPE's SYSTEM path is never opened), NONET.
    const int options = XML_PARSE_NONET | XML_PARSE_BIG_LINES | XML_PARSE_NOCDATA;
    doc.reset(xmlReadMemory(xml.data(), static_cast<int>(xml.size()), "policy.xml", nullptr,
                            options));
    for (const RawError& e : collector.errors()) {
      Diagnostic d{e.line, "", "malformed XML: " + e.message};
      (e.level == XML_ERR_WARNING ? warnings : errors)->push_back(std::move(d));
    }
  }
  if (doc == nullptr && errors->size() == errors_before) {
    errors->push_back({0, "", "malformed XML: the document could not be parsed"});
  }
  if (doc != nullptr && doc->intSubset != nullptr) {
    size_t at = xml.find("<!DOCTYPE");
    int line = at == std::string_view::npos ? 0 : LineAtOffset(xml, at);
    if (doc->intSubset->children != nullptr) {
      errors->push_back({line, "", "the DOCTYPE may not declare anything (internal DTD subsets "
                                   "are refused; tierfs validates against its own DTD)"});
    }
    const char* name = Str(doc->intSubset->name);
    if (name != nullptr && std::string_view(name) != "PLACEMENT_POLICY") {
      warnings->push_back({line, "", "the DOCTYPE names " + std::string(name) +
                                         ", expected PLACEMENT_POLICY (ignored)"});
    }
  }
  if (doc != nullptr) FindEntityRefs(xmlDocGetRootElement(doc.get()), errors);
  if (errors->size() != errors_before) doc.reset();
  return doc;
}

void ValidateWithEmbeddedDtd(xmlDoc* doc, std::vector<Diagnostic>* errors) {
  InitLibxml();
  ErrorCollector collector;
  std::string_view text = PlacementPolicyDtd();
  // xmlIOParseDTD takes ownership of the input buffer, even on failure.
  xmlParserInputBuffer* input = xmlParserInputBufferCreateMem(
      text.data(), static_cast<int>(text.size()), XML_CHAR_ENCODING_NONE);
  XmlDtd dtd(input ? xmlIOParseDTD(nullptr, input, XML_CHAR_ENCODING_NONE) : nullptr);
  if (dtd == nullptr) {
    // The embedded DTD is ours: failing to parse it is a build defect.
    errors->push_back({0, "", "internal error: the embedded placement_policy.dtd does not parse"});
    return;
  }
  collector.errors().clear();
  std::unique_ptr<xmlValidCtxt, XmlValidCtxtFree> ctxt(xmlNewValidCtxt());
  xmlValidateDtd(ctxt.get(), doc, dtd.get());
  for (const RawError& e : collector.errors()) {
    errors->push_back(RewriteValidityError(e, dtd.get()));
  }
}

int LineOf(const xmlNode* node) {
  return node == nullptr ? 0 : static_cast<int>(xmlGetLineNo(const_cast<xmlNode*>(node)));
}

std::string_view NameOf(const xmlNode* node) {
  return node == nullptr || node->name == nullptr ? std::string_view() : Str(node->name);
}

std::optional<std::string> AttributeOf(const xmlNode* node, const char* name) {
  XmlString value(xmlGetNoNsProp(node, XStr(name)));
  if (value == nullptr) return std::nullopt;
  return std::string(Str(value.get()));
}

std::string TrimmedAttribute(const xmlNode* node, const char* name) {
  std::optional<std::string> value = AttributeOf(node, name);
  return value ? Trim(*value) : "";
}

std::string TextOf(const xmlNode* node) {
  std::string text;
  for (const xmlNode* c = node->children; c != nullptr; c = c->next) {
    if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content) {
      text += Str(c->content);
    }
  }
  return Trim(text);
}

std::vector<const xmlNode*> ChildElements(const xmlNode* node) {
  std::vector<const xmlNode*> out;
  for (const xmlNode* c = node->children; c != nullptr; c = c->next) {
    if (c->type == XML_ELEMENT_NODE) out.push_back(c);
  }
  return out;
}

}  // namespace tierfs::policy
