// Metadata policy record, relocation history and scan history.
#include <gtest/gtest.h>

#include "meta/metadata.h"
#include "tests/meta/meta_test_util.h"

namespace tierfs::meta {
namespace {

using testing::kStartNs;
using testing::MetaTest;

using HistoryTest = MetaTest;

TEST_F(HistoryTest, PolicyIsOneReplaceableRecord) {
  auto none = meta_->GetPolicy();
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  ASSERT_TRUE(meta_->SetPolicy({"first", "<PLACEMENT_POLICY/>", 0}).ok());
  auto got = meta_->GetPolicy();
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->name, "first");
  EXPECT_EQ((*got)->xml, "<PLACEMENT_POLICY/>");
  EXPECT_EQ((*got)->assigned_ns, kStartNs);  // 0: now
  ASSERT_TRUE(meta_->SetPolicy({"second", "<x/>", 77}).ok());
  got = meta_->GetPolicy();
  EXPECT_EQ((*got)->name, "second");
  EXPECT_EQ((*got)->assigned_ns, 77);
  ASSERT_TRUE(meta_->ClearPolicy().ok());
  EXPECT_FALSE(meta_->GetPolicy()->has_value());
  EXPECT_TRUE(meta_->ClearPolicy().ok());  // clearing nothing is fine
}

TEST_F(HistoryTest, PolicyChangesAreLogged) {
  ASSERT_TRUE(meta_->SetPolicy({"p", "<x/>", 0}).ok());
  ASSERT_TRUE(meta_->ClearPolicy().ok());
  ASSERT_TRUE(meta_->ClearPolicy().ok());
  auto records = Fcl();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].event, "policy");
  EXPECT_EQ(records[0].detail, "assign=p");
  EXPECT_EQ(records[1].event, "policy");
  EXPECT_EQ(records[1].detail, "unassign");
}

TEST_F(HistoryTest, RelocationsNewestFirst) {
  for (int i = 1; i <= 5; ++i) {
    RelocationRecord r{0, static_cast<uint64_t>(100 + i), 1, 2, uint64_t(i) * 1000, 0.5 * i,
                       i == 3 ? "busy" : "moved"};
    clock_.AdvanceSeconds(1);
    ASSERT_TRUE(meta_->RecordRelocation(r).ok());
  }
  auto recent = meta_->RecentRelocations(3);
  ASSERT_TRUE(recent.ok());
  ASSERT_EQ(recent->size(), 3u);
  EXPECT_EQ((*recent)[0].ino, 105u);
  EXPECT_EQ((*recent)[0].time_ns, kStartNs + 5 * kNanosPerSecond);  // 0: now
  EXPECT_EQ((*recent)[0].from_volume, 1u);
  EXPECT_EQ((*recent)[0].to_volume, 2u);
  EXPECT_EQ((*recent)[0].bytes, 5000u);
  EXPECT_DOUBLE_EQ((*recent)[0].seconds, 2.5);
  EXPECT_EQ((*recent)[2].ino, 103u);
  EXPECT_EQ((*recent)[2].outcome, "busy");
  EXPECT_EQ(meta_->RecentRelocations(0)->size(), 5u);  // 0: all
  RelocationRecord timed{123, 1, 2, 1, 0, 0, "nospace"};
  ASSERT_TRUE(meta_->RecordRelocation(timed).ok());
  EXPECT_EQ((*meta_->RecentRelocations(1))[0].time_ns, 123);
}

TEST_F(HistoryTest, ScansGetIdsAndComeNewestFirst) {
  ScanRecord first{0, 0, 1.5, "analyze", "-C /", 10, 0, 0, 0, 0, ""};
  ASSERT_TRUE(meta_->RecordScan(&first).ok());
  EXPECT_GT(first.id, 0);
  EXPECT_EQ(first.started_ns, kStartNs);
  ScanRecord second{0, 999, 2.0, "enforce", "-T ssd", 20, 3, 4096, 1, 0, ""};
  ASSERT_TRUE(meta_->RecordScan(&second).ok());
  EXPECT_GT(second.id, first.id);
  auto scans = meta_->RecentScans(10);
  ASSERT_TRUE(scans.ok());
  ASSERT_EQ(scans->size(), 2u);
  const ScanRecord& s = (*scans)[0];
  EXPECT_EQ(s.id, second.id);
  EXPECT_EQ(s.started_ns, 999);
  EXPECT_DOUBLE_EQ(s.seconds, 2.0);
  EXPECT_EQ(s.kind, "enforce");
  EXPECT_EQ(s.options, "-T ssd");
  EXPECT_EQ(s.files_scanned, 20u);
  EXPECT_EQ(s.files_moved, 3u);
  EXPECT_EQ(s.bytes_moved, 4096u);
  EXPECT_EQ(s.errors, 1u);
  EXPECT_EQ((*scans)[1].kind, "analyze");
  EXPECT_EQ(meta_->RecentScans(1)->size(), 1u);
}

TEST_F(HistoryTest, HistorySurvivesReopen) {
  ASSERT_TRUE(meta_->RecordRelocation({0, 7, 2, 1, 10, 0.1, "moved"}).ok());
  ScanRecord scan{0, 0, 1, "enforce", "", 1, 1, 10, 0, 0, ""};
  ASSERT_TRUE(meta_->RecordScan(&scan).ok());
  ASSERT_TRUE(meta_->SetPolicy({"p", "<x/>", 0}).ok());
  Reopen();
  EXPECT_EQ(meta_->RecentRelocations(0)->size(), 1u);
  EXPECT_EQ(meta_->RecentScans(0)->size(), 1u);
  EXPECT_TRUE(meta_->GetPolicy()->has_value());
}

}  // namespace
}  // namespace tierfs::meta
