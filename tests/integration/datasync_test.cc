// fdatasync(2) without a database commit (FileSystem::Fsync, design.md "Group
// commit"): an overwrite of a file whose size and volume the last fsync made
// durable syncs the object alone, and whatever changed what reading the data
// back needs (a size grown or cut, a relocation) still commits, so every
// acknowledged byte survives kill -9.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "tests/integration/test_policies.h"
#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

constexpr size_t kMiB = 1 << 20;

class DatasyncTest : public TierfsFixture {
 protected:
  // The daemon's data path: relocates a file the test holds open, which a passthrough open keeps
  // busy.
  std::vector<std::string> FixtureMountArgs() const override { return {"--passthrough=off"}; }

 protected:
  // Writes `data` at `offset` of the open `fd` in one pwrite; asserts it all went.
  static void PutAt(int fd, const std::string& data, size_t offset) {
    ASSERT_EQ(pwrite(fd, data.data(), data.size(), static_cast<off_t>(offset)),
              static_cast<ssize_t>(data.size()));
  }
  // Creates `name` holding `data`, fsyncs it (so its size is durable) and
  // returns the open fd, or -1 after a test failure.
  int CreateSynced(const std::string& name, const std::string& data) {
    const int fd = open(Path(name).c_str(), O_CREAT | O_RDWR, 0644);
    EXPECT_GE(fd, 0) << name;
    if (fd < 0) return -1;
    EXPECT_EQ(pwrite(fd, data.data(), data.size(), 0), static_cast<ssize_t>(data.size()));
    EXPECT_EQ(fsync(fd), 0);
    return fd;
  }
  // Creates and fsyncs file `name`, overwrites 20 blocks of 4 KiB of it (every
  // other one from the start) each followed by an fdatasync, and expects the
  // database untouched by them and the bytes back after kill -9.
  void ExpectOverwritesTouchNoDatabase(const std::string& name, uint32_t seed) {
    std::string data = RandomBytes(kMiB, seed);
    const int fd = CreateSynced(name, data);
    ASSERT_GE(fd, 0);
    // The create's growth queued a delayed attribute flush (no-open mode,
    // kAttributeFlushDelay): done now, so that it cannot land among the
    // overwrites below and find the file dirty with their times.
    ASSERT_EQ(Tool("fcladm", {"sync", mnt_}).exit_code, 0);
    const std::string wal_before = WalState();
    for (size_t i = 0; i < 20; ++i) {
      const std::string block = RandomBytes(4096, seed + 1 + static_cast<uint32_t>(i));
      PutAt(fd, block, i * 8192);
      data.replace(i * 8192, block.size(), block);
      ASSERT_EQ(fdatasync(fd), 0);
    }
    EXPECT_EQ(WalState(), wal_before) << "an overwrite's fdatasync wrote the database";
    EXPECT_TRUE(CrashAndRead(fd, name) == data) << "fdatasync'ed bytes lost";
  }
  // The metadata write-ahead log's size and modification time, as one string.
  std::string WalState() const {
    struct stat st;
    if (stat((ssd_ + "/.tierfs/meta.db-wal").c_str(), &st) != 0) return "absent";
    return std::to_string(st.st_size) + "@" + std::to_string(st.st_mtim.tv_sec) + "." +
           std::to_string(st.st_mtim.tv_nsec);
  }
  // kill -9 of the daemon with `fd` still open (a close would make the release
  // write the inode back), then closes it (the dead mount answers ENOTCONN),
  // mounts again with the same options and returns the file's bytes.
  std::string CrashAndRead(int fd, const std::string& name) {
    const pid_t pid = DaemonPid();
    EXPECT_GT(pid, 1);
    if (pid <= 1 || kill(pid, SIGKILL) != 0) return "kill failed";
    for (int i = 0; i < 400 && kill(pid, 0) == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    close(fd);
    Unmount();
    Mount(mount_args_);
    return ReadFile(Path(name));
  }
  void SetUp() override {
    TierfsFixture::SetUp();
    if (HasFatalFailure()) return;
    // Writes reach the daemon as they are made (no writeback cache, whose
    // mtime setattr at fsync would commit the size by another way), and no
    // periodic flush runs during a test: only an fsync commits.
    Unmount();
    Mount({"--writeback_cache=false", "--writeback_seconds=3600"});
  }
};

TEST_F(DatasyncTest, OverwritesAreDurableWithoutTouchingTheDatabase) {
  ExpectOverwritesTouchNoDatabase("wal-like", 100);
}

// With the writeback cache the kernel also sends the written data's times (a
// setattr) before each fsync: they stay in memory with the dirty size.
TEST_F(DatasyncTest, WithTheWritebackCacheOverwritesStillTouchNoDatabase) {
  Unmount();
  Mount({"--writeback_cache", "--writeback_seconds=3600"});
  ExpectOverwritesTouchNoDatabase("cached", 200);
}

TEST_F(DatasyncTest, AGrownFileCommitsItsSize) {
  std::string data = RandomBytes(kMiB, 2);
  const int fd = CreateSynced("grows", data);
  ASSERT_GE(fd, 0);
  const std::string tail = RandomBytes(65536, 3);
  PutAt(fd, tail, data.size());
  data += tail;
  ASSERT_EQ(fdatasync(fd), 0);
  const std::string after = CrashAndRead(fd, "grows");
  EXPECT_EQ(after.size(), data.size());
  EXPECT_TRUE(after == data) << "the appended bytes are lost";
}

TEST_F(DatasyncTest, ATruncateForgetsTheDurableSize) {
  // The truncate commits with the next group; growing the file back to the size
  // the fsync recorded must not let an fdatasync skip the commit of the new size.
  std::string data = RandomBytes(kMiB, 4);
  const int fd = CreateSynced("cut", data);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, kMiB / 2), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the group commits
  const std::string refill = RandomBytes(kMiB / 2, 5);
  PutAt(fd, refill, kMiB / 2);
  data.replace(kMiB / 2, refill.size(), refill);
  ASSERT_EQ(fdatasync(fd), 0);
  const std::string after = CrashAndRead(fd, "cut");
  EXPECT_EQ(after.size(), data.size());
  EXPECT_TRUE(after == data) << "bytes written after the truncate are lost";
}

TEST_F(DatasyncTest, ARelocatedFileCommitsItsNewVolume) {
  AssignPolicy(kPinHotPolicy);
  std::string data = RandomBytes(kMiB, 6);
  const int fd = CreateSynced("moves.hot", data);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ClassOf("moves.hot"), "hdd");
  CommandResult r = Tool("fsppadm", {"enforce", mnt_});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_EQ(ClassOf("moves.hot"), "ssd");
  const std::string block = RandomBytes(4096, 7);
  PutAt(fd, block, 12288);
  data.replace(12288, block.size(), block);
  ASSERT_EQ(fdatasync(fd), 0);
  EXPECT_TRUE(CrashAndRead(fd, "moves.hot") == data) << "the write after the move is lost";
  EXPECT_EQ(ClassOf("moves.hot"), "ssd");
}

}  // namespace
}  // namespace tierfs::testing
