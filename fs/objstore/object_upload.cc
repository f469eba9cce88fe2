#include "fs/objstore/object_upload.h"

#include <vector>

namespace tierfs {
namespace {

constexpr uint64_t kMinPartBytes = 5ull << 20;
constexpr uint64_t kMaxObjectBytes = 5ull << 40;
constexpr uint64_t kMaxParts = 10000;

}  // namespace

Result<UploadResult> UploadObject(S3Client& client, const std::string& bucket,
                                  const std::string& key, int fd, uint64_t offset,
                                  uint64_t length, const S3Metadata& metadata,
                                  const UploadOptions& options) {
  if (options.part_size < kMinPartBytes) {
    return Status::Invalid("upload of s3://" + bucket + "/" + key + ": part size " +
                           std::to_string(options.part_size) + " is below S3's 5 MiB");
  }
  if (length > kMaxObjectBytes) {
    return Status::Invalid("upload of s3://" + bucket + "/" + key + ": " +
                           std::to_string(length) + " bytes exceed S3's 5 TiB per object");
  }
  if (length <= options.multipart_threshold) {
    Result<std::string> etag = client.PutObject(bucket, key, fd, offset, length, metadata);
    if (!etag.ok()) return etag.status();
    return UploadResult{*etag, 0};
  }
  uint64_t part_size = options.part_size;
  if ((length + part_size - 1) / part_size > kMaxParts) {
    part_size = (length + kMaxParts - 1) / kMaxParts;
  }
  Result<std::string> upload_id = client.CreateMultipartUpload(bucket, key, metadata);
  if (!upload_id.ok()) return upload_id.status();

  auto abort_with = [&](const Status& failure) -> Status {
    Status aborted = client.AbortMultipartUpload(bucket, key, *upload_id);
    if (aborted.ok() || aborted.code() == ENOENT) return failure;
    return Status::Error(failure.code(), failure.message() + "; and its abort failed too: " +
                                             aborted.message());
  };
  std::vector<S3CompletedPart> parts;
  for (uint64_t done = 0; done < length; done += part_size) {
    uint64_t n = std::min(part_size, length - done);
    int number = static_cast<int>(parts.size()) + 1;
    Result<std::string> etag =
        client.UploadPart(bucket, key, *upload_id, number, fd, offset + done, n);
    if (!etag.ok()) return abort_with(etag.status());
    parts.push_back({number, *etag});
  }
  Result<std::string> etag = client.CompleteMultipartUpload(bucket, key, *upload_id, parts);
  if (!etag.ok()) return abort_with(etag.status());
  return UploadResult{*etag, static_cast<int>(parts.size())};
}

}  // namespace tierfs
