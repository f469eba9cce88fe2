#include "cli/common/object_volume_add.h"

#include <sys/stat.h>

#include "cli/common/mount_table.h"
#include "cli/mkdstfs/mkdstfs_plan.h"
#include "fs/objstore/s3_client_options.h"
#include "fs/objstore/s3_names.h"
#include "fs/volume/object_location.h"

namespace tierfs::cli {

using nlohmann::json;

bool IsObjectVolumeOperand(const std::string& operand) { return operand.rfind("s3://", 0) == 0; }

Result<meta::Volume> ParseObjectVolumeOperand(const std::string& operand,
                                              const std::string& endpoint,
                                              const std::string& credentials) {
  ObjectStoreOptions store;
  store.endpoint = endpoint;
  store.credentials = credentials;
  return ParseObjectVolumeOperand(operand, store);
}

Result<meta::Volume> ParseObjectVolumeOperand(const std::string& operand,
                                              const ObjectStoreOptions& store) {
  const std::string& endpoint = store.endpoint;
  const std::string& credentials = store.credentials;
  Result<VolumeSpec> spec = ParseVolumeSpec(operand);
  if (!spec.ok()) return spec.status();
  if (spec->placement_class.empty()) {
    return Status::Invalid(operand + ": an object volume needs its class (s3://BUCKET/PREFIX:CLASS)");
  }
  Result<ObjectLocation> location = ParseObjectUrl(spec->dir);
  if (!location.ok()) return location.status();
  if (endpoint.empty()) {
    return Status::Invalid(operand + ": --endpoint URL is required for an object volume");
  }
  Result<std::string> normal = NormalizeEndpoint(endpoint);
  if (!normal.ok()) return Status::Invalid("--endpoint: " + normal.status().message());
  if (credentials.empty()) {
    return Status::Invalid(operand + ": --credentials FILE is required for an object volume");
  }
  struct stat st;
  if (stat(credentials.c_str(), &st) != 0) {
    return Status::FromErrno("--credentials: " + credentials);
  }
  Result<std::string> absolute = ResolvePath(credentials);
  if (!absolute.ok()) return Status::Invalid("--credentials: " + absolute.status().message());
  if (!store.region.empty()) {
    if (Status st = CheckS3Region(store.region); !st.ok()) {
      return Status::Invalid("--region: " + st.message());
    }
  }
  if (!store.addressing.empty()) {
    Result<S3Addressing> addressing = ParseS3Addressing(store.addressing);
    if (!addressing.ok()) return Status::Invalid("--addressing: " + addressing.status().message());
  }
  std::string ca_file;
  if (!store.ca_file.empty()) {
    if (normal->rfind("https://", 0) != 0) {
      return Status::Invalid("--ca-file is for an https:// --endpoint, not " + *normal);
    }
    if (stat(store.ca_file.c_str(), &st) != 0) {
      return Status::FromErrno("--ca-file: " + store.ca_file);
    }
    Result<std::string> ca = ResolvePath(store.ca_file);
    if (!ca.ok()) return Status::Invalid("--ca-file: " + ca.status().message());
    ca_file = *ca;
  }
  meta::Volume row;
  row.path = ObjectUrl(*location);
  row.placement_class = spec->placement_class;
  row.media_type = "object";
  row.media_type_source = "configured";
  row.role = "dataonly";
  row.endpoint = *normal;
  row.credentials_file = *absolute;
  row.region = store.region;
  row.addressing = store.addressing;
  row.ca_file = ca_file;
  return row;
}

Result<json> AddObjectVolumeOnline(ControlClient& client, const meta::Volume& row,
                                   std::ostream* verbose) {
  if (verbose != nullptr) {
    *verbose << "fsvoladm add " << client.mount().mount_point << " " << row.path << ":"
             << row.placement_class << " --endpoint " << row.endpoint << " --credentials "
             << row.credentials_file;
    if (!row.region.empty()) *verbose << " --region " << row.region;
    if (!row.addressing.empty()) *verbose << " --addressing " << row.addressing;
    if (!row.ca_file.empty()) *verbose << " --ca-file " << row.ca_file;
    *verbose << "\n" << std::flush;
  }
  return client.Call(json{{"op", "volume_add"},
                          {"path", row.path},
                          {"class", row.placement_class},
                          {"media_type", row.media_type},
                          {"media_type_source", row.media_type_source},
                          {"endpoint", row.endpoint},
                          {"credentials_file", row.credentials_file},
                          {"region", row.region},
                          {"addressing", row.addressing},
                          {"ca_file", row.ca_file}});
}

}  // namespace tierfs::cli
