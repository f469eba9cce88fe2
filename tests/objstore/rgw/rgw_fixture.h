// RgwTest: a test against the real RADOS Gateway of this binary's Ceph cluster
// (tests/support/ceph_cluster.h): an S3Client with the test user's keys and
// short bounds, and a fresh bucket per test, emptied and removed at the end.
// Helpers make files of pseudo-random bytes to upload from.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "fs/objstore/s3_client.h"
#include "tests/objstore/rgw/flaky_proxy.h"
#include "tests/support/ceph_cluster.h"

namespace tierfs::testing {

// Asserts that a Status or Result is OK, printing its message otherwise.
#define ASSERT_S3_OK(expr)                                       \
  do {                                                           \
    const auto& _r = (expr);                                     \
    ASSERT_TRUE(::tierfs::testing::StatusOf(_r).ok())            \
        << ::tierfs::testing::StatusOf(_r).message();            \
  } while (0)

#define EXPECT_S3_OK(expr)                                       \
  do {                                                           \
    const auto& _r = (expr);                                     \
    EXPECT_TRUE(::tierfs::testing::StatusOf(_r).ok())            \
        << ::tierfs::testing::StatusOf(_r).message();            \
  } while (0)

inline const Status& StatusOf(const Status& s) { return s; }
template <typename T>
const Status& StatusOf(const Result<T>& r) {
  return r.status();
}

class RgwTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // The options of client_: CephS3ClientOptions (tests/support/ceph_s3_options.h),
  // the cluster's endpoint and keys with bounds short enough for fault tests.
  S3ClientOptions Options() const;
  // A client with other options (a wrong secret, other bounds).
  std::unique_ptr<S3Client> MakeClient(const S3ClientOptions& options) const;

  // An unlinked temporary file holding `size` pseudo-random bytes from `seed`.
  static int RandomFile(uint64_t size, uint32_t seed);
  // An unlinked, empty temporary file.
  static int EmptyFile();
  // "" when files `a` and `b` hold the same `size` bytes from the given
  // offsets, else where they first differ.
  static std::string CompareFiles(int a, uint64_t a_offset, int b, uint64_t b_offset,
                                  uint64_t size);

  CephCluster* cluster_ = nullptr;
  std::unique_ptr<S3Client> client_;
  std::string bucket_;
};

// RgwTest with a FlakyProxy (flaky_proxy.h) in front of the gateway, made per
// test, for clients that meet the faults it injects.
class ProxiedRgwTest : public RgwTest {
 protected:
  void SetUp() override;
  void TearDown() override;
  // A new client (no connection yet) through the proxy, with `options`
  // (default: Options()).
  std::unique_ptr<S3Client> ProxiedClient() { return ProxiedClient(Options()); }
  std::unique_ptr<S3Client> ProxiedClient(S3ClientOptions options);

  std::unique_ptr<FlakyProxy> proxy_;
};

}  // namespace tierfs::testing
