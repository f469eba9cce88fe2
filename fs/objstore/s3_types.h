// The values S3Client's operations return: what a HEAD tells of an object, a
// page of a listing, an upload in progress, a part uploaded. Plain value types.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tierfs {

// User metadata: the NAME of each `x-amz-meta-NAME` header (lower case, without
// the prefix) and its value. tierfs keeps the xxh3 of an object's bytes here.
using S3Metadata = std::map<std::string, std::string>;

// An object, as a HEAD reports it.
struct S3ObjectInfo {
  uint64_t size = 0;       // bytes
  std::string etag;        // without quotes; the hex MD5 of the bytes for a single
                           // PUT, "MD5-PARTS" for a multipart upload
  int64_t last_modified = 0;  // seconds since the epoch (0 when not reported)
  S3Metadata metadata;
  // Encrypted with SSE-KMS or SSE-C: the ETag is then no MD5 of the bytes,
  // whatever its shape (s3_digest.h EtagIsNotContentMd5).
  bool etag_is_not_content_md5 = false;
};

// One entry of a listing.
struct S3ListedObject {
  std::string key;
  uint64_t size = 0;  // bytes
  std::string etag;   // without quotes
  int64_t last_modified = 0;  // seconds since the epoch
};

// One page of ListObjectsV2.
struct S3ObjectPage {
  std::vector<S3ListedObject> objects;  // in key order (UTF-8 binary)
  // Non-empty when more keys follow: pass it as the next call's token.
  std::string next_continuation_token;
};

// A multipart upload begun and neither completed nor aborted.
struct S3MultipartUpload {
  std::string key;
  std::string upload_id;
  int64_t initiated = 0;  // seconds since the epoch
};

// A part uploaded, for CompleteMultipartUpload.
struct S3CompletedPart {
  int part_number = 0;  // 1..10000
  std::string etag;     // as UploadPart returned it
};

}  // namespace tierfs
