// StoreReadahead: one open file's window of bytes read ahead from an object
// volume (issue 29), so that the kernel's 128 KiB READs of a file on the store
// cost one ranged GET per window instead of one each.
//
// A window is kStoreReadaheadBytes (8 MiB) from the offset that missed. Once a
// read reaches the second half of the window, the next window is fetched in
// the background (double buffering), so a sequential reader rarely waits for
// the store: one GET is in flight while the reader copies from the other.
// All windows of the daemon together stay under kStoreReadaheadBudget
// (256 MiB: 16 reading handles, two windows each): a handle that cannot have its
// windows reads exactly what was asked. The memory goes back when the handle
// is released (after any fetch in flight ends: bounded by the fetch's own
// timeouts).
//
// Thread-safe: reads of one handle serialize on the window's mutex.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <vector>

#include "common/mutex.h"
#include "common/status.h"
#include "common/thread_annotations.h"

namespace tierfs {

inline constexpr size_t kStoreReadaheadBytes = size_t{8} << 20;
inline constexpr size_t kStoreReadaheadBudget = size_t{256} << 20;

class StoreReadahead {
 public:
  // Fetches up to `length` bytes from `offset` of the object into `buf`:
  // returns the count (short only at the object's end) or the store's error.
  // Called from the reading thread and from a background one: it must own
  // what it uses (capture by value).
  using Fetch = std::function<Result<size_t>(uint64_t offset, size_t length, char* buf)>;

  StoreReadahead() = default;
  ~StoreReadahead();
  StoreReadahead(const StoreReadahead&) = delete;
  StoreReadahead& operator=(const StoreReadahead&) = delete;

  // Copies bytes [offset, offset + size) of an object of `object_size` bytes
  // into `out`, from a window when one holds them, else through `fetch` (a
  // new window from `offset`, or just the request without budget). Returns the
  // bytes copied (0 at or past the end), or fetch's error.
  Result<size_t> Read(uint64_t offset, size_t size, uint64_t object_size, char* out,
                      const Fetch& fetch) EXCLUDES(mu_);

  // Bytes held by all windows now (for tests and metrics).
  static size_t HeldBytes() { return held_.load(); }

 private:
  struct Window {
    std::vector<char> bytes;
    uint64_t start = 0;   // object offset of bytes[0]
    size_t filled = 0;    // valid bytes
  };
  // Takes two windows' worth from the budget; false when it has no room.
  static bool Reserve();
  // Waits for the background fetch, if any, and makes it the next window
  // (an error leaves it empty).
  void SettleNextLocked() REQUIRES(mu_);
  // Starts fetching the window after `current_` in the background.
  void PrefetchLocked(uint64_t object_size, const Fetch& fetch) REQUIRES(mu_);

  Mutex mu_;
  bool reserved_ GUARDED_BY(mu_) = false;  // two windows taken from the budget
  Window current_ GUARDED_BY(mu_);
  Window next_ GUARDED_BY(mu_);
  std::future<Result<size_t>> pending_ GUARDED_BY(mu_);  // fills next_.bytes
  uint64_t pending_start_ GUARDED_BY(mu_) = 0;
  static std::atomic<size_t> held_;
};

}  // namespace tierfs
