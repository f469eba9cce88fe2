// DaemonMetrics: what the daemon counts for monitoring (docs/admin.md,
// "Monitoring"): FUSE requests and their latency, bytes read and written per
// volume (hence per placement class: the share of I/O the ssd class serves, the
// measure of a tiering system in the NetApp Hybrid Aggregates paper), relocations
// per direction and outcome, and scan runs. fs/metrics/metrics_exporter.h turns them into
// Prometheus metrics.
//
// Counting on the data path (RecordRequest, RecordIo) is relaxed atomic adds
// into fixed arrays: no lock, no allocation. Latency is timed only while an
// exporter is running (set_timing), so a daemon without metrics pays one
// relaxed load per request. Relocations and scans (at most a few thousand a
// minute) take a mutex. Thread-safe.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>

#include "common/mutex.h"
#include "common/thread_annotations.h"
#include "fs/core/online_counters.h"

namespace tierfs {

// The FUSE requests counted one by one; everything else counts as kOther.
enum class FuseOp : uint8_t {
  kLookup, kForget, kGetattr, kSetattr, kReadlink, kMknod, kMkdir, kUnlink, kRmdir,
  kSymlink, kRename, kLink, kOpen, kRead, kWrite, kFlush, kRelease, kFsync, kOpendir,
  kReaddir, kReaddirplus, kReleasedir, kFsyncdir, kStatfs, kSetxattr, kGetxattr,
  kListxattr, kRemovexattr, kAccess, kCreate, kFallocate, kCopyFileRange, kLseek,
  kOther,
  kCount  // not an operation: the number of them
};

// The request's name as the metrics label "op" gives it ("lookup", "readdirplus"...).
std::string_view FuseOpName(FuseOp op);

class DaemonMetrics {
 public:
  // Upper bounds of the latency histogram's buckets, seconds (the last bucket,
  // +Inf, is implicit): 10 µs to 1 s, wide enough for a cached getattr and an
  // fsync of a large file.
  static constexpr std::array<double, 12> kLatencyBounds = {
      0.00001, 0.00005, 0.0001, 0.00025, 0.0005, 0.001,
      0.0025,  0.005,   0.01,   0.05,    0.1,    1.0};
  // Volumes are counted by id; ids at or above this (never reached by mkdstfs
  // and fsvoladm in practice) are counted as id 0, "unknown".
  static constexpr uint32_t kMaxVolumeId = 256;

  // Turns latency timing on or off (an exporter turns it on while it runs).
  void set_timing(bool on) { timing_.store(on, std::memory_order_relaxed); }
  bool timing() const { return timing_.load(std::memory_order_relaxed); }

  // One request of `op` answered after `seconds` (< 0: not timed, counted only).
  void RecordRequest(FuseOp op, double seconds);
  // `bytes` read from / written to the object of a file on volume `volume_id`.
  void RecordRead(uint32_t volume_id, uint64_t bytes);
  // `direct`: written with O_DIRECT (FileSystem::Write), counted in both totals.
  void RecordWrite(uint32_t volume_id, uint64_t bytes, bool direct = false);
  // Bytes the kernel read from / wrote to the object of a file on volume
  // `volume_id` by passthrough, which the daemon never saw (counted in the
  // kernel, fs/bpf/): added to the volume's read and written totals, and kept
  // apart as well (KernelReadBytes, KernelWrittenBytes) so that the metrics can
  // say which share of the heat the kernel counted.
  void RecordKernelIo(uint32_t volume_id, uint64_t read_bytes, uint64_t written_bytes);
  // The kernel's passthrough counter: its hook ("fexit", "kprobe", "syscall";
  // a string literal, kept by pointer), or nullptr while none runs.
  void SetKernelCounterHook(const char* hook) { kernel_hook_.store(hook); }
  // What INIT decided about passthrough opens (fs/fuse/passthrough.h): the
  // mode asked for (`--passthrough`: "off", "ro", "rw", "auto"), the mode in
  // effect ("off", "ro", "rw") and why: the hook that counts its heat, or what
  // kept it off. Shown by `fsppadm status`; empty until INIT.
  struct PassthroughDecision {
    std::string requested;
    std::string mode;
    std::string why;
  };
  void SetPassthroughDecision(PassthroughDecision decision) EXCLUDES(mu_);
  PassthroughDecision passthrough_decision() const EXCLUDES(mu_);
  // Passthrough calls the kernel counter could not count since the mount (its
  // maps were full): heat those files lack. Set at each drain.
  void SetKernelUncountedCalls(uint64_t calls) { kernel_uncounted_.store(calls); }
  // One relocation attempt: its volumes, outcome ("moved", "busy", "nospace",
  // "error: ..." is counted as "error") and bytes copied (counted when moved).
  void RecordRelocation(uint32_t from_volume, uint32_t to_volume, std::string_view outcome,
                        uint64_t bytes);
  // A file on an object volume was recalled before a write, truncate or
  // fallocate could proceed (FileSystem::RecallForWrite), or a read of one
  // failed for want of its store.
  void RecordRecallForWrite() { recalls_for_write_.fetch_add(1, std::memory_order_relaxed); }
  void RecordStoreReadError() { store_read_errors_.fetch_add(1, std::memory_order_relaxed); }
  uint64_t RecallsForWrite() const { return recalls_for_write_.load(std::memory_order_relaxed); }
  uint64_t StoreReadErrors() const { return store_read_errors_.load(std::memory_order_relaxed); }
  // One finished scan of `kind` ("enforce", "analyze") that took `seconds`, and
  // whether it failed.
  void RecordScan(std::string_view kind, double seconds, bool failed);

  // Online promotion's counters (fs/core/online_counters.h), written by the
  // promoter and read by the exporter and `fsppadm status`.
  OnlineCounters& online() { return online_; }
  const OnlineCounters& online() const { return online_; }

  // ---- Reading them (the exporter, at scrape time) ----------------------------
  struct Requests {
    uint64_t count = 0;
    uint64_t timed = 0;        // requests that were timed (the histogram's count)
    double seconds_sum = 0;    // of the timed ones
    std::array<uint64_t, kLatencyBounds.size()> buckets{};  // not cumulative
  };
  Requests RequestsOf(FuseOp op) const;
  uint64_t ReadBytes(uint32_t volume_id) const;
  uint64_t WrittenBytes(uint32_t volume_id) const;
  uint64_t DirectWrittenBytes(uint32_t volume_id) const;  // the part of it written direct
  // Of all volumes' totals, the bytes the kernel counted (RecordKernelIo).
  uint64_t KernelReadBytes() const { return kernel_read_bytes_.load(std::memory_order_relaxed); }
  uint64_t KernelWrittenBytes() const {
    return kernel_written_bytes_.load(std::memory_order_relaxed);
  }
  const char* kernel_counter_hook() const { return kernel_hook_.load(); }
  uint64_t KernelUncountedCalls() const { return kernel_uncounted_.load(); }
  // (from volume, to volume, outcome) -> {attempts, bytes moved}.
  using RelocationKey = std::tuple<uint32_t, uint32_t, std::string>;
  struct RelocationTally {
    uint64_t count = 0;
    uint64_t bytes = 0;
  };
  std::map<RelocationKey, RelocationTally> Relocations() const;
  // kind -> totals.
  struct ScanTally {
    uint64_t runs = 0;
    uint64_t failures = 0;
    double seconds_sum = 0;
    double last_seconds = 0;
  };
  std::map<std::string, ScanTally> Scans() const;

 private:
  struct OpCounters {
    std::atomic<uint64_t> count{0};
    std::atomic<uint64_t> timed{0};
    std::atomic<uint64_t> nanos_sum{0};
    std::array<std::atomic<uint64_t>, kLatencyBounds.size()> buckets{};
  };
  static uint32_t Slot(uint32_t volume_id) { return volume_id < kMaxVolumeId ? volume_id : 0; }

  // The counters every request or read or write adds to, in stripes: each
  // thread adds to one stripe of its own (threads beyond kStripes share,
  // round-robin) and a reader sums them, so that requests served on
  // different CPUs write no cache line in common. About 10 KiB a stripe.
  static constexpr size_t kStripes = 16;
  struct alignas(64) Stripe {
    std::array<OpCounters, static_cast<size_t>(FuseOp::kCount)> ops{};
    std::array<std::atomic<uint64_t>, kMaxVolumeId> read_bytes{};
    std::array<std::atomic<uint64_t>, kMaxVolumeId> written_bytes{};
    std::array<std::atomic<uint64_t>, kMaxVolumeId> direct_written_bytes{};
  };
  // The calling thread's stripe.
  Stripe& Mine();
  // The sum over the stripes of the counter `field` picks from each.
  template <typename Field>
  uint64_t Sum(Field field) const {
    uint64_t total = 0;
    for (const Stripe& s : *stripes_) total += field(s).load(std::memory_order_relaxed);
    return total;
  }

  std::atomic<bool> timing_{false};
  // On the heap: aligned, and too large for a stack or a member of a member.
  const std::unique_ptr<std::array<Stripe, kStripes>> stripes_ =
      std::make_unique<std::array<Stripe, kStripes>>();
  std::atomic<uint64_t> recalls_for_write_{0};
  std::atomic<uint64_t> store_read_errors_{0};
  std::atomic<uint64_t> kernel_read_bytes_{0};
  std::atomic<uint64_t> kernel_written_bytes_{0};
  std::atomic<const char*> kernel_hook_{nullptr};
  std::atomic<uint64_t> kernel_uncounted_{0};
  OnlineCounters online_;
  mutable Mutex mu_;
  std::map<RelocationKey, RelocationTally> relocations_ GUARDED_BY(mu_);
  std::map<std::string, ScanTally> scans_ GUARDED_BY(mu_);
  PassthroughDecision passthrough_ GUARDED_BY(mu_);
};

}  // namespace tierfs
