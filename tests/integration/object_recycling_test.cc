// Recycled objects (fs/volume/volume_set.h): an unlinked file's object is emptied and
// kept in the volume's tmp/ for the next create, which takes it by rename instead
// of making the backing file system allocate an inode. The reused object must
// show none of its old bytes, and nothing of the pool may outlive an unmount or
// a crash.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <thread>

#include "tests/integration/test_policies.h"
#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

class ObjectRecyclingTest : public TierfsFixture {
 protected:
  // The daemon's data path: object recycling, which passthrough mounts never do.
  std::vector<std::string> FixtureMountArgs() const override { return {"--passthrough=off"}; }

 protected:
  void SetUp() override {
    TierfsFixture::SetUp();
    if (HasFatalFailure()) return;
    // Every file on one volume: the pool is per volume.
    AssignPolicy(kAllOnSsdPolicy);
  }

  // Backing inode numbers of every object on both volumes.
  std::set<ino_t> ObjectInodes() const {
    std::set<ino_t> inodes;
    for (const std::string& vol : {ssd_, hdd_}) {
      if (!std::filesystem::exists(vol + "/.tierfs/objects")) continue;
      for (auto& e : std::filesystem::recursive_directory_iterator(vol + "/.tierfs/objects")) {
        struct stat st;
        if (e.is_regular_file() && stat(e.path().c_str(), &st) == 0) inodes.insert(st.st_ino);
      }
    }
    return inodes;
  }
  // Recycled objects kept in the volumes' tmp/.
  size_t PooledObjects() const {
    size_t n = 0;
    for (const std::string& vol : {ssd_, hdd_}) {
      for (auto& e : std::filesystem::directory_iterator(vol + "/.tierfs/tmp")) {
        if (e.path().filename().string().rfind("free.", 0) == 0) ++n;
      }
    }
    return n;
  }
  // Bounded wait for the kernel's RELEASE and the unlink's commit.
  bool WaitForPooled(size_t n) const {
    for (int i = 0; i < 300; ++i) {
      if (PooledObjects() == n) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
};

TEST_F(ObjectRecyclingTest, ACreateReusesAnUnlinkedObjectWithNoneOfItsBytes) {
  WriteFile(Path("old"), RandomBytes(100000, 1));
  const std::set<ino_t> before = ObjectInodes();
  ASSERT_EQ(before.size(), 1u);
  ASSERT_EQ(unlink(Path("old").c_str()), 0);
  FsyncDir(mnt_);
  ASSERT_TRUE(WaitForPooled(1)) << "the unlinked object was not kept for reuse";

  WriteFile(Path("new"), "fresh");
  EXPECT_EQ(ObjectInodes(), before) << "the create did not take the recycled object";
  EXPECT_EQ(PooledObjects(), 0u);
  EXPECT_EQ(ReadFile(Path("new")), "fresh");
  struct stat st;
  ASSERT_EQ(stat(Path("new").c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 5);
  // Extending the file shows zeros, never the old file's bytes.
  ASSERT_EQ(truncate(Path("new").c_str(), 100000), 0);
  EXPECT_TRUE(ReadFile(Path("new")) == "fresh" + std::string(100000 - 5, '\0'));
}

TEST_F(ObjectRecyclingTest, ThePoolIsGoneAfterUnmountAndCheckIsClean) {
  for (int i = 0; i < 5; ++i) WriteFile(Path("f" + std::to_string(i)), RandomBytes(5000, i));
  for (int i = 0; i < 5; ++i) ASSERT_EQ(unlink(Path("f" + std::to_string(i)).c_str()), 0);
  FsyncDir(mnt_);
  ASSERT_TRUE(WaitForPooled(5));
  CommandResult online = Tool("tierfs", {"check", mnt_});
  EXPECT_EQ(online.exit_code, 0) << online.output;
  Unmount();
  EXPECT_EQ(PooledObjects(), 0u) << "recycled objects outlived the unmount";
  CommandResult offline = Tool("tierfs", {"check", ssd_});
  EXPECT_EQ(offline.exit_code, 0) << offline.output;
  Mount();
}

TEST_F(ObjectRecyclingTest, ACrashLeavesNoRecycledObjectBehind) {
  WriteFileSynced(Path("gone"), RandomBytes(5000, 9));
  WriteFileSynced(Path("kept"), "data");
  ASSERT_EQ(unlink(Path("gone").c_str()), 0);
  FsyncDir(mnt_);
  ASSERT_TRUE(WaitForPooled(1));
  CrashDaemon();
  Mount();  // the mount after a crash empties tmp/
  EXPECT_EQ(PooledObjects(), 0u) << "a recycled object outlived the crash";
  EXPECT_EQ(ReadFile(Path("kept")), "data");
  CommandResult check = Tool("tierfs", {"check", mnt_});
  EXPECT_EQ(check.exit_code, 0) << check.output;
}

}  // namespace
}  // namespace tierfs::testing
