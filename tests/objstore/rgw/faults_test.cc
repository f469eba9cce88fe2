// The gateway failing under the client: killed in the middle of an upload and
// of a read, stopped, frozen (accepting connections, answering nothing). Each
// call must end with an error within its bound (ECONNREFUSED once nothing
// listens, ETIMEDOUT when frozen), leave no partial object, and the client must
// work again once the gateway is back.
#include <unistd.h>

#include <atomic>
#include <chrono>

#include "fs/objstore/object_upload.h"
#include "tests/objstore/rgw/rgw_fixture.h"

namespace tierfs::testing {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kMiB = 1 << 20;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

class FaultsTest : public RgwTest {
 protected:
  void TearDown() override {
    // Whatever a test did, the gateway runs again for the next one.
    if (cluster_ != nullptr) {
      cluster_->ThawGateway();
      if (client_ != nullptr && !client_->HeadBucket(bucket_).ok()) {
        Status st = cluster_->StartGateway();
        EXPECT_TRUE(st.ok()) << st.message();
      }
    }
    RgwTest::TearDown();
  }

  // A client whose progress hook kills the gateway (SIGKILL, as in a crash)
  // once `after` bytes have gone in the watched direction.
  std::unique_ptr<S3Client> KillingClient(uint64_t after, bool upload) {
    S3ClientOptions options = Options();
    options.progress = [this, after, upload](uint64_t sent, uint64_t received) {
      if ((upload ? sent : received) >= after && !killed_.exchange(true)) {
        Status st = cluster_->StopGateway(/*kill=*/true);
        EXPECT_TRUE(st.ok()) << st.message();
      }
    };
    return MakeClient(options);
  }

  std::atomic<bool> killed_{false};
};

TEST_F(FaultsTest, GatewayKilledMidUploadFailsInBoundedTimeAndLeavesNoObject) {
  int src = RandomFile(32 * kMiB, 1);
  std::unique_ptr<S3Client> client = KillingClient(4 * kMiB, /*upload=*/true);
  auto start = Clock::now();
  Result<std::string> put = client->PutObject(bucket_, "big", src, 0, 32 * kMiB, {});
  double took = Since(start);
  ASSERT_TRUE(killed_);
  EXPECT_EQ(put.status().code(), ECONNREFUSED) << put.status().message();
  EXPECT_LT(took, Options().request_timeout_seconds + 1) << put.status().message();
  // Retried on a refused connection: more than one attempt.
  EXPECT_NE(put.status().message().find("attempts in"), std::string::npos)
      << put.status().message();
  std::printf("[ fault    ] upload with the gateway killed: %s after %.2f s\n",
              put.status().message().c_str(), took);

  ASSERT_S3_OK(cluster_->StartGateway());
  // Nothing of the torn upload is visible; the same upload now succeeds.
  EXPECT_EQ(client_->HeadObject(bucket_, "big").status().code(), ENOENT);
  ASSERT_S3_OK(client_->PutObject(bucket_, "big", src, 0, 32 * kMiB, {}));
  Result<S3ObjectInfo> info = client_->HeadObject(bucket_, "big");
  ASSERT_S3_OK(info);
  EXPECT_EQ(info->size, 32 * kMiB);
  close(src);
}

TEST_F(FaultsTest, GatewayKilledMidMultipartUploadLeavesAnUploadToFindAndAbort) {
  int src = RandomFile(24 * kMiB, 2);
  std::unique_ptr<S3Client> client = KillingClient(2 * kMiB, /*upload=*/true);
  UploadOptions options;
  options.multipart_threshold = 5 * kMiB;
  options.part_size = 8 * kMiB;
  auto start = Clock::now();
  Result<UploadResult> up = UploadObject(*client, bucket_, "mp", src, 0, 24 * kMiB, {}, options);
  double took = Since(start);
  ASSERT_TRUE(killed_);
  EXPECT_EQ(up.status().code(), ECONNREFUSED) << up.status().message();
  // The part and the abort both failed (the gateway was gone): a bound for each.
  EXPECT_LT(took, 2 * Options().request_timeout_seconds + 1);
  EXPECT_NE(up.status().message().find("abort failed"), std::string::npos)
      << up.status().message();

  ASSERT_S3_OK(cluster_->StartGateway());
  // What a crash leaves: an upload in progress, found by listing, then aborted.
  Result<std::vector<S3MultipartUpload>> listed = client_->ListMultipartUploads(bucket_, "");
  ASSERT_S3_OK(listed);
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].key, "mp");
  ASSERT_S3_OK(client_->AbortMultipartUpload(bucket_, "mp", (*listed)[0].upload_id));
  EXPECT_EQ(client_->HeadObject(bucket_, "mp").status().code(), ENOENT);
  close(src);
}

TEST_F(FaultsTest, GatewayKilledMidReadFailsInBoundedTimeThenReadsAgain) {
  // Larger than a loopback receive buffer grows (tcp_rmem's 32 MiB here): a
  // 32 MiB object could sit whole in the client's socket before the kill.
  constexpr uint64_t kSize = 96 * kMiB;
  int src = RandomFile(kSize, 3);
  ASSERT_S3_OK(client_->PutObject(bucket_, "obj", src, 0, kSize, {}));
  std::unique_ptr<S3Client> client = KillingClient(4 * kMiB, /*upload=*/false);
  int dst = EmptyFile();
  auto start = Clock::now();
  Result<uint64_t> got = client->GetObjectToFd(bucket_, "obj", 0, S3Client::kToEnd, dst, 0);
  double took = Since(start);
  ASSERT_TRUE(killed_);
  EXPECT_EQ(got.status().code(), ECONNREFUSED) << got.status().message();
  EXPECT_LT(took, Options().request_timeout_seconds + 1);
  std::printf("[ fault    ] read with the gateway killed: %s after %.2f s\n",
              got.status().message().c_str(), took);

  ASSERT_S3_OK(cluster_->StartGateway());
  got = client->GetObjectToFd(bucket_, "obj", 0, S3Client::kToEnd, dst, 0);
  ASSERT_S3_OK(got);
  EXPECT_EQ(*got, kSize);
  EXPECT_EQ(CompareFiles(src, 0, dst, 0, kSize), "");
  close(src);
  close(dst);
}

TEST_F(FaultsTest, GatewayStoppedFailsFastThenWorksOnceBack) {
  int src = RandomFile(1000, 4);
  ASSERT_S3_OK(client_->PutObject(bucket_, "k", src, 0, 1000, {}));
  ASSERT_S3_OK(cluster_->StopGateway());
  auto start = Clock::now();
  Result<S3ObjectInfo> head = client_->HeadObject(bucket_, "k");
  double took = Since(start);
  EXPECT_EQ(head.status().code(), ECONNREFUSED) << head.status().message();
  // A refused connection is retried max_attempts times with short pauses.
  EXPECT_NE(head.status().message().find("4 attempts"), std::string::npos)
      << head.status().message();
  EXPECT_LT(took, 3.0);
  std::printf("[ fault    ] HEAD with the gateway stopped: %s\n", head.status().message().c_str());

  ASSERT_S3_OK(cluster_->StartGateway());
  EXPECT_S3_OK(client_->HeadObject(bucket_, "k"));
  close(src);
}

TEST_F(FaultsTest, AFrozenGatewayTimesOutWithinTheBound) {
  int src = RandomFile(1000, 5);
  ASSERT_S3_OK(client_->PutObject(bucket_, "k", src, 0, 1000, {}));
  S3ClientOptions options = Options();
  options.stall_timeout_seconds = 1;
  options.request_timeout_seconds = 3;
  std::unique_ptr<S3Client> client = MakeClient(options);
  ASSERT_S3_OK(client->HeadObject(bucket_, "k"));  // a connection to reuse

  ASSERT_S3_OK(cluster_->FreezeGateway());
  auto start = Clock::now();
  char buf[10];
  Result<size_t> got = client->GetObject(bucket_, "k", 0, 10, buf);
  double took = Since(start);
  EXPECT_EQ(got.status().code(), ETIMEDOUT) << got.status().message();
  EXPECT_GE(took, 0.9);
  EXPECT_LT(took, options.request_timeout_seconds + 1) << got.status().message();
  std::printf("[ fault    ] GET with the gateway frozen: %s\n", got.status().message().c_str());

  ASSERT_S3_OK(cluster_->ThawGateway());
  got = client->GetObject(bucket_, "k", 0, 10, buf);
  ASSERT_S3_OK(got);
  EXPECT_EQ(*got, 10u);
  close(src);
}

}  // namespace
}  // namespace tierfs::testing
