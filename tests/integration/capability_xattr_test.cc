// security.capability, which the kernel asks for before every write: tierfs
// answers "absent" from memory after the first miss, and must never let that
// answer go stale. The same sequence runs on a plain directory (ext4) for reference.
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

class CapabilityXattrTest : public TierfsFixture {};

// A valid file capability (VFS_CAP_REVISION_2, CAP_NET_BIND_SERVICE permitted).
std::string CapabilityBlob() {
  vfs_cap_data data;
  std::memset(&data, 0, sizeof data);
  data.magic_etc = VFS_CAP_REVISION_2;
  data.data[0].permitted = 1u << CAP_NET_BIND_SERVICE;
  return std::string(reinterpret_cast<const char*>(&data), XATTR_CAPS_SZ_2);
}

// -errno or the value's size, for each step of: write, get, set, get, write, get.
std::vector<long> Sequence(const std::string& file) {
  std::vector<long> out;
  char buf[64];
  auto get = [&] {
    ssize_t n = getxattr(file.c_str(), "security.capability", buf, sizeof buf);
    out.push_back(n < 0 ? -errno : n);
  };
  int fd = open(file.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0755);
  out.push_back(fd < 0 ? -errno : 0);
  out.push_back(write(fd, "a", 1));  // the kernel checks the capability here
  get();
  const std::string cap = CapabilityBlob();
  out.push_back(setxattr(file.c_str(), "security.capability", cap.data(), cap.size(), 0) < 0
                    ? -errno
                    : 0);
  get();
  out.push_back(pwrite(fd, "b", 1, 1));  // a write removes file capabilities
  get();
  close(fd);
  return out;
}

TEST_F(CapabilityXattrTest, CachedAbsenceNeverHidesASetAndWritesClearIt) {
  if (geteuid() != 0) GTEST_SKIP() << "setting file capabilities needs root";
  const std::string plain = root_ + "/plain";
  ASSERT_EQ(mkdir(plain.c_str(), 0755), 0);
  const std::vector<long> reference = Sequence(plain + "/f");
  const std::vector<long> mounted = Sequence(Path("f"));
  EXPECT_EQ(mounted, reference);
  EXPECT_EQ(reference[2], -ENODATA);
  EXPECT_EQ(reference[4], XATTR_CAPS_SZ_2);
  Remount();
  char buf[64];
  EXPECT_EQ(getxattr(Path("f").c_str(), "security.capability", buf, sizeof buf), -1);
  EXPECT_EQ(errno, ENODATA);
}

}  // namespace
}  // namespace tierfs::testing
