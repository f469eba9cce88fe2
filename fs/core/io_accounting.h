// IoAccounting: per-file read/write counters kept in memory on the data path and
// flushed into the database's iostat time buckets (design.md "I/O accounting").
//
// Record() is called by every read and write that reaches a volume; it takes one
// of kShards mutexes, never touches the database and never blocks on I/O. Drain()
// swaps the counters out and returns them as IoDeltas keyed by the bucket each
// count fell in, for Metadata::AddIoStats. Restart() changes the bucket length
// at run time (fsppadm heatbucket): it discards every count, so no count of the
// old length is ever drained after it. Thread-safe.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "common/clock.h"
#include "common/mutex.h"
#include "common/thread_annotations.h"
#include "meta/records.h"

namespace tierfs {

class IoAccounting {
 public:
  // `bucket_seconds`: iostat bucket length (FsInfo::iostat_bucket_seconds), > 0.
  IoAccounting(const Clock& clock, int64_t bucket_seconds);

  // Counts one read call of `bytes` bytes on inode `ino` at the clock's now.
  void RecordRead(uint64_t ino, uint64_t bytes) { Record(ino, bytes, /*write=*/false); }
  // Counts one write call of `bytes` bytes.
  void RecordWrite(uint64_t ino, uint64_t bytes) { Record(ino, bytes, /*write=*/true); }
  // Counts I/O that did not pass through the daemon (the kernel's passthrough
  // reads and writes, counted by fs/bpf/): `*_ops` calls moving `*_bytes` bytes.
  void RecordKernelIo(uint64_t ino, uint64_t read_bytes, uint64_t read_ops, uint64_t write_bytes,
                      uint64_t write_ops);

  // Removes and returns everything counted so far, one delta per (inode, bucket).
  std::vector<meta::IoDelta> Drain();
  // A copy of everything counted and not drained yet, one delta per (inode,
  // bucket), leaving the counts in place: what the online promoter adds to the
  // drained history (fs/tiering/online_heat.h). Takes each shard's mutex in
  // turn, so it costs the data path no more than a Drain does.
  std::vector<meta::IoDelta> Peek() const;
  // Puts deltas back (after a failed database write) so nothing counted is lost.
  // The caller must not Restore deltas drained before a Restart().
  void Restore(const std::vector<meta::IoDelta>& deltas);

  // Discards every count and counts from now on in buckets of `bucket_seconds`
  // (> 0; the value of FsInfo::iostat_bucket_seconds just committed). Atomic
  // against Record(): each count lands either before (discarded) or after (new
  // length).
  void Restart(int64_t bucket_seconds);
  // The current bucket length, s.
  int64_t bucket_seconds() const { return bucket_seconds_.load(std::memory_order_relaxed); }

 private:
  struct Key {
    uint64_t ino;
    int64_t bucket;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const { return k.ino * 0x9E3779B97F4A7C15ull ^ k.bucket; }
  };
  struct Counts {
    uint64_t rbytes = 0, wbytes = 0, rops = 0, wops = 0;
  };
  struct Shard {
    mutable Mutex mu;
    std::unordered_map<Key, Counts, KeyHash> counts GUARDED_BY(mu);
  };
  static constexpr size_t kShards = 16;

  void Record(uint64_t ino, uint64_t bytes, bool write);

  const Clock& clock_;
  // Written only by Restart() while it holds every shard's mutex; Record() reads
  // it under its shard's mutex, so a count and the length it used agree.
  std::atomic<int64_t> bucket_seconds_;
  std::array<Shard, kShards> shards_;
};

}  // namespace tierfs
