// UploadObject: a file range to one object, by a single PUT when it is small and
// by a multipart upload when it is large, aborting the multipart upload when a
// step fails so that no parts are left behind (a crash can still leave one:
// S3Client::ListMultipartUploads finds those). What the object volume's
// relocation to the store calls.
//
// Parts are sent one after another from the calling thread: a relocation moves
// several files in parallel already, each on its own connection. Thread-safe as
// S3Client is.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "fs/objstore/s3_client.h"

namespace tierfs {

struct UploadOptions {
  // Objects of more bytes than this go by multipart upload.
  uint64_t multipart_threshold = 64ull << 20;
  // Bytes per part (the last may be smaller): at least 5 MiB (S3's minimum);
  // raised when the object would need more than 10000 parts.
  uint64_t part_size = 16ull << 20;
};

// What UploadObject did.
struct UploadResult {
  std::string etag;
  int parts = 0;  // 0 for a single PUT
};

// Stores bytes [offset, offset + length) of `fd` as bucket/key with `metadata`
// (S3Client::PutObject's contract). A multipart upload that fails at any step
// is aborted (best effort; an abort that fails too is named in the message).
// EINVAL when part_size is below 5 MiB or the object would exceed S3's 5 TiB.
Result<UploadResult> UploadObject(S3Client& client, const std::string& bucket,
                                  const std::string& key, int fd, uint64_t offset,
                                  uint64_t length, const S3Metadata& metadata,
                                  const UploadOptions& options = {});

}  // namespace tierfs
