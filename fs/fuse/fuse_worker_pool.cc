#include "fs/fuse/fuse_worker_pool.h"

#include <fuse_lowlevel.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <list>
#include <memory>

#include "common/blocking_section.h"
#include "common/cond_var.h"
#include "common/log.h"
#include "common/mutex.h"
#include "common/thread_annotations.h"
#include "fs/fuse/receive_buffer.h"

namespace tierfs {
namespace {

class Pool final : public BlockingHooks {
 public:
  Pool(fuse_session* se, const FuseWorkerPoolOptions& options)
      : se_(se),
        max_threads_(std::max(1, options.max_threads)),
        runners_(std::clamp(options.runners, 1, max_threads_)),
        page_aligned_writes_(options.page_aligned_writes) {
    sem_init(&finish_, 0, 0);
    for (std::atomic<int64_t>& typical : typical_ns_) typical.store(kHandOffNs * 10);
  }
  ~Pool() override { sem_destroy(&finish_); }
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  FuseServeEnd Serve() EXCLUDES(mu_);

  // A worker is about to block on a device: if calls of this kind take longer
  // than waking a thread does, while no other worker waits for a request and
  // fewer than runners_ are left running, wake a parked worker (or start one)
  // to read in its place.
  void EnterBlocking(BlockingKind kind) override EXCLUDES(mu_) {
    t_section_start = std::chrono::steady_clock::now();
    blocked_.fetch_add(1);
    // A fast kind takes no lock: volume reads and writes are the data path.
    if (typical_ns_[static_cast<int>(kind)].load(std::memory_order_relaxed) < kHandOffNs) return;
    MutexLock lock(mu_);
    if (stopping_ || reading_ > 0 || active_ - blocked_ >= runners_) return;
    if (parked_ > wakes_) {
      ++wakes_;
      parked_cv_.NotifyOne();
    } else if (static_cast<int>(workers_.size()) < max_threads_) {
      StartLocked();
    }
  }
  // Learns how long calls of `kind` take: a slow one counts at once (a device
  // that just turned slow makes the next calls hand off), fast ones bring the
  // figure down by an eighth of the difference each.
  void LeaveBlocking(BlockingKind kind) override {
    const int64_t took = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::steady_clock::now() - t_section_start)
                             .count();
    std::atomic<int64_t>& typical = typical_ns_[static_cast<int>(kind)];
    const int64_t was = typical.load(std::memory_order_relaxed);
    typical.store(took >= was ? took : was - (was - took) / 8, std::memory_order_relaxed);
    blocked_.fetch_sub(1);
  }

 private:
  struct Worker {
    Pool* pool = nullptr;
    pthread_t thread{};
    // The request buffer, reused: `aligned`'s memory, or else libfuse's (freed
    // after the join).
    fuse_buf buf{};
    std::unique_ptr<ReceiveBuffer> aligned;
    // In fuse_session_receive_buf, cancellable; under the pool's mu_ (not
    // annotated: the analysis cannot tell that `pool` is the pool holding it).
    bool receiving = false;
  };

  static void* Main(void* arg) {
    auto* w = static_cast<Worker*>(arg);
    w->pool->Work(w);
    return nullptr;
  }
  void Work(Worker* w) EXCLUDES(mu_);
  // Starts one more worker; it counts as active from now on.
  void StartLocked() REQUIRES(mu_);
  // The first end wins: wakes the parked workers and Serve.
  void StopLocked(int error) REQUIRES(mu_);

  // A call expected to take at least this long hands its worker's place over:
  // several times what waking a parked thread costs (a few microseconds), so
  // that a read or write served from the page cache never pays for a wake-up.
  static constexpr int64_t kHandOffNs = 30'000;
  static inline thread_local std::chrono::steady_clock::time_point t_section_start;

  fuse_session* const se_;
  const int max_threads_;
  const int runners_;
  const bool page_aligned_writes_;
  Mutex mu_;  // guards everything below but blocked_ and typical_ns_
  CondVar parked_cv_;
  std::list<Worker> workers_ GUARDED_BY(mu_);  // a list: a Worker's address stays put
  int active_ GUARDED_BY(mu_) = 0;  // workers not parked
  // Active workers inside a BlockingSection: atomic, so that a section of a
  // fast kind changes it without mu_ (read under mu_ for the decisions).
  std::atomic<int> blocked_{0};
  int reading_ GUARDED_BY(mu_) = 0;  // workers waiting in fuse_session_receive_buf
  int parked_ GUARDED_BY(mu_) = 0;
  int wakes_ GUARDED_BY(mu_) = 0;  // parked workers told to run, not yet running
  bool stopping_ GUARDED_BY(mu_) = false;
  int error_ GUARDED_BY(mu_) = 0;
  // How long calls of each BlockingKind took of late, ns (LeaveBlocking); a
  // kind starts out slow, so that its first calls hand off.
  std::array<std::atomic<int64_t>, kBlockingKinds> typical_ns_{};
  sem_t finish_;  // posted at the stop; a semaphore, whose wait a signal interrupts
};

void Pool::StartLocked() {
  Worker& w = workers_.emplace_back();
  w.pool = this;
  ++active_;
  // Workers block the stop signals (as libfuse's do): they go to the main
  // thread (Serve), and no request is interrupted by one.
  sigset_t stop, old;
  sigemptyset(&stop);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT}) sigaddset(&stop, sig);
  pthread_sigmask(SIG_BLOCK, &stop, &old);
  const int rc = pthread_create(&w.thread, nullptr, &Pool::Main, &w);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (rc != 0) {
    LogWarning("cannot start a FUSE worker thread: errno {}", rc);
    --active_;
    workers_.pop_back();
  }
}

void Pool::StopLocked(int error) {
  if (stopping_) return;
  stopping_ = true;
  error_ = error;
  parked_cv_.NotifyAll();
  sem_post(&finish_);
}

void Pool::Work(Worker* w) {
  t_blocking_hooks = this;
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, nullptr);
  if (page_aligned_writes_) {
    w->aligned = std::make_unique<ReceiveBuffer>();
    w->buf.mem = w->aligned->data();
    SetThreadReceiveCapacity(ReceiveBuffer::kCapacity);
  }
  MutexLock lock(mu_);
  while (true) {
    // More workers run than there are CPUs for them: wait until one blocks.
    if (!stopping_ && active_ - blocked_ > runners_) {
      --active_;
      ++parked_;
      while (!stopping_ && wakes_ == 0) parked_cv_.Wait(mu_);
      --parked_;
      ++active_;
      if (wakes_ > 0) --wakes_;
    }
    if (stopping_) break;
    if (fuse_session_exited(se_)) {
      StopLocked(0);
      break;
    }
    ++reading_;
    w->receiving = true;
    lock.Unlock();
    // Cancellable only while waiting for a request (libfuse's loop does the
    // same): Serve cancels the workers still waiting once the session ends.
    pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, nullptr);
    const int res = fuse_session_receive_buf(se_, &w->buf);
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, nullptr);
    lock.Lock();
    w->receiving = false;
    --reading_;
    if (res == -EINTR || res == -EAGAIN) continue;
    if (res <= 0) {  // 0: the session ended (unmounted, or a signal's exit)
      if (res < 0) fuse_session_exit(se_);
      StopLocked(-res);
      break;
    }
    lock.Unlock();
    fuse_session_process_buf(se_, &w->buf);
    lock.Lock();
  }
  --active_;
}

FuseServeEnd Pool::Serve() {
  {
    MutexLock lock(mu_);
    for (int i = 0; i < runners_; ++i) StartLocked();
    if (workers_.empty()) return {EAGAIN, false};
  }
  // A stop signal's handler ends the session and interrupts this wait (the
  // main thread gets process-directed signals first; the workers block them);
  // a worker that sees the session end posts the semaphore. The wait is
  // bounded: a signal handled just before it began interrupts nothing.
  bool interrupted = false;
  while (!fuse_session_exited(se_)) {
    {
      MutexLock lock(mu_);
      if (stopping_) break;
    }
    timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 1;
    interrupted = sem_timedwait(&finish_, &until) != 0 && errno == EINTR;
  }
  std::list<Worker> done;
  FuseServeEnd end;
  {
    MutexLock lock(mu_);
    end.by_signal = interrupted;
    StopLocked(0);
    end.error = error_;
    for (Worker& w : workers_) {
      if (w.receiving) pthread_cancel(w.thread);
    }
    // No worker starts from here on (stopping_), so the list is complete.
    done.splice(done.end(), workers_);
  }
  for (Worker& w : done) {
    pthread_join(w.thread, nullptr);
    if (w.aligned == nullptr) free(w.buf.mem);
  }
  return end;
}

}  // namespace

FuseServeEnd ServeFuseSession(fuse_session* se, const FuseWorkerPoolOptions& options) {
  Pool pool(se, options);
  return pool.Serve();
}

int DefaultFuseRunners(int max_threads) {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const int runners = static_cast<int>(std::clamp(cpus, 2L, 1024L));
  return std::max(1, std::min(runners, max_threads));
}

}  // namespace tierfs
