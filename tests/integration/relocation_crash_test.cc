// A crash in the middle of a relocation loses nothing and leaks nothing: the file
// is whole at exactly one location, and the next mount removes the other object
// (fs/core/relocator.h, "pending objects"). The daemon is killed at the two points that
// matter with the fault seam's `point:NAME@1=stop` rules (TIERFS_FAULTS).
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/integration/test_policies.h"
#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

class RelocationCrashTest : public TierfsFixture,
                            public ::testing::WithParamInterface<const char*> {
 protected:
  size_t Objects(const std::string& volume) {
    size_t n = 0;
    for (auto& e : std::filesystem::recursive_directory_iterator(volume + "/.tierfs/objects")) {
      if (e.is_regular_file()) n++;
    }
    return n;
  }
  // Waits (bounded) until the daemon that served the mount has exited.
  bool DaemonGone() {
    const std::string lock = ssd_ + "/.tierfs/daemon.lock";
    for (int i = 0; i < 200; ++i) {
      int fd = open(lock.c_str(), O_RDWR | O_CLOEXEC);
      if (fd < 0) return true;
      bool free = flock(fd, LOCK_EX | LOCK_NB) == 0;
      close(fd);
      if (free) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
};

TEST_P(RelocationCrashTest, FileIsWholeAtOneLocationAndNothingLeaks) {
  const std::string point = GetParam();
  AssignPolicy(MoveEverythingPolicy("hdd", "ssd"));
  const std::string data = RandomBytes(300000, 9);
  WriteFile(Path("f"), data);
  ASSERT_EQ(ClassOf("f"), "hdd");

  Unmount();
  setenv("TIERFS_FAULTS", ("point:" + point + "@1=stop").c_str(), 1);
  Mount();
  unsetenv("TIERFS_FAULTS");
  CommandResult r = Tool("fsppadm", {"enforce", mnt_});
  EXPECT_NE(r.exit_code, 0) << "the daemon should have died at " << point << ": " << r.output;
  ASSERT_TRUE(DaemonGone());
  // Both objects exist now: the crash came between the copy and the source's removal.
  EXPECT_EQ(Objects(ssd_) + Objects(hdd_), 2u);

  Unmount();  // detaches the dead mount
  Mount();
  EXPECT_EQ(ReadFile(Path("f")), data);
  const bool committed = point == "relocate-after-commit";
  EXPECT_EQ(ClassOf("f"), committed ? "ssd" : "hdd");
  EXPECT_EQ(Objects(ssd_), committed ? 1u : 0u);
  EXPECT_EQ(Objects(hdd_), committed ? 0u : 1u);

  // The next enforce finishes the job.
  r = Tool("fsppadm", {"enforce", mnt_});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(ClassOf("f"), "ssd");
  EXPECT_EQ(Objects(ssd_) + Objects(hdd_), 1u);
  Remount();
  EXPECT_EQ(ReadFile(Path("f")), data);
}

INSTANTIATE_TEST_SUITE_P(CrashPoints, RelocationCrashTest,
                         ::testing::Values("relocate-after-copy", "relocate-after-commit"));

}  // namespace
}  // namespace tierfs::testing
