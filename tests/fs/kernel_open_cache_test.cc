// KernelOpenCache (no-open mode's handles) and DelayedAttributeFlush (the
// attribute flushes of files written through them), without a mount: which handles are made, kept, evicted and released, and when.
#include "fs/core/kernel_open_cache.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "fs/core/delayed_attribute_flush.h"

namespace tierfs {
namespace {

// Opens handles of fresh entries and records every open and release.
class Recorder {
 public:
  KernelOpenCache::OpenFn Open() {
    return [this](uint64_t ino) -> Result<FileHandle*> {
      if (ino == kMissing) return Status::Error(ENOENT, "no such inode");
      std::lock_guard lock(mu_);
      ++opens_;
      auto* fh = new FileHandle;
      meta::Inode row;
      row.ino = ino;
      row.mode = S_IFREG | 0644;
      fh->inode = std::make_shared<InodeState>(row);
      return fh;
    };
  }
  KernelOpenCache::ReleaseFn Release() {
    return [this](FileHandle* fh) {
      std::lock_guard lock(mu_);
      released_.insert(fh->inode->ino);
      ++releases_;
      delete fh;
    };
  }
  int opens() {
    std::lock_guard lock(mu_);
    return opens_;
  }
  int releases() {
    std::lock_guard lock(mu_);
    return releases_;
  }
  bool Released(uint64_t ino) {
    std::lock_guard lock(mu_);
    return released_.count(ino) > 0;
  }
  static constexpr uint64_t kMissing = 999;

 private:
  std::mutex mu_;
  int opens_ = 0;
  int releases_ = 0;
  std::multiset<uint64_t> released_;
};

TEST(KernelOpenCacheTest, AHandleIsMadeOnceAndKeptForTheNextRequests) {
  Recorder rec;
  KernelOpenCache cache(4, rec.Open(), rec.Release());
  auto a = cache.Get(1);
  ASSERT_TRUE(a.ok());
  auto again = cache.Get(1);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(a->get(), again->get());
  EXPECT_EQ(rec.opens(), 1);
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.Get(Recorder::kMissing).status().code(), ENOENT);
  EXPECT_EQ(cache.size(), 1u) << "a failed open leaves nothing behind";
}

TEST(KernelOpenCacheTest, OverCapacityAHandleGoesWhenNoRequestUsesItAnyMore) {
  Recorder rec;
  KernelOpenCache cache(2, rec.Open(), rec.Release());
  auto held = cache.Get(1);  // a request still using inode 1's handle
  ASSERT_TRUE(held.ok());
  ASSERT_TRUE(cache.Get(2).ok());
  // Over capacity: every handle was used since the CLOCK last passed, so it
  // passes once to take their second chances and evicts the oldest, inode 1's.
  ASSERT_TRUE(cache.Get(3).ok());
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(rec.releases(), 0) << "inode 1's handle is evicted but still in use";
  held->reset();
  EXPECT_EQ(rec.releases(), 1);
  EXPECT_TRUE(rec.Released(1));
  // Inode 1 again: a new handle; 2 goes now (passed over once already).
  ASSERT_TRUE(cache.Get(1).ok());
  EXPECT_EQ(rec.opens(), 4);
  EXPECT_TRUE(rec.Released(2));
  EXPECT_EQ(cache.size(), 2u);
}

TEST(KernelOpenCacheTest, DropReleasesAtOnceAndDropAllReleasesEverything) {
  Recorder rec;
  KernelOpenCache cache(8, rec.Open(), rec.Release());
  ASSERT_TRUE(cache.Get(5).ok());
  cache.Drop(5);
  EXPECT_TRUE(rec.Released(5));
  cache.Drop(5);  // nothing left: a no-op
  EXPECT_EQ(rec.releases(), 1);

  ASSERT_TRUE(cache.Get(6).ok());
  auto held = cache.Get(7);
  ASSERT_TRUE(held.ok());
  EXPECT_EQ(cache.DropAll(), 2u);
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(rec.releases(), 2) << "inode 7's handle is still in use";
  held->reset();
  EXPECT_EQ(rec.releases(), 3);
}

TEST(KernelOpenCacheTest, ConcurrentRequestsShareOneHandleAndAllAreReleased) {
  Recorder rec;
  {
    KernelOpenCache cache(16, rec.Open(), rec.Release());
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&cache, t] {
        for (int i = 0; i < 2000; ++i) {
          auto h = cache.Get(static_cast<uint64_t>((i * 7 + t) % 40));
          ASSERT_TRUE(h.ok());
          EXPECT_EQ((*h)->inode->ino, static_cast<uint64_t>((i * 7 + t) % 40));
        }
      });
    }
    for (std::thread& t : threads) t.join();
    EXPECT_LE(cache.size(), 16u);
  }
  EXPECT_EQ(rec.opens(), rec.releases()) << "every handle made was released";
}

meta::Inode FileRow(uint64_t ino) {
  meta::Inode row;
  row.ino = ino;
  row.mode = S_IFREG | 0644;
  return row;
}

TEST(DelayedAttributeFlushTest, AnInodeIsWrittenOnceAfterTheDelayAndQueuedAgainAfterThat) {
  std::mutex mu;
  std::vector<uint64_t> written;
  std::atomic<int> batches{0};
  const auto start = std::chrono::steady_clock::now();
  std::chrono::steady_clock::duration first_after{};
  {
    DelayedAttributeFlush flush(std::chrono::milliseconds(30),
                                [&](const std::vector<InodeRef>& inodes) {
      std::lock_guard lock(mu);
      if (batches++ == 0) first_after = std::chrono::steady_clock::now() - start;
      for (const InodeRef& inode : inodes) {
        MutexLock ilock(inode->mu);
        inode->delayed_flush_queued = false;
        written.push_back(inode->ino);
      }
    });
    auto a = std::make_shared<InodeState>(FileRow(1));
    auto b = std::make_shared<InodeState>(FileRow(2));
    for (int i = 0; i < 5; ++i) {  // five writes of a: queued once
      MutexLock lock(a->mu);
      flush.EnqueueLocked(a);
    }
    {
      MutexLock lock(b->mu);
      flush.EnqueueLocked(b);
    }
    for (int i = 0; i < 200; ++i) {
      {
        std::lock_guard lock(mu);
        if (written.size() >= 2) break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    {
      std::lock_guard lock(mu);
      EXPECT_EQ(written, (std::vector<uint64_t>{1, 2}));
      EXPECT_GE(first_after, std::chrono::milliseconds(30));
    }
    // Flushed: the next write queues it again, and the destructor writes
    // what is still queued.
    MutexLock lock(a->mu);
    flush.EnqueueLocked(a);
  }
  EXPECT_EQ(written, (std::vector<uint64_t>{1, 2, 1}));
}

TEST(DelayedAttributeFlushTest, DrainWritesEverythingQueuedBeforeItReturns) {
  std::vector<uint64_t> written;
  DelayedAttributeFlush flush(std::chrono::hours(1), [&](const std::vector<InodeRef>& inodes) {
    for (const InodeRef& inode : inodes) {
      MutexLock ilock(inode->mu);
      inode->delayed_flush_queued = false;
      written.push_back(inode->ino);
    }
  });
  auto a = std::make_shared<InodeState>(FileRow(3));
  {
    MutexLock lock(a->mu);
    flush.EnqueueLocked(a);
  }
  EXPECT_TRUE(written.empty());
  flush.Drain();
  EXPECT_EQ(written, (std::vector<uint64_t>{3}));
  flush.Drain();  // nothing queued
  EXPECT_EQ(written.size(), 1u);
}

}  // namespace
}  // namespace tierfs
