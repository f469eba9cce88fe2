#include "fs/core/daemon_metrics.h"

#include <algorithm>
#include <utility>

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

DaemonMetrics::Stripe& DaemonMetrics::Mine() {
  static std::atomic<size_t> next{0};
  thread_local const size_t mine = next.fetch_add(1, std::memory_order_relaxed) % kStripes;
  return (*stripes_)[mine];
}

void DaemonMetrics::RecordRequest(FuseOp op, double seconds) {
  OpCounters& c = Mine().ops[static_cast<size_t>(op)];
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
  Mine().read_bytes[Slot(volume_id)].fetch_add(bytes, std::memory_order_relaxed);
}

void DaemonMetrics::RecordWrite(uint32_t volume_id, uint64_t bytes, bool direct) {
  Stripe& mine = Mine();
  mine.written_bytes[Slot(volume_id)].fetch_add(bytes, std::memory_order_relaxed);
  if (direct) mine.direct_written_bytes[Slot(volume_id)].fetch_add(bytes, std::memory_order_relaxed);
}

void DaemonMetrics::RecordKernelIo(uint32_t volume_id, uint64_t read_bytes,
                                   uint64_t written_bytes) {
  Stripe& mine = Mine();
  mine.read_bytes[Slot(volume_id)].fetch_add(read_bytes, std::memory_order_relaxed);
  mine.written_bytes[Slot(volume_id)].fetch_add(written_bytes, std::memory_order_relaxed);
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

void DaemonMetrics::SetPassthroughDecision(PassthroughDecision decision) {
  MutexLock lock(mu_);
  passthrough_ = std::move(decision);
}

DaemonMetrics::PassthroughDecision DaemonMetrics::passthrough_decision() const {
  MutexLock lock(mu_);
  return passthrough_;
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
  const size_t i = static_cast<size_t>(op);
  Requests r;
  r.count = Sum([i](const Stripe& s) -> const auto& { return s.ops[i].count; });
  r.timed = Sum([i](const Stripe& s) -> const auto& { return s.ops[i].timed; });
  r.seconds_sum =
      static_cast<double>(Sum([i](const Stripe& s) -> const auto& { return s.ops[i].nanos_sum; })) /
      1e9;
  for (size_t b = 0; b < r.buckets.size(); ++b) {
    r.buckets[b] = Sum([i, b](const Stripe& s) -> const auto& { return s.ops[i].buckets[b]; });
  }
  return r;
}

uint64_t DaemonMetrics::ReadBytes(uint32_t volume_id) const {
  const uint32_t v = Slot(volume_id);
  return Sum([v](const Stripe& s) -> const auto& { return s.read_bytes[v]; });
}

uint64_t DaemonMetrics::WrittenBytes(uint32_t volume_id) const {
  const uint32_t v = Slot(volume_id);
  return Sum([v](const Stripe& s) -> const auto& { return s.written_bytes[v]; });
}

uint64_t DaemonMetrics::DirectWrittenBytes(uint32_t volume_id) const {
  const uint32_t v = Slot(volume_id);
  return Sum([v](const Stripe& s) -> const auto& { return s.direct_written_bytes[v]; });
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
