// I/O statistics buckets: upsert, reading by time, pruning.
#include <gtest/gtest.h>

#include "meta/metadata.h"
#include "tests/meta/meta_test_util.h"

namespace tierfs::meta {
namespace {

using testing::kStartS;
using testing::MetaTest;

class IoStatTest : public MetaTest {
 protected:
  std::vector<IoBucket> Buckets(int64_t since_s) {
    std::vector<IoBucket> buckets;
    EXPECT_TRUE(meta_->ForEachIoBucket(since_s, [&](const IoBucket& b) {
      buckets.push_back(b);
    }).ok());
    return buckets;
  }
  static constexpr int64_t kHour = 3600;
};

TEST_F(IoStatTest, AddingToTheSameBucketAddsUp) {
  ASSERT_TRUE(meta_->AddIoStats({{7, kStartS, 100, 10, 1, 2}}).ok());
  ASSERT_TRUE(meta_->AddIoStats({{7, kStartS, 50, 5, 3, 4}, {8, kStartS, 1, 1, 1, 1}}).ok());
  auto buckets = Buckets(0);
  ASSERT_EQ(buckets.size(), 2u);
  EXPECT_EQ(buckets[0].ino, 7u);
  EXPECT_EQ(buckets[0].bucket_start_s, kStartS);
  EXPECT_EQ(buckets[0].bucket_seconds, kHour);
  EXPECT_EQ(buckets[0].rbytes, 150u);
  EXPECT_EQ(buckets[0].wbytes, 15u);
  EXPECT_EQ(buckets[0].rops, 4u);
  EXPECT_EQ(buckets[0].wops, 6u);
  EXPECT_EQ(buckets[1].ino, 8u);
}

TEST_F(IoStatTest, DuplicatesInOneCallAddUpToo) {
  ASSERT_TRUE(meta_->AddIoStats({{7, kStartS, 1, 0, 1, 0}, {7, kStartS, 2, 0, 1, 0}}).ok());
  auto buckets = Buckets(0);
  ASSERT_EQ(buckets.size(), 1u);
  EXPECT_EQ(buckets[0].rbytes, 3u);
  EXPECT_EQ(buckets[0].rops, 2u);
}

TEST_F(IoStatTest, MisalignedBucketIsEinvalAndWritesNothing) {
  EXPECT_EQ(meta_->AddIoStats({{7, kStartS, 1, 1, 1, 1}, {8, kStartS + 1, 1, 1, 1, 1}}).code(),
            EINVAL);
  EXPECT_TRUE(Buckets(0).empty());
  EXPECT_TRUE(meta_->AddIoStats({}).ok());
}

TEST_F(IoStatTest, RestartDeletesEveryBucketAndSetsTheLength) {
  ASSERT_TRUE(meta_->AddIoStats({{7, kStartS, 1, 1, 1, 1}, {8, kStartS + kHour, 1, 1, 1, 1}}).ok());
  ASSERT_TRUE(meta_->RestartIoStats(60).ok());
  EXPECT_TRUE(Buckets(0).empty());
  EXPECT_EQ(meta_->GetFsInfo()->iostat_bucket_seconds, 60);
  // Buckets of the new length are accepted, those of the old one are not.
  EXPECT_TRUE(meta_->AddIoStats({{7, kStartS + 60, 5, 0, 1, 0}}).ok());
  EXPECT_EQ(meta_->AddIoStats({{7, kStartS + 30, 1, 0, 1, 0}}).code(), EINVAL);
  auto buckets = Buckets(0);
  ASSERT_EQ(buckets.size(), 1u);
  EXPECT_EQ(buckets[0].bucket_seconds, 60);
}

TEST_F(IoStatTest, RestartOutOfRangeIsEinvalAndChangesNothing) {
  ASSERT_TRUE(meta_->AddIoStats({{7, kStartS, 1, 1, 1, 1}}).ok());
  EXPECT_EQ(meta_->RestartIoStats(0).code(), EINVAL);
  EXPECT_EQ(meta_->RestartIoStats(86401).code(), EINVAL);
  EXPECT_EQ(Buckets(0).size(), 1u);
  EXPECT_EQ(meta_->GetFsInfo()->iostat_bucket_seconds, kHour);
  EXPECT_TRUE(meta_->RestartIoStats(86400).ok());
  EXPECT_TRUE(meta_->RestartIoStats(1).ok());
}

TEST_F(IoStatTest, ForEachOrdersByInodeThenTimeAndFiltersByEnd) {
  ASSERT_TRUE(meta_->AddIoStats({{9, kStartS - 2 * kHour, 1, 0, 0, 0},
                                 {9, kStartS, 2, 0, 0, 0},
                                 {3, kStartS - kHour, 3, 0, 0, 0},
                                 {3, kStartS - 3 * kHour, 4, 0, 0, 0}})
                  .ok());
  auto all = Buckets(0);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].rbytes, 4u);  // ino 3, oldest first
  EXPECT_EQ(all[1].rbytes, 3u);
  EXPECT_EQ(all[2].rbytes, 1u);  // ino 9
  EXPECT_EQ(all[3].rbytes, 2u);
  // A bucket counts when it ends after since_s: [start-1h, start) ends at start.
  auto recent = Buckets(kStartS - kHour);
  ASSERT_EQ(recent.size(), 2u);
  EXPECT_EQ(recent[0].rbytes, 3u);
  EXPECT_EQ(recent[1].rbytes, 2u);
  recent = Buckets(kStartS - kHour + 1);
  ASSERT_EQ(recent.size(), 2u);
  recent = Buckets(kStartS);
  ASSERT_EQ(recent.size(), 1u);
  EXPECT_EQ(recent[0].rbytes, 2u);
  EXPECT_TRUE(Buckets(kStartS + kHour).empty());
}

TEST_F(IoStatTest, ForEachCoversManyBuckets) {
  std::vector<IoDelta> deltas;
  for (uint64_t ino = 1; ino <= 700; ++ino) {
    deltas.push_back({ino, kStartS, ino, 0, 1, 0});
    deltas.push_back({ino, kStartS - kHour, ino, 0, 1, 0});
  }
  ASSERT_TRUE(meta_->AddIoStats(deltas).ok());
  auto buckets = Buckets(0);
  ASSERT_EQ(buckets.size(), 1400u);
  for (size_t i = 1; i < buckets.size(); ++i) {
    ASSERT_TRUE(buckets[i - 1].ino < buckets[i].ino ||
                (buckets[i - 1].ino == buckets[i].ino &&
                 buckets[i - 1].bucket_start_s < buckets[i].bucket_start_s));
  }
}

// A month of retained buckets before the window: the pass seeks past them per
// file (one batch of rows can end on one), and yields exactly the window's.
TEST_F(IoStatTest, ForEachSkipsBucketsBeforeTheWindowWhateverTheirNumber) {
  std::vector<IoDelta> deltas;
  for (uint64_t ino = 1; ino <= 60; ++ino) {
    const int64_t old_buckets = ino % 3 == 0 ? 0 : 700;  // some files have only recent ones
    for (int64_t h = 0; h < old_buckets; ++h) {
      deltas.push_back({ino, kStartS - (30 + h) * kHour, 1000, 0, 1, 0});
    }
    if (ino % 5 == 0) continue;  // some have no bucket in the window at all
    for (int64_t h = 0; h < 3; ++h) deltas.push_back({ino, kStartS - h * kHour, ino, 0, 1, 0});
  }
  ASSERT_TRUE(meta_->AddIoStats(deltas).ok());
  auto window = Buckets(kStartS - 3 * kHour + 1);  // the last three buckets end after it
  std::vector<uint64_t> expected_inos;
  for (uint64_t ino = 1; ino <= 60; ++ino) {
    if (ino % 5 != 0) expected_inos.insert(expected_inos.end(), 3, ino);
  }
  ASSERT_EQ(window.size(), expected_inos.size());
  for (size_t i = 0; i < window.size(); ++i) {
    EXPECT_EQ(window[i].ino, expected_inos[i]) << i;
    EXPECT_EQ(window[i].rbytes, window[i].ino) << i;  // never one of the old buckets
    if (i > 0 && window[i].ino == window[i - 1].ino) {
      EXPECT_LT(window[i - 1].bucket_start_s, window[i].bucket_start_s) << i;
    }
  }
  EXPECT_EQ(Buckets(0).size(), deltas.size());  // with no window edge, every bucket
}

TEST_F(IoStatTest, PruneDropsEndedBucketsAndDeletedInodes) {
  Inode live = MakeFile(kRootIno, "live");
  Inode gone = MakeFile(kRootIno, "gone");
  ASSERT_TRUE(meta_->AddIoStats({{live.ino, kStartS - 3 * kHour, 1, 0, 0, 0},
                                 {live.ino, kStartS - kHour, 2, 0, 0, 0},
                                 {live.ino, kStartS, 3, 0, 0, 0},
                                 {gone.ino, kStartS, 4, 0, 0, 0}})
                  .ok());
  ASSERT_TRUE(meta_->Unlink(kRootIno, "gone").ok());
  ASSERT_TRUE(meta_->DeleteInode(gone.ino).ok());
  EXPECT_EQ(Buckets(0).size(), 4u);  // kept until pruned
  ASSERT_TRUE(meta_->PruneIoStats(kStartS).ok());  // [start-1h, start) has ended by start
  auto left = Buckets(0);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].ino, live.ino);
  EXPECT_EQ(left[0].rbytes, 3u);
}

}  // namespace
}  // namespace tierfs::meta
