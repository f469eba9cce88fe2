// OnlineHeat: the I/O history of files kept in memory for online promotion
// (docs/policies.md "Online promotion", docs/design.md "Online promotion").
//
// Two parts, per inode and heat bucket: the counts the periodic flush already
// wrote to the database (AddDrained, or Seed from the database at start) and
// the counts still in IoAccounting (SetPending, a Peek of them, replaced at
// each call and emptied by each drain). Windows() and Totals() add both the
// way fs/tiering/scan_records.cc adds the database's buckets for a scan, so
// the online path and enforce measure the same temperature. Buckets older
// than the span (the longest window the policy needs) are dropped by Prune.
//
// Not thread-safe: the owner (fs/tiering/online_promoter.h) guards it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "meta/records.h"
#include "policy/file_record.h"

namespace tierfs {

class OnlineHeat {
 public:
  // Forgets everything; from now on buckets are `bucket_seconds` long (> 0)
  // and kept for `span_s` seconds (> 0) back from the newest.
  void Reset(int64_t bucket_seconds, int64_t span_s);
  int64_t bucket_seconds() const { return bucket_seconds_; }

  // Adds one bucket of flushed (or seeded) counts of inode `ino`.
  void AddFlushed(uint64_t ino, int64_t bucket_start_s, const policy::IoCounters& c);
  // Adds a flushed batch and drops the pending counts (they are in it now);
  // bumps generation(). An inode whose drained counts differ from what the
  // last SetPending showed of it had counts no peek saw (they arrived and were
  // flushed between two peeks: the kernel's passthrough counts reach
  // IoAccounting in batches, and a scan flushes at once): it is remembered,
  // and the next SetPending reports it changed.
  void AddDrained(const std::vector<meta::IoDelta>& deltas);
  // Makes every inode with counts changed at the next SetPending (a new
  // policy judges them all once).
  void MarkAllChanged();
  // Replaces the pending counts with `peek` (IoAccounting::Peek). Returns the
  // inodes whose pending counts differ from the previous call's, and those
  // whose counts were drained unseen since (AddDrained): the files whose heat
  // changed, each once.
  std::vector<uint64_t> SetPending(const std::vector<meta::IoDelta>& peek);
  // Moves at each AddDrained: a Peek taken under an older generation may hold
  // counts that were drained since and must not be set pending.
  uint64_t generation() const { return generation_; }

  // The I/O of `ino` in each window of `window_hours` ending at `end_s`
  // (policy::AccumulateBucket); empty when the inode has no count at all.
  std::vector<policy::IoCounters> Windows(uint64_t ino, const std::vector<double>& window_hours,
                                          int64_t end_s) const;
  // The file-system activity over the last `average_hours` before `end_s`
  // (policy::ActivityTotals, for Average="*"): `size_of(ino)` gives a file's
  // size in bytes, or nullopt for a file that is gone (left out).
  policy::ActivityTotals Totals(double average_hours, int64_t end_s,
                                const std::function<std::optional<uint64_t>(uint64_t)>& size_of)
      const;
  // Drops buckets that ended more than the span before `now_s`, and inodes
  // left with none.
  void Prune(int64_t now_s);
  // Inodes with counts (flushed or pending).
  size_t files() const { return flushed_.size(); }
  bool Contains(uint64_t ino) const { return flushed_.contains(ino); }
  std::vector<uint64_t> Inodes() const {
    std::vector<uint64_t> out;
    out.reserve(flushed_.size());
    for (const auto& [ino, buckets] : flushed_) out.push_back(ino);
    return out;
  }

 private:
  using Buckets = std::map<int64_t, policy::IoCounters>;  // by bucket start, s
  void Accumulate(uint64_t ino, const std::vector<double>& window_hours, int64_t end_s,
                  std::vector<policy::IoCounters>* out) const;

  int64_t bucket_seconds_ = 3600;
  int64_t span_s_ = 86400;
  uint64_t generation_ = 0;
  std::unordered_map<uint64_t, Buckets> flushed_;
  std::unordered_map<uint64_t, Buckets> pending_;
  std::unordered_set<uint64_t> drained_unseen_;  // for the next SetPending
};

}  // namespace tierfs
