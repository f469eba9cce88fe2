// OnlineCounters: what online promotion (fs/tiering/online_promoter.h) has
// done since the mount, for the metrics (fs/metrics/) and `fsppadm status`.
// Relaxed atomics: written by the promoter's threads, read at scrape time.
#pragma once

#include <atomic>
#include <cstdint>

namespace tierfs {

struct OnlineCounters {
  std::atomic<uint64_t> promotions{0};    // files the online path moved in ("moved")
  std::atomic<uint64_t> demotions{0};     // residents it swapped out to make room
  std::atomic<uint64_t> bytes_moved{0};   // bytes of both, copied
  std::atomic<uint64_t> skipped_cold{0};  // queued files whose statement no longer held
  std::atomic<uint64_t> busy{0};          // moves found busy (retried later)
  std::atomic<uint64_t> no_room{0};       // candidates no swap could make room for
  std::atomic<uint64_t> dropped{0};       // candidates not queued: the queue was full
  std::atomic<uint64_t> queue_length{0};  // files queued now
  std::atomic<uint64_t> budget_bytes_per_s{0};  // the policy's OnlineBudget; 0: no online rule
};

}  // namespace tierfs
