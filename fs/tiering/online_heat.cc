#include "fs/tiering/online_heat.h"

#include <optional>

namespace tierfs {
namespace {

policy::IoCounters CountersOf(const meta::IoDelta& d) {
  return policy::IoCounters{static_cast<double>(d.rbytes), static_cast<double>(d.wbytes),
                            static_cast<double>(d.rops), static_cast<double>(d.wops)};
}

bool SameCounts(const std::map<int64_t, policy::IoCounters>& a,
                const std::map<int64_t, policy::IoCounters>& b) {
  if (a.size() != b.size()) return false;
  for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
    if (ia->first != ib->first || ia->second.rbytes != ib->second.rbytes ||
        ia->second.wbytes != ib->second.wbytes || ia->second.rops != ib->second.rops ||
        ia->second.wops != ib->second.wops) {
      return false;
    }
  }
  return true;
}

}  // namespace

void OnlineHeat::Reset(int64_t bucket_seconds, int64_t span_s) {
  bucket_seconds_ = bucket_seconds > 0 ? bucket_seconds : 3600;
  span_s_ = span_s > 0 ? span_s : 1;
  flushed_.clear();
  pending_.clear();
  drained_unseen_.clear();
  ++generation_;
}

void OnlineHeat::AddFlushed(uint64_t ino, int64_t bucket_start_s, const policy::IoCounters& c) {
  flushed_[ino][bucket_start_s] += c;
}

void OnlineHeat::AddDrained(const std::vector<meta::IoDelta>& deltas) {
  std::unordered_map<uint64_t, Buckets> drained;
  for (const meta::IoDelta& d : deltas) {
    AddFlushed(d.ino, d.bucket_start_s, CountersOf(d));
    drained[d.ino][d.bucket_start_s] += CountersOf(d);
  }
  for (const auto& [ino, buckets] : drained) {
    auto seen = pending_.find(ino);
    if (seen == pending_.end() || !SameCounts(seen->second, buckets)) drained_unseen_.insert(ino);
  }
  pending_.clear();
  ++generation_;
}

void OnlineHeat::MarkAllChanged() {
  for (const auto& [ino, buckets] : flushed_) drained_unseen_.insert(ino);
}

std::vector<uint64_t> OnlineHeat::SetPending(const std::vector<meta::IoDelta>& peek) {
  std::unordered_map<uint64_t, Buckets> next;
  for (const meta::IoDelta& d : peek) next[d.ino][d.bucket_start_s] += CountersOf(d);
  std::vector<uint64_t> changed;
  for (const auto& [ino, buckets] : next) {
    auto old = pending_.find(ino);
    if (old == pending_.end() || !SameCounts(old->second, buckets)) changed.push_back(ino);
    flushed_.try_emplace(ino);  // files() and Totals() see it
  }
  std::unordered_set<uint64_t> reported(changed.begin(), changed.end());
  for (uint64_t ino : drained_unseen_) {
    if (reported.insert(ino).second) changed.push_back(ino);
  }
  drained_unseen_.clear();
  pending_ = std::move(next);
  return changed;
}

void OnlineHeat::Accumulate(uint64_t ino, const std::vector<double>& window_hours, int64_t end_s,
                            std::vector<policy::IoCounters>* out) const {
  for (const auto* part : {&flushed_, &pending_}) {
    auto it = part->find(ino);
    if (it == part->end()) continue;
    for (const auto& [start, c] : it->second) {
      policy::AccumulateBucket(window_hours, end_s, start, bucket_seconds_, c, out);
    }
  }
}

std::vector<policy::IoCounters> OnlineHeat::Windows(uint64_t ino,
                                                    const std::vector<double>& window_hours,
                                                    int64_t end_s) const {
  std::vector<policy::IoCounters> out;
  if (window_hours.empty()) return out;
  out.assign(window_hours.size(), policy::IoCounters{});
  Accumulate(ino, window_hours, end_s, &out);
  return out;
}

policy::ActivityTotals OnlineHeat::Totals(
    double average_hours, int64_t end_s,
    const std::function<std::optional<uint64_t>(uint64_t)>& size_of) const {
  policy::ActivityTotals totals;
  const std::vector<double> window = {average_hours};
  for (const auto& [ino, buckets] : flushed_) {
    std::vector<policy::IoCounters> io(1);
    Accumulate(ino, window, end_s, &io);
    if (!io[0].Any()) continue;
    std::optional<uint64_t> size = size_of(ino);
    if (!size) continue;
    policy::AddActivity(io[0], *size, &totals);
  }
  return totals;
}

void OnlineHeat::Prune(int64_t now_s) {
  const int64_t oldest = now_s - span_s_ - bucket_seconds_;
  for (auto it = flushed_.begin(); it != flushed_.end();) {
    Buckets& b = it->second;
    b.erase(b.begin(), b.lower_bound(oldest));
    if (b.empty() && !pending_.contains(it->first)) {
      it = flushed_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace tierfs
