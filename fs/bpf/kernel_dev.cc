#include "fs/bpf/kernel_dev.h"

#include <sys/sysmacros.h>

namespace tierfs {

uint32_t KernelDevFromUserDev(dev_t dev) { return KernelDevFromUserDev(major(dev), minor(dev)); }

}  // namespace tierfs
