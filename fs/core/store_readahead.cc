#include "fs/core/store_readahead.h"

#include <algorithm>
#include <cstring>

namespace tierfs {

std::atomic<size_t> StoreReadahead::held_{0};

StoreReadahead::~StoreReadahead() {
  MutexLock lock(mu_);
  held_.fetch_sub(window_.size());
}

Result<size_t> StoreReadahead::Read(uint64_t offset, size_t size, uint64_t object_size,
                                    char* out, const Fetch& fetch) {
  if (offset >= object_size || size == 0) return size_t{0};
  size = static_cast<size_t>(std::min<uint64_t>(size, object_size - offset));
  MutexLock lock(mu_);
  if (offset >= start_ && offset + size <= start_ + filled_) {
    std::memcpy(out, window_.data() + (offset - start_), size);
    return size;
  }
  if (window_.empty()) {
    // Take a window from the budget, or read without one.
    size_t held = held_.load();
    while (held + kStoreReadaheadBytes <= kStoreReadaheadBudget &&
           !held_.compare_exchange_weak(held, held + kStoreReadaheadBytes)) {
    }
    if (held + kStoreReadaheadBytes <= kStoreReadaheadBudget) {
      window_.resize(kStoreReadaheadBytes);
    }
  }
  if (window_.empty() || size > window_.size()) return fetch(offset, size, out);
  const size_t want =
      static_cast<size_t>(std::min<uint64_t>(window_.size(), object_size - offset));
  filled_ = 0;
  auto got = fetch(offset, want, window_.data());
  if (!got.ok()) return got.status();
  start_ = offset;
  filled_ = *got;
  const size_t n = std::min(size, filled_);
  std::memcpy(out, window_.data(), n);
  return n;
}

}  // namespace tierfs
