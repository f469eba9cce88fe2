// How an S3 reply or a transport failure becomes an errno, and whether it is
// worth another attempt. The one place where S3's error codes meet POSIX's
// (LevelDB keeps its errno mapping in one place too), so that the object volume
// answers a FUSE request with the errno a local volume would give.
//
// Pure functions; thread-safe.
#pragma once

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
// this header): a timeout (CURLE_OPERATION_TIMEDOUT) is ETIMEDOUT; a URL or
// option curl refuses is EINVAL; out of memory ENOMEM; every failure to
// resolve, connect, send or receive is EIO (the network is not reachable, or
// the store went away mid-request).
int ErrnoForCurl(int curl_code);

// Whether a libcurl failure is one of the network's (resolve, connect, send,
// receive, timeout, reset, an empty or partial reply), which a new attempt on a
// new connection may get past. Not a refused option or an aborted callback.
bool IsRetryableCurl(int curl_code);

}  // namespace tierfs
