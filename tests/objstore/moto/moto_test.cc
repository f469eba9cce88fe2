// The S3 client against moto's server (tests/support/moto_server.h), which
// behaves like AWS where the RADOS Gateway does not: buckets in a region other
// than the one signed for are refused naming theirs, virtual-hosted requests
// (BUCKET.localhost:PORT) are served, a session token is taken. Redirects come
// from a small server of the test's in front of moto (Redirector), which also
// shows what the client sent.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fs/objstore/s3_client.h"
#include "tests/support/moto_server.h"

namespace tierfs::testing {
namespace {

constexpr char kToken[] = "FwoGZXIvYXdzEXAMPLE-tierfs-session-token-5f0e1d";

// Answers every request with a 307 to `target` + the request's path (or to
// itself, a loop, when `target` is ""), after reading the whole request (but a
// body held back for a 100 Continue), and keeps each request's head (request
// line and headers).
class Redirector {
 public:
  explicit Redirector(std::string target) : target_(std::move(target)) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    listen(fd_, 16);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Loop(); });
  }
  ~Redirector() {
    stopping_ = true;
    shutdown(fd_, SHUT_RDWR);
    thread_.join();
    close(fd_);
  }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<std::string> heads() {
    std::lock_guard<std::mutex> lock(mu_);
    return heads_;
  }

 private:
  void Loop() {
    while (!stopping_) {
      int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) return;
      timeval tv{5, 0};
      setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      std::string in;
      char buf[65536];
      size_t head_end = std::string::npos;
      size_t want = 0;
      for (;;) {
        if (head_end != std::string::npos && in.size() >= head_end + 4 + want) break;
        ssize_t n = read(c, buf, sizeof buf);
        if (n <= 0) break;
        in.append(buf, static_cast<size_t>(n));
        if (head_end == std::string::npos) head_end = in.find("\r\n\r\n");
        if (head_end != std::string::npos && want == 0) {
          std::string lower = in.substr(0, head_end);
          for (char& ch : lower) {
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
          }
          size_t cl = lower.find("content-length:");
          if (cl != std::string::npos) want = std::stoull(lower.substr(cl + 15));
          // curl asks before it sends a PUT's body: answered at once, as AWS
          // does, the body never comes.
          if (lower.find("expect: 100-continue") != std::string::npos) break;
        }
      }
      if (head_end == std::string::npos) {
        close(c);
        continue;
      }
      std::string head = in.substr(0, head_end);
      {
        std::lock_guard<std::mutex> lock(mu_);
        heads_.push_back(head);
      }
      size_t sp1 = head.find(' '), sp2 = head.find(' ', sp1 + 1);
      std::string path = head.substr(sp1 + 1, sp2 - sp1 - 1);
      std::string to = (target_.empty() ? endpoint() : target_) + path;
      std::string reply = "HTTP/1.1 307 Temporary Redirect\r\nLocation: " + to +
                          "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
      ssize_t ignored = write(c, reply.data(), reply.size());
      (void)ignored;
      close(c);
    }
  }

  const std::string target_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  std::mutex mu_;
  std::vector<std::string> heads_;
};

class MotoTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    Result<std::unique_ptr<MotoServer>> server = MotoServer::Start();
    if (!server.ok()) {
      start_error_ = new std::string(server.status().message());
      return;
    }
    server_ = server->release();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
    delete start_error_;
    start_error_ = nullptr;
  }
  void SetUp() override {
    // Not skipped: a missing moto fails, as a missing Ceph does.
    ASSERT_NE(server_, nullptr) << *start_error_;
  }

  static S3ClientOptions Options(const std::string& region = "us-east-1") {
    S3ClientOptions o;
    o.endpoint = server_->endpoint();
    o.region = region;
    o.credentials.access_key = "AKIATIERFSMOTOTEST00";
    o.credentials.secret_key = "tierfs-moto-secret-key-0123456789abcdefgh";
    o.connect_timeout_seconds = 2;
    o.stall_timeout_seconds = 5;
    o.request_timeout_seconds = 20;
    o.max_attempts = 2;
    o.retry_budget_seconds = 2;
    return o;
  }
  static std::unique_ptr<S3Client> Client(const S3ClientOptions& o) {
    Result<std::unique_ptr<S3Client>> c = S3Client::Create(o);
    EXPECT_TRUE(c.ok()) << c.status().message();
    return c.ok() ? std::move(*c) : nullptr;
  }
  // A file holding `text`, unlinked.
  static int TextFile(const std::string& text) {
    char path[] = "/tmp/ep-moto-XXXXXX";
    int fd = mkstemp(path);
    unlink(path);
    EXPECT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    return fd;
  }

  static MotoServer* server_;
  static std::string* start_error_;
};

MotoServer* MotoTest::server_ = nullptr;
std::string* MotoTest::start_error_ = nullptr;

TEST_F(MotoTest, ABucketInAnotherRegionIsNamedAndWorksWithIt) {
  std::unique_ptr<S3Client> eu = Client(Options("eu-west-1"));
  ASSERT_NE(eu, nullptr);
  ASSERT_TRUE(eu->CreateBucket("tierfs-euro").ok());

  // Signed for us-east-1: refused, naming the bucket's region and the fix.
  std::unique_ptr<S3Client> us = Client(Options());
  Status st = us->HeadBucket("tierfs-euro");
  EXPECT_EQ(st.code(), EACCES) << st.message();
  EXPECT_NE(st.message().find("the bucket lives in eu-west-1: add it with --region eu-west-1"),
            std::string::npos)
      << st.message();

  // With its region: PUT, GET, LIST, HEAD, DELETE.
  EXPECT_TRUE(eu->HeadBucket("tierfs-euro").ok());
  int fd = TextFile("hello from eu-west-1");
  Result<std::string> etag = eu->PutObject("tierfs-euro", "a/k", fd, 0, 20, {{"m", "v"}});
  ASSERT_TRUE(etag.ok()) << etag.status().message();
  char buf[64] = {};
  Result<size_t> n = eu->GetObject("tierfs-euro", "a/k", 0, sizeof buf, buf);
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(std::string(buf, *n), "hello from eu-west-1");
  Result<S3ObjectPage> page = eu->ListObjects("tierfs-euro", "a/", "");
  ASSERT_TRUE(page.ok()) << page.status().message();
  ASSERT_EQ(page->objects.size(), 1u);
  EXPECT_EQ(page->objects[0].key, "a/k");
  Result<S3ObjectInfo> info = eu->HeadObject("tierfs-euro", "a/k");
  ASSERT_TRUE(info.ok()) << info.status().message();
  EXPECT_EQ(info->metadata["m"], "v");
  EXPECT_TRUE(eu->DeleteObject("tierfs-euro", "a/k").ok());
  close(fd);
}

TEST_F(MotoTest, VirtualHostedAddressingWorks) {
  std::unique_ptr<S3Client> path = Client(Options());
  ASSERT_TRUE(path->CreateBucket("tierfs-virtual").ok());
  S3ClientOptions o = Options();
  o.endpoint = server_->localhost_endpoint();
  o.addressing = S3Addressing::kVirtual;
  std::unique_ptr<S3Client> virt = Client(o);
  ASSERT_NE(virt, nullptr);
  EXPECT_TRUE(virt->HeadBucket("tierfs-virtual").ok());
  int fd = TextFile("virtually hosted");
  Result<std::string> etag = virt->PutObject("tierfs-virtual", "v/k1", fd, 0, 16, {});
  ASSERT_TRUE(etag.ok()) << etag.status().message();
  char buf[32] = {};
  Result<size_t> n = virt->GetObject("tierfs-virtual", "v/k1", 0, sizeof buf, buf);
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(std::string(buf, *n), "virtually hosted");
  Result<S3ObjectPage> page = virt->ListObjects("tierfs-virtual", "v/", "");
  ASSERT_TRUE(page.ok()) << page.status().message();
  ASSERT_EQ(page->objects.size(), 1u);
  // The bucket was named by the Host, not the path: the store logged a PUT of
  // /v/k1, and a path-style client finds the object in that bucket.
  EXPECT_NE(server_->Log().find("PUT /v/k1 HTTP/1.1"), std::string::npos) << server_->Log();
  EXPECT_TRUE(path->HeadObject("tierfs-virtual", "v/k1").ok());
  close(fd);
}

TEST_F(MotoTest, ASessionTokenIsSentSignedAndNeverShown) {
  std::unique_ptr<S3Client> plain = Client(Options());
  ASSERT_TRUE(plain->CreateBucket("tierfs-token").ok());
  Redirector redirector(server_->endpoint());
  S3ClientOptions o = Options();
  o.endpoint = redirector.endpoint();
  o.credentials.session_token = kToken;
  std::unique_ptr<S3Client> client = Client(o);
  ASSERT_NE(client, nullptr);
  ::testing::internal::CaptureStderr();
  int fd = TextFile("temporary keys");
  Result<std::string> etag = client->PutObject("tierfs-token", "t", fd, 0, 14, {});
  char buf[8];
  Status missing = client->GetObject("tierfs-token", "no-such-key", 0, sizeof buf, buf).status();
  std::string log = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(etag.ok()) << etag.status().message();
  EXPECT_EQ(missing.code(), ENOENT) << missing.message();
  EXPECT_EQ(missing.message().find(kToken), std::string::npos) << missing.message();
  EXPECT_EQ(log.find(kToken), std::string::npos) << log;
  // What the client sent (to the redirector first): the token, and signed.
  std::vector<std::string> heads = redirector.heads();
  ASSERT_FALSE(heads.empty());
  EXPECT_NE(heads[0].find(std::string("x-amz-security-token: ") + kToken), std::string::npos)
      << heads[0];
  size_t signed_headers = heads[0].find("SignedHeaders=");
  ASSERT_NE(signed_headers, std::string::npos) << heads[0];
  EXPECT_NE(heads[0].find("x-amz-security-token", signed_headers), std::string::npos)
      << heads[0];
  close(fd);
}

TEST_F(MotoTest, RedirectsAreFollowedForTheRequestAndBounded) {
  std::unique_ptr<S3Client> plain = Client(Options());
  ASSERT_TRUE(plain->CreateBucket("tierfs-redirect").ok());
  Redirector redirector(server_->endpoint());
  S3ClientOptions o = Options();
  o.endpoint = redirector.endpoint();
  std::unique_ptr<S3Client> client = Client(o);
  int fd = TextFile("moved body");
  Result<std::string> etag = client->PutObject("tierfs-redirect", "r/k", fd, 0, 10, {});
  ASSERT_TRUE(etag.ok()) << etag.status().message();
  char buf[16] = {};
  Result<size_t> n = client->GetObject("tierfs-redirect", "r/k", 0, sizeof buf, buf);
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(std::string(buf, *n), "moved body");
  // Each request starts at the endpoint again: the redirect is not remembered.
  EXPECT_EQ(redirector.heads().size(), 2u);

  // A redirect to itself, again and again: given up after max_redirects.
  Redirector loop("");
  o.endpoint = loop.endpoint();
  o.max_redirects = 3;
  client = Client(o);
  Status st = client->HeadBucket("tierfs-redirect");
  EXPECT_EQ(st.code(), EPROTO) << st.message();
  EXPECT_NE(st.message().find("more than 3 redirects"), std::string::npos) << st.message();
  EXPECT_EQ(loop.heads().size(), 4u);
  close(fd);
}

}  // namespace
}  // namespace tierfs::testing
