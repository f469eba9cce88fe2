// The read-ahead window of files on an object volume (fs/core/store_readahead.h):
// sequential reads cost one fetch per window, bytes come out right at every
// offset, the end of the object bounds every fetch, and errors pass through.
#include "fs/core/store_readahead.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <cstring>
#include <string>
#include <vector>

namespace tierfs {
namespace {

// An object of `size` bytes where byte i is (i * 7) mod 251, and a fetch that counts.
struct FakeObject {
  explicit FakeObject(uint64_t size) : size(size) {}
  StoreReadahead::Fetch fetch() {
    return [this](uint64_t offset, size_t length, char* buf) -> Result<size_t> {
      ++fetches;
      if (fail) return Status::Io("store down");
      const size_t n = static_cast<size_t>(std::min<uint64_t>(length, size - offset));
      for (size_t i = 0; i < n; ++i) buf[i] = static_cast<char>(((offset + i) * 7) % 251);
      return n;
    };
  }
  bool Matches(uint64_t offset, const char* got, size_t n) const {
    for (size_t i = 0; i < n; ++i) {
      if (got[i] != static_cast<char>(((offset + i) * 7) % 251)) return false;
    }
    return true;
  }
  uint64_t size;
  std::atomic<int> fetches{0};
  std::atomic<bool> fail{false};
};

TEST(StoreReadaheadTest, SequentialReadsFetchOncePerWindow) {
  const uint64_t size = 3 * kStoreReadaheadBytes + 12345;
  FakeObject object(size);
  StoreReadahead window;
  std::vector<char> buf(128 << 10);
  uint64_t offset = 0;
  while (offset < size) {
    auto n = window.Read(offset, buf.size(), size, buf.data(), object.fetch());
    ASSERT_TRUE(n.ok());
    ASSERT_GT(*n, 0u);
    ASSERT_TRUE(object.Matches(offset, buf.data(), *n)) << "at " << offset;
    offset += *n;
  }
  EXPECT_EQ(offset, size);
  // 128 KiB reads never straddle windows here: one fetch per window, the
  // later ones made in the background while the reader was in the window before.
  EXPECT_EQ(object.fetches.load(), 4);
  auto end = window.Read(size, buf.size(), size, buf.data(), object.fetch());
  ASSERT_TRUE(end.ok());
  EXPECT_EQ(*end, 0u);
  EXPECT_EQ(object.fetches.load(), 4) << "a read at the end fetches nothing";
}

TEST(StoreReadaheadTest, ARandomReadOutsideTheWindowFetchesFromItsOffset) {
  const uint64_t size = 10 * kStoreReadaheadBytes;
  FakeObject object(size);
  StoreReadahead window;
  std::vector<char> buf(4096);
  for (uint64_t offset : {uint64_t{0}, 9 * kStoreReadaheadBytes + 3, uint64_t{4096}, size - 100}) {
    auto n = window.Read(offset, buf.size(), size, buf.data(), object.fetch());
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(*n, std::min<uint64_t>(buf.size(), size - offset));
    EXPECT_TRUE(object.Matches(offset, buf.data(), *n)) << offset;
  }
  EXPECT_EQ(object.fetches.load(), 4);
}

TEST(StoreReadaheadTest, ErrorsPassThroughAndTheWindowIsNotTrusted) {
  FakeObject object(1 << 20);
  StoreReadahead window;
  std::vector<char> buf(4096);
  object.fail = true;
  auto n = window.Read(0, buf.size(), object.size, buf.data(), object.fetch());
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().code(), EIO);
  object.fail = false;
  n = window.Read(0, buf.size(), object.size, buf.data(), object.fetch());
  ASSERT_TRUE(n.ok());
  EXPECT_TRUE(object.Matches(0, buf.data(), *n));
}

TEST(StoreReadaheadTest, WindowsStayWithinTheBudget) {
  const size_t before = StoreReadahead::HeldBytes();
  {
    std::vector<std::unique_ptr<StoreReadahead>> windows;
    const size_t most = kStoreReadaheadBudget / kStoreReadaheadBytes;
    FakeObject object(1 << 20);
    char c;
    for (size_t i = 0; i < most + 3; ++i) {
      windows.push_back(std::make_unique<StoreReadahead>());
      ASSERT_TRUE(windows.back()->Read(5, 1, object.size, &c, object.fetch()).ok());
      EXPECT_TRUE(object.Matches(5, &c, 1));
    }
    EXPECT_LE(StoreReadahead::HeldBytes(), kStoreReadaheadBudget);
  }
  EXPECT_EQ(StoreReadahead::HeldBytes(), before) << "windows give their memory back";
}

}  // namespace
}  // namespace tierfs
