// The control protocol's "scan" request (fs/control/control_protocol.md) read into
// the scan engine's ScanRequest (fs/tiering/scan_service.h), so that the engine
// takes typed values and knows no JSON requests.
#pragma once

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "fs/tiering/scan_service.h"

namespace tierfs {

// Reads a "scan" request object. EINVAL naming the bad field: a member of the
// wrong type, a mode other than enforce/analyze/query, limits.bytes or
// limits.files outside 0..INT64_MAX, limits.seconds outside 0..kMaxScanSeconds,
// io_nice outside 1..100 (the readers of fs/control/request_fields.h). Pure.
Result<ScanRequest> ParseScanRequest(const nlohmann::json& request);

}  // namespace tierfs
