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

TEST(S3ErrorsTest, NetworkFailuresAreRetriedAndMapToEioOrEtimedout) {
  EXPECT_EQ(ErrnoForCurl(CURLE_COULDNT_CONNECT), EIO);
  EXPECT_EQ(ErrnoForCurl(CURLE_RECV_ERROR), EIO);
  EXPECT_EQ(ErrnoForCurl(CURLE_OPERATION_TIMEDOUT), ETIMEDOUT);
  EXPECT_EQ(ErrnoForCurl(CURLE_URL_MALFORMAT), EINVAL);
  EXPECT_TRUE(IsRetryableCurl(CURLE_COULDNT_CONNECT));
  EXPECT_TRUE(IsRetryableCurl(CURLE_SEND_ERROR));
  EXPECT_TRUE(IsRetryableCurl(CURLE_GOT_NOTHING));
  EXPECT_TRUE(IsRetryableCurl(CURLE_PARTIAL_FILE));
  EXPECT_TRUE(IsRetryableCurl(CURLE_OPERATION_TIMEDOUT));
  EXPECT_FALSE(IsRetryableCurl(CURLE_ABORTED_BY_CALLBACK));
  EXPECT_FALSE(IsRetryableCurl(CURLE_URL_MALFORMAT));
}

}  // namespace
}  // namespace tierfs
