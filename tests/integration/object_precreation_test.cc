// Objects made ahead of creates (fs/volume/object_precreator.h): once a volume takes
// creates, a background thread keeps its pool of empty objects in tmp/ filled,
// and creates rename one into place. Volumes without creates get none, a
// failing precreation never fails a create, and nothing of the pool outlives an
// unmount or a crash.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <thread>

#include "tests/integration/test_policies.h"
#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

// --precreate_objects in these tests: above VolumeSet::kPoolLowWater (128), so
// that one create does not start a refill (which would pool objects the test
// has not seen).
constexpr size_t kTarget = 200;

class ObjectPrecreationTest : public TierfsFixture {
 protected:
  void SetUp() override {
    TierfsFixture::SetUp();
    if (HasFatalFailure()) return;
    // Every file on the ssd class: the hdd volume takes no creates.
    AssignPolicy(kAllOnSsdPolicy);
    Unmount();
    Mount({"--precreate_objects=" + std::to_string(kTarget)});
  }

  // Backing inode numbers of the pooled objects ("free.<n>") in `volume`'s tmp/.
  static std::set<ino_t> Pooled(const std::string& volume) {
    std::set<ino_t> inodes;
    for (auto& e : std::filesystem::directory_iterator(volume + "/.tierfs/tmp")) {
      struct stat st;
      if (e.path().filename().string().rfind("free.", 0) == 0 &&
          stat(e.path().c_str(), &st) == 0) {
        inodes.insert(st.st_ino);
      }
    }
    return inodes;
  }
  // Bounded wait until `volume` pools `n` objects.
  static bool WaitForPooled(const std::string& volume, size_t n) {
    for (int i = 0; i < 500; ++i) {
      if (Pooled(volume).size() == n) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
  // Backing inode number of a file's object.
  ino_t ObjectInode(const std::string& name) {
    struct stat st;
    EXPECT_EQ(stat(Path(name).c_str(), &st), 0);
    const std::string dir = ssd_ + "/.tierfs/objects";
    for (auto& e : std::filesystem::recursive_directory_iterator(dir)) {
      // Objects are named <tierfs inode>.<generation>.
      if (e.is_regular_file() &&
          e.path().filename().string().rfind(std::to_string(st.st_ino) + ".", 0) == 0) {
        struct stat object;
        if (stat(e.path().c_str(), &object) == 0) return object.st_ino;
      }
    }
    return 0;
  }
};

TEST_F(ObjectPrecreationTest, CreatesTakeObjectsMadeAheadOnTheirVolumeOnly) {
  EXPECT_TRUE(Pooled(ssd_).empty()) << "objects made before any create";
  WriteFile(Path("first"), "1");  // finds the pool empty: the refill starts
  ASSERT_TRUE(WaitForPooled(ssd_, kTarget)) << Pooled(ssd_).size() << " pooled";
  EXPECT_TRUE(Pooled(hdd_).empty()) << "a volume without creates got objects";
  const std::set<ino_t> pooled = Pooled(ssd_);
  WriteFile(Path("second"), "22");
  const ino_t object = ObjectInode("second");
  EXPECT_EQ(pooled.count(object), 1u) << "the create made a new inode: " << object;
  EXPECT_EQ(ReadFile(Path("second")), "22");
  CommandResult check = Tool("tierfs", {"check", mnt_});
  EXPECT_EQ(check.exit_code, 0) << check.output;
  Unmount();
  EXPECT_TRUE(Pooled(ssd_).empty()) << "pooled objects outlived the unmount";
  CommandResult offline = Tool("tierfs", {"check", ssd_});
  EXPECT_EQ(offline.exit_code, 0) << offline.output;
  Mount();
}

TEST_F(ObjectPrecreationTest, AFailingPrecreationNeverFailsACreate) {
  Unmount();
  setenv("TIERFS_FAULTS", "precreate@1+=ENOSPC", 1);
  Mount({"--precreate_objects=" + std::to_string(kTarget)});
  unsetenv("TIERFS_FAULTS");
  for (int i = 0; i < 20; ++i) WriteFile(Path("f" + std::to_string(i)), std::to_string(i));
  for (int i = 0; i < 20; ++i) EXPECT_EQ(ReadFile(Path("f" + std::to_string(i))), std::to_string(i));
  EXPECT_TRUE(Pooled(ssd_).empty());
}

TEST_F(ObjectPrecreationTest, ACrashLeavesNoPooledObjectBehind) {
  WriteFileSynced(Path("f"), "data");
  FsyncDir(mnt_);
  ASSERT_TRUE(WaitForPooled(ssd_, kTarget));
  CrashDaemon();
  Mount();  // the mount after a crash empties tmp/
  EXPECT_TRUE(Pooled(ssd_).empty());
  EXPECT_EQ(ReadFile(Path("f")), "data");
  CommandResult check = Tool("tierfs", {"check", mnt_});
  EXPECT_EQ(check.exit_code, 0) << check.output;
}

}  // namespace
}  // namespace tierfs::testing
