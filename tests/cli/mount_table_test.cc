#include "cli/common/mount_table.h"

#include <sys/sysmacros.h>

#include <gtest/gtest.h>

namespace tierfs::cli {
namespace {

constexpr char kMountInfo[] =
    "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
    "27 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
    "40 27 0:39 / /mnt/tier rw,nosuid,nodev,relatime shared:5 - fuse.tierfs /ssd/meta "
    "rw,user_id=0,group_id=0\n"
    "41 40 8:17 / /mnt/tier/usb rw,relatime - vfat /dev/sdb1 rw\n"
    "42 27 0:40 / /mnt/with\\040space rw - fuse.tierfs /data/my\\040ssd rw\n"
    "43 27 0:41 / /mnt/stacked rw - ext4 /dev/sdc1 rw\n"
    "44 43 0:42 / /mnt/stacked rw - fuse.tierfs /fast rw\n"
    "garbage line\n"
    "45 27 0:43 / /mnt/tier2 rw master:3 propagate_from:2 - fuse.tierfs /ssd2 rw\n";

TEST(MountTable, ParsesFieldsAndEscapes) {
  std::vector<MountEntry> m = ParseMountInfo(kMountInfo);
  ASSERT_EQ(m.size(), 8u);
  EXPECT_EQ(m[2].mount_point, "/mnt/tier");
  EXPECT_EQ(m[2].fs_type, "fuse.tierfs");
  EXPECT_EQ(m[2].source, "/ssd/meta");
  EXPECT_EQ(m[4].mount_point, "/mnt/with space");
  EXPECT_EQ(m[4].source, "/data/my ssd");
  EXPECT_EQ(m[7].mount_point, "/mnt/tier2");  // optional fields before "-"
  EXPECT_EQ(m[7].source, "/ssd2");
  EXPECT_EQ(m[2].device, makedev(0, 39));
  EXPECT_EQ(m[1].device, makedev(8, 1));
}

TEST(MountTable, FindsTheInnermostMount) {
  std::vector<MountEntry> m = ParseMountInfo(kMountInfo);
  Result<TierfsMount> t = FindTierfsMount(m, "/mnt/tier/a/b");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->mount_point, "/mnt/tier");
  EXPECT_EQ(t->metadata_dir, "/ssd/meta");
  EXPECT_EQ(t->socket_path, "/ssd/meta/.tierfs/control.sock");
  EXPECT_TRUE(FindTierfsMount(m, "/mnt/tier").ok());
  EXPECT_TRUE(FindTierfsMount(m, "/mnt/with space/x").ok());
  // A prefix that is not a path component boundary does not count.
  Result<TierfsMount> other = FindTierfsMount(m, "/mnt/tierx/a");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), ENODEV);
  EXPECT_EQ(other.status().message(),
            "/mnt/tierx/a is not in a tierfs file system (it is on /, type ext4)");
  // A file system mounted inside a tierfs mount is not tierfs.
  EXPECT_FALSE(FindTierfsMount(m, "/mnt/tier/usb/f").ok());
  // Stacked mounts: the last one is on top.
  Result<TierfsMount> stacked = FindTierfsMount(m, "/mnt/stacked/f");
  ASSERT_TRUE(stacked.ok());
  EXPECT_EQ(stacked->metadata_dir, "/fast");
  EXPECT_FALSE(FindTierfsMount({}, "/x").ok());
}

TEST(MountTable, ListsTierfsMounts) {
  std::vector<TierfsMount> t = TierfsMounts(ParseMountInfo(kMountInfo));
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].mount_point, "/mnt/tier");
  EXPECT_EQ(t[1].mount_point, "/mnt/with space");
  EXPECT_EQ(t[2].mount_point, "/mnt/stacked");
  EXPECT_EQ(t[3].mount_point, "/mnt/tier2");
}

TEST(MountTable, RelativeAndHostPaths) {
  EXPECT_EQ(*MountRelativePath("/mnt", "/mnt"), "/");
  EXPECT_EQ(*MountRelativePath("/mnt", "/mnt/a/b"), "/a/b");
  EXPECT_EQ(*MountRelativePath("/", "/a"), "/a");
  EXPECT_FALSE(MountRelativePath("/mnt", "/mntx").ok());
  EXPECT_EQ(HostPath("/mnt", "/"), "/mnt");
  EXPECT_EQ(HostPath("/mnt", "/a/b"), "/mnt/a/b");
  EXPECT_EQ(HostPath("/", "/a"), "/a");
}

TEST(MountTable, NormalizePath) {
  EXPECT_EQ(NormalizePath("/a//b/./c/../d/"), "/a/b/d");
  EXPECT_EQ(NormalizePath("/../.."), "/");
  EXPECT_EQ(NormalizePath("/"), "/");
  EXPECT_EQ(NormalizePath("rel").front(), '/');
}

TEST(MountTable, ResolvePathNamesTheMissingPath) {
  Result<std::string> r = ResolvePath("/no/such/dir/for/tierfs");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ENOENT);
  EXPECT_NE(r.status().message().find("/no/such/dir/for/tierfs"), std::string::npos);
  EXPECT_EQ(*ResolvePath("/"), "/");
}

}  // namespace
}  // namespace tierfs::cli
