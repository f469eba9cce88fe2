// SharedMutex, ReaderLock and WriterLock: std::shared_mutex, and guards for its
// shared and exclusive modes, that clang's thread-safety analysis understands
// (common/thread_annotations.h; libstdc++'s std::shared_mutex has no annotations).
#pragma once

#include <mutex>
#include <shared_mutex>

#include "common/thread_annotations.h"

namespace tierfs {

class CAPABILITY("shared mutex") SharedMutex {
 public:
  SharedMutex() = default;
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;

  // Exclusive: blocks until no other thread holds it in either mode.
  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  // Shared: blocks while a thread holds it exclusively.
  void LockShared() ACQUIRE_SHARED() { mu_.lock_shared(); }
  void UnlockShared() RELEASE_SHARED() { mu_.unlock_shared(); }
  // Checks nothing at run time: tells the analysis that the calling thread
  // holds this mutex exclusively, on a path it cannot follow (taken, or kept,
  // under the same condition in two places). Every use says why it is true.
  void AssertHeld() const ASSERT_CAPABILITY(this) {}
  // The same for a shared hold.
  void AssertReaderHeld() const ASSERT_SHARED_CAPABILITY(this) {}

 private:
  std::shared_mutex mu_;
};

// Holds `mu` shared from construction to destruction, or, when made with
// std::defer_lock, from Lock on; Unlock gives it back early.
class SCOPED_CAPABILITY ReaderLock {
 public:
  explicit ReaderLock(SharedMutex& mu) ACQUIRE_SHARED(mu) : mu_(mu), held_(true) {
    mu.LockShared();
  }
  // Does not take `mu` yet (Lock does).
  ReaderLock(SharedMutex& mu, std::defer_lock_t) EXCLUDES(mu) : mu_(mu) {}
  ~ReaderLock() RELEASE() { UnlockIfHeld(); }
  ReaderLock(const ReaderLock&) = delete;
  ReaderLock& operator=(const ReaderLock&) = delete;

  // Takes the mutex shared (not held by this guard).
  void Lock() ACQUIRE_SHARED() {
    mu_.LockShared();
    held_ = true;
  }
  // Gives the mutex back (held by this guard).
  void Unlock() RELEASE() {
    mu_.UnlockShared();
    held_ = false;
  }
  // Gives the mutex back if this guard holds it: after branches that took or
  // gave it back on some paths only. Where such paths meet, the analysis
  // already counts the lock as not held (and allows no guarded access), which
  // this call makes true; so callers see no annotation, and the body, whose
  // unlock depends on held_, is not analysed.
  void UnlockIfHeld() NO_THREAD_SAFETY_ANALYSIS("held_ says at run time whether to unlock") {
    if (held_) mu_.UnlockShared();
    held_ = false;
  }

 private:
  SharedMutex& mu_;
  bool held_ = false;
};

// Holds `mu` exclusively from construction to destruction; Unlock gives it back
// early and Lock takes it again.
class SCOPED_CAPABILITY WriterLock {
 public:
  explicit WriterLock(SharedMutex& mu) ACQUIRE(mu) : mu_(mu), held_(true) { mu.Lock(); }
  ~WriterLock() RELEASE() { UnlockIfHeld(); }
  WriterLock(const WriterLock&) = delete;
  WriterLock& operator=(const WriterLock&) = delete;

  // Takes the mutex again (not held by this guard).
  void Lock() ACQUIRE() {
    mu_.Lock();
    held_ = true;
  }
  // Gives the mutex back (held by this guard).
  void Unlock() RELEASE() {
    mu_.Unlock();
    held_ = false;
  }
  // As ReaderLock::UnlockIfHeld.
  void UnlockIfHeld() NO_THREAD_SAFETY_ANALYSIS("held_ says at run time whether to unlock") {
    if (held_) mu_.Unlock();
    held_ = false;
  }

 private:
  SharedMutex& mu_;
  bool held_ = false;
};

}  // namespace tierfs
