// An append acknowledged by fsync while a relocation is between reading what it
// will copy and copying it is never lost (docs/reliability.md "Writes
// that race a relocation"). The daemon is held at the relocator's
// "relocate-snapshot" point (the fault seam's `hold` action), the append and its
// fsync run there, then the relocation goes on. Before the fix, the relocation
// copied the size it had read before the append, saw no write after it, and
// committed a copy that lacked the append: the file read zeros where the
// acknowledged bytes were, after a kill -9 and a remount too.
#include <fcntl.h>
#include <string.h>
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
    MountWithFaults("point:" + point + "@1=hold", args);
  }
  // Remounts with the fault rules of `spec` (fs/volume/fault_injecting_volume_io.h),
  // whose `hold`s leave their markers in hold_dir_.
  void MountWithFaults(const std::string& spec, const std::vector<std::string>& args) {
    hold_dir_ = root_ + "/hold";
    std::filesystem::create_directories(hold_dir_);
    Unmount();
    setenv("TIERFS_FAULTS", spec.c_str(), 1);
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
  // Whether the marker of a `hold` of `op` is there now.
  bool Held(const std::string& op) const {
    return std::filesystem::exists(hold_dir_ + "/" + op + ".held");
  }

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

// Two moves of one file at once: enforce's and the online path's (online
// promotion, docs/policies.md), both to ssd. Enforce's copy is held just
// before it takes its object name on ssd (its first rename there); then the
// file heats up and the online path moves it too. A file has one object name
// per volume, so the second move must wait for the first, then find the file
// moved and leave it alone. Before the fix nothing kept them apart: the
// online move committed its copy and pointed the daemon's descriptor at it,
// then enforce's copy was renamed over that object and enforce's commit
// failed ("inode N is on volume 1, not 2", enforce exited 1). The name now
// held enforce's copy while the open descriptor wrote the online path's,
// which no name led to any more: a write fsynced through it was gone after a
// remount.
TEST_F(RelocationRaceTest, TwoMovesOfOneFileAtOnceLoseNoWrite) {
  // The daemon serves the descriptor the test keeps open (a passthrough
  // open would make the file busy for both moves).
  const std::vector<std::string> args = {"--passthrough=off"};
  AssignPolicy(MoveEverythingPolicy("hdd", "ssd"));  // creates on hdd
  const std::string before = RandomBytes(1 << 20, 41);
  WriteFileSynced(Path("f"), before);
  ASSERT_EQ(ClassOf("f"), "hdd");
  // The first rename onto ssd is held; so is the first wait for another move
  // of the same file (a point the relocator reaches only with the fix).
  MountWithFaults("rename:/ssd/@1=hold,point:relocate-wait@1=hold", args);
  // The online policy after the remount: the file's earlier writes are history,
  // not a change of its counts, so only the read below sends it online.
  AssignPolicy(OnlineMoveHotPolicy("hdd", "ssd"));
  const int fd = open(Path("f").c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0) << strerror(errno);

  CommandResult enforce;
  std::thread enforcer([&] { enforce = Tool("fsppadm", {"enforce", "--json", mnt_}, 120); });
  bool enforce_held = false;
  for (int i = 0; i < 3000 && !enforce_held; ++i) {  // 30 s at most
    enforce_held = Held("rename");
    if (!enforce_held) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // Reads that reach the daemon change the file's counts: the online path
  // takes it within a second or two. It either waits for enforce's move (the
  // fix) or moves the file under it (the bug), 15 s at most.
  bool online_waited = false, online_moved = false;
  if (enforce_held) {
    EXPECT_EQ(ReadFileDirect(Path("f")), before);
    for (int i = 0; i < 150 && !online_waited && !online_moved; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      online_waited = Held("point");
      online_moved = !online_waited && ClassOf("f") == "ssd";
    }
  }
  std::filesystem::remove(hold_dir_ + "/rename.held");
  std::filesystem::remove(hold_dir_ + "/point.held");
  enforcer.join();
  ASSERT_TRUE(enforce_held) << "enforce never reached its rename onto ssd: " << enforce.output;
  EXPECT_TRUE(online_waited) << (online_moved ? "the online path moved the file under enforce's move"
                                              : "the online path never took the file");
  EXPECT_EQ(enforce.exit_code, 0) << enforce.output;

  // A write acknowledged by fsync through the descriptor opened before both moves.
  const std::string written = RandomBytes(4096, 42);
  EXPECT_EQ(pwrite(fd, written.data(), written.size(), 0), static_cast<ssize_t>(written.size()));
  EXPECT_EQ(fsync(fd), 0) << strerror(errno);
  EXPECT_EQ(close(fd), 0);
  std::string want = before;
  want.replace(0, written.size(), written);
  EXPECT_EQ(ClassOf("f"), "ssd");
  Unmount();
  Mount(args);
  EXPECT_EQ(Difference(ReadFile(Path("f")), want), "") << "the fsynced write was lost";
  Unmount();
  CommandResult check = Tool("tierfs", {"check", ssd_});
  EXPECT_EQ(check.exit_code, 0) << check.output;
}

}  // namespace
}  // namespace tierfs::testing
