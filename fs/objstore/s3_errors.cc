#include "fs/objstore/s3_errors.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <string>

#include "fs/objstore/s3_xml.h"

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
      c == "InvalidRequest" || c == "InvalidDigest") {
    return EINVAL;
  }
  // The body the store received is not the one whose MD5 was sent: damaged on
  // the way (or the file changed between the hash and the send).
  if (c == "BadDigest") return EIO;
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
    // Nothing listens at the address (or a firewall refuses): the store is not
    // there, which the object volume tells from a store that answers badly.
    case CURLE_COULDNT_CONNECT: return ECONNREFUSED;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY: return EHOSTUNREACH;
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_BAD_FUNCTION_ARGUMENT:
    case CURLE_UNKNOWN_OPTION: return EINVAL;
    case CURLE_OUT_OF_MEMORY: return ENOMEM;
    default: return IsCertificateFailure(code) ? EACCES : EIO;
  }
}

bool IsCertificateFailure(int code) {
  switch (static_cast<CURLcode>(code)) {
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
      return true;
    default:
      return false;
  }
}

std::string RegionOfReply(long http_status, std::string_view c,
                          const std::map<std::string, std::string>& headers,
                          std::string_view body) {
  const bool says_region = c == "AuthorizationHeaderMalformed" || c == "PermanentRedirect" ||
                           (c.empty() && (http_status == 301 || http_status == 400));
  if (!says_region) return "";
  if (auto it = headers.find("x-amz-bucket-region"); it != headers.end() && !it->second.empty()) {
    return it->second;
  }
  return ParseS3ErrorField(body, "Region");
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

bool IsRetryableCurlWithinBudget(int code) {
  switch (static_cast<CURLcode>(code)) {
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

S3Failure ClassifyS3Errno(int err) {
  switch (err) {
    case 0: return S3Failure::kNone;
    case ECONNREFUSED:
    case EHOSTUNREACH:
    case ENETUNREACH: return S3Failure::kUnreachable;
    case ETIMEDOUT: return S3Failure::kTimeout;
    case EACCES: return S3Failure::kRefused;
    case EAGAIN: return S3Failure::kBusy;
    case EIO:
    case EPROTO: return S3Failure::kFailed;
    default: return S3Failure::kRequest;
  }
}

const char* S3FailureName(S3Failure f) {
  switch (f) {
    case S3Failure::kNone: return "none";
    case S3Failure::kUnreachable: return "unreachable";
    case S3Failure::kTimeout: return "timeout";
    case S3Failure::kRefused: return "refused";
    case S3Failure::kBusy: return "busy";
    case S3Failure::kFailed: return "failed";
    case S3Failure::kRequest: return "request";
  }
  return "?";
}

double RetryAfterSeconds(std::string_view value, int64_t now) {
  std::string v(value);
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
  size_t start = v.find_first_not_of(" \t");
  if (start == std::string::npos) return -1;
  v = v.substr(start);
  if (std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); })) {
    return v.size() > 9 ? 1e9 : static_cast<double>(std::stoll(v));
  }
  time_t at = curl_getdate(v.c_str(), nullptr);
  if (at == -1) return -1;
  return std::max<double>(0, static_cast<double>(at - now));
}

int64_t HttpDateSeconds(std::string_view value) {
  std::string v(value);
  time_t at = curl_getdate(v.c_str(), nullptr);
  return at <= 0 ? -1 : static_cast<int64_t>(at);
}

}  // namespace tierfs
