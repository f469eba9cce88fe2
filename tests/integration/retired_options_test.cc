// Retired options (cli/tierfs/retired_options.h): an /etc/fstab line or command line
// written for an older tierfs that still names `splice_writes` or
// `precreate_objects` mounts as before, and the daemon's log says once per
// mount that each no longer has an effect, and since which version.
#include <sstream>
#include <string>

#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

class RetiredOptionsTest : public TierfsFixture {
 protected:
  // How many lines of the daemon's log say that `option` no longer has an effect.
  size_t Warnings(const std::string& option) const {
    const std::string text = "option " + option + " no longer has an effect (since tierfs 0.2.0)";
    std::istringstream log(ReadFile(ssd_ + "/.tierfs/tierfs.log"));
    size_t count = 0;
    for (std::string line; std::getline(log, line);) {
      if (line.find(" warning tierfs[") != std::string::npos &&
          line.find(text) != std::string::npos) {
        ++count;
      }
    }
    return count;
  }
};

TEST_F(RetiredOptionsTest, OldOptionsInDashOMountAndWarnOnce) {
  Unmount();
  EXPECT_EQ(Warnings("splice_writes"), 0u) << "a mount without it warned";
  Mount({"-o", "splice_writes,precreate_objects=512,commit_ms=10"});
  WriteFile(Path("f"), "data");
  EXPECT_EQ(ReadFile(Path("f")), "data");
  Unmount();
  EXPECT_EQ(Warnings("splice_writes"), 1u);
  EXPECT_EQ(Warnings("precreate_objects"), 1u);
}

TEST_F(RetiredOptionsTest, OldOptionsOnTheCommandLineMountAndWarnOnce) {
  Unmount();
  // Given twice (flag and -o), in every spelling a switch had: still one warning.
  Mount({"--splice_writes=false", "--precreate_objects", "0", "-o", "nosplice_writes"});
  WriteFile(Path("g"), "more");
  EXPECT_EQ(ReadFile(Path("g")), "more");
  Unmount();
  EXPECT_EQ(Warnings("splice_writes"), 1u);
  EXPECT_EQ(Warnings("precreate_objects"), 1u);
}

}  // namespace
}  // namespace tierfs::testing
