// StoreReadahead: one open file's window of bytes read ahead from an object
// volume (issue 29), so that the kernel's 128 KiB READs of a file on the store
// cost one ranged GET per window instead of one each.
//
// A window is kStoreReadaheadBytes (4 MiB) from the offset that missed. A
// miss right at the end of the window (a sequential reader) doubles the next
// one, up to kStoreReadaheadMaxBytes (32 MiB), so a long stream pays the
// store's per-request latency once per 32 MiB instead of once per 4 (a 256 MiB
// file read with cat: 190 MiB/s with fixed 4 MiB windows, bench/objstore.sh);
// any other miss starts again at 4 MiB.
//
// Once a reader has used half of a full window, the next one (twice the size,
// up to the maximum) is fetched in the background, so that the store sends it
// while the kernel takes the first: a sequential reader then waits for the
// store only when it outruns it. A read that lands in the fetched window waits
// for it and makes it the window; a read elsewhere drops it (after its GET
// ends: ObjectVolume's quick bounds, a few seconds at worst).
//
// All windows of the daemon together, fetched ahead or not, stay under
// kStoreReadaheadBudget (256 MiB): a handle that cannot have one reads exactly
// what was asked, with no window, one that cannot grow keeps its size, and
// none is fetched ahead without room. The memory goes back when the handle is
// released; the destructor waits for a background fetch to end.
//
// Thread-safe: reads of one handle serialize on the window's mutex.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <vector>

#include "common/mutex.h"
#include "common/status.h"
#include "common/thread_annotations.h"

namespace tierfs {

inline constexpr size_t kStoreReadaheadBytes = size_t{4} << 20;
inline constexpr size_t kStoreReadaheadMaxBytes = size_t{32} << 20;
inline constexpr size_t kStoreReadaheadBudget = size_t{256} << 20;

class StoreReadahead {
 public:
  // Fetches up to `length` bytes from `offset` of the object into `buf`:
  // returns the count (short only at the object's end) or the store's error.
  // Also called on a thread of its own for the window fetched ahead: it must
  // hold no reference to the caller's stack.
  using Fetch = std::function<Result<size_t>(uint64_t offset, size_t length, char* buf)>;

  StoreReadahead() = default;
  ~StoreReadahead();
  StoreReadahead(const StoreReadahead&) = delete;
  StoreReadahead& operator=(const StoreReadahead&) = delete;

  // Copies bytes [offset, offset + size) of an object of `object_size` bytes
  // into `out`, from the window when it holds them, else through `fetch` (a
  // new window from `offset`, or just the request without budget). Returns the
  // bytes copied (0 at or past the end), or fetch's error.
  Result<size_t> Read(uint64_t offset, size_t size, uint64_t object_size, char* out,
                      const Fetch& fetch) EXCLUDES(mu_);

  // Bytes held by all windows now (for tests and metrics).
  static size_t HeldBytes() { return held_.load(); }

 private:
  // Takes `bytes` more from the daemon's budget: false (nothing taken) when
  // the budget has no room.
  static bool Reserve(size_t bytes);

  // The window fetched in the background: its bytes, where they start, and
  // the fetch's result (the count filled).
  struct Ahead {
    std::vector<char> bytes;
    uint64_t start = 0;
    std::future<Result<size_t>> done;
  };
  // Starts fetching the window after this one when a read that ended at
  // object offset `read_end` used half of a full window and the object goes
  // on, the budget allowing.
  void MaybeFetchAhead(uint64_t read_end, uint64_t object_size, const Fetch& fetch)
      REQUIRES(mu_);
  // Waits for the window fetched ahead and makes it the window: true when it
  // holds `offset` (its fetch succeeded and reached that far). Either way it
  // is no longer ahead.
  bool TakeAhead(uint64_t offset) REQUIRES(mu_);
  // Waits for the window fetched ahead, if any, and gives its memory back.
  void DropAhead() REQUIRES(mu_);

  Mutex mu_;
  std::vector<char> window_ GUARDED_BY(mu_);
  uint64_t start_ GUARDED_BY(mu_) = 0;  // object offset of window_[0]
  size_t filled_ GUARDED_BY(mu_) = 0;   // valid bytes in window_
  std::unique_ptr<Ahead> ahead_ GUARDED_BY(mu_);  // null: none being fetched
  static std::atomic<size_t> held_;
};

}  // namespace tierfs
