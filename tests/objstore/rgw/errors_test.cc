// Errors from the real gateway: a wrong secret (EACCES, the secret in no
// message and no log line), a missing bucket (ENOENT), buckets that exist
// (EEXIST) or hold objects (ENOTEMPTY), a credentials file used for real.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "fs/objstore/object_upload.h"
#include "fs/objstore/s3_credentials.h"
#include "tests/objstore/rgw/rgw_fixture.h"

namespace tierfs::testing {
namespace {

using ErrorsTest = RgwTest;

TEST_F(ErrorsTest, AWrongSecretIsEaccesAndNeverShown) {
  const std::string kWrongSecret = "tierfs-wrong-secret-6b1f0c7e9d";
  S3ClientOptions options = Options();
  options.credentials.secret_key = kWrongSecret;
  std::unique_ptr<S3Client> client = MakeClient(options);
  ASSERT_NE(client, nullptr);
  int fd = RandomFile(1000, 1);
  ASSERT_S3_OK(client_->PutObject(bucket_, "k", fd, 0, 1000, {}));
  char buf[10];

  ::testing::internal::CaptureStderr();  // log lines (retries) go to stderr in tests
  std::vector<Status> failures = {
      client->PutObject(bucket_, "k2", fd, 0, 1000, {}).status(),
      client->GetObject(bucket_, "k", 0, 10, buf).status(),
      client->HeadObject(bucket_, "k").status(),
      client->ListObjects(bucket_, "", "").status(),
      client->DeleteObject(bucket_, "k"),
      client->CreateMultipartUpload(bucket_, "m", {}).status(),
      client->HeadBucket(bucket_),
  };
  std::string log = ::testing::internal::GetCapturedStderr();
  for (const Status& st : failures) {
    EXPECT_EQ(st.code(), EACCES) << st.message();
    EXPECT_EQ(st.message().find(kWrongSecret), std::string::npos) << st.message();
    EXPECT_EQ(st.message().find(cluster_->secret_key()), std::string::npos) << st.message();
    // Not retried: a bad signature does not get better.
    EXPECT_NE(st.message().find("(1 attempt in"), std::string::npos) << st.message();
  }
  EXPECT_NE(failures[1].message().find("SignatureDoesNotMatch"), std::string::npos)
      << failures[1].message();
  EXPECT_EQ(log.find(kWrongSecret), std::string::npos) << log;
  // Nothing was changed.
  EXPECT_S3_OK(client_->HeadObject(bucket_, "k"));
  EXPECT_EQ(client_->HeadObject(bucket_, "k2").status().code(), ENOENT);

  // A wrong access key too.
  options = Options();
  options.credentials.access_key = "NOSUCHACCESSKEY00000";
  client = MakeClient(options);
  Status st = client->GetObject(bucket_, "k", 0, 10, buf).status();
  EXPECT_EQ(st.code(), EACCES) << st.message();
  EXPECT_EQ(st.message().find(cluster_->secret_key()), std::string::npos);
  close(fd);
}

TEST_F(ErrorsTest, AMissingBucketIsEnoent) {
  int fd = RandomFile(100, 2);
  char buf[10];
  const std::string kNone = "no-such-bucket-here";
  EXPECT_EQ(client_->HeadBucket(kNone).code(), ENOENT);
  EXPECT_EQ(client_->PutObject(kNone, "k", fd, 0, 100, {}).status().code(), ENOENT);
  EXPECT_EQ(client_->GetObject(kNone, "k", 0, 10, buf).status().code(), ENOENT);
  EXPECT_EQ(client_->HeadObject(kNone, "k").status().code(), ENOENT);
  EXPECT_EQ(client_->ListObjects(kNone, "", "").status().code(), ENOENT);
  EXPECT_EQ(client_->DeleteObject(kNone, "k").code(), ENOENT);
  EXPECT_EQ(client_->CreateMultipartUpload(kNone, "k", {}).status().code(), ENOENT);
  EXPECT_EQ(client_->ListMultipartUploads(kNone, "").status().code(), ENOENT);
  Status st = client_->GetObject(kNone, "k", 0, 10, buf).status();
  EXPECT_NE(st.message().find("NoSuchBucket"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("s3://" + kNone + "/k"), std::string::npos) << st.message();
  close(fd);
}

TEST_F(ErrorsTest, BucketsThatExistOrHoldObjects) {
  EXPECT_S3_OK(client_->HeadBucket(bucket_));
  Status again = client_->CreateBucket(bucket_);
  // RGW answers 409 BucketAlreadyExists even to the owner (EEXIST); stores that
  // answer 200 to the owner give OK.
  EXPECT_TRUE(again.ok() || again.code() == EEXIST) << again.message();
  int fd = RandomFile(10, 3);
  ASSERT_S3_OK(client_->PutObject(bucket_, "k", fd, 0, 10, {}));
  EXPECT_EQ(client_->DeleteBucket(bucket_).code(), ENOTEMPTY);
  EXPECT_EQ(client_->DeleteBucket("no-such-bucket-here").code(), ENOENT);
  close(fd);
}

TEST_F(ErrorsTest, ACredentialsFileIsUsedOnlyWhenPrivate) {
  char dir_template[] = "/tmp/tierfs-s3creds-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  std::string path = std::string(dir_template) + "/credentials";
  std::ofstream(path) << "# test user\naccess_key = " << cluster_->access_key()
                      << "\nsecret_key = " << cluster_->secret_key() << "\n";
  ASSERT_EQ(chmod(path.c_str(), 0644), 0);
  Result<S3Credentials> refused = LoadS3Credentials(path);
  EXPECT_EQ(refused.status().code(), EACCES);
  EXPECT_NE(refused.status().message().find("0644"), std::string::npos);
  EXPECT_EQ(refused.status().message().find(cluster_->secret_key()), std::string::npos);

  ASSERT_EQ(chmod(path.c_str(), 0600), 0);
  Result<S3Credentials> creds = LoadS3Credentials(path);
  ASSERT_S3_OK(creds);
  S3ClientOptions options = Options();
  options.credentials = *creds;
  std::unique_ptr<S3Client> client = MakeClient(options);
  EXPECT_S3_OK(client->HeadBucket(bucket_));
  unlink(path.c_str());
  rmdir(dir_template);
}

TEST_F(ErrorsTest, AFullBucketIsEnospcAtOnceAndKeepsNothing) {
  ASSERT_S3_OK(cluster_->SetBucketQuota(bucket_, 10 << 20));
  int fd = RandomFile(8 << 20, 4);
  ASSERT_S3_OK(client_->PutObject(bucket_, "a", fd, 0, 4 << 20, {}));
  ASSERT_S3_OK(client_->PutObject(bucket_, "b", fd, 0, 4 << 20, {}));
  Result<std::string> full = client_->PutObject(bucket_, "c", fd, 0, 4 << 20, {});
  EXPECT_EQ(full.status().code(), ENOSPC) << full.status().message();
  EXPECT_NE(full.status().message().find("QuotaExceeded"), std::string::npos)
      << full.status().message();
  // Not retried: a full store does not empty itself between two attempts.
  EXPECT_NE(full.status().message().find("(1 attempt in"), std::string::npos)
      << full.status().message();
  EXPECT_EQ(client_->HeadObject(bucket_, "c").status().code(), ENOENT);

  // A multipart upload that does not fit fails and is aborted.
  UploadOptions options;
  options.multipart_threshold = 5 << 20;
  options.part_size = 5 << 20;
  Result<UploadResult> up = UploadObject(*client_, bucket_, "mp", fd, 0, 8 << 20, {}, options);
  EXPECT_EQ(up.status().code(), ENOSPC) << up.status().message();
  Result<std::vector<S3MultipartUpload>> uploads = client_->ListMultipartUploads(bucket_, "");
  ASSERT_S3_OK(uploads);
  EXPECT_TRUE(uploads->empty());
  // Room again once an object is gone.
  ASSERT_S3_OK(client_->DeleteObject(bucket_, "a"));
  EXPECT_S3_OK(client_->PutObject(bucket_, "c", fd, 0, 4 << 20, {}));
  close(fd);
}

}  // namespace
}  // namespace tierfs::testing
