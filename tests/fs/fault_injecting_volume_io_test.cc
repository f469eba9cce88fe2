#include "fs/volume/fault_injecting_volume_io.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <cstdlib>
#include <string>

#include "meta/metadata.h"
#include "tests/meta/meta_test_util.h"

namespace tierfs {
namespace {

class FaultInjectingVolumeIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tierfs-fault-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  std::unique_ptr<FaultInjectingVolumeIo> Make(const std::string& spec) {
    auto io = FaultInjectingVolumeIo::Create(spec, VolumeIo::Posix());
    EXPECT_TRUE(io.ok()) << io.status().ToString();
    return io.ok() ? std::move(*io) : nullptr;
  }
  std::string dir_;
};

TEST_F(FaultInjectingVolumeIoTest, FailsExactlyTheNthMatchingCall) {
  auto io = Make("write@2=ENOSPC");
  ASSERT_TRUE(io);
  int fd = io->Open(dir_ + "/f", O_RDWR | O_CREAT, 0600);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(io->Pwrite(fd, "a", 1, 0), 1);
  errno = 0;
  EXPECT_EQ(io->Pwrite(fd, "b", 1, 1), -1);
  EXPECT_EQ(errno, ENOSPC);
  EXPECT_EQ(io->Pwrite(fd, "c", 1, 1), 1);  // only the 2nd
  EXPECT_EQ(io->faults_injected(), 1u);
  io->Close(fd);
}

TEST_F(FaultInjectingVolumeIoTest, PlusFailsThatCallAndEveryLaterOne) {
  auto io = Make("fsync@1+=EIO");
  ASSERT_TRUE(io);
  int fd = io->Open(dir_ + "/f", O_RDWR | O_CREAT, 0600);
  for (int i = 0; i < 3; ++i) {
    errno = 0;
    EXPECT_EQ(io->Fsync(fd, false), -1);
    EXPECT_EQ(errno, EIO);
  }
  io->Close(fd);
}

TEST_F(FaultInjectingVolumeIoTest, PathFilterFollowsFdsThroughDup2) {
  auto io = Make("write:/ssd/@1+=ENOSPC");
  ASSERT_TRUE(io);
  ASSERT_EQ(mkdir((dir_ + "/ssd").c_str(), 0700), 0);
  ASSERT_EQ(mkdir((dir_ + "/hdd").c_str(), 0700), 0);
  int on_ssd = io->Open(dir_ + "/ssd/o", O_RDWR | O_CREAT, 0600);
  int on_hdd = io->Open(dir_ + "/hdd/o", O_RDWR | O_CREAT, 0600);
  EXPECT_EQ(io->Pwrite(on_hdd, "x", 1, 0), 1);
  EXPECT_EQ(io->Pwrite(on_ssd, "x", 1, 0), -1);
  // The relocator's dup2: the ssd fd now points at the hdd object.
  ASSERT_EQ(io->Dup2(on_hdd, on_ssd), on_ssd);
  EXPECT_EQ(io->Pwrite(on_ssd, "y", 1, 1), 1);
  io->Close(on_ssd);
  io->Close(on_hdd);
}

TEST_F(FaultInjectingVolumeIoTest, ShortWriteMovesHalf) {
  auto io = Make("write@1=short");
  ASSERT_TRUE(io);
  int fd = io->Open(dir_ + "/f", O_RDWR | O_CREAT, 0600);
  EXPECT_EQ(io->Pwrite(fd, "abcdef", 6, 0), 3);
  EXPECT_EQ(io->Pwrite(fd, "abcdef", 6, 0), 6);
  io->Close(fd);
}

TEST_F(FaultInjectingVolumeIoTest, StopEndsTheProcessAtThatCall) {
  EXPECT_EXIT(
      {
        auto io = FaultInjectingVolumeIo::Create("rename@1=stop", VolumeIo::Posix());
        (*io)->Rename(dir_ + "/a", dir_ + "/b");
        std::exit(0);
      },
      ::testing::ExitedWithCode(70), "");
}

TEST_F(FaultInjectingVolumeIoTest, DelayWaitsThenRunsTheCall) {
  auto io = Make("write@2=delay200");
  ASSERT_TRUE(io);
  int fd = io->Open(dir_ + "/f", O_RDWR | O_CREAT, 0600);
  ASSERT_GE(fd, 0);
  auto timed = [&](off_t offset) {
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(io->Pwrite(fd, "a", 1, offset), 1);  // the call itself succeeds
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  EXPECT_LT(timed(0), 0.15);
  EXPECT_GE(timed(1), 0.2);  // only the 2nd waits
  EXPECT_LT(timed(2), 0.15);
  io->Close(fd);
}

TEST_F(FaultInjectingVolumeIoTest, HoldWaitsAtANamedPointUntilReleased) {
  auto io = FaultInjectingVolumeIo::Create("point:relocate-snapshot@2=hold", VolumeIo::Posix(),
                                           dir_);
  ASSERT_TRUE(io.ok()) << io.status().ToString();
  const std::string marker = dir_ + "/point.held";
  (*io)->ReachPoint("relocate-snapshot");  // the 1st: passes
  (*io)->ReachPoint("relocate-after-copy");  // another point: not counted
  EXPECT_NE(access(marker.c_str(), F_OK), 0);
  std::atomic<bool> passed{false};
  std::thread held([&] {
    (*io)->ReachPoint("relocate-snapshot");
    passed = true;
  });
  bool seen = false;
  for (int i = 0; i < 500 && !seen; ++i) {
    seen = access(marker.c_str(), F_OK) == 0;
    if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(seen) << "the 2nd call never said it was held";
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(passed.load()) << "a held call went on before its release";
  unlink(marker.c_str());
  held.join();
  EXPECT_TRUE(passed.load());
  EXPECT_EQ((*io)->faults_injected(), 1u);
}

// SQLite's steps on the database files, announced by the database VFS, are
// counted by their own names, with the file's path.
TEST_F(FaultInjectingVolumeIoTest, DatabaseStepsHaveNamesOfTheirOwn) {
  auto io = Make("db-write:-wal@2=ENOSPC,db-sync@1+=EIO,db-truncate:meta.db@1=EIO");
  ASSERT_TRUE(io);
  EXPECT_EQ(io->BeforeDbCall(DbCall::kWrite, dir_ + "/meta.db"), 0);  // not the WAL
  EXPECT_EQ(io->BeforeDbCall(DbCall::kWrite, dir_ + "/meta.db-wal"), 0);
  errno = 0;
  EXPECT_EQ(io->BeforeDbCall(DbCall::kWrite, dir_ + "/meta.db-wal"), -1);
  EXPECT_EQ(errno, ENOSPC);
  EXPECT_EQ(io->BeforeDbCall(DbCall::kWrite, dir_ + "/meta.db-wal"), 0);  // only the 2nd
  errno = 0;
  EXPECT_EQ(io->BeforeDbCall(DbCall::kSync, dir_ + "/meta.db"), -1);
  EXPECT_EQ(errno, EIO);
  errno = 0;
  EXPECT_EQ(io->BeforeDbCall(DbCall::kTruncate, dir_ + "/meta.db-wal"), -1);
  EXPECT_EQ(errno, EIO);
  // A write to a volume is not a database step.
  int fd = io->Open(dir_ + "/meta.db-wal", O_RDWR | O_CREAT, 0600);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(io->Pwrite(fd, "a", 1, 0), 1);
  io->Close(fd);
  EXPECT_EQ(io->faults_injected(), 3u);
}

// The plan reaches the metadata layer: its database's WAL, through the
// database VFS, and the calls meta/ makes itself.
TEST_F(FaultInjectingVolumeIoTest, ThePlanReachesTheDatabase) {
  const std::string db = dir_ + "/meta.db";
  FakeClock clock(meta::testing::kStartNs);
  ASSERT_TRUE(meta::Metadata::Format(db, meta::testing::TestFsInfo(),
                                     meta::testing::TwoVolumes(dir_), 0, 0, clock)
                  .ok());
  auto io = Make("db-write:meta.db-wal@1+=ENOSPC");
  ASSERT_TRUE(io);
  meta::MetadataOptions options;
  options.clock = &clock;
  options.io = io.get();
  auto meta = meta::Metadata::Open(db, options);
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();  // the open reads, writes no WAL
  meta::Inode proto;
  proto.mode = S_IFREG | 0644;
  proto.volume_id = 1;
  auto made = (*meta)->Create(meta::kRootIno, "f", proto);
  EXPECT_EQ(made.status().code(), ENOSPC) << made.status().ToString();
  EXPECT_GT(io->faults_injected(), 0u);
  meta->reset();

  auto failing_open = Make("stat:meta.db@1=EIO");
  ASSERT_TRUE(failing_open);
  options.io = failing_open.get();
  EXPECT_EQ(meta::Metadata::Open(db, options).status().code(), EIO);
  EXPECT_EQ(failing_open->faults_injected(), 1u);
}

TEST_F(FaultInjectingVolumeIoTest, BadSpecsAreRefusedNamingTheRule) {
  for (const char* spec : {"", "write", "write@0=EIO", "scribble@1=EIO", "write@1=EWHAT",
                           "fsync@1=short", "write@x=EIO", "write@1=delay", "write@1=delay0",
                           "write@1=delay600001", "write@1=delay5ms", "point:x@1=EIO",
                           "point:x@1=short", "point:x@1=hold", "db-write@1=short"}) {
    auto io = FaultInjectingVolumeIo::Create(spec, VolumeIo::Posix());
    ASSERT_FALSE(io.ok()) << spec;
    EXPECT_EQ(io.status().code(), EINVAL) << spec;
  }
  auto io = FaultInjectingVolumeIo::Create("write@1=EIO,scribble@1=EIO", VolumeIo::Posix());
  ASSERT_FALSE(io.ok());
  EXPECT_NE(io.status().message().find("scribble@1=EIO"), std::string::npos)
      << io.status().message();
}

}  // namespace
}  // namespace tierfs
