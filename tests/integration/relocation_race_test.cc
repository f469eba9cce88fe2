// An append acknowledged by fsync while a relocation is between reading what it
// will copy and copying it is never lost (docs/reliability.md "Writes
// that race a relocation"). The daemon is held at the relocator's
// "relocate-snapshot" point (the fault seam's `hold` action), the append and its
// fsync run there, then the relocation goes on. Before the fix, the relocation
// copied the size it had read before the append, saw no write after it, and
// committed a copy that lacked the append: the file read zeros where the
// acknowledged bytes were, after a kill -9 and a remount too.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "tests/integration/test_policies.h"
#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

class RelocationRaceTest : public TierfsFixture {
 protected:
  // Remounts with the relocator held at `point` the first time it gets there.
  void MountHeldAt(const std::string& point, const std::vector<std::string>& args = {}) {
    hold_dir_ = root_ + "/hold";
    std::filesystem::create_directories(hold_dir_);
    Unmount();
    setenv("TIERFS_FAULTS", ("point:" + point + "@1=hold").c_str(), 1);
    setenv("TIERFS_FAULTS_HOLD_DIR", hold_dir_.c_str(), 1);
    Mount(args);
    unsetenv("TIERFS_FAULTS");
    unsetenv("TIERFS_FAULTS_HOLD_DIR");
  }
  // Waits (at most 30 s) until the daemon is held; false if it never gets there.
  bool WaitUntilHeld() {
    for (int i = 0; i < 3000; ++i) {
      if (std::filesystem::exists(Marker())) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
  void Release() { std::filesystem::remove(Marker()); }
  std::string Marker() const { return hold_dir_ + "/point.held"; }

  // Appends `data` to `relative` and fsyncs it: acknowledged once this returns.
  void AppendSynced(const std::string& relative, const std::string& data) {
    const int fd = open(Path(relative).c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    ASSERT_GE(fd, 0) << strerror(errno);
    ASSERT_EQ(write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
    ASSERT_EQ(fsync(fd), 0) << strerror(errno);
    ASSERT_EQ(close(fd), 0);
  }

  // The whole scenario, with the file's own descriptor open or not during it.
  void AppendDuringRelocation(const std::vector<std::string>& mount_args) {
    AssignPolicy(MoveEverythingPolicy("hdd", "ssd"));
    const std::string before = RandomBytes(300000, 31);
    WriteFileSynced(Path("f"), before);
    ASSERT_EQ(ClassOf("f"), "hdd");
    MountHeldAt("relocate-snapshot", mount_args);

    CommandResult enforce;
    std::thread enforcer([&] { enforce = Tool("fsppadm", {"enforce", mnt_}, 60); });
    const bool held = WaitUntilHeld();
    const std::string appended = RandomBytes(103916, 32);  // the size of the first report
    if (held) AppendSynced("f", appended);
    Release();
    enforcer.join();
    ASSERT_TRUE(held) << "the relocator never reached relocate-snapshot: " << enforce.output;
    EXPECT_EQ(enforce.exit_code, 0) << enforce.output;
    const std::string want = before + appended;

    // The append came after the relocation read the file: the move is busy, the
    // file stays where it was and keeps every acknowledged byte.
    EXPECT_EQ(Difference(ReadFile(Path("f")), want), "") << "acknowledged bytes lost before any crash";
    EXPECT_EQ(ClassOf("f"), "hdd") << enforce.output;
    CrashDaemon();
    Mount(mount_args);
    EXPECT_EQ(Difference(ReadFile(Path("f")), want), "") << "acknowledged bytes lost after kill -9";
    CommandResult check = Tool("tierfs", {"check", mnt_});
    EXPECT_EQ(check.exit_code, 0) << check.output;

    // The next enforce moves it, whole.
    CommandResult again = Tool("fsppadm", {"enforce", mnt_});
    EXPECT_EQ(again.exit_code, 0) << again.output;
    EXPECT_EQ(ClassOf("f"), "ssd");
    CrashDaemon();
    Mount(mount_args);
    EXPECT_EQ(Difference(ReadFile(Path("f")), want), "");
  }

  std::string hold_dir_;
};

TEST_F(RelocationRaceTest, AppendBetweenSnapshotAndCopyMakesTheMoveBusy) {
  AppendDuringRelocation({});
}

// The same without the writeback cache: the append reaches the daemon as the
// application's own write, not as the kernel's writeback at fsync.
TEST_F(RelocationRaceTest, AppendBetweenSnapshotAndCopyWithoutWritebackCache) {
  AppendDuringRelocation({"--writeback_cache=false"});
}

}  // namespace
}  // namespace tierfs::testing
