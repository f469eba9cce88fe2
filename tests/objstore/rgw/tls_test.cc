// The gateway over HTTPS, with a certificate signed by a CA made for the
// cluster (tests/ceph/ceph_cluster.sh --tls): a client given that CA file
// works; one without it (the system's CAs) is refused with a message naming
// the endpoint, never served unverified; a name the certificate does not
// cover is refused too.
#include <unistd.h>

#include "tests/objstore/rgw/rgw_fixture.h"

namespace tierfs::testing {
namespace {

using TlsTest = RgwTest;

TEST_F(TlsTest, WithTheCaFileEveryCallWorks) {
  ASSERT_FALSE(cluster_->https_endpoint().empty()) << "the cluster was started without --tls";
  S3ClientOptions options = Options();
  options.endpoint = cluster_->https_endpoint();
  options.ca_file = cluster_->ca_file();
  std::unique_ptr<S3Client> client = MakeClient(options);
  ASSERT_NE(client, nullptr);
  ASSERT_S3_OK(client->HeadBucket(bucket_));
  int fd = RandomFile(300000, 7);
  ASSERT_S3_OK(client->PutObject(bucket_, "tls/k", fd, 0, 300000, {{"a", "b"}}));
  std::string buf(300000, '\0');
  Result<size_t> n = client->GetObject(bucket_, "tls/k", 0, buf.size(), buf.data());
  ASSERT_S3_OK(n);
  EXPECT_EQ(*n, 300000u);
  std::string want(300000, '\0');
  ASSERT_EQ(pread(fd, want.data(), want.size(), 0), 300000);
  EXPECT_TRUE(buf == want);
  Result<S3ObjectPage> page = client->ListObjects(bucket_, "tls/", "");
  ASSERT_S3_OK(page);
  ASSERT_EQ(page->objects.size(), 1u);
  // The same object through plain HTTP: one store behind both.
  EXPECT_S3_OK(client_->HeadObject(bucket_, "tls/k"));
  close(fd);
}

TEST_F(TlsTest, WithoutTheCaFileTheStoreIsRefusedNamingIt) {
  S3ClientOptions options = Options();
  options.endpoint = cluster_->https_endpoint();
  options.max_attempts = 4;
  std::unique_ptr<S3Client> client = MakeClient(options);
  ASSERT_NE(client, nullptr);
  Status st = client->HeadBucket(bucket_);
  EXPECT_EQ(st.code(), EACCES) << st.message();
  EXPECT_NE(st.message().find("certificate of " + cluster_->https_endpoint()), std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("the system's CA certificates"), std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("--ca-file"), std::string::npos) << st.message();
  // Refused at once: a certificate does not verify better on a retry.
  EXPECT_NE(st.message().find("(1 attempt in"), std::string::npos) << st.message();
  EXPECT_EQ(client->replies(), 0u);

  // A CA file of other CAs (the system's bundle, given as a file) refuses
  // alike, and names that file. (The gateway's own certificate would not do:
  // curl trusts a certificate found in the CA file itself.)
  options.ca_file = "/etc/ssl/certs/ca-certificates.crt";
  if (access(options.ca_file.c_str(), R_OK) != 0) GTEST_SKIP() << "no " << options.ca_file;
  client = MakeClient(options);
  ASSERT_NE(client, nullptr);
  st = client->HeadBucket(bucket_);
  EXPECT_EQ(st.code(), EACCES) << st.message();
  EXPECT_NE(st.message().find("the CA file " + options.ca_file), std::string::npos)
      << st.message();
}

TEST_F(TlsTest, ANameTheCertificateDoesNotCoverIsRefused) {
  // The certificate names 127.0.0.1 and localhost. Virtual-hosted requests go
  // to BUCKET.localhost (which curl resolves to loopback), a name it does not
  // cover.
  S3ClientOptions options = Options();
  std::string endpoint = cluster_->https_endpoint();
  options.endpoint = "https://localhost" + endpoint.substr(endpoint.rfind(':'));
  options.ca_file = cluster_->ca_file();
  std::unique_ptr<S3Client> client = MakeClient(options);
  ASSERT_NE(client, nullptr);
  EXPECT_S3_OK(client->HeadBucket(bucket_));  // path-style: the host is localhost
  options.addressing = S3Addressing::kVirtual;
  client = MakeClient(options);
  ASSERT_NE(client, nullptr);
  Status st = client->HeadBucket(bucket_);
  EXPECT_EQ(st.code(), EACCES) << st.message();
  EXPECT_NE(st.message().find("certificate of https://" + bucket_ + ".localhost"),
            std::string::npos)
      << st.message();
}

TEST_F(TlsTest, AMissingCaFileIsToldAsSuch) {
  S3ClientOptions options = Options();
  options.endpoint = cluster_->https_endpoint();
  options.ca_file = cluster_->dir() + "/tls/no-such-ca.pem";
  Result<std::unique_ptr<S3Client>> client = S3Client::Create(options);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), ENOENT);
  EXPECT_NE(client.status().message().find(options.ca_file), std::string::npos);
}

}  // namespace
}  // namespace tierfs::testing
