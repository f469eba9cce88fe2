// Mutex and MutexLock: std::mutex, and a guard for it, that clang's thread-safety
// analysis understands (common/thread_annotations.h). libstdc++'s std::mutex and
// std::lock_guard carry no annotations, so members guarded by one could not say so.
//
// Mutex costs what std::mutex costs: every member is an inline call of it.
#pragma once

#include <mutex>

#include "common/thread_annotations.h"

namespace tierfs {

class CondVar;  // common/cond_var.h

class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  // Blocks until the calling thread holds the mutex.
  void Lock() ACQUIRE() { mu_.lock(); }
  // Gives back the mutex the calling thread holds.
  void Unlock() RELEASE() { mu_.unlock(); }
  // Takes the mutex if it is free; true when the calling thread now holds it.
  bool TryLock() TRY_ACQUIRE(true) { return mu_.try_lock(); }
  // Checks nothing at run time: tells the analysis that the calling thread
  // holds this mutex, taken under another name it cannot see through (a
  // reference bound to `*fh->inode`, say). Every use says why it is true.
  void AssertHeld() const ASSERT_CAPABILITY(this) {}

 private:
  friend class CondVar;  // waits on mu_ itself, to keep std::condition_variable's speed
  std::mutex mu_;
};

// Holds `mu` from construction to destruction (std::lock_guard), or, when made
// with std::defer_lock or std::try_to_lock, from a successful Lock/TryLock on;
// Unlock gives it back early. The analysis tracks which, path by path.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) ACQUIRE(mu) : mu_(mu), held_(true) { mu.Lock(); }
  // Does not take `mu` yet (Lock or TryLock does).
  MutexLock(Mutex& mu, std::defer_lock_t) EXCLUDES(mu) : mu_(mu) {}
  ~MutexLock() RELEASE() {
    if (held_) mu_.Unlock();
  }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  // Takes the mutex (not held by this guard).
  void Lock() ACQUIRE() {
    mu_.Lock();
    held_ = true;
  }
  // Takes the mutex if it is free; true when this guard now holds it.
  bool TryLock() TRY_ACQUIRE(true) { return held_ = mu_.TryLock(); }
  // Gives the mutex back before the guard's end.
  void Unlock() RELEASE() {
    mu_.Unlock();
    held_ = false;
  }

 private:
  Mutex& mu_;
  bool held_ = false;
};

}  // namespace tierfs
