// Device numbers as the kernel keeps them, for the BPF program's mount filter.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace tierfs {

// The kernel's internal dev_t (super_block.s_dev: major in the top 12 bits,
// minor in the low 20, MKDEV in include/linux/kdev_t.h) for a userspace dev_t
// such as stat's st_dev (glibc's encoding, which splits major and minor across
// the word: makedev(3)). The two agree only for major 0 and minor < 256, so a
// filter that compared them raw would work on a test machine and miss real
// mounts. Device numbers past 12 bits of major or 20 of minor do not exist in
// the kernel; their high bits are cut.
constexpr uint32_t KernelDevFromUserDev(uint32_t major, uint32_t minor) {
  return ((major & 0xfffu) << 20) | (minor & 0xfffffu);
}
uint32_t KernelDevFromUserDev(dev_t dev);

}  // namespace tierfs
