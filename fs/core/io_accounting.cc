#include "fs/core/io_accounting.h"

namespace tierfs {

IoAccounting::IoAccounting(const Clock& clock, int64_t bucket_seconds)
    : clock_(clock), bucket_seconds_(bucket_seconds > 0 ? bucket_seconds : 3600) {}

void IoAccounting::Record(uint64_t ino, uint64_t bytes, bool write) {
  if (write) {
    RecordKernelIo(ino, 0, 0, bytes, 1);
  } else {
    RecordKernelIo(ino, bytes, 1, 0, 0);
  }
}

void IoAccounting::RecordKernelIo(uint64_t ino, uint64_t read_bytes, uint64_t read_ops,
                                  uint64_t write_bytes, uint64_t write_ops) {
  const int64_t now = clock_.NowSeconds();
  Shard& shard = shards_[ino % kShards];
  MutexLock lock(shard.mu);
  const int64_t length = bucket_seconds_.load(std::memory_order_relaxed);
  const int64_t bucket = now - now % length;
  Counts& c = shard.counts[Key{ino, bucket}];
  c.rbytes += read_bytes;
  c.rops += read_ops;
  c.wbytes += write_bytes;
  c.wops += write_ops;
}

std::vector<meta::IoDelta> IoAccounting::Drain() {
  std::vector<meta::IoDelta> out;
  for (Shard& shard : shards_) {
    std::unordered_map<Key, Counts, KeyHash> taken;
    {
      MutexLock lock(shard.mu);
      taken.swap(shard.counts);
    }
    for (const auto& [key, c] : taken) {
      out.push_back(meta::IoDelta{key.ino, key.bucket, c.rbytes, c.wbytes, c.rops, c.wops});
    }
  }
  return out;
}

std::vector<meta::IoDelta> IoAccounting::Peek() const {
  std::vector<meta::IoDelta> out;
  for (const Shard& shard : shards_) {
    MutexLock lock(shard.mu);
    for (const auto& [key, c] : shard.counts) {
      out.push_back(meta::IoDelta{key.ino, key.bucket, c.rbytes, c.wbytes, c.rops, c.wops});
    }
  }
  return out;
}

void IoAccounting::Restore(const std::vector<meta::IoDelta>& deltas) {
  for (const meta::IoDelta& d : deltas) {
    Shard& shard = shards_[d.ino % kShards];
    MutexLock lock(shard.mu);
    Counts& c = shard.counts[Key{d.ino, d.bucket_start_s}];
    c.rbytes += d.rbytes;
    c.wbytes += d.wbytes;
    c.rops += d.rops;
    c.wops += d.wops;
  }
}

void IoAccounting::Restart(int64_t bucket_seconds) NO_THREAD_SAFETY_ANALYSIS(
    "holds every shard's mutex, taken in a loop: the analysis counts no locks in arrays") {
  if (bucket_seconds <= 0) return;
  // Every shard, in index order (the only place that holds more than one).
  for (Shard& shard : shards_) shard.mu.Lock();
  for (Shard& shard : shards_) shard.counts.clear();
  bucket_seconds_.store(bucket_seconds, std::memory_order_relaxed);
  for (Shard& shard : shards_) shard.mu.Unlock();
}

}  // namespace tierfs
