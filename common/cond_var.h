// CondVar: std::condition_variable over a tierfs Mutex (common/mutex.h), with the
// wait's lock rule (the caller holds the mutex) stated so that clang checks it.
//
// No predicate overloads: a predicate is a lambda, and the analysis cannot know
// that a lambda runs with the mutex held. Callers loop instead, which the
// analysis follows:
//   while (!stop_ && queue_.empty()) wake_.Wait(mu_);
#pragma once

#include <chrono>
#include <condition_variable>

#include "common/mutex.h"

namespace tierfs {

class CondVar {
 public:
  // Wakes one / every thread waiting.
  void NotifyOne() { cv_.notify_one(); }
  void NotifyAll() { cv_.notify_all(); }

  // Gives `mu` back, sleeps until notified (or a spurious wake-up), takes `mu`
  // again before returning.
  void Wait(Mutex& mu) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu.mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();  // `mu` stays held: the caller's guard owns it
  }
  // As Wait, until `deadline` at the latest; false when the deadline passed.
  template <class Clock, class Duration>
  bool WaitUntil(Mutex& mu, const std::chrono::time_point<Clock, Duration>& deadline)
      REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu.mu_, std::adopt_lock);
    const bool woken = cv_.wait_until(lock, deadline) == std::cv_status::no_timeout;
    lock.release();
    return woken;
  }
  // As Wait, for `timeout` at the most; false when it passed.
  template <class Rep, class Period>
  bool WaitFor(Mutex& mu, const std::chrono::duration<Rep, Period>& timeout) REQUIRES(mu) {
    return WaitUntil(mu, std::chrono::steady_clock::now() + timeout);
  }

 private:
  std::condition_variable cv_;
};

}  // namespace tierfs
