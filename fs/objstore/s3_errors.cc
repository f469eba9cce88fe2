#include "fs/objstore/s3_errors.h"

#include <curl/curl.h>

#include <cerrno>

namespace tierfs {

int ErrnoForS3Error(long http_status, std::string_view c) {
  // The S3 code first: one status carries codes of different meanings (403 is
  // both a bad signature and RGW's QuotaExceeded; 400 both InvalidArgument and
  // KeyTooLongError).
  if (c == "NoSuchKey" || c == "NoSuchBucket" || c == "NoSuchUpload") return ENOENT;
  if (c == "AccessDenied" || c == "SignatureDoesNotMatch" || c == "InvalidAccessKeyId" ||
      c == "RequestTimeTooSkewed" || c == "AllAccessDisabled" || c == "AccountProblem") {
    return EACCES;
  }
  if (c == "QuotaExceeded" || c == "InsufficientCapacity" || c == "TooManyBuckets") return ENOSPC;
  if (c == "BucketAlreadyExists" || c == "BucketAlreadyOwnedByYou") return EEXIST;
  if (c == "BucketNotEmpty") return ENOTEMPTY;
  if (c == "KeyTooLongError") return ENAMETOOLONG;
  if (c == "EntityTooLarge") return EFBIG;
  if (c == "InvalidArgument" || c == "InvalidBucketName" || c == "InvalidPart" ||
      c == "InvalidPartOrder" || c == "EntityTooSmall" || c == "MalformedXML" ||
      c == "InvalidRequest" || c == "InvalidDigest" || c == "BadDigest") {
    return EINVAL;
  }
  if (c == "PreconditionFailed") return ESTALE;
  if (c == "NotImplemented" || c == "MethodNotAllowed") return EOPNOTSUPP;
  if (c == "SlowDown" || c == "ServiceUnavailable") return EAGAIN;
  if (c == "RequestTimeout") return ETIMEDOUT;
  switch (http_status) {
    case 400: return EINVAL;
    case 401:
    case 403: return EACCES;
    case 404: return ENOENT;
    case 405:
    case 501: return EOPNOTSUPP;
    case 408:
    case 504: return ETIMEDOUT;
    case 412: return ESTALE;
    case 414: return ENAMETOOLONG;
    case 429:
    case 503: return EAGAIN;
    case 507: return ENOSPC;
    default: return EIO;
  }
}

bool IsRetryableS3Error(long http_status, std::string_view c) {
  if (c == "SlowDown" || c == "InternalError" || c == "RequestTimeout" ||
      c == "ServiceUnavailable") {
    return true;
  }
  // A full store or quota does not drain between two attempts a second apart.
  if (http_status == 507) return false;
  return http_status >= 500 || http_status == 429 || http_status == 408;
}

int ErrnoForCurl(int code) {
  switch (static_cast<CURLcode>(code)) {
    case CURLE_OK: return 0;
    case CURLE_OPERATION_TIMEDOUT: return ETIMEDOUT;
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_BAD_FUNCTION_ARGUMENT:
    case CURLE_UNKNOWN_OPTION: return EINVAL;
    case CURLE_OUT_OF_MEMORY: return ENOMEM;
    default: return EIO;
  }
}

bool IsRetryableCurl(int code) {
  switch (static_cast<CURLcode>(code)) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR:
      return true;
    default:
      return false;
  }
}

}  // namespace tierfs
