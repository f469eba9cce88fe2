#include "fs/control/scan_request_json.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "fs/control/request_fields.h"

namespace tierfs {
namespace {

using nlohmann::json;

// *out = the value of `parsed` (converted; the readers have checked its range),
// or its error.
template <typename T, typename U>
Status Assign(Result<T> parsed, U* out) {
  if (!parsed.ok()) return parsed.status();
  *out = static_cast<U>(std::move(parsed).value());
  return Status::Ok();
}

Status ParseStringList(const json& request, const char* key, std::vector<std::string>* out) {
  if (!request.contains(key) || request[key].is_null()) return Status::Ok();
  if (!request[key].is_array()) return Status::Invalid(std::string(key) + " must be a list");
  for (const json& v : request[key]) {
    if (!v.is_string()) return Status::Invalid(std::string(key) + " must hold strings");
    out->push_back(v.get<std::string>());
  }
  return Status::Ok();
}

}  // namespace

Result<ScanRequest> ParseScanRequest(const json& request) {
  // Every member is checked for type and range (fs/control/request_fields.h): a wrong one
  // is EINVAL naming it, never a silent default or a wrapped number.
  ScanRequest r;
  std::string mode;
  TIERFS_RETURN_IF_ERROR(Assign(RequestString(request, "mode", ""), &mode));
  if (mode == "enforce") r.mode = ScanRequest::Mode::kEnforce;
  else if (mode == "analyze") r.mode = ScanRequest::Mode::kAnalyze;
  else if (mode == "query") r.mode = ScanRequest::Mode::kQuery;
  else return Status::Invalid("scan mode must be enforce, analyze or query, got \"" + mode + "\"");
  TIERFS_RETURN_IF_ERROR(Assign(RequestBool(request, "active_only", false), &r.active_only));
  TIERFS_RETURN_IF_ERROR(ParseStringList(request, "classes", &r.classes));
  TIERFS_RETURN_IF_ERROR(ParseStringList(request, "paths", &r.paths));
  if (request.contains("policy_xml") && !request["policy_xml"].is_null()) {
    TIERFS_RETURN_IF_ERROR(Assign(RequestString(request, "policy_xml", ""), &r.policy_xml));
  }
  if (request.contains("limits") && !request["limits"].is_null()) {
    const json& l = request["limits"];
    if (!l.is_object()) return Status::Invalid("limits must be an object");
    TIERFS_RETURN_IF_ERROR(Assign(RequestInt(l, "bytes", 0, INT64_MAX, 0, "limits"), &r.max_bytes));
    TIERFS_RETURN_IF_ERROR(Assign(RequestInt(l, "files", 0, INT64_MAX, 0, "limits"), &r.max_files));
    TIERFS_RETURN_IF_ERROR(
        Assign(RequestDouble(l, "seconds", 0, kMaxScanSeconds, 0, "limits"), &r.max_seconds));
  }
  TIERFS_RETURN_IF_ERROR(Assign(RequestBool(request, "no_wait", false), &r.no_wait));
  TIERFS_RETURN_IF_ERROR(Assign(RequestInt(request, "io_nice", 1, 100, 50), &r.io_nice));
  return r;
}

}  // namespace tierfs
