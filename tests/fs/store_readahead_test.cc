// StoreReadahead: the window of a handle reading a file on an object volume.
// The store is a function that records the ranges asked for and fills them
// with bytes derived from their offsets.
#include "fs/core/store_readahead.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <utility>
#include <vector>

namespace tierfs {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

char ByteAt(uint64_t offset) { return static_cast<char>(offset * 7 + 3); }

struct FakeStore {
  std::vector<std::pair<uint64_t, size_t>> fetches;  // (offset, length)
  StoreReadahead::Fetch fetch = [this](uint64_t offset, size_t length, char* buf) {
    fetches.emplace_back(offset, length);
    for (size_t i = 0; i < length; ++i) buf[i] = ByteAt(offset + i);
    return Result<size_t>(length);
  };
};

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
  EXPECT_EQ(StoreReadahead::HeldBytes(), kStoreReadaheadMaxBytes);
}

TEST(StoreReadaheadTest, NoReadIsServedFromBytesFetchedBeforeAnInvalidation) {
  FakeStore store;
  StoreReadahead window;
  const uint64_t object = 10 * kMiB;
  ASSERT_NO_FATAL_FAILURE(ReadAndCheck(window, store, 0, 4096, object));
  ASSERT_NO_FATAL_FAILURE(ReadAndCheck(window, store, 4096, 4096, object));  // from the window
  ASSERT_EQ(store.fetches.size(), 1u);
  window.Invalidate();  // the file moved: the same key may hold other bytes now
  ASSERT_NO_FATAL_FAILURE(ReadAndCheck(window, store, 8192, 4096, object));
  ASSERT_EQ(store.fetches.size(), 2u);
  EXPECT_EQ(store.fetches[1].first, 8192u);
  // An invalidation while a fetch is in flight: that read gets its bytes, the
  // next read fetches again.
  StoreReadahead::Fetch racing = [&](uint64_t offset, size_t length, char* buf) {
    window.Invalidate();
    return store.fetch(offset, length, buf);
  };
  std::vector<char> out(4096);
  ASSERT_TRUE(window.Read(6 * kMiB, 4096, object, out.data(), racing).ok());
  ASSERT_NO_FATAL_FAILURE(ReadAndCheck(window, store, 6 * kMiB + 4096, 4096, object));
  EXPECT_EQ(store.fetches.size(), 4u);
}

TEST(StoreReadaheadTest, OnASlowLinkAWindowIsWhatTheLinkDeliversInASecond) {
  double now = 0;
  const double link = 1.5 * kMiB;  // bytes per second
  FakeStore store;
  StoreReadahead::Fetch slow = [&](uint64_t offset, size_t length, char* buf) {
    now += static_cast<double>(length) / link;
    return store.fetch(offset, length, buf);
  };
  StoreReadahead window([&] { return now; });
  const uint64_t object = 64 * kMiB;
  std::vector<char> out(128 << 10);
  for (uint64_t off = 0; off < 12 * kMiB; off += out.size()) {
    ASSERT_TRUE(window.Read(off, out.size(), object, out.data(), slow).ok());
  }
  // The first window (4 MiB) took 2.7 s; every later one is what the link
  // brings in a second, in 64 KiB steps, not the doubling a fast link gets.
  ASSERT_GE(store.fetches.size(), 3u);
  EXPECT_EQ(store.fetches[0].second, 4 * kMiB);
  for (size_t i = 1; i < store.fetches.size(); ++i) {
    EXPECT_EQ(store.fetches[i].second, size_t{1536} << 10) << i;
  }
}

TEST(StoreReadaheadTest, AWindowThatTimesOutIsTriedAgainForTheRequestAlone) {
  FakeStore store;
  int calls = 0;
  StoreReadahead::Fetch first_times_out = [&](uint64_t offset, size_t length, char* buf) {
    if (++calls == 1) return Result<size_t>(Status::Error(ETIMEDOUT, "stalled"));
    return store.fetch(offset, length, buf);
  };
  StoreReadahead window;
  std::vector<char> out(4096);
  auto n = window.Read(0, out.size(), 10 * kMiB, out.data(), first_times_out);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, out.size());
  ASSERT_EQ(store.fetches.size(), 1u);
  EXPECT_EQ(store.fetches[0].second, out.size());
  // The next window is small: what a second brought, at least 256 KiB.
  ASSERT_NO_FATAL_FAILURE(ReadAndCheck(window, store, 1 * kMiB, 4096, 10 * kMiB));
  EXPECT_EQ(store.fetches.back().second, kStoreReadaheadMinBytes);
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
