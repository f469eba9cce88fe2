// DetectMediaType against fake sysfs trees built in a temporary directory. The
// tree's dev/block/MAJ:MIN entry is the device of the temporary directory
// itself, so the real stat(2) path is exercised.
#include "fs/volume/media_type.h"

#include <ftw.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace tierfs {
namespace {

class MediaTypeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tierfs-media-test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    sys_ = dir_ + "/sys";
    struct stat st;
    ASSERT_EQ(stat(dir_.c_str(), &st), 0);
    dev_ = std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev));
    MakeDirs(sys_ + "/dev/block");
  }
  void TearDown() override {
    nftw(
        dir_.c_str(), [](const char* p, const struct stat*, int, FTW*) { return remove(p); }, 16,
        FTW_DEPTH | FTW_PHYS);
  }

  void MakeDirs(const std::string& path) {
    ASSERT_EQ(system(("mkdir -p '" + path + "'").c_str()), 0);
  }
  void Write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }
  // A whole disk under devices/ with the given rotational flag.
  std::string Disk(const std::string& name, const char* rotational) {
    std::string d = sys_ + "/devices/pci0000:00/block/" + name;
    MakeDirs(d + "/queue");
    Write(d + "/queue/rotational", std::string(rotational) + "\n");
    return d;
  }
  std::string Partition(const std::string& disk_name, const std::string& part) {
    std::string p = sys_ + "/devices/pci0000:00/block/" + disk_name + "/" + part;
    MakeDirs(p);
    Write(p + "/partition", "1\n");
    return p;
  }
  // A dm/md device under devices/virtual/block with slaves pointing at `slaves`
  // (paths relative to devices/).
  std::string Stacked(const std::string& name, const std::vector<std::string>& slaves,
                      const char* own_rotational = "1") {
    std::string d = sys_ + "/devices/virtual/block/" + name;
    MakeDirs(d + "/slaves");
    MakeDirs(d + "/queue");
    Write(d + "/queue/rotational", own_rotational);
    for (const std::string& s : slaves) {
      std::string base = s.substr(s.find_last_of('/') + 1);
      EXPECT_EQ(symlink(("../../../../" + s).c_str(), (d + "/slaves/" + base).c_str()), 0);
    }
    return d;
  }
  // Points dev/block/<device of dir_> at `target` (a path relative to sys_).
  void Link(const std::string& target) {
    ASSERT_EQ(symlink(("../../" + target).c_str(), (sys_ + "/dev/block/" + dev_).c_str()), 0);
  }
  Result<std::string> Detect() { return DetectMediaType(dir_, sys_); }

  std::string dir_, sys_, dev_;
};

TEST_F(MediaTypeTest, PartitionOfASolidStateDisk) {
  Disk("nvme0n1", "0");
  Partition("nvme0n1", "nvme0n1p2");
  Link("devices/pci0000:00/block/nvme0n1/nvme0n1p2");
  Result<std::string> r = Detect();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, "ssd");
}

TEST_F(MediaTypeTest, WholeSpinningDisk) {
  Disk("sdb", "1");
  Link("devices/pci0000:00/block/sdb");
  EXPECT_EQ(*Detect(), "hdd");
}

TEST_F(MediaTypeTest, DeviceMapperOverMixedSlavesIsMixed) {
  Disk("sda", "0");
  Partition("sda", "sda1");
  Disk("sdb", "1");
  // dm-0's own flag says ssd: the leaves decide.
  Stacked("dm-0", {"pci0000:00/block/sda/sda1", "pci0000:00/block/sdb"}, "0");
  Link("devices/virtual/block/dm-0");
  EXPECT_EQ(*Detect(), "mixed");
}

TEST_F(MediaTypeTest, DmOverMdOverSsdsIsSsd) {
  Disk("sda", "0");
  Disk("sdb", "0");
  Stacked("md0", {"pci0000:00/block/sda", "pci0000:00/block/sdb"}, "1");
  Stacked("dm-1", {"virtual/block/md0"}, "1");
  Link("devices/virtual/block/dm-1");
  EXPECT_EQ(*Detect(), "ssd");
}

TEST_F(MediaTypeTest, NoSysfsEntryIsEnodev) {
  Result<std::string> r = Detect();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ENODEV);
  EXPECT_NE(r.status().message().find(dir_), std::string::npos);
  EXPECT_NE(r.status().message().find(dev_), std::string::npos);
}

TEST_F(MediaTypeTest, MissingOrOddRotationalIsEnodev) {
  MakeDirs(sys_ + "/devices/pci0000:00/block/sdc");
  Link("devices/pci0000:00/block/sdc");
  EXPECT_EQ(Detect().status().code(), ENODEV);
  Disk("sdc", "2");
  EXPECT_EQ(Detect().status().code(), ENODEV);
}

TEST_F(MediaTypeTest, MissingDirectory) {
  Result<std::string> r = DetectMediaType(dir_ + "/nope", sys_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ENOENT);
}

TEST_F(MediaTypeTest, CyclicStackIsRefusedNotLooped) {
  std::string d = sys_ + "/devices/virtual/block/dm-9";
  MakeDirs(d + "/slaves");
  ASSERT_EQ(symlink("../../dm-9", (d + "/slaves/dm-9").c_str()), 0);
  Link("devices/virtual/block/dm-9");
  EXPECT_EQ(Detect().status().code(), ENODEV);
}

TEST(MediaTypeReal, RealSysfsAnswersOrSaysEnodev) {
  Result<std::string> r = DetectMediaType("/");
  if (r.ok()) {
    EXPECT_TRUE(*r == "ssd" || *r == "hdd" || *r == "mixed") << *r;
  } else {
    EXPECT_EQ(r.status().code(), ENODEV);
  }
}

}  // namespace
}  // namespace tierfs
