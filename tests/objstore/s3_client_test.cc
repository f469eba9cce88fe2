// S3Client's checks of its options, which need no store (it sends nothing
// until the first operation). The operations are tested against a real
// gateway in tests/objstore/rgw.
#include "fs/objstore/s3_client.h"

#include <gtest/gtest.h>

namespace tierfs {
namespace {

S3ClientOptions Valid() {
  S3ClientOptions o;
  o.endpoint = "http://127.0.0.1:9";
  o.credentials.access_key = "AKID";
  o.credentials.secret_key = "secret";
  return o;
}

TEST(S3ClientTest, CreateChecksItsOptions) {
  EXPECT_TRUE(S3Client::Create(Valid()).ok());
  Result<std::unique_ptr<S3Client>> c = S3Client::Create(Valid());
  ASSERT_TRUE(c.ok());
  S3ClientOptions o = Valid();
  o.endpoint = "https://s3.example.org/";
  c = S3Client::Create(o);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*c)->options().endpoint, "https://s3.example.org");  // normalized

  auto refused = [](S3ClientOptions o) { return S3Client::Create(o).status().code(); };
  o = Valid();
  o.endpoint = "s3.example.org";
  EXPECT_EQ(refused(o), EINVAL);
  o = Valid();
  o.connect_timeout_seconds = 0;
  EXPECT_EQ(refused(o), EINVAL);
  o = Valid();
  o.request_timeout_seconds = -1;
  EXPECT_EQ(refused(o), EINVAL);
  o = Valid();
  o.max_attempts = 0;
  EXPECT_EQ(refused(o), EINVAL);
  o = Valid();
  o.credentials.secret_key = "";
  EXPECT_EQ(refused(o), EINVAL);
  o = Valid();
  o.region = "a:b";  // would break the signature's scope string
  EXPECT_EQ(refused(o), EINVAL);
  o = Valid();
  o.max_redirects = -1;
  EXPECT_EQ(refused(o), EINVAL);
  // A CA file that is not there is told as such at once, not as a
  // certificate that fails to verify at the first request.
  o = Valid();
  o.ca_file = "/nonexistent/ca.pem";
  EXPECT_EQ(refused(o), ENOENT);
  o.ca_file = "/";
  EXPECT_EQ(refused(o), EINVAL);
  // Virtual-hosted addressing puts the bucket in the host name: an address
  // has none.
  o = Valid();
  o.addressing = S3Addressing::kVirtual;
  EXPECT_EQ(refused(o), EINVAL);
  o.endpoint = "http://[::1]:9000";
  EXPECT_EQ(refused(o), EINVAL);
  o.endpoint = "https://s3.eu-west-1.amazonaws.com";
  EXPECT_TRUE(S3Client::Create(o).ok());
}

TEST(S3ClientTest, AnUnreachableEndpointIsEconnrefusedWithinTheBound) {
  // Port 9 (discard) on loopback: nothing listens, the connection is refused.
  S3ClientOptions o = Valid();
  o.max_attempts = 3;
  o.backoff_initial_seconds = 0.01;
  Result<std::unique_ptr<S3Client>> c = S3Client::Create(o);
  ASSERT_TRUE(c.ok());
  Status st = (*c)->HeadBucket("bucket");
  EXPECT_EQ(st.code(), ECONNREFUSED) << st.message();
  EXPECT_NE(st.message().find("3 attempts"), std::string::npos) << st.message();
  EXPECT_EQ(st.message().find("secret"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace tierfs
