#include "fs/core/store_readahead.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace tierfs {

std::atomic<size_t> StoreReadahead::held_{0};

StoreReadahead::~StoreReadahead() {
  MutexLock lock(mu_);
  DropAhead();
  held_.fetch_sub(window_.size());
}

void StoreReadahead::DropAhead() {
  if (!ahead_) return;
  (void)ahead_->done.get();  // its thread writes into bytes until then
  held_.fetch_sub(ahead_->bytes.size());
  ahead_.reset();
}

bool StoreReadahead::TakeAhead(uint64_t offset) {
  Result<size_t> got = ahead_->done.get();
  if (!got.ok() || offset >= ahead_->start + *got) {
    held_.fetch_sub(ahead_->bytes.size());
    ahead_.reset();
    return false;
  }
  held_.fetch_sub(window_.size());
  window_ = std::move(ahead_->bytes);
  start_ = ahead_->start;
  filled_ = *got;
  ahead_.reset();
  return true;
}

void StoreReadahead::MaybeFetchAhead(uint64_t read_end, uint64_t object_size,
                                     const Fetch& fetch) {
  const uint64_t end = start_ + filled_;
  if (ahead_ || filled_ == 0 || filled_ < window_.size() || end >= object_size ||
      read_end < start_ + filled_ / 2) {
    return;
  }
  const size_t size = static_cast<size_t>(
      std::min<uint64_t>(std::min(window_.size() * 2, kStoreReadaheadMaxBytes), object_size - end));
  if (!Reserve(size)) return;
  auto ahead = std::make_unique<Ahead>();
  ahead->bytes.resize(size);
  ahead->start = end;
  ahead->done = std::async(std::launch::async, [fetch, end, size, buf = ahead->bytes.data()] {
    return fetch(end, size, buf);
  });
  ahead_ = std::move(ahead);
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
  const bool in_ahead = ahead_ && offset >= ahead_->start &&
                        offset < ahead_->start + ahead_->bytes.size();
  // Into the window fetched ahead: it becomes the window (a failed or short
  // fetch there is a miss, fetched below).
  if (in_ahead && offset >= start_ + filled_) (void)TakeAhead(offset);
  if (offset >= start_ && offset + size <= start_ + filled_) {
    std::memcpy(out, window_.data() + (offset - start_), size);
    MaybeFetchAhead(offset + size, object_size, fetch);
    return size;
  }
  if (offset >= start_ && offset < start_ + filled_ && ahead_ &&
      ahead_->start == start_ + filled_) {
    // A read across the end of the window into the one fetched ahead: the
    // first part from here, the rest once the next window is in. Should that
    // fetch have failed, the whole read is fetched below (never a short
    // read: the kernel would take it for the end of the file).
    const size_t first = static_cast<size_t>(start_ + filled_ - offset);
    std::memcpy(out, window_.data() + (offset - start_), first);
    if (TakeAhead(start_ + filled_) && size - first <= filled_) {
      std::memcpy(out + first, window_.data(), size - first);
      MaybeFetchAhead(start_ + (size - first), object_size, fetch);
      return size;
    }
  }
  DropAhead();  // a read elsewhere: the reader is not where it was going
  // The next window's size: twice the last after a miss at its end, else the
  // first size again. Memory beyond what the handle holds comes from the budget.
  const bool sequential = filled_ > 0 && offset == start_ + filled_;
  const size_t wanted = sequential && !window_.empty()
                            ? std::min(window_.size() * 2, kStoreReadaheadMaxBytes)
                            : kStoreReadaheadBytes;
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
  auto got = fetch(offset, want, window_.data());
  if (!got.ok()) return got.status();
  start_ = offset;
  filled_ = *got;
  const size_t n = std::min(size, filled_);
  std::memcpy(out, window_.data(), n);
  MaybeFetchAhead(offset + n, object_size, fetch);
  return n;
}

}  // namespace tierfs
