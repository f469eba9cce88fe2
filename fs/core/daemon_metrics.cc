#include "fs/core/daemon_metrics.h"

#include <algorithm>

namespace tierfs {

std::string_view FuseOpName(FuseOp op) {
  static constexpr std::array<std::string_view, static_cast<size_t>(FuseOp::kCount)> kNames = {
      "lookup",   "forget",     "getattr",     "setattr",  "readlink",  "mknod",
      "mkdir",    "unlink",     "rmdir",       "symlink",  "rename",    "link",
      "open",     "read",       "write",       "flush",    "release",   "fsync",
      "opendir",  "readdir",    "readdirplus", "releasedir", "fsyncdir", "statfs",
      "setxattr", "getxattr",   "listxattr",   "removexattr", "access", "create",
      "fallocate", "copy_file_range", "lseek", "other"};
  return kNames[static_cast<size_t>(op)];
}

void DaemonMetrics::RecordRequest(FuseOp op, double seconds) {
  OpCounters& c = ops_[static_cast<size_t>(op)];
  c.count.fetch_add(1, std::memory_order_relaxed);
  if (seconds < 0) return;
  c.timed.fetch_add(1, std::memory_order_relaxed);
  c.nanos_sum.fetch_add(static_cast<uint64_t>(seconds * 1e9), std::memory_order_relaxed);
  const auto* bound = std::lower_bound(kLatencyBounds.begin(), kLatencyBounds.end(), seconds);
  if (bound != kLatencyBounds.end()) {
    c.buckets[static_cast<size_t>(bound - kLatencyBounds.begin())].fetch_add(
        1, std::memory_order_relaxed);
  }
}

void DaemonMetrics::RecordRead(uint32_t volume_id, uint64_t bytes) {
  read_bytes_[Slot(volume_id)].fetch_add(bytes, std::memory_order_relaxed);
}

void DaemonMetrics::RecordWrite(uint32_t volume_id, uint64_t bytes, bool direct) {
  written_bytes_[Slot(volume_id)].fetch_add(bytes, std::memory_order_relaxed);
  if (direct) direct_written_bytes_[Slot(volume_id)].fetch_add(bytes, std::memory_order_relaxed);
}

void DaemonMetrics::RecordKernelIo(uint32_t volume_id, uint64_t read_bytes,
                                   uint64_t written_bytes) {
  read_bytes_[Slot(volume_id)].fetch_add(read_bytes, std::memory_order_relaxed);
  written_bytes_[Slot(volume_id)].fetch_add(written_bytes, std::memory_order_relaxed);
  kernel_read_bytes_.fetch_add(read_bytes, std::memory_order_relaxed);
  kernel_written_bytes_.fetch_add(written_bytes, std::memory_order_relaxed);
}

void DaemonMetrics::RecordRelocation(uint32_t from_volume, uint32_t to_volume,
                                     std::string_view outcome, uint64_t bytes) {
  // "error: <message>" would make one series per message.
  const std::string_view kind = outcome.substr(0, 6) == "error:" ? "error" : outcome;
  MutexLock lock(mu_);
  RelocationTally& t = relocations_[{from_volume, to_volume, std::string(kind)}];
  t.count++;
  if (kind == "moved") t.bytes += bytes;
}

void DaemonMetrics::RecordScan(std::string_view kind, double seconds, bool failed) {
  MutexLock lock(mu_);
  ScanTally& t = scans_[std::string(kind)];
  t.runs++;
  if (failed) t.failures++;
  t.seconds_sum += seconds;
  t.last_seconds = seconds;
}

DaemonMetrics::Requests DaemonMetrics::RequestsOf(FuseOp op) const {
  const OpCounters& c = ops_[static_cast<size_t>(op)];
  Requests r;
  r.count = c.count.load(std::memory_order_relaxed);
  r.timed = c.timed.load(std::memory_order_relaxed);
  r.seconds_sum = static_cast<double>(c.nanos_sum.load(std::memory_order_relaxed)) / 1e9;
  for (size_t i = 0; i < r.buckets.size(); ++i) {
    r.buckets[i] = c.buckets[i].load(std::memory_order_relaxed);
  }
  return r;
}

uint64_t DaemonMetrics::ReadBytes(uint32_t volume_id) const {
  return read_bytes_[Slot(volume_id)].load(std::memory_order_relaxed);
}

uint64_t DaemonMetrics::WrittenBytes(uint32_t volume_id) const {
  return written_bytes_[Slot(volume_id)].load(std::memory_order_relaxed);
}

uint64_t DaemonMetrics::DirectWrittenBytes(uint32_t volume_id) const {
  return direct_written_bytes_[Slot(volume_id)].load(std::memory_order_relaxed);
}

std::map<DaemonMetrics::RelocationKey, DaemonMetrics::RelocationTally>
DaemonMetrics::Relocations() const {
  MutexLock lock(mu_);
  return relocations_;
}

std::map<std::string, DaemonMetrics::ScanTally> DaemonMetrics::Scans() const {
  MutexLock lock(mu_);
  return scans_;
}

}  // namespace tierfs
