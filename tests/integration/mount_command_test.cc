// mount(8) and /etc/fstab lines of type fuse.tierfs ("Mount at boot"):
// `mount -t fuse.tierfs SSDDIR MOUNTPOINT -o OPTS` runs /sbin/mount.fuse.tierfs
// (cli/tierfs/mount.fuse.tierfs), which runs mount.fuse3, which starts tierfs. The
// test runs the whole chain in a private mount namespace (unshare -m), where
// /sbin holds the build's helper beside everything /sbin holds already, with a
// PATH that has no sbin directory (as mount(8) may be run), and fstab options
// that only mount(8) and systemd understand (nofail, x-systemd.*).
#include <unistd.h>

#include <filesystem>
#include <string>

#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

class MountCommandTest : public TierfsFixture {};

TEST_F(MountCommandTest, MountTypeFuseTierfsServesTheFileSystem) {
  if (access("/usr/bin/unshare", X_OK) != 0 || getuid() != 0) {
    GTEST_SKIP() << "needs unshare(1) and root";
  }
  WriteFile(Path("before"), "written through tierfs");
  Unmount();
  // The helper as installed: next to a `tierfs` it finds through its own directory.
  const std::string helper_dir = root_ + "/helper";
  std::filesystem::create_directories(helper_dir);
  std::filesystem::copy_file(TIERFS_SOURCE_DIR "/cli/tierfs/mount.fuse.tierfs",
                             helper_dir + "/mount.fuse.tierfs");
  std::filesystem::create_symlink(TIERFS_BINARY_DIR "/cli/tierfs", helper_dir + "/tierfs");
  const std::string script = R"sh(
    sbin=$(readlink -f /sbin)
    keep="$ROOT/sbin-original"
    mkdir -p "$keep"
    mount --bind "$sbin" "$keep"
    mount -t tmpfs tmpfs "$sbin"
    for f in "$keep"/*; do ln -s "$f" "$sbin/${f##*/}"; done
    ln -sf "$ROOT/helper/mount.fuse.tierfs" "$sbin/mount.fuse.tierfs"
    env -i PATH=/usr/bin:/bin mount -t fuse.tierfs "$SSD" "$MNT" \
      -o default_permissions,nofail,x-systemd.requires-mounts-for="$SSD"
    grep -q " $MNT fuse.tierfs " /proc/mounts
    test "$(cat "$MNT/before")" = "written through tierfs"
    echo "written through mount(8)" > "$MNT/after"
    umount "$MNT"
  )sh";
  CommandResult r = RunCommand({"/usr/bin/env", "ROOT=" + root_, "SSD=" + ssd_, "MNT=" + mnt_,
                                "/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh",
                                "-ec", script},
                               60);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The daemon the namespace started let go of the file system: it mounts here.
  Mount();
  EXPECT_EQ(ReadFile(Path("after")), "written through mount(8)\n");
}

}  // namespace
}  // namespace tierfs::testing
