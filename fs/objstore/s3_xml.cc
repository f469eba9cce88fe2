#include "fs/objstore/s3_xml.h"

#include <libxml/parser.h>
#include <libxml/tree.h>

#include <cstdlib>
#include <ctime>
#include <memory>
#include <mutex>

#include "fs/objstore/s3_errors.h"

namespace tierfs {
namespace {

struct DocFree {
  void operator()(xmlDoc* d) const { xmlFreeDoc(d); }
};
using Doc = std::unique_ptr<xmlDoc, DocFree>;

// A reply is a few KiB (a list page of 1000 keys about 300 KiB); larger is not S3.
constexpr size_t kMaxReplyBytes = 16 * 1024 * 1024;

Doc Parse(std::string_view body) {
  static std::once_flag once;
  std::call_once(once, [] { xmlInitParser(); });
  if (body.empty() || body.size() > kMaxReplyBytes) return nullptr;
  // NONET: no fetch of anything a reply names; NOERROR/NOWARNING: libxml2 must
  // not print to the daemon's stderr; no entity substitution (NOENT unset).
  return Doc(xmlReadMemory(body.data(), static_cast<int>(body.size()), "s3-reply.xml", nullptr,
                           XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING));
}

bool Is(const xmlNode* n, const char* name) {
  return n != nullptr && n->type == XML_ELEMENT_NODE &&
         xmlStrcmp(n->name, reinterpret_cast<const xmlChar*>(name)) == 0;
}

const xmlNode* Child(const xmlNode* parent, const char* name) {
  for (const xmlNode* c = parent->children; c != nullptr; c = c->next) {
    if (Is(c, name)) return c;
  }
  return nullptr;
}

std::string Text(const xmlNode* n) {
  if (n == nullptr) return "";
  xmlChar* content = xmlNodeGetContent(n);
  std::string s = content != nullptr ? reinterpret_cast<const char*>(content) : "";
  xmlFree(content);
  return s;
}

std::string ChildText(const xmlNode* parent, const char* name) {
  return Text(Child(parent, name));
}

Status Malformed(const char* what) {
  return Status::Error(EPROTO, std::string("malformed S3 reply: ") + what);
}

// The root element when it is `name`, else nullptr.
const xmlNode* Root(const Doc& doc, const char* name) {
  if (doc == nullptr) return nullptr;
  const xmlNode* root = xmlDocGetRootElement(doc.get());
  return Is(root, name) ? root : nullptr;
}

bool ParseUint(const std::string& s, uint64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || s[0] == '-') return false;
  *out = v;
  return true;
}

std::string EscapeXml(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

bool ParseS3Error(std::string_view body, std::string* code, std::string* message) {
  code->clear();
  message->clear();
  Doc doc = Parse(body);
  const xmlNode* root = Root(doc, "Error");
  if (root == nullptr) return false;
  *code = ChildText(root, "Code");
  *message = ChildText(root, "Message");
  return true;
}

std::string ParseS3ErrorField(std::string_view body, const char* name) {
  Doc doc = Parse(body);
  const xmlNode* root = Root(doc, "Error");
  return root == nullptr ? "" : ChildText(root, name);
}

Result<S3ObjectPage> ParseListObjectsV2(std::string_view body) {
  Doc doc = Parse(body);
  const xmlNode* root = Root(doc, "ListBucketResult");
  if (root == nullptr) return Malformed("expected ListBucketResult");
  S3ObjectPage page;
  for (const xmlNode* c = root->children; c != nullptr; c = c->next) {
    if (!Is(c, "Contents")) continue;
    S3ListedObject o;
    o.key = ChildText(c, "Key");
    if (o.key.empty() || !ParseUint(ChildText(c, "Size"), &o.size)) {
      return Malformed("a Contents without Key or Size");
    }
    o.etag = UnquoteEtag(ChildText(c, "ETag"));
    o.last_modified = ParseS3Time(ChildText(c, "LastModified"));
    page.objects.push_back(std::move(o));
  }
  if (ChildText(root, "IsTruncated") == "true") {
    page.next_continuation_token = ChildText(root, "NextContinuationToken");
    if (page.next_continuation_token.empty()) {
      return Malformed("IsTruncated without NextContinuationToken");
    }
  }
  return page;
}

Result<std::string> ParseInitiateMultipartUpload(std::string_view body) {
  Doc doc = Parse(body);
  const xmlNode* root = Root(doc, "InitiateMultipartUploadResult");
  if (root == nullptr) return Malformed("expected InitiateMultipartUploadResult");
  std::string id = ChildText(root, "UploadId");
  if (id.empty()) return Malformed("no UploadId");
  return id;
}

Result<std::string> ParseCompleteMultipartUpload(std::string_view body) {
  std::string code, message;
  if (ParseS3Error(body, &code, &message)) {
    return Status::Error(ErrnoForS3Error(200, code),
                         "CompleteMultipartUpload: " + code + (message.empty() ? "" : ": ") +
                             message);
  }
  Doc doc = Parse(body);
  const xmlNode* root = Root(doc, "CompleteMultipartUploadResult");
  if (root == nullptr) return Malformed("expected CompleteMultipartUploadResult");
  return UnquoteEtag(ChildText(root, "ETag"));
}

Result<std::string> ParseBucketVersioning(std::string_view body) {
  Doc doc = Parse(body);
  const xmlNode* root = Root(doc, "VersioningConfiguration");
  // moto's server answers for a bucket never versioned with an empty element
  // of another name; it holds no Status either way.
  if (root == nullptr) root = Root(doc, "GetBucketVersioningResponse");
  if (root == nullptr) return Malformed("expected VersioningConfiguration");
  return ChildText(root, "Status");
}

Result<std::vector<S3MultipartUpload>> ParseListMultipartUploads(
    std::string_view body, std::string* next_key_marker, std::string* next_upload_id_marker) {
  next_key_marker->clear();
  next_upload_id_marker->clear();
  Doc doc = Parse(body);
  const xmlNode* root = Root(doc, "ListMultipartUploadsResult");
  if (root == nullptr) return Malformed("expected ListMultipartUploadsResult");
  std::vector<S3MultipartUpload> uploads;
  for (const xmlNode* c = root->children; c != nullptr; c = c->next) {
    if (!Is(c, "Upload")) continue;
    S3MultipartUpload u;
    u.key = ChildText(c, "Key");
    u.upload_id = ChildText(c, "UploadId");
    if (u.key.empty() || u.upload_id.empty()) return Malformed("an Upload without Key or UploadId");
    u.initiated = ParseS3Time(ChildText(c, "Initiated"));
    uploads.push_back(std::move(u));
  }
  if (ChildText(root, "IsTruncated") == "true") {
    *next_key_marker = ChildText(root, "NextKeyMarker");
    *next_upload_id_marker = ChildText(root, "NextUploadIdMarker");
    if (next_key_marker->empty()) return Malformed("IsTruncated without NextKeyMarker");
  }
  return uploads;
}

std::string CompleteMultipartUploadBody(const std::vector<S3CompletedPart>& parts) {
  std::string xml = "<CompleteMultipartUpload>";
  for (const S3CompletedPart& p : parts) {
    xml += "<Part><PartNumber>" + std::to_string(p.part_number) + "</PartNumber><ETag>\"" +
           EscapeXml(p.etag) + "\"</ETag></Part>";
  }
  xml += "</CompleteMultipartUpload>";
  return xml;
}

int64_t ParseS3Time(std::string_view text) {
  std::string s(text);
  struct tm tm = {};
  const char* end = strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (end == nullptr) end = strptime(s.c_str(), "%a, %d %b %Y %H:%M:%S", &tm);
  if (end == nullptr) return 0;
  return static_cast<int64_t>(timegm(&tm));
}

std::string UnquoteEtag(std::string_view etag) {
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') {
    etag = etag.substr(1, etag.size() - 2);
  }
  return std::string(etag);
}

}  // namespace tierfs
