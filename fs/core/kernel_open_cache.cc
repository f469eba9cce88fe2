#include "fs/core/kernel_open_cache.h"

#include <utility>

namespace tierfs {

KernelOpenCache::KernelOpenCache(size_t capacity, OpenFn open, ReleaseFn release)
    : capacity_(capacity == 0 ? 1 : capacity), open_(std::move(open)),
      release_(std::move(release)) {}

KernelOpenCache::~KernelOpenCache() { DropAll(); }

KernelOpenCache::Handle KernelOpenCache::Wrap(FileHandle* fh) {
  // The deleter runs where the last user lets go: a request's thread, or the
  // thread that dropped it from the cache, never under mu_.
  return Handle(fh, [release = release_](FileHandle* h) { release(h); });
}

Result<KernelOpenCache::Handle> KernelOpenCache::Get(uint64_t ino) {
  {
    MutexLock lock(mu_);
    auto it = entries_.find(ino);
    if (it != entries_.end()) {
      it->second.referenced = true;
      return it->second.handle;
    }
  }
  // Opened without the lock: a database read and an openat of the object.
  auto opened = open_(ino);
  if (!opened.ok()) return opened.status();
  Handle made = Wrap(*opened);
  std::deque<Handle> released;
  Handle handle;
  {
    MutexLock lock(mu_);
    handle = InsertLocked(ino, std::move(made), &released);
  }
  return handle;  // `released` goes here, after the lock
}

KernelOpenCache::Handle KernelOpenCache::InsertLocked(uint64_t ino, Handle made,
                                                      std::deque<Handle>* released) {
  auto [it, inserted] = entries_.try_emplace(ino);
  if (!inserted) {
    // Another request made one first: keep that, release ours.
    released->push_back(std::move(made));
    it->second.referenced = true;
    return it->second.handle;
  }
  it->second.handle = std::move(made);
  Handle handle = it->second.handle;
  clock_.push_back(ino);
  while (entries_.size() > capacity_) EvictLocked(released);
  if (clock_.size() > 2 * entries_.size() + 64) {
    // Drops left their inodes in the ring: rebuild it from the entries.
    clock_.clear();
    for (const auto& [i, entry] : entries_) clock_.push_back(i);
  }
  return handle;
}

void KernelOpenCache::EvictLocked(std::deque<Handle>* released) {
  // Terminates: every entry is in the ring, and each is passed over at most
  // once before its second chance is gone.
  while (!clock_.empty()) {
    const uint64_t ino = clock_.front();
    clock_.pop_front();
    auto it = entries_.find(ino);
    if (it == entries_.end()) continue;  // dropped since
    if (it->second.referenced) {
      it->second.referenced = false;
      clock_.push_back(ino);
      continue;
    }
    released->push_back(std::move(it->second.handle));
    entries_.erase(it);
    return;
  }
}

void KernelOpenCache::Drop(uint64_t ino) {
  Handle released;
  MutexLock lock(mu_);
  auto it = entries_.find(ino);
  if (it == entries_.end()) return;
  released = std::move(it->second.handle);
  entries_.erase(it);
  // `released` is destroyed after `lock`.
}

size_t KernelOpenCache::DropAll() {
  std::unordered_map<uint64_t, Entry> released;
  {
    MutexLock lock(mu_);
    released.swap(entries_);
    clock_.clear();
  }
  return released.size();
}

size_t KernelOpenCache::size() const {
  MutexLock lock(mu_);
  return entries_.size();
}

}  // namespace tierfs
