// PeriodicThread: a thread that calls a function every `period` until it is
// destroyed; the destructor wakes it at once (no wait for the period's end)
// and joins it, after the call in progress, if any, returns. The daemon's
// background duties (the periodic flush, the store probe) run on one each.
#pragma once

#include <chrono>
#include <functional>
#include <thread>

#include "common/cond_var.h"
#include "common/mutex.h"
#include "common/thread_annotations.h"

namespace tierfs {

class PeriodicThread {
 public:
  // Starts the thread; the first call comes one `period` (> 0) from now.
  // `tick` runs on the thread, with no lock of this class held.
  PeriodicThread(std::chrono::milliseconds period, std::function<void()> tick)
      : period_(period), tick_(std::move(tick)), thread_([this] { Run(); }) {}
  ~PeriodicThread() {
    {
      MutexLock lock(mu_);
      stop_ = true;
    }
    cv_.NotifyAll();
    thread_.join();
  }
  PeriodicThread(const PeriodicThread&) = delete;
  PeriodicThread& operator=(const PeriodicThread&) = delete;

 private:
  void Run() EXCLUDES(mu_) {
    MutexLock lock(mu_);
    while (!stop_) {
      cv_.WaitFor(mu_, period_);
      if (stop_) break;
      lock.Unlock();
      tick_();
      lock.Lock();
    }
  }

  const std::chrono::milliseconds period_;
  const std::function<void()> tick_;
  Mutex mu_;
  CondVar cv_;
  bool stop_ GUARDED_BY(mu_) = false;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace tierfs
