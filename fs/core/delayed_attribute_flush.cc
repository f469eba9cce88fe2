#include "fs/core/delayed_attribute_flush.h"

#include <utility>

namespace tierfs {

DelayedAttributeFlush::DelayedAttributeFlush(std::chrono::milliseconds delay, FlushFn flush)
    : delay_(delay), flush_(std::move(flush)), thread_([this] { Run(); }) {}

DelayedAttributeFlush::~DelayedAttributeFlush() {
  {
    MutexLock lock(mu_);
    stop_ = true;
  }
  wake_.NotifyAll();
  thread_.join();
  Drain();
}

void DelayedAttributeFlush::EnqueueLocked(const InodeRef& inode) {
  if (inode->delayed_flush_queued) return;
  inode->delayed_flush_queued = true;
  bool was_empty;
  {
    MutexLock lock(mu_);
    was_empty = queue_.empty();
    queue_.push_back({inode, std::chrono::steady_clock::now() + delay_});
  }
  // Only an empty queue leaves the thread waiting without a deadline.
  if (was_empty) wake_.NotifyOne();
}

std::vector<InodeRef> DelayedAttributeFlush::TakeDueLocked(
    std::chrono::steady_clock::time_point now) {
  std::vector<InodeRef> due;
  size_t n = 0;
  while (n < queue_.size() && queue_[n].due <= now) ++n;
  due.reserve(n);
  for (size_t i = 0; i < n; ++i) due.push_back(std::move(queue_[i].inode));
  queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
  return due;
}

void DelayedAttributeFlush::Run() {
  MutexLock lock(mu_);
  while (!stop_) {
    if (queue_.empty()) {
      wake_.Wait(mu_);
      continue;
    }
    const auto first_due = queue_.front().due;
    if (std::chrono::steady_clock::now() < first_due) {
      wake_.WaitUntil(mu_, first_due);
      continue;
    }
    // The flush lock first, then the queue again: a Drain between the two may
    // have taken these already.
    lock.Unlock();
    MutexLock flush_lock(flush_mu_);
    lock.Lock();
    // Those due within half a delay go too: files written one after another
    // (an untar, a create loop) are flushed together, in one hold of the
    // database lock per batch, instead of one wake-up and one hold each.
    std::vector<InodeRef> due = TakeDueLocked(std::chrono::steady_clock::now() + delay_ / 2);
    if (due.empty()) continue;
    lock.Unlock();
    flush_(due);
    lock.Lock();
  }
}

void DelayedAttributeFlush::Drain() {
  MutexLock flush_lock(flush_mu_);
  std::vector<InodeRef> all;
  {
    MutexLock lock(mu_);
    all = TakeDueLocked(std::chrono::steady_clock::time_point::max());
  }
  if (!all.empty()) flush_(all);
}

}  // namespace tierfs
