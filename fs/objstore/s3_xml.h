// The XML bodies of S3 replies, parsed with libxml2 (names matched without their
// namespace, so both AWS's and RGW's replies read alike), and the one XML body
// tierfs sends (CompleteMultipartUpload).
//
// Each parser takes the whole body and returns the values or EPROTO when the
// body is not the reply it should be (not XML, another root element, a field
// missing or malformed). Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "fs/objstore/s3_types.h"

namespace tierfs {

// The <Code> and <Message> of an <Error> reply. Returns false (and leaves both
// empty) when `body` is not an Error document.
bool ParseS3Error(std::string_view body, std::string* code, std::string* message);

// The text of child <`name`> of an <Error> reply ("Region", "Endpoint"), ""
// when `body` is no Error document or has none.
std::string ParseS3ErrorField(std::string_view body, const char* name);

// ListBucketResult of ListObjectsV2 (list-type=2).
Result<S3ObjectPage> ParseListObjectsV2(std::string_view body);

// InitiateMultipartUploadResult: the UploadId.
Result<std::string> ParseInitiateMultipartUpload(std::string_view body);

// CompleteMultipartUploadResult: the ETag, without quotes. A 200 reply may
// carry an <Error> instead (S3 sends the status before it has finished): then
// the error's errno (s3_errors.h) and its code in the message.
Result<std::string> ParseCompleteMultipartUpload(std::string_view body);

// VersioningConfiguration of GetBucketVersioning: its <Status> ("Enabled",
// "Suspended"), "" for a bucket whose versioning was never turned on (also
// when the reply's element is GetBucketVersioningResponse, as moto's is).
Result<std::string> ParseBucketVersioning(std::string_view body);

// ListMultipartUploadsResult: the uploads of this page; *next_key_marker and
// *next_upload_id_marker are set when the reply is truncated, else cleared.
Result<std::vector<S3MultipartUpload>> ParseListMultipartUploads(std::string_view body,
                                                                 std::string* next_key_marker,
                                                                 std::string* next_upload_id_marker);

// The body of CompleteMultipartUpload for `parts` (in part-number order).
std::string CompleteMultipartUploadBody(const std::vector<S3CompletedPart>& parts);

// "2026-11-27T19:18:59.216Z" (ISO 8601, UTC, as S3 lists times) or an HTTP
// date "Fri, 27 Nov 2026 19:18:55 GMT" (as HEAD's Last-Modified): seconds since
// the epoch; 0 when neither.
int64_t ParseS3Time(std::string_view text);

// An ETag without the quotes S3 puts around it.
std::string UnquoteEtag(std::string_view etag);

}  // namespace tierfs
