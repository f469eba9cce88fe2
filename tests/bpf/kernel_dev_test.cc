#include "fs/bpf/kernel_dev.h"

#include <sys/sysmacros.h>

#include <gtest/gtest.h>

namespace tierfs {
namespace {

// The kernel keeps MKDEV(major, minor) = major << 20 | minor; stat's st_dev is
// glibc's makedev, which interleaves the bits. They agree only for small numbers.
TEST(KernelDevTest, SmallAnonymousDevicesLookTheSame) {
  EXPECT_EQ(KernelDevFromUserDev(makedev(0, 55)), 55u);
}

TEST(KernelDevTest, MajorMovesToTheTop12Bits) {
  EXPECT_EQ(KernelDevFromUserDev(makedev(8, 1)), (8u << 20) | 1u);
  EXPECT_NE(KernelDevFromUserDev(makedev(8, 1)), static_cast<uint32_t>(makedev(8, 1)));
}

TEST(KernelDevTest, MinorsPast255KeepAll20Bits) {
  // Anonymous devices (FUSE, tmpfs) run past minor 255 on busy machines.
  EXPECT_EQ(KernelDevFromUserDev(makedev(0, 300)), 300u);
  EXPECT_NE(static_cast<uint32_t>(makedev(0, 300)), 300u);
  EXPECT_EQ(KernelDevFromUserDev(makedev(0, 0xfffff)), 0xfffffu);
  EXPECT_EQ(KernelDevFromUserDev(makedev(259, 0x12345)), (259u << 20) | 0x12345u);
}

TEST(KernelDevTest, ConstexprFormMatches) {
  static_assert(KernelDevFromUserDev(4095, 0xfffff) == 0xffffffffu);
  EXPECT_EQ(KernelDevFromUserDev(makedev(4095, 0xfffff)), 0xffffffffu);
}

}  // namespace
}  // namespace tierfs
