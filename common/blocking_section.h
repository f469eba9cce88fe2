// BlockingSection: marks a system call that may sleep on a device (a read that
// misses the page cache, an fsync, an inode allocation), so that the thread
// pool serving the calling thread can let another thread take its place
// (fs/fuse/fuse_worker_pool.h).
//
// A pool installs its hooks in each of its threads (t_blocking_hooks); in any
// other thread (the periodic flush, the group committer, io_uring threads,
// tests) a BlockingSection costs a thread-local load and does nothing. Sections
// nest: only the outermost calls the hooks.
#pragma once

#include <cerrno>

namespace tierfs {

// What a section waits for. The pool learns how long each kind takes on this
// machine's devices: a write into the page cache returns sooner than another
// thread could be woken to serve meanwhile, a read from a disk does not, and
// neither does an O_DIRECT write (kDirectWrite), which always waits for the
// device: learnt apart, so that it never makes page-cache writes hand over.
enum class BlockingKind { kRead, kWrite, kDirectWrite, kSync, kNamespace };
inline constexpr int kBlockingKinds = 5;

class BlockingHooks {
 public:
  virtual ~BlockingHooks() = default;
  // The calling thread is about to block / is back. Thread-safe; cheap.
  virtual void EnterBlocking(BlockingKind kind) = 0;
  virtual void LeaveBlocking(BlockingKind kind) = 0;
};

// The hooks of the pool the calling thread belongs to, or nullptr.
inline thread_local BlockingHooks* t_blocking_hooks = nullptr;

class BlockingSection {
 public:
  explicit BlockingSection(BlockingKind kind) : hooks_(t_blocking_hooks), kind_(kind) {
    if (hooks_ != nullptr && depth_++ == 0) hooks_->EnterBlocking(kind_);
  }
  // Keeps errno: the section wraps a system call whose caller reads it.
  ~BlockingSection() {
    if (hooks_ != nullptr && --depth_ == 0) {
      const int saved = errno;
      hooks_->LeaveBlocking(kind_);
      errno = saved;
    }
  }
  BlockingSection(const BlockingSection&) = delete;
  BlockingSection& operator=(const BlockingSection&) = delete;

 private:
  BlockingHooks* const hooks_;
  const BlockingKind kind_;
  static inline thread_local int depth_ = 0;
};

}  // namespace tierfs
