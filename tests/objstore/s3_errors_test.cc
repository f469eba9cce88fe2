#include "fs/objstore/s3_errors.h"

#include <curl/curl.h>
#include <gtest/gtest.h>

namespace tierfs {
namespace {

TEST(S3ErrorsTest, CodesMapToTheErrnoALocalVolumeWouldGive) {
  EXPECT_EQ(ErrnoForS3Error(404, "NoSuchKey"), ENOENT);
  EXPECT_EQ(ErrnoForS3Error(404, "NoSuchBucket"), ENOENT);
  EXPECT_EQ(ErrnoForS3Error(404, "NoSuchUpload"), ENOENT);
  EXPECT_EQ(ErrnoForS3Error(404, ""), ENOENT);  // a HEAD: no body
  EXPECT_EQ(ErrnoForS3Error(403, "SignatureDoesNotMatch"), EACCES);
  EXPECT_EQ(ErrnoForS3Error(403, "InvalidAccessKeyId"), EACCES);
  EXPECT_EQ(ErrnoForS3Error(403, ""), EACCES);
  // RGW answers 403 for a quota: the code decides, not the status.
  EXPECT_EQ(ErrnoForS3Error(403, "QuotaExceeded"), ENOSPC);
  EXPECT_EQ(ErrnoForS3Error(507, "InsufficientCapacity"), ENOSPC);
  EXPECT_EQ(ErrnoForS3Error(409, "BucketAlreadyExists"), EEXIST);
  EXPECT_EQ(ErrnoForS3Error(409, "BucketNotEmpty"), ENOTEMPTY);
  EXPECT_EQ(ErrnoForS3Error(400, "KeyTooLongError"), ENAMETOOLONG);
  EXPECT_EQ(ErrnoForS3Error(400, "EntityTooSmall"), EINVAL);
  EXPECT_EQ(ErrnoForS3Error(400, "InvalidPart"), EINVAL);
  EXPECT_EQ(ErrnoForS3Error(412, "PreconditionFailed"), ESTALE);
  EXPECT_EQ(ErrnoForS3Error(501, "NotImplemented"), EOPNOTSUPP);
  EXPECT_EQ(ErrnoForS3Error(503, "SlowDown"), EAGAIN);
  EXPECT_EQ(ErrnoForS3Error(429, ""), EAGAIN);
  EXPECT_EQ(ErrnoForS3Error(400, "RequestTimeout"), ETIMEDOUT);
  EXPECT_EQ(ErrnoForS3Error(500, "InternalError"), EIO);
  EXPECT_EQ(ErrnoForS3Error(418, "Teapot"), EIO);
  // A body damaged on the way (Content-MD5): an I/O error, not a bad argument.
  EXPECT_EQ(ErrnoForS3Error(400, "BadDigest"), EIO);
  EXPECT_EQ(ErrnoForS3Error(403, "RequestTimeTooSkewed"), EACCES);
}

TEST(S3ErrorsTest, OnlyPassingFailuresAreRetried) {
  EXPECT_TRUE(IsRetryableS3Error(500, "InternalError"));
  EXPECT_TRUE(IsRetryableS3Error(503, "SlowDown"));
  EXPECT_TRUE(IsRetryableS3Error(503, ""));
  EXPECT_TRUE(IsRetryableS3Error(429, ""));
  EXPECT_TRUE(IsRetryableS3Error(400, "RequestTimeout"));
  EXPECT_TRUE(IsRetryableS3Error(502, ""));
  EXPECT_FALSE(IsRetryableS3Error(403, "SignatureDoesNotMatch"));
  EXPECT_FALSE(IsRetryableS3Error(404, "NoSuchKey"));
  EXPECT_FALSE(IsRetryableS3Error(400, "InvalidArgument"));
  EXPECT_FALSE(IsRetryableS3Error(507, "InsufficientCapacity"));
}

TEST(S3ErrorsTest, NetworkFailuresAreRetriedAndMapToTheirOwnErrno) {
  EXPECT_EQ(ErrnoForCurl(CURLE_COULDNT_CONNECT), ECONNREFUSED);
  EXPECT_EQ(ErrnoForCurl(CURLE_COULDNT_RESOLVE_HOST), EHOSTUNREACH);
  EXPECT_EQ(ErrnoForCurl(CURLE_RECV_ERROR), EIO);
  EXPECT_EQ(ErrnoForCurl(CURLE_GOT_NOTHING), EIO);
  EXPECT_EQ(ErrnoForCurl(CURLE_OPERATION_TIMEDOUT), ETIMEDOUT);
  EXPECT_EQ(ErrnoForCurl(CURLE_URL_MALFORMAT), EINVAL);
  EXPECT_TRUE(IsRetryableCurl(CURLE_COULDNT_CONNECT));
  EXPECT_TRUE(IsRetryableCurl(CURLE_SEND_ERROR));
  EXPECT_TRUE(IsRetryableCurl(CURLE_GOT_NOTHING));
  EXPECT_TRUE(IsRetryableCurl(CURLE_PARTIAL_FILE));
  EXPECT_TRUE(IsRetryableCurl(CURLE_OPERATION_TIMEDOUT));
  EXPECT_FALSE(IsRetryableCurl(CURLE_ABORTED_BY_CALLBACK));
  EXPECT_FALSE(IsRetryableCurl(CURLE_URL_MALFORMAT));
  // A store that answered then broke the connection is retried for the budget;
  // one that never answered, a number of times.
  EXPECT_TRUE(IsRetryableCurlWithinBudget(CURLE_RECV_ERROR));
  EXPECT_TRUE(IsRetryableCurlWithinBudget(CURLE_SEND_ERROR));
  EXPECT_TRUE(IsRetryableCurlWithinBudget(CURLE_GOT_NOTHING));
  EXPECT_FALSE(IsRetryableCurlWithinBudget(CURLE_COULDNT_CONNECT));
  EXPECT_FALSE(IsRetryableCurlWithinBudget(CURLE_COULDNT_RESOLVE_HOST));
  EXPECT_FALSE(IsRetryableCurlWithinBudget(CURLE_OPERATION_TIMEDOUT));
}

TEST(S3ErrorsTest, TheErrnoTellsWhatAFailureSaysOfTheStore) {
  EXPECT_EQ(ClassifyS3Errno(0), S3Failure::kNone);
  EXPECT_EQ(ClassifyS3Errno(ErrnoForCurl(CURLE_COULDNT_CONNECT)), S3Failure::kUnreachable);
  EXPECT_EQ(ClassifyS3Errno(ErrnoForCurl(CURLE_COULDNT_RESOLVE_HOST)), S3Failure::kUnreachable);
  EXPECT_EQ(ClassifyS3Errno(ErrnoForCurl(CURLE_OPERATION_TIMEDOUT)), S3Failure::kTimeout);
  EXPECT_EQ(ClassifyS3Errno(ErrnoForCurl(CURLE_RECV_ERROR)), S3Failure::kFailed);
  EXPECT_EQ(ClassifyS3Errno(ErrnoForS3Error(403, "InvalidAccessKeyId")), S3Failure::kRefused);
  EXPECT_EQ(ClassifyS3Errno(ErrnoForS3Error(403, "SignatureDoesNotMatch")),
            S3Failure::kRefused);
  EXPECT_EQ(ClassifyS3Errno(ErrnoForS3Error(403, "")), S3Failure::kRefused);
  EXPECT_EQ(ClassifyS3Errno(ErrnoForS3Error(503, "SlowDown")), S3Failure::kBusy);
  EXPECT_EQ(ClassifyS3Errno(ErrnoForS3Error(429, "")), S3Failure::kBusy);
  EXPECT_EQ(ClassifyS3Errno(ErrnoForS3Error(500, "InternalError")), S3Failure::kFailed);
  EXPECT_EQ(ClassifyS3Errno(ErrnoForS3Error(502, "")), S3Failure::kFailed);
  EXPECT_EQ(ClassifyS3Errno(EPROTO), S3Failure::kFailed);
  EXPECT_EQ(ClassifyS3Errno(ErrnoForS3Error(404, "NoSuchKey")), S3Failure::kRequest);
  EXPECT_EQ(ClassifyS3Errno(ErrnoForS3Error(403, "QuotaExceeded")), S3Failure::kRequest);
  EXPECT_STREQ(S3FailureName(S3Failure::kBusy), "busy");
}

TEST(S3ErrorsTest, RetryAfterInSecondsOrAsADate) {
  const int64_t now = 784111777;  // Sun, 06 Nov 1994 08:49:37 GMT
  EXPECT_DOUBLE_EQ(RetryAfterSeconds("3", now), 3);
  EXPECT_DOUBLE_EQ(RetryAfterSeconds(" 120 ", now), 120);
  EXPECT_DOUBLE_EQ(RetryAfterSeconds("Sun, 06 Nov 1994 08:49:47 GMT", now), 10);
  EXPECT_DOUBLE_EQ(RetryAfterSeconds("Sun, 06 Nov 1994 08:49:00 GMT", now), 0);  // past
  EXPECT_DOUBLE_EQ(RetryAfterSeconds("soon", now), -1);
  EXPECT_DOUBLE_EQ(RetryAfterSeconds("", now), -1);
  EXPECT_EQ(HttpDateSeconds("Sun, 06 Nov 1994 08:49:37 GMT"), now);
  EXPECT_EQ(HttpDateSeconds("not a date"), -1);
}

// Where AWS names the bucket's region when a request was signed for another.
TEST(S3ErrorsTest, TheRegionOfAWrongRegionReply) {
  std::map<std::string, std::string> headers = {{"x-amz-bucket-region", "eu-west-1"}};
  EXPECT_EQ(RegionOfReply(301, "PermanentRedirect", headers, ""), "eu-west-1");
  EXPECT_EQ(RegionOfReply(301, "", headers, ""), "eu-west-1");  // a HEAD's
  EXPECT_EQ(RegionOfReply(400, "", headers, ""), "eu-west-1");
  EXPECT_EQ(RegionOfReply(400, "AuthorizationHeaderMalformed", {},
                          "<Error><Code>AuthorizationHeaderMalformed</Code><Message>the region "
                          "'us-east-1' is wrong; expecting 'eu-west-1'</Message>"
                          "<Region>eu-west-1</Region></Error>"),
            "eu-west-1");
  // Other replies say nothing of the region, whatever their headers.
  EXPECT_EQ(RegionOfReply(404, "NoSuchKey", headers, ""), "");
  EXPECT_EQ(RegionOfReply(403, "AccessDenied", headers, ""), "");
  EXPECT_EQ(RegionOfReply(400, "InvalidArgument", headers, ""), "");
  EXPECT_EQ(RegionOfReply(301, "PermanentRedirect", {}, "<Error/>"), "");
}

TEST(S3ErrorsTest, ACertificateThatDoesNotVerifyIsEaccesAndNotRetried) {
  EXPECT_TRUE(IsCertificateFailure(CURLE_PEER_FAILED_VERIFICATION));
  EXPECT_TRUE(IsCertificateFailure(CURLE_SSL_CACERT_BADFILE));
  EXPECT_FALSE(IsCertificateFailure(CURLE_COULDNT_CONNECT));
  EXPECT_EQ(ErrnoForCurl(CURLE_PEER_FAILED_VERIFICATION), EACCES);
  EXPECT_FALSE(IsRetryableCurl(CURLE_PEER_FAILED_VERIFICATION));
}

}  // namespace
}  // namespace tierfs
