// Group commit (docs/design.md, "Group commit"): namespace changes gather in one
// database commit for a few milliseconds. What a kill -9 of the daemon may lose is
// exactly what the design promises: changes younger than the window that no fsync
// or fsyncdir covered; never a name without its bytes, never a part of a change.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

// Long enough that nothing the test does in between reaches a commit by itself.
const std::vector<std::string> kLongWindow = {"--commit_ms=1000"};

class GroupCommitTest : public TierfsFixture {
 protected:
  // Objects (files under .tierfs/objects) on both volumes.
  size_t CountObjects() const {
    size_t n = 0;
    for (const std::string& vol : {ssd_, hdd_}) {
      const std::string dir = vol + "/.tierfs/objects";
      if (!std::filesystem::exists(dir)) continue;
      for (auto& e : std::filesystem::recursive_directory_iterator(dir)) {
        if (e.is_regular_file()) ++n;
      }
    }
    return n;
  }
  bool Exists(const std::string& relative) const {
    struct stat st;
    return stat(Path(relative).c_str(), &st) == 0;
  }
};

TEST_F(GroupCommitTest, ChangesOlderThanTheWindowSurviveAKill) {
  const std::string data = RandomBytes(20000, 1);
  ASSERT_EQ(mkdir(Path("d").c_str(), 0755), 0);
  WriteFile(Path("d/a"), data);
  WriteFile(Path("b"), "bee");
  ASSERT_EQ(rename(Path("b").c_str(), Path("d/b").c_str()), 0);
  // 5 ms is the default window: 500 ms is a hundred of them.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  CrashDaemon();
  Mount();
  EXPECT_EQ(ReadFile(Path("d/a")), data);
  EXPECT_EQ(ReadFile(Path("d/b")), "bee");
  EXPECT_FALSE(Exists("b"));
}

TEST_F(GroupCommitTest, FsyncdirMakesEveryChangeDurableAtOnce) {
  Unmount();
  // As fstab gives it: tierfs's own options ride in -o beside FUSE's.
  Mount({"-o", "default_permissions,commit_ms=1000"});
  ASSERT_EQ(mkdir(Path("kept").c_str(), 0755), 0);
  WriteFile(Path("kept/f"), "");  // a create alone: no size for a late RELEASE to bring
  FsyncDir(mnt_);  // another directory's fsyncdir commits these too
  ASSERT_EQ(mkdir(Path("lost").c_str(), 0755), 0);  // younger than the window, not synced
  CrashDaemon();
  Mount();
  EXPECT_TRUE(Exists("kept/f"));
  EXPECT_EQ(ReadFile(Path("kept/f")), "");
  EXPECT_FALSE(Exists("lost")) << "a change no commit covered survived: the window is not real";
}

TEST_F(GroupCommitTest, FsyncOfAFileCommitsItsSizeAndItsName) {
  Unmount();
  Mount(kLongWindow);
  const std::string data = RandomBytes(70000, 2);
  const int fd = open(Path("f").c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
  ASSERT_EQ(fsync(fd), 0);
  close(fd);  // its attribute flush joins the open group: the fsync alone must have done it
  CrashDaemon();
  Mount();
  EXPECT_EQ(ReadFile(Path("f")), data);
}

// An unlink's object goes only once the unlink is committed: a crash before that
// brings the name back with all its bytes, never a name whose object is gone.
TEST_F(GroupCommitTest, AnUncommittedUnlinkComesBackWhole) {
  const std::string data = RandomBytes(40000, 3);
  WriteFile(Path("f"), data);
  FsyncDir(mnt_);
  Unmount();
  Mount(kLongWindow);
  ASSERT_EQ(CountObjects(), 1u);
  ASSERT_EQ(unlink(Path("f").c_str()), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(CountObjects(), 1u) << "the object went before its unlink was committed";
  CrashDaemon();
  Mount();
  EXPECT_EQ(ReadFile(Path("f")), data);
}

TEST_F(GroupCommitTest, ACommittedUnlinkFreesTheObject) {
  WriteFile(Path("f"), RandomBytes(40000, 4));
  Unmount();
  Mount(kLongWindow);
  ASSERT_EQ(CountObjects(), 1u);
  ASSERT_EQ(unlink(Path("f").c_str()), 0);
  FsyncDir(mnt_);
  // The kernel's RELEASE may trail the close: bounded wait.
  for (int i = 0; i < 200 && CountObjects() != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(CountObjects(), 0u);
}

// A create whose commit a crash lost leaves an object no inode owns: the next
// mount removes it.
TEST_F(GroupCommitTest, ObjectsOfLostCreatesAreRemovedAtTheNextMount) {
  Unmount();
  Mount(kLongWindow);
  WriteFile(Path("ghost"), RandomBytes(30000, 5));
  ASSERT_EQ(CountObjects(), 1u);
  CrashDaemon();
  Mount();
  EXPECT_FALSE(Exists("ghost"));
  EXPECT_EQ(CountObjects(), 0u) << "an orphan object outlived the mount after the crash";
}

TEST_F(GroupCommitTest, AMountOptionOutOfRangeIsRefusedByName) {
  Unmount();
  CommandResult r = Tool("tierfs", {"-o", "commit_ms=5000", ssd_, mnt_});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("commit_ms"), std::string::npos) << r.output;
  r = Tool("tierfs", {"-o", "writeback_cache=maybe", ssd_, mnt_});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("-o writeback_cache=maybe"), std::string::npos) << r.output;
  Mount();
}

}  // namespace
}  // namespace tierfs::testing
