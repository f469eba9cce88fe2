#include "meta/dentry_cache.h"

#include <algorithm>

namespace tierfs::meta {

DentryCache::DentryCache(size_t max_entries) : enabled_(max_entries > 0) {
  shards_.reserve(kShards);
  for (size_t i = 0; i < kShards; ++i) {
    shards_.push_back(std::make_unique<Shard>(max_entries / kShards +
                                              (i < max_entries % kShards ? 1 : 0)));
  }
}

DentryCache::Hit DentryCache::Find(uint64_t parent, std::string_view name) const {
  if (!enabled_.load(std::memory_order_acquire)) return {};
  return ShardOf(parent).Find(parent, name);
}

void DentryCache::Put(uint64_t parent, std::string_view name, uint64_t ino) {
  if (enabled_.load(std::memory_order_relaxed)) ShardOf(parent).Set(parent, name, ino);
}

void DentryCache::PutAbsent(uint64_t parent, std::string_view name) {
  if (enabled_.load(std::memory_order_relaxed)) ShardOf(parent).Set(parent, name, 0);
}

void DentryCache::PutEmptyDirectory(uint64_t dir) {
  if (enabled_.load(std::memory_order_relaxed)) ShardOf(dir).PutEmptyDirectory(dir);
}

void DentryCache::DropDirectory(uint64_t dir) { ShardOf(dir).DropDirectory(dir); }

void DentryCache::Clear() {
  for (auto& shard : shards_) shard->Clear();
}

void DentryCache::Disable() {
  // Off first, so no Find that starts after this call can see what is cleared.
  enabled_.store(false, std::memory_order_release);
  Clear();
}

size_t DentryCache::Size() const {
  size_t n = 0;
  for (const auto& shard : shards_) n += shard->Size();
  return n;
}

// ---- one shard ----------------------------------------------------------------

DentryCache::Hit DentryCache::Shard::Find(uint64_t parent, std::string_view name) {
  MutexLock lock(mu_);
  auto dir = dirs_.find(parent);
  if (dir == dirs_.end()) return {};
  dir->second.referenced = true;
  auto entry = dir->second.names.find(name);
  if (entry != dir->second.names.end()) {
    if (entry->second == 0) return {Known::kAbsent, 0};
    return {Known::kPresent, entry->second};
  }
  return {dir->second.complete ? Known::kAbsent : Known::kUnknown, 0};
}

DentryCache::Directory& DentryCache::Shard::DirectoryLocked(uint64_t dir) {
  auto [it, made] = dirs_.try_emplace(dir);
  if (made) {
    // Dropped directories leave their place in the ring; rebuild it before
    // those outnumber the directories held.
    if (clock_.size() > 2 * dirs_.size() + 16) {
      clock_.clear();
      for (const auto& [ino, unused] : dirs_) clock_.push_back(ino);
    } else {
      clock_.push_back(dir);
    }
  }
  it->second.referenced = true;
  return it->second;
}

void DentryCache::Shard::Set(uint64_t parent, std::string_view name, uint64_t ino) {
  if (budget_ == 0) return;
  MutexLock lock(mu_);
  Directory& dir = DirectoryLocked(parent);
  // A complete directory needs no negative entries: a name it lacks is absent.
  if (ino == 0 && dir.complete) {
    auto it = dir.names.find(name);
    if (it != dir.names.end()) {
      dir.names.erase(it);
      --entries_;
    }
    return;
  }
  auto [it, added] = dir.names.try_emplace(std::string(name), ino);
  if (!added) {
    it->second = ino;
    return;
  }
  ++entries_;
  if (entries_ > budget_) TrimLocked(parent);
}

void DentryCache::Shard::PutEmptyDirectory(uint64_t dir) {
  if (budget_ == 0) return;
  MutexLock lock(mu_);
  DropLocked(dir);  // a number is never reused, but a failed fill may have left one
  DirectoryLocked(dir).complete = true;
}

void DentryCache::Shard::DropDirectory(uint64_t dir) {
  MutexLock lock(mu_);
  DropLocked(dir);
}

void DentryCache::Shard::DropLocked(uint64_t dir) {
  auto it = dirs_.find(dir);
  if (it == dirs_.end()) return;
  entries_ -= it->second.names.size();
  dirs_.erase(it);
}

void DentryCache::Shard::Clear() {
  MutexLock lock(mu_);
  dirs_.clear();
  clock_.clear();
  entries_ = 0;
}

size_t DentryCache::Shard::Size() const {
  MutexLock lock(mu_);
  return entries_;
}

void DentryCache::Shard::TrimLocked(uint64_t keep) {
  // Each directory is passed over at most once for its second chance, so the
  // hand stops within two turns of the ring.
  size_t steps = 2 * clock_.size() + 1;
  while (entries_ > budget_ && !clock_.empty() && steps-- > 0) {
    const uint64_t ino = clock_.front();
    clock_.pop_front();
    auto it = dirs_.find(ino);
    if (it == dirs_.end()) continue;  // dropped since
    if (ino == keep || it->second.referenced) {
      it->second.referenced = false;
      clock_.push_back(ino);
      continue;
    }
    DropLocked(ino);
  }
  if (entries_ > budget_) {
    // `keep` alone is larger than the shard's share: it cannot be held whole.
    auto it = dirs_.find(keep);
    if (it != dirs_.end()) {
      entries_ -= it->second.names.size();
      it->second.names.clear();
      it->second.complete = false;
    }
  }
}

}  // namespace tierfs::meta
