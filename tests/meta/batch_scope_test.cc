// Metadata::BatchScope: while a batch lives the group commit stays open past its
// window (bounded by GroupCommitter::kMaxBatchDeferral), and it commits soon
// after the batch ends; an explicit Sync still commits at once.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "meta/group_committer.h"
#include "meta/metadata.h"
#include "tests/meta/meta_test_util.h"

namespace tierfs::meta {
namespace {

using testing::MetaTest;
using std::chrono::milliseconds;

class BatchScopeTest : public MetaTest {
 protected:
  void SetUp() override {
    MetaTest::SetUp();
    if (HasFatalFailure()) return;
    meta_->StartGroupCommit(std::chrono::microseconds(1000), nullptr);
  }
  // Waits (bounded) until every change made so far is committed.
  bool CommittedWithin(milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (!meta_->UncommittedTicket().has_value()) return true;
      std::this_thread::sleep_for(milliseconds(1));
    }
    return !meta_->UncommittedTicket().has_value();
  }
};

TEST_F(BatchScopeTest, WithoutABatchTheWindowCommits) {
  MakeFile(kRootIno, "a");
  EXPECT_TRUE(CommittedWithin(milliseconds(500)));
}

TEST_F(BatchScopeTest, ABatchHoldsTheGroupOpenUntilItEnds) {
  {
    Metadata::BatchScope batch(*meta_);
    MakeFile(kRootIno, "a");
    // Fifty windows pass: the group is still open.
    std::this_thread::sleep_for(milliseconds(50));
    EXPECT_TRUE(meta_->UncommittedTicket().has_value());
    MakeFile(kRootIno, "b");
  }
  EXPECT_TRUE(CommittedWithin(milliseconds(500)));
}

TEST_F(BatchScopeTest, ABatchThatOutlivesTheBoundStillCommits) {
  Metadata::BatchScope batch(*meta_);
  MakeFile(kRootIno, "a");
  EXPECT_TRUE(CommittedWithin(GroupCommitter::kMaxBatchDeferral + milliseconds(1000)));
}

TEST_F(BatchScopeTest, SyncCommitsInsideABatch) {
  Metadata::BatchScope batch(*meta_);
  MakeFile(kRootIno, "a");
  ASSERT_TRUE(meta_->Sync().ok());
  EXPECT_FALSE(meta_->UncommittedTicket().has_value());
}

}  // namespace
}  // namespace tierfs::meta
