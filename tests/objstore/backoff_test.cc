#include "fs/objstore/backoff.h"

#include <gtest/gtest.h>

namespace tierfs {
namespace {

TEST(BackoffTest, DoublesFromTheFirstPauseUpToTheCapWithFullJitter) {
  EXPECT_DOUBLE_EQ(BackoffSeconds(1, 0.1, 2, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(BackoffSeconds(1, 0.1, 2, 0.5), 0.05);
  EXPECT_DOUBLE_EQ(BackoffSeconds(1, 0.1, 2, 0.999999), 0.1 * 0.999999);
  EXPECT_DOUBLE_EQ(BackoffSeconds(2, 0.1, 2, 1.0), 0.2);
  EXPECT_DOUBLE_EQ(BackoffSeconds(3, 0.1, 2, 0.5), 0.2);
  EXPECT_DOUBLE_EQ(BackoffSeconds(10, 0.1, 2, 0.5), 1.0);    // capped at 2: [0, 2]
  EXPECT_DOUBLE_EQ(BackoffSeconds(1000, 0.1, 2, 1.0), 2.0);  // no overflow
  EXPECT_DOUBLE_EQ(BackoffSeconds(0, 0.1, 2, 1.0), 0.1);
  EXPECT_DOUBLE_EQ(BackoffSeconds(3, 0.1, 2, 7.0), 0.4);  // clamped to [0, 1]
}

}  // namespace
}  // namespace tierfs
