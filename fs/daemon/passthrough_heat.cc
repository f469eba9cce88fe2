#include "fs/daemon/passthrough_heat.h"

#include <linux/magic.h>
#include <sys/vfs.h>

#include <cerrno>
#include <chrono>

#include "common/log.h"
#include "common/mount_info.h"
#include "fs/bpf/passthrough_io_counter.h"
#include "fs/core/file_system.h"

namespace tierfs {
namespace {

// How often counts move from the BPF maps to the file system's counters: the
// lag a scan may see, and what keeps the maps far below their capacity.
constexpr auto kDrainPeriod = std::chrono::seconds(1);

}  // namespace

std::string PageCacheHookUnusable(const std::vector<meta::Volume>& volumes) {
  for (const meta::Volume& v : volumes) {
    if (meta::IsObjectVolume(v)) continue;  // read by the daemon alone, never passed through
    struct statfs st;
    if (::statfs(v.path.c_str(), &st) != 0) continue;
    if (st.f_type == BTRFS_SUPER_MAGIC) {
      return "volume " + v.name + " (" + v.path +
             ") is on btrfs, whose files report their subvolume's device, not the one the "
             "hook sees, so it would count nothing there";
    }
    if (st.f_type == TMPFS_MAGIC || st.f_type == RAMFS_MAGIC) {
      return "volume " + v.name + " (" + v.path +
             ") is in memory (tmpfs or ramfs), whose pages are never added to a page cache "
             "or dirtied the way the hook sees, so it would count none of its reads and writes";
    }
  }
  return {};
}

Result<std::unique_ptr<PassthroughHeat>> PassthroughHeat::Start(
    FileSystem& fs, const std::string& mountpoint, const PassthroughIoCounterOptions& options) {
  auto mounts = ReadMountInfo();
  if (!mounts.ok()) return mounts.status();
  dev_t device = 0;
  for (const MountEntry& m : *mounts) {
    if (m.mount_point == mountpoint) device = m.device;  // the last one is on top
  }
  if (device == 0) return Status::NotFound(mountpoint + " is not in /proc/self/mountinfo");
  PassthroughIoCounterOptions with_volumes = options;
  with_volumes.pagecache_unusable = PageCacheHookUnusable(fs.volumes().volumes());
  auto counter = PassthroughIoCounter::Start(device, with_volumes);
  if (!counter.ok()) return counter.status();
  return std::unique_ptr<PassthroughHeat>(new PassthroughHeat(fs, std::move(*counter)));
}

PassthroughHeat::PassthroughHeat(FileSystem& fs, std::unique_ptr<PassthroughIoCounter> counter)
    : fs_(fs), counter_(std::move(counter)) {
  fs_.metrics().SetKernelCounterHook(PassthroughIoHookName(counter_->hook()));
  fs_.SetKernelHeatDrain([this] { DrainOnce(); });
  thread_ = std::thread([this] { Run(); });
}

PassthroughHeat::~PassthroughHeat() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
  }
  wake_.NotifyAll();
  thread_.join();
  fs_.SetKernelHeatDrain(nullptr);  // waits for a scan's drain under way
  DrainOnce();
  fs_.metrics().SetKernelCounterHook(nullptr);
  if (counter_->dropped() > 0) {
    LogWarning("passthrough heat: {} calls were not counted (the counter's maps were full)",
               counter_->dropped());
  }
}

Status PassthroughHeat::Watch(uint64_t ino, dev_t object_dev, ino_t object_ino) {
  return counter_->WatchBackingFile(object_dev, object_ino, ino);
}

void PassthroughHeat::Forget(dev_t object_dev, ino_t object_ino) {
  counter_->ForgetBackingFile(object_dev, object_ino);
}

const char* PassthroughHeat::hook() const { return PassthroughIoHookName(counter_->hook()); }

void PassthroughHeat::Run() {
  MutexLock lock(mu_);
  while (!stopping_) {
    if (wake_.WaitFor(mu_, kDrainPeriod)) continue;  // woken: look at stopping_ again
    lock.Unlock();
    DrainOnce();
    lock.Lock();
  }
}

void PassthroughHeat::DrainOnce() {
  MutexLock lock(drain_mu_);
  const std::vector<PassthroughIoCount> counts = counter_->Drain();
  for (const PassthroughIoCount& c : counts) {
    fs_.RecordKernelIo(c.nodeid, c.read_bytes, c.read_ops, c.write_bytes, c.write_ops);
  }
  fs_.metrics().SetKernelUncountedCalls(counter_->dropped());
  if (!counts.empty()) fs_.KernelHeatArrived();
}

}  // namespace tierfs
