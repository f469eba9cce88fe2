// Object volume operands of `fsvoladm add` and `mkdstfs`:
// "s3://BUCKET/PREFIX:CLASS" with `--endpoint URL --credentials FILE`, and
// optionally `--region REGION --addressing path|virtual --ca-file FILE`.
//
// The tool checks what it can without the store (the URL, the class, which is
// required, the endpoint's form, that the credentials file exists; its path is
// made absolute, since the daemon reads it from another directory), then hands
// the volume to the daemon, which reads the credentials file (refused when
// group or others may read it), asks the store for the bucket and adds it
// (fs/tiering/volume_admin.h). Not thread-safe (one client).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "cli/common/control_client.h"
#include "common/status.h"
#include "meta/records.h"

namespace tierfs::cli {

// Whether a volume operand names an object volume ("s3://...").
bool IsObjectVolumeOperand(const std::string& operand);

// The options of `fsvoladm add` and `mkdstfs` that say how to reach the store
// of their s3:// operands; "" when not given.
struct ObjectStoreOptions {
  std::string endpoint;     // --endpoint URL (required)
  std::string credentials;  // --credentials FILE (required)
  std::string region;       // --region REGION (default us-east-1)
  std::string addressing;   // --addressing path|virtual (default path)
  std::string ca_file;      // --ca-file FILE (default: the system's CAs)

  // Whether any of them was given.
  bool any() const {
    return !endpoint.empty() || !credentials.empty() || !region.empty() || !addressing.empty() ||
           !ca_file.empty();
  }
};

// Parses "s3://BUCKET/PREFIX:CLASS" with `store` into a volume row (path,
// class, media type "object", endpoint, credentials file, region, addressing,
// CA file; id and name unset; the credentials and CA files made absolute).
// EINVAL naming the operand or the option: a bad URL, a missing or bad CLASS,
// an empty --endpoint or --credentials, an endpoint that is not
// http[s]://HOST[:PORT], a bad --region or --addressing, --ca-file with an
// http:// endpoint; ENOENT when the credentials or CA file does not exist.
Result<meta::Volume> ParseObjectVolumeOperand(const std::string& operand,
                                              const ObjectStoreOptions& store);
// The same with only --endpoint and --credentials.
Result<meta::Volume> ParseObjectVolumeOperand(const std::string& operand,
                                              const std::string& endpoint,
                                              const std::string& credentials);

// Asks the daemon `client` reaches to add the object volume `row` (the
// "volume_add" request), printing the step as a command line on `verbose`
// when not null. Returns the daemon's answer as AddVolumeOnline does;
// errors are the daemon's (a missing bucket: ENOENT naming it) or the transport's.
Result<nlohmann::json> AddObjectVolumeOnline(ControlClient& client, const meta::Volume& row,
                                             std::ostream* verbose);

}  // namespace tierfs::cli
