// The tests of object volumes through a mounted tierfs share one Ceph cluster,
// started before the first test and stopped after the last (CephEnvironment):
// ctest runs this binary as one test, so that the cluster starts once. Where
// Ceph cannot start, every test fails saying why.
#include <gtest/gtest.h>

#include "tests/support/ceph_cluster.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new tierfs::testing::CephEnvironment);
  return RUN_ALL_TESTS();
}
