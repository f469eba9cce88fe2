// The parts of an S3 request's URL, spelled the way AWS Signature V4 signs them:
// path-style addressing (http://HOST:PORT/BUCKET/KEY, which every S3 store,
// RGW and MinIO included, accepts without a DNS name per bucket) or
// virtual-hosted (http://BUCKET.HOST:PORT/KEY, AWS's preferred), each key
// byte percent-encoded except the unreserved ones and '/', and the query's
// parameters sorted, each `name=value` (libcurl 7.88 signs the query as given:
// unsorted parameters, or a bare `?uploads`, fail with SignatureDoesNotMatch).
// And the checks of what a caller may name: buckets, keys, metadata.
//
// Pure functions; thread-safe.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "common/status.h"
#include "fs/objstore/s3_client_options.h"

namespace tierfs {

// RFC 3986 percent-encoding of every byte but A-Z a-z 0-9 - _ . ~ (and '/' when
// `keep_slash`), upper-case hex, as SigV4 wants.
std::string UriEncode(std::string_view s, bool keep_slash);

// "/BUCKET" or "/BUCKET/KEY" with the key encoded.
std::string ObjectPath(std::string_view bucket, std::string_view key);

// The URL (no query) of `bucket`/`key` ("" for the bucket itself) at the
// normalized `endpoint` with `addressing`: ENDPOINT/BUCKET/KEY, or
// SCHEME://BUCKET.HOST[:PORT]/KEY. The key is encoded as in ObjectPath.
std::string RequestUrl(std::string_view endpoint, S3Addressing addressing,
                       std::string_view bucket, std::string_view key);

// The query string (no '?') of `params`, sorted by name (std::map), names and
// values encoded, "name=value" joined by '&'; "" for none.
std::string CanonicalQuery(const std::map<std::string, std::string>& params);

// EINVAL unless `bucket` is a DNS-compatible bucket name: 3 to 63 characters of
// a-z 0-9 . -, beginning and ending with a letter or digit.
Status CheckBucketName(std::string_view bucket);

// EINVAL for an empty key or one with a NUL byte; ENAMETOOLONG over 1024 bytes
// (S3's limit).
Status CheckObjectKey(std::string_view key);

// EINVAL unless every metadata name is 1-64 characters of a-z 0-9 - _ (sent as
// `x-amz-meta-NAME`; S3 lower-cases names, so upper case would not read back
// alike) and every value is printable ASCII (no CR or LF: a value is an HTTP
// header), and all together are at most 2 KiB (S3's limit for user metadata).
Status CheckMetadata(const std::map<std::string, std::string>& metadata);

// EINVAL unless `endpoint` is "http://HOST[:PORT]" or "https://HOST[:PORT]",
// without a path (a trailing '/' is allowed and dropped): the endpoint without
// the trailing slash.
Result<std::string> NormalizeEndpoint(std::string_view endpoint);

}  // namespace tierfs
