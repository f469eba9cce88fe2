// The tests against a real RADOS Gateway share one Ceph cluster, started before
// the first test and stopped after the last (CephEnvironment): ctest runs this
// binary as one test, not test by test, so that the cluster starts once. Its
// gateway serves HTTPS too, for the TLS tests (tls_test.cc).
#include <gtest/gtest.h>

#include "tests/support/ceph_cluster.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new tierfs::testing::CephEnvironment(/*tls=*/true));
  return RUN_ALL_TESTS();
}
