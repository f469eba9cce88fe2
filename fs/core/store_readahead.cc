#include "fs/core/store_readahead.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace tierfs {

std::atomic<size_t> StoreReadahead::held_{0};

double StoreReadahead::SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

StoreReadahead::~StoreReadahead() {
  MutexLock lock(mu_);
  held_.fetch_sub(window_.size());
}

bool StoreReadahead::Reserve(size_t bytes) {
  size_t held = held_.load();
  do {
    if (held + bytes > kStoreReadaheadBudget) return false;
  } while (!held_.compare_exchange_weak(held, held + bytes));
  return true;
}

Result<size_t> StoreReadahead::Read(uint64_t offset, size_t size, uint64_t object_size,
                                    char* out, const Fetch& fetch) {
  if (offset >= object_size || size == 0) return size_t{0};
  size = static_cast<size_t>(std::min<uint64_t>(size, object_size - offset));
  MutexLock lock(mu_);
  const uint64_t epoch = invalidations_.load(std::memory_order_acquire);
  if (filled_at_ != epoch) filled_ = 0;  // the file moved since the window was filled
  if (offset >= start_ && offset + size <= start_ + filled_) {
    std::memcpy(out, window_.data() + (offset - start_), size);
    return size;
  }
  // The next window's size: twice the last after a miss at its end, else the
  // first size again. Memory beyond what the handle holds comes from the budget.
  const bool sequential = filled_ > 0 && offset == start_ + filled_;
  size_t wanted = sequential && !window_.empty()
                      ? std::min(window_.size() * 2, kStoreReadaheadMaxBytes)
                      : kStoreReadaheadBytes;
  if (bytes_per_second_ > 0) {
    // What the link brings within the window's time, in 64 KiB steps.
    const double deliverable = bytes_per_second_ * kStoreWindowSeconds;
    const size_t cap = std::max(kStoreReadaheadMinBytes,
                                static_cast<size_t>(deliverable) & ~size_t{(64 << 10) - 1});
    wanted = std::min(wanted, cap);
  }
  if (wanted > window_.size()) {
    if (Reserve(wanted - window_.size())) window_.resize(wanted);
  } else if (wanted < window_.size()) {
    held_.fetch_sub(window_.size() - wanted);
    window_.resize(wanted);
    window_.shrink_to_fit();
  }
  filled_ = 0;
  if (window_.empty() || size > window_.size()) return fetch(offset, size, out);
  const size_t want =
      static_cast<size_t>(std::min<uint64_t>(window_.size(), object_size - offset));
  const double started = now_seconds_();
  auto got = fetch(offset, want, window_.data());
  if (!got.ok()) {
    // Too much for the link within the bound: the request alone, and the next
    // window no larger than what it delivers.
    if (got.status().code() != ETIMEDOUT || want <= size) return got.status();
    bytes_per_second_ = static_cast<double>(size) / kStoreWindowSeconds;
    return fetch(offset, size, out);
  }
  const double seconds = now_seconds_() - started;
  if (*got >= (64u << 10) && seconds > 0) bytes_per_second_ = static_cast<double>(*got) / seconds;
  start_ = offset;
  filled_ = *got;
  filled_at_ = epoch;
  const size_t n = std::min(size, filled_);
  std::memcpy(out, window_.data(), n);
  return n;
}

}  // namespace tierfs
