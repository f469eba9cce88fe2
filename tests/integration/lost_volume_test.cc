// A volume that disappears while mounted (defect 5): its files answer EIO
// (not ENOENT), it shows offline in `fsppadm status`, nothing is written into the
// bare directory it leaves behind, the other volumes keep working, and it comes
// back online once its label is there again. The hdd volume is a bind mount of
// a directory here, so the test can take it away (umount -l) and give it back.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/integration/test_policies.h"
#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

constexpr char kByDirectory[] = R"(<?xml version="1.0"?>
<PLACEMENT_POLICY Version="5.1" Name="by_directory">
  <RULE Flags="data" Name="cold"><SELECT><DIRECTORY Flags="recursive">cold</DIRECTORY></SELECT>
    <CREATE><ON><DESTINATION><CLASS>hdd</CLASS></DESTINATION></ON></CREATE></RULE>
  <RULE Flags="data" Name="rest"><SELECT><PATTERN>*</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>ssd</CLASS></DESTINATION></ON></CREATE></RULE>
</PLACEMENT_POLICY>
)";

class LostVolumeTest : public TierfsFixture {
 protected:
  void PrepareVolumes() override {
    device_ = root_ + "/hdd-device";
    ASSERT_EQ(mkdir(device_.c_str(), 0755), 0);
    MountScratch(hdd_, "", device_);
  }
  void LoseHdd() {
    CommandResult r = RunCommand({"/bin/umount", "-l", hdd_}, 30);
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  void RegainHdd() {
    CommandResult r = RunCommand({"/bin/mount", "--bind", device_, hdd_}, 30);
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  // The state fsppadm status shows for the hdd volume (vol2).
  std::string HddState() {
    CommandResult r = Tool("fsppadm", {"status", "--json", mnt_});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    nlohmann::json doc = nlohmann::json::parse(r.output, nullptr, false);
    if (!doc.is_object() || !doc.contains("volumes")) return "?";
    for (const auto& v : doc["volumes"]) {
      if (v.value("path", "") == hdd_) return v.value("state", "?");
    }
    return "?";
  }
  std::string device_;
};

TEST_F(LostVolumeTest, FilesOnALostVolumeAnswerEioAndItComesBack) {
  AssignPolicy(kByDirectory);
  ASSERT_EQ(mkdir(Path("cold").c_str(), 0755), 0);
  WriteFile(Path("cold/a"), "on the hdd");
  WriteFile(Path("hot"), "on the ssd");
  ASSERT_EQ(ClassOf("cold/a"), "hdd");
  EXPECT_EQ(HddState(), "online");

  // Nothing of cold/a cached: neither its pages in the kernel nor its open
  // object in the daemon (no-open mode keeps it open after the create), which
  // would go on serving it from the lazily unmounted volume.
  Remount();
  LoseHdd();
  // Reading a file on it: EIO, not "No such file or directory". In no-open mode
  // (the default) the open needs no request and the read answers.
  int fd = open(Path("cold/a").c_str(), O_RDONLY);
  if (fd >= 0) {
    char c;
    EXPECT_EQ(read(fd, &c, 1), -1);
    close(fd);
  }
  EXPECT_EQ(errno, EIO);
  // A create placed there: EIO, and nothing written into the bare directory.
  fd = open(Path("cold/b").c_str(), O_WRONLY | O_CREAT, 0644);
  EXPECT_EQ(fd, -1);
  EXPECT_EQ(errno, EIO);
  if (fd >= 0) close(fd);
  EXPECT_TRUE(std::filesystem::is_empty(hdd_)) << "something was written into " << hdd_;
  EXPECT_EQ(HddState(), "offline");
  // Everything on the other volume keeps working.
  EXPECT_EQ(ReadFile(Path("hot")), "on the ssd");
  WriteFile(Path("hot2"), "new on the ssd");
  EXPECT_EQ(ReadFile(Path("hot2")), "new on the ssd");
  EXPECT_EQ(mkdir(Path("cold/sub").c_str(), 0755), 0);  // namespace only

  RegainHdd();
  // The periodic check (every flush period, 5 s) brings it back.
  std::string state;
  for (int i = 0; i < 100 && (state = HddState()) != "online"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_EQ(state, "online");
  EXPECT_EQ(ReadFile(Path("cold/a")), "on the hdd");
  WriteFile(Path("cold/b"), "created again");
  EXPECT_EQ(ClassOf("cold/b"), "hdd");
}

// A create whose first class is offline goes to the next class its rule
// allows, as when that class is full ("New files never land on an
// offline volume").
TEST_F(LostVolumeTest, ACreateWhoseClassIsOfflineFallsToTheNextClass) {
  AssignPolicy(kHddThenSsdPolicy);
  WriteFile(Path("before"), "on the hdd");
  ASSERT_EQ(ClassOf("before"), "hdd");
  LoseHdd();
  // The periodic check (every flush period, 5 s) finds the label gone.
  std::string state;
  for (int i = 0; i < 100 && (state = HddState()) != "offline"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_EQ(state, "offline");
  WriteFile(Path("after"), "created while the hdd is away");
  EXPECT_EQ(ClassOf("after"), "ssd");
  EXPECT_EQ(ReadFile(Path("after")), "created while the hdd is away");
  EXPECT_TRUE(std::filesystem::is_empty(hdd_)) << "something was written into " << hdd_;
  RegainHdd();
}

}  // namespace
}  // namespace tierfs::testing
