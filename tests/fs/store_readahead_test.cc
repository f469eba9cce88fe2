// StoreReadahead: the window of a handle reading a file on an object volume.
// The store is a function that records the ranges asked for (and whether the
// reader's thread asked, or the fetch ahead's) and fills them with bytes
// derived from their offsets; it can be told to fail ranges from an offset.
#include "fs/core/store_readahead.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace tierfs {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

char ByteAt(uint64_t offset) { return static_cast<char>(offset * 7 + 3); }

struct FakeStore {
  std::mutex mu;  // fetches ahead run on threads of their own
  std::vector<std::pair<uint64_t, size_t>> fetches;  // (offset, length)
  std::vector<bool> ahead;                           // fetched off the reader's thread
  uint64_t fail_from = UINT64_MAX;                   // ranges from here fail with EIO
  const std::thread::id reader = std::this_thread::get_id();
  StoreReadahead::Fetch fetch = [this](uint64_t offset, size_t length, char* buf) {
    std::lock_guard lock(mu);
    fetches.emplace_back(offset, length);
    ahead.push_back(std::this_thread::get_id() != reader);
    if (offset >= fail_from) return Result<size_t>(Status::Io("store down"));
    for (size_t i = 0; i < length; ++i) buf[i] = ByteAt(offset + i);
    return Result<size_t>(length);
  };
};

// Waits (bounded, 5 s) until the store has been asked for `n` ranges.
void WaitForFetches(FakeStore& store, size_t n) {
  for (int i = 0; i < 500; ++i) {
    {
      std::lock_guard lock(store.mu);
      if (store.fetches.size() >= n) return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ADD_FAILURE() << "the store was not asked for " << n << " ranges within 5 s";
}

// Reads [offset, offset + size) through `window` and checks every byte.
void ReadAndCheck(StoreReadahead& window, FakeStore& store, uint64_t offset, size_t size,
                  uint64_t object_size) {
  std::vector<char> out(size);
  auto n = window.Read(offset, size, object_size, out.data(), store.fetch);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  ASSERT_EQ(*n, std::min<uint64_t>(size, object_size - offset));
  for (size_t i = 0; i < *n; ++i) ASSERT_EQ(out[i], ByteAt(offset + i)) << offset + i;
}

TEST(StoreReadaheadTest, ASequentialReaderGetsDoublingWindowsUpToTheMaximum) {
  FakeStore store;
  StoreReadahead window;
  const uint64_t object = 200 * kMiB;
  for (uint64_t off = 0; off < object; off += 128 << 10) {
    ASSERT_NO_FATAL_FAILURE(ReadAndCheck(window, store, off, 128 << 10, object));
  }
  std::vector<size_t> lengths;
  for (const auto& [offset, length] : store.fetches) lengths.push_back(length);
  const std::vector<size_t> want = {4 * kMiB,  8 * kMiB,  16 * kMiB, 32 * kMiB, 32 * kMiB,
                                    32 * kMiB, 32 * kMiB, 32 * kMiB, 12 * kMiB};
  EXPECT_EQ(lengths, want);
  // Only the first window made the reader wait for a whole GET: every later
  // one was fetched ahead while it read the one before.
  const std::vector<bool> ahead = {false, true, true, true, true, true, true, true, true};
  EXPECT_EQ(store.ahead, ahead);
  EXPECT_EQ(StoreReadahead::HeldBytes(), 12 * kMiB);  // the last window, cut at the end
}

TEST(StoreReadaheadTest, AFailedFetchAheadIsFetchedAgainByTheReader) {
  FakeStore store;
  const uint64_t object = 64 * kMiB;
  {
    StoreReadahead window;
    ASSERT_NO_FATAL_FAILURE(ReadAndCheck(window, store, 0, 1 << 20, object));
    {
      std::lock_guard lock(store.mu);
      store.fail_from = 4 * kMiB;  // the window ahead (from 4 MiB) fails
    }
    ASSERT_NO_FATAL_FAILURE(ReadAndCheck(window, store, 2 * kMiB, 1 << 20, object));
    WaitForFetches(store, 2);  // the window ahead, on its own thread
    {
      std::lock_guard lock(store.mu);
      ASSERT_EQ(store.fetches.size(), 2u);
      EXPECT_TRUE(store.ahead[1]);
      store.fail_from = UINT64_MAX;  // the store is back
    }
    // A read across the window's end, into the failed one: fetched whole by
    // the reader, never a short read.
    ASSERT_NO_FATAL_FAILURE(ReadAndCheck(window, store, 4 * kMiB - 4096, 1 << 20, object));
    std::lock_guard lock(store.mu);
    ASSERT_GE(store.fetches.size(), 3u);
    EXPECT_EQ(store.fetches[2].first, 4 * kMiB - 4096);
    EXPECT_FALSE(store.ahead[2]);
  }
  EXPECT_EQ(StoreReadahead::HeldBytes(), 0u);
}

TEST(StoreReadaheadTest, AJumpDropsTheWindowFetchedAheadAndItsMemory) {
  FakeStore store;
  StoreReadahead window;
  const uint64_t object = 64 * kMiB;
  ASSERT_NO_FATAL_FAILURE(ReadAndCheck(window, store, 0, 3 * kMiB, object));  // ahead: 8 MiB
  ASSERT_NO_FATAL_FAILURE(ReadAndCheck(window, store, 40 * kMiB, 4096, object));
  // The 4 MiB window from 40 MiB, nothing ahead (the reader is at its start).
  EXPECT_EQ(StoreReadahead::HeldBytes(), kStoreReadaheadBytes);
  std::lock_guard lock(store.mu);
  ASSERT_EQ(store.fetches.size(), 3u);
  EXPECT_EQ(store.fetches[1], std::make_pair(uint64_t{4 * kMiB}, 8 * kMiB));
  EXPECT_EQ(store.fetches[2], std::make_pair(uint64_t{40 * kMiB}, kStoreReadaheadBytes));
}

TEST(StoreReadaheadTest, AMissElsewhereStartsAgainAtTheFirstSize) {
  FakeStore store;
  StoreReadahead window;
  const uint64_t object = 100 * kMiB;
  ASSERT_NO_FATAL_FAILURE(ReadAndCheck(window, store, 0, 4 * kMiB, object));
  ASSERT_NO_FATAL_FAILURE(ReadAndCheck(window, store, 4 * kMiB, 4096, object));  // grows to 8
  ASSERT_NO_FATAL_FAILURE(ReadAndCheck(window, store, 60 * kMiB, 4096, object));  // a jump
  ASSERT_EQ(store.fetches.size(), 3u);
  EXPECT_EQ(store.fetches[1].second, 8 * kMiB);
  EXPECT_EQ(store.fetches[2], std::make_pair(uint64_t{60 * kMiB}, kStoreReadaheadBytes));
  EXPECT_EQ(StoreReadahead::HeldBytes(), kStoreReadaheadBytes);  // the 8 MiB went back
}

TEST(StoreReadaheadTest, WindowsStayWithinTheBudgetAndGiveItBack) {
  FakeStore store;
  const uint64_t object = 64 * kMiB;
  std::vector<std::unique_ptr<StoreReadahead>> handles;
  const size_t fit = kStoreReadaheadBudget / kStoreReadaheadBytes;
  for (size_t i = 0; i < fit + 1; ++i) {
    handles.push_back(std::make_unique<StoreReadahead>());
    ASSERT_NO_FATAL_FAILURE(ReadAndCheck(*handles.back(), store, 0, 4096, object));
  }
  EXPECT_EQ(StoreReadahead::HeldBytes(), kStoreReadaheadBudget);
  // The last handle had no room: it read exactly what it asked for.
  EXPECT_EQ(store.fetches.back().second, 4096u);
  // A full budget: a sequential reader keeps its window's size.
  ASSERT_NO_FATAL_FAILURE(ReadAndCheck(*handles.front(), store, 4 * kMiB, 4096, object));
  EXPECT_EQ(store.fetches.back().second, kStoreReadaheadBytes);
  handles.clear();
  EXPECT_EQ(StoreReadahead::HeldBytes(), 0u);
}

}  // namespace
}  // namespace tierfs
