#include "fs/core/store_readahead.h"

#include <algorithm>
#include <cstring>

namespace tierfs {

std::atomic<size_t> StoreReadahead::held_{0};

StoreReadahead::~StoreReadahead() {
  MutexLock lock(mu_);
  if (pending_.valid()) pending_.wait();  // it writes into next_
  if (reserved_) held_.fetch_sub(2 * kStoreReadaheadBytes);
}

bool StoreReadahead::Reserve() {
  size_t held = held_.load();
  while (held + 2 * kStoreReadaheadBytes <= kStoreReadaheadBudget) {
    if (held_.compare_exchange_weak(held, held + 2 * kStoreReadaheadBytes)) return true;
  }
  return false;
}

void StoreReadahead::SettleNextLocked() {
  if (!pending_.valid()) return;
  Result<size_t> got = pending_.get();
  next_.start = pending_start_;
  next_.filled = got.ok() ? *got : 0;  // a failed prefetch: the read fetches again
}

void StoreReadahead::PrefetchLocked(uint64_t object_size, const Fetch& fetch) {
  const uint64_t at = current_.start + current_.filled;
  if (pending_.valid() || at >= object_size || current_.filled < current_.bytes.size()) return;
  if (next_.filled > 0 && next_.start == at) return;  // already there
  next_.filled = 0;
  pending_start_ = at;
  const size_t want = static_cast<size_t>(std::min<uint64_t>(next_.bytes.size(), object_size - at));
  char* into = next_.bytes.data();
  pending_ = std::async(std::launch::async, [fetch, at, want, into] { return fetch(at, want, into); });
}

Result<size_t> StoreReadahead::Read(uint64_t offset, size_t size, uint64_t object_size,
                                    char* out, const Fetch& fetch) {
  if (offset >= object_size || size == 0) return size_t{0};
  size = static_cast<size_t>(std::min<uint64_t>(size, object_size - offset));
  MutexLock lock(mu_);
  auto holds = [&](const Window& w) {
    return offset >= w.start && offset + size <= w.start + w.filled;
  };
  if (!reserved_ && Reserve()) {
    reserved_ = true;
    current_.bytes.resize(kStoreReadaheadBytes);
    next_.bytes.resize(kStoreReadaheadBytes);
  }
  if (!reserved_ || size > kStoreReadaheadBytes) return fetch(offset, size, out);
  if (!holds(current_)) {
    if (pending_.valid() && offset >= pending_start_) SettleNextLocked();
    if (holds(next_)) {
      std::swap(current_, next_);
      next_.filled = 0;
    } else {
      SettleNextLocked();  // next_ is free again before it is overwritten
      const size_t want =
          static_cast<size_t>(std::min<uint64_t>(current_.bytes.size(), object_size - offset));
      current_.filled = 0;
      auto got = fetch(offset, want, current_.bytes.data());
      if (!got.ok()) return got.status();
      current_.start = offset;
      current_.filled = *got;
      if (!holds(current_)) {
        // The object ended early: what there is.
        const size_t n = current_.filled > 0 ? std::min(size, current_.filled) : 0;
        std::memcpy(out, current_.bytes.data(), n);
        return n;
      }
    }
  }
  std::memcpy(out, current_.bytes.data() + (offset - current_.start), size);
  // Past the middle of the window: the next one comes in the background.
  if (offset + size >= current_.start + current_.filled / 2) PrefetchLocked(object_size, fetch);
  return size;
}

}  // namespace tierfs
