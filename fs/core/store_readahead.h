// StoreReadahead: one open file's window of bytes read ahead from an object
// volume, so that the kernel's 128 KiB READs of a file on the store
// cost one ranged GET per window instead of one each.
//
// A window is kStoreReadaheadBytes (4 MiB) from the offset that missed. A
// miss right at the end of the window (a sequential reader) doubles the next
// one, up to kStoreReadaheadMaxBytes (32 MiB), so a long stream pays the
// store's per-request latency once per 32 MiB instead of once per 4 (a 256 MiB
// file read with cat: 190 MiB/s with fixed 4 MiB windows, bench/objstore.sh);
// any other miss starts again at 4 MiB. All windows of the daemon together
// stay under kStoreReadaheadBudget (256 MiB): a handle that cannot have one
// reads exactly what was asked, with no window, and one that cannot grow keeps
// its size. The memory goes back when the handle is released.
//
// On a slow link a window is also no larger than the link delivers in
// kStoreWindowSeconds, measured on the handle's last window (never below
// kStoreReadaheadMinBytes): the read(2) that waits for it must end well within
// the quick client's bound (kQuickRequestSeconds, 4 s), or a slow store would
// look like a dead one. A window fetch that times out is tried once more for
// the request's bytes alone.
//
// A window holds bytes of one object: when its file moves (a recall, an upload,
// which may put other bytes under the same key), the relocator's commit calls
// Invalidate() on every open handle's window, and no read is served from bytes
// fetched before that.
//
// Thread-safe: reads of one handle serialize on the window's mutex;
// Invalidate() takes no lock.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "common/mutex.h"
#include "common/status.h"
#include "common/thread_annotations.h"

namespace tierfs {

inline constexpr size_t kStoreReadaheadBytes = size_t{4} << 20;
inline constexpr size_t kStoreReadaheadMaxBytes = size_t{32} << 20;
inline constexpr size_t kStoreReadaheadBudget = size_t{256} << 20;
inline constexpr size_t kStoreReadaheadMinBytes = size_t{256} << 10;
inline constexpr double kStoreWindowSeconds = 1.0;

class StoreReadahead {
 public:
  // Fetches up to `length` bytes from `offset` of the object into `buf`:
  // returns the count (short only at the object's end) or the store's error.
  using Fetch = std::function<Result<size_t>(uint64_t offset, size_t length, char* buf)>;

  // `now_seconds`: a monotonic clock in seconds (tests pass a fake one).
  explicit StoreReadahead(std::function<double()> now_seconds = SteadySeconds)
      : now_seconds_(std::move(now_seconds)) {}
  ~StoreReadahead();
  StoreReadahead(const StoreReadahead&) = delete;
  StoreReadahead& operator=(const StoreReadahead&) = delete;

  // Copies bytes [offset, offset + size) of an object of `object_size` bytes
  // into `out`, from the window when it holds them, else through `fetch` (a
  // new window from `offset`, or just the request without budget). Returns the
  // bytes copied (0 at or past the end), or fetch's error.
  Result<size_t> Read(uint64_t offset, size_t size, uint64_t object_size, char* out,
                      const Fetch& fetch) EXCLUDES(mu_);

  // Drops the bytes held (the file moved). Wait-free: it may be called under the
  // inode's lock while a read waits on the store. A fetch in flight returns its
  // bytes to its own read (which began before the move), but they are not used
  // again.
  void Invalidate() { invalidations_.fetch_add(1, std::memory_order_acq_rel); }

  // Bytes held by all windows now (for tests and metrics).
  static size_t HeldBytes() { return held_.load(); }

  // The steady clock, in seconds.
  static double SteadySeconds();

 private:
  // Takes `bytes` more from the daemon's budget: false (nothing taken) when
  // the budget has no room.
  static bool Reserve(size_t bytes);

  Mutex mu_;
  std::vector<char> window_ GUARDED_BY(mu_);
  uint64_t start_ GUARDED_BY(mu_) = 0;  // object offset of window_[0]
  size_t filled_ GUARDED_BY(mu_) = 0;   // valid bytes in window_
  // invalidations_ when window_ was filled: the bytes are good while it is equal.
  uint64_t filled_at_ GUARDED_BY(mu_) = 0;
  // What the link delivered to the last window fetch, bytes per second (0:
  // not measured yet).
  double bytes_per_second_ GUARDED_BY(mu_) = 0;
  const std::function<double()> now_seconds_;
  std::atomic<uint64_t> invalidations_{0};
  static std::atomic<size_t> held_;
};

}  // namespace tierfs
