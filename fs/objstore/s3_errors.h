// How an S3 reply or a transport failure becomes an errno, and whether it is
// worth another attempt. The one place where S3's error codes meet POSIX's
// (LevelDB keeps its errno mapping in one place too), so that the object volume
// answers a FUSE request with the errno a local volume would give.
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace tierfs {

// The errno for an HTTP error reply with S3 error code `s3_code` ("" when the
// reply had no XML body, as a HEAD's never has):
//   NoSuchKey, NoSuchBucket, NoSuchUpload, 404 ............ ENOENT
//   AccessDenied, SignatureDoesNotMatch, InvalidAccessKeyId,
//     RequestTimeTooSkewed, 401, 403 ...................... EACCES
//   QuotaExceeded, InsufficientCapacity, 507 ............... ENOSPC
//   BucketAlreadyExists, BucketAlreadyOwnedByYou ........... EEXIST
//   BucketNotEmpty ......................................... ENOTEMPTY
//   KeyTooLongError, 414 ................................... ENAMETOOLONG
//   EntityTooLarge ......................................... EFBIG
//   InvalidArgument, InvalidBucketName, InvalidPart,
//     InvalidPartOrder, EntityTooSmall, MalformedXML, 400 .. EINVAL
//   BadDigest (the body received is not the Content-MD5) ... EIO
//   PreconditionFailed, 412 ................................ ESTALE (the object changed)
//   NotImplemented, 405, 501 ............................... EOPNOTSUPP
//   SlowDown, 429, 503 ..................................... EAGAIN
//   RequestTimeout, 408, 504 ............................... ETIMEDOUT
//   other 5xx .............................................. EIO
//   anything else .......................................... EIO
// (416 InvalidRange is not an error to S3Client: a read at or past the end of an
// object reads 0 bytes, as pread(2) does.)
int ErrnoForS3Error(long http_status, std::string_view s3_code);

// Whether the same request may succeed if sent again after a pause: 5xx, 429,
// 408 (RequestTimeout), SlowDown and InternalError. Never a 4xx that says the
// request itself is wrong or not allowed.
bool IsRetryableS3Error(long http_status, std::string_view s3_code);

// The errno for a libcurl result code (a CURLcode, as an int to keep curl out of
// this header): a timeout (CURLE_OPERATION_TIMEDOUT) is ETIMEDOUT; a connection
// that could not be made (refused, no route) ECONNREFUSED; a name that does not
// resolve EHOSTUNREACH; a certificate that does not verify EACCES
// (IsCertificateFailure); a URL or option curl refuses is EINVAL; out of memory
// ENOMEM; every failure to send or receive on a connection made (reset, cut,
// an empty or broken reply) is EIO (the store went away mid-request).
int ErrnoForCurl(int curl_code);

// Whether a libcurl result code says that the store's TLS certificate did not
// verify (an unknown issuer, a name that does not match, an expired one) or
// that the CA file could not be used: never retried, and EACCES from
// ErrnoForCurl (this end refuses the store, as the store refuses bad keys).
bool IsCertificateFailure(int curl_code);

// The region an error reply says the bucket lives in, when it says one: the
// x-amz-bucket-region header (AWS sends it with a 301 PermanentRedirect and
// with the 400 of a HEAD signed for another region), else the <Region> of an
// AuthorizationHeaderMalformed or PermanentRedirect body. Only a 301 or 400
// reply, or one whose S3 code `s3_code` is one of those two, is read (other
// replies of RGW may carry its zone group's name in that header); "" otherwise.
// `headers` have lower-case names, as S3HttpResult's.
std::string RegionOfReply(long http_status, std::string_view s3_code,
                          const std::map<std::string, std::string>& headers,
                          std::string_view body);

// Whether a libcurl failure is one of the network's (resolve, connect, send,
// receive, timeout, reset, an empty or partial reply), which a new attempt on a
// new connection may get past. Not a refused option or an aborted callback.
bool IsRetryableCurl(int curl_code);

// Of those, the ones on a connection that was made (reset, cut, an empty or
// broken reply): the store is there but failed this once, as with a 5xx, so a
// call retries them for its whole retry budget (S3ClientOptions::
// retry_budget_seconds) rather than max_attempts times. A connection refused,
// a name that does not resolve and a timeout are retried max_attempts times.
bool IsRetryableCurlWithinBudget(int curl_code);

// What a failed S3Client call says about the store as a whole, told from the
// call's errno alone (S3Client's errors keep to this mapping), so that the
// object volume decides whether the volume is offline without reading messages:
//   kUnreachable  ECONNREFUSED, EHOSTUNREACH, ENETUNREACH: nothing answers
//                 at the endpoint (refused, no route, DNS)
//   kTimeout      ETIMEDOUT: no reply in time (a busy store, or a dead one)
//   kRefused      EACCES: the store refuses the request's credentials or
//                 signature (a bad key or secret, a clock skew no retry fixed,
//                 a policy that denies)
//   kBusy         EAGAIN: SlowDown (503/429) on every attempt of the budget
//   kFailed       EIO, EPROTO: the store answered but failed (5xx), broke the
//                 connection mid-reply, or sent what S3 does not (an ETag that
//                 is not the body's MD5 too)
//   kRequest      any other errno: about this key or request only (ENOENT,
//                 EINVAL, ENOSPC, ESTALE...), or the local file's
//   kNone         0
enum class S3Failure { kNone, kUnreachable, kTimeout, kRefused, kBusy, kFailed, kRequest };
S3Failure ClassifyS3Errno(int err);
// "unreachable", "timeout", ...: for logs.
const char* S3FailureName(S3Failure failure);

// The pause a Retry-After header's `value` asks for, in seconds from `now`
// (seconds since the epoch): its delta-seconds, or its HTTP-date minus now (0
// when past); -1 when it is neither.
double RetryAfterSeconds(std::string_view value, int64_t now);

// An HTTP-date ("Sun, 06 Nov 1994 08:49:37 GMT", a Date header) in seconds
// since the epoch; -1 when it does not parse.
int64_t HttpDateSeconds(std::string_view value);

}  // namespace tierfs
