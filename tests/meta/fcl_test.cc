// The File Change Log: records written in the change's own transaction (and
// not when the log is off), on/off, append, read filters, retention.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "meta/metadata.h"
#include "tests/meta/meta_test_util.h"

namespace tierfs::meta {
namespace {

using testing::kStartNs;
using testing::MetaTest;

using FclTest = MetaTest;

TEST_F(FclTest, EveryNamespaceChangeLogsOneRecord) {
  Inode dir = MakeDir(kRootIno, "d");
  Inode file = MakeFile(dir.ino, "f");
  MakeSymlink(kRootIno, "s", "d/f");
  ASSERT_TRUE(meta_->Create(kRootIno, "p", Proto(S_IFIFO | 0600)).ok());
  ASSERT_TRUE(meta_->Link(file.ino, kRootIno, "h").ok());
  ASSERT_TRUE(meta_->Unlink(kRootIno, "h").ok());
  ASSERT_TRUE(meta_->Rename(dir.ino, "f", kRootIno, "f2", 0).ok());
  ASSERT_TRUE(meta_->Rmdir(kRootIno, "d").ok());
  std::vector<std::string> events;
  for (const FclRecord& r : Fcl()) events.push_back(r.event);
  EXPECT_EQ(events, (std::vector<std::string>{"mkdir", "create", "symlink", "mknod", "link",
                                              "unlink", "rename", "rmdir"}));
  auto records = Fcl();
  EXPECT_EQ(records[1].ino, file.ino);
  EXPECT_EQ(records[1].parent, dir.ino);
  EXPECT_EQ(records[1].name, "f");
  EXPECT_EQ(records[1].time_ns, kStartNs);
  EXPECT_EQ(records[4].parent, kRootIno);
  EXPECT_EQ(records[4].name, "h");
  for (size_t i = 1; i < records.size(); ++i) EXPECT_GT(records[i].seq, records[i - 1].seq);
}

TEST_F(FclTest, OffMeansNoRecords) {
  ASSERT_TRUE(meta_->SetFclEnabled(false).ok());
  EXPECT_FALSE(*meta_->FclEnabled());
  const size_t before = Fcl().size();  // just the "off" record
  Inode file = MakeFile(kRootIno, "f");
  ASSERT_TRUE(meta_->Rename(kRootIno, "f", kRootIno, "g", 0).ok());
  ASSERT_TRUE(meta_->SetXattr(file.ino, "user.x", "1", 0).ok());
  ASSERT_TRUE(meta_->WriteInode(file, "setattr").ok());
  FclRecord r;
  r.event = "write-open";
  r.ino = file.ino;
  ASSERT_TRUE(meta_->AppendFcl(&r).ok());
  EXPECT_EQ(r.seq, 0);  // not written
  EXPECT_EQ(Fcl().size(), before);
}

TEST_F(FclTest, TurningOnAndOffIsItselfLogged) {
  ASSERT_TRUE(meta_->SetFclEnabled(true).ok());  // already on: no record
  EXPECT_TRUE(Fcl().empty());
  ASSERT_TRUE(meta_->SetFclEnabled(false).ok());
  ASSERT_TRUE(meta_->SetFclEnabled(false).ok());
  ASSERT_TRUE(meta_->SetFclEnabled(true).ok());
  auto records = Fcl();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].event, "fcl");
  EXPECT_EQ(records[0].detail, "off");
  EXPECT_EQ(records[1].event, "fcl");
  EXPECT_EQ(records[1].detail, "on");
  Reopen();
  EXPECT_TRUE(*meta_->FclEnabled());
}

TEST_F(FclTest, AppendSetsSeqAndTime) {
  clock_.AdvanceSeconds(30);
  FclRecord r;
  r.event = "write-open";
  r.ino = 5;
  r.time_ns = 1;  // replaced by now
  r.detail = "pid=1";
  ASSERT_TRUE(meta_->AppendFcl(&r).ok());
  EXPECT_GT(r.seq, 0);
  EXPECT_EQ(r.time_ns, clock_.NowNanos());
  auto records = Fcl();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].seq, r.seq);
  EXPECT_EQ(records[0].event, "write-open");
  EXPECT_EQ(records[0].ino, 5u);
  EXPECT_EQ(records[0].parent, 0u);
  EXPECT_EQ(records[0].detail, "pid=1");
  EXPECT_EQ(records[0].time_ns, clock_.NowNanos());
}

TEST_F(FclTest, RolledBackChangeLeavesNoRecord) {
  MakeFile(kRootIno, "a");
  const size_t before = Fcl().size();
  EXPECT_EQ(meta_->Create(kRootIno, "a", Proto(S_IFREG | 0644)).status().code(), EEXIST);
  EXPECT_EQ(meta_->Rmdir(kRootIno, "a").status().code(), ENOTDIR);
  EXPECT_EQ(meta_->Rename(kRootIno, "zz", kRootIno, "a", 0).status().code(), ENOENT);
  EXPECT_EQ(Fcl().size(), before);
}

TEST_F(FclTest, ReadFiltersBySeqTimeAndLimit) {
  std::vector<int64_t> seqs;
  for (int i = 0; i < 10; ++i) {
    FclRecord r;
    r.event = "write-open";
    r.ino = 100 + i;
    ASSERT_TRUE(meta_->AppendFcl(&r).ok());
    seqs.push_back(r.seq);
    clock_.AdvanceSeconds(10);
  }
  auto read = [&](int64_t from_seq, int64_t from_time, size_t limit) {
    std::vector<uint64_t> inos;
    EXPECT_TRUE(meta_->ReadFcl(from_seq, from_time, limit, [&](const FclRecord& r) {
      inos.push_back(r.ino);
    }).ok());
    return inos;
  };
  EXPECT_EQ(read(0, 0, 0).size(), 10u);
  EXPECT_EQ(read(seqs[7], 0, 0), (std::vector<uint64_t>{107, 108, 109}));
  EXPECT_EQ(read(0, kStartNs + 75 * kNanosPerSecond, 0), (std::vector<uint64_t>{108, 109}));
  EXPECT_EQ(read(0, 0, 3), (std::vector<uint64_t>{100, 101, 102}));
  EXPECT_EQ(read(seqs[2], kStartNs + 50 * kNanosPerSecond, 2), (std::vector<uint64_t>{105, 106}));
  EXPECT_TRUE(read(seqs[9] + 1, 0, 0).empty());
  EXPECT_TRUE(read(0, kStartNs + 1000 * kNanosPerSecond, 0).empty());
}

TEST_F(FclTest, ReadWithAClockThatWentBackStillFiltersExactly) {
  FclRecord r;
  r.event = "e";
  r.ino = 1;
  clock_.AdvanceSeconds(100);
  ASSERT_TRUE(meta_->AppendFcl(&r).ok());  // t=100
  r.ino = 2;
  clock_.AdvanceSeconds(-90);
  ASSERT_TRUE(meta_->AppendFcl(&r).ok());  // t=10
  r.ino = 3;
  clock_.AdvanceSeconds(40);
  ASSERT_TRUE(meta_->AppendFcl(&r).ok());  // t=50
  std::vector<uint64_t> inos;
  ASSERT_TRUE(meta_->ReadFcl(0, kStartNs + 40 * kNanosPerSecond, 0, [&](const FclRecord& rec) {
    inos.push_back(rec.ino);
  }).ok());
  EXPECT_EQ(inos, (std::vector<uint64_t>{1, 3}));
}

TEST_F(FclTest, LongReadsAreComplete) {
  for (int i = 0; i < 1300; ++i) {  // several internal batches
    FclRecord r;
    r.event = "write-open";
    r.ino = i;
    ASSERT_TRUE(meta_->AppendFcl(&r).ok());
  }
  auto records = Fcl();
  ASSERT_EQ(records.size(), 1300u);
  for (int i = 0; i < 1300; ++i) ASSERT_EQ(records[i].ino, static_cast<uint64_t>(i));
  size_t limited = 0;
  ASSERT_TRUE(meta_->ReadFcl(0, 0, 1000, [&](const FclRecord&) { ++limited; }).ok());
  EXPECT_EQ(limited, 1000u);
}

TEST_F(FclTest, PruneByAgeThenByCount) {
  for (int i = 0; i < 10; ++i) {
    FclRecord r;
    r.event = "write-open";
    r.ino = i;
    ASSERT_TRUE(meta_->AppendFcl(&r).ok());
    clock_.AdvanceSeconds(60);
  }
  // Now = start + 600 s. Keep 5 minutes: records at 300..540 s stay.
  ASSERT_TRUE(meta_->PruneFcl(300, 0).ok());
  auto records = Fcl();
  ASSERT_EQ(records.size(), 5u);
  EXPECT_EQ(records.front().ino, 5u);
  ASSERT_TRUE(meta_->PruneFcl(0, 2).ok());  // 0 s: no age bound
  records = Fcl();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].ino, 8u);
  EXPECT_EQ(records[1].ino, 9u);
  ASSERT_TRUE(meta_->PruneFcl(0, 0).ok());  // no bounds: nothing dropped
  EXPECT_EQ(Fcl().size(), 2u);
  // Sequence numbers are never reused after pruning.
  const int64_t last = records[1].seq;
  ASSERT_TRUE(meta_->PruneFcl(0, 1).ok());
  ASSERT_TRUE(meta_->PruneFcl(1, 0).ok());  // everything older than 1 s
  EXPECT_TRUE(Fcl().empty());
  Reopen();
  FclRecord r;
  r.event = "e";
  ASSERT_TRUE(meta_->AppendFcl(&r).ok());
  EXPECT_GT(r.seq, last);
}

}  // namespace
}  // namespace tierfs::meta
