// ApplyRow: rows of one inode from concurrent changes reach its entry in any
// order; the entry keeps the newest, and a dirty entry keeps its own size and
// times.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <random>
#include <thread>
#include <vector>

#include "fs/core/inode_table.h"

namespace tierfs {
namespace {

meta::Inode Row(uint64_t epoch, uint32_t nlink, int64_t mtime_ns) {
  meta::Inode row;
  row.ino = 7;
  row.mode = S_IFDIR | 0755;
  row.nlink = nlink;
  row.mtime_ns = mtime_ns;
  row.ctime_ns = mtime_ns;
  row.row_epoch = epoch;
  return row;
}

TEST(ApplyRowTest, AnOlderRowArrivingLateIsIgnored) {
  InodeState entry(Row(10, 2, 100));
  MutexLock lock(entry.mu);
  ApplyRow(entry, Row(12, 3, 300));  // a mkdir in it, returned first
  ApplyRow(entry, Row(11, 2, 200));  // an unlink in it, committed before the mkdir
  EXPECT_EQ(entry.attr.nlink, 3u);
  EXPECT_EQ(entry.attr.mtime_ns, 300);
  EXPECT_EQ(entry.attr.row_epoch, 12u);
  ApplyRow(entry, Row(12, 3, 300));  // the same row again (equal epochs): no change
  EXPECT_EQ(entry.attr.nlink, 3u);
  ApplyRow(entry, Row(13, 4, 400));
  EXPECT_EQ(entry.attr.nlink, 4u);
  EXPECT_EQ(entry.attr.row_epoch, 13u);
}

TEST(ApplyRowTest, ADirtyEntryKeepsItsSizeAndTimes) {
  meta::Inode file = Row(5, 1, 100);
  file.mode = S_IFREG | 0644;
  InodeState entry(file);
  MutexLock lock(entry.mu);
  entry.attr.size = 4096;  // written, not yet flushed
  entry.attr.mtime_ns = 500;
  entry.attr.ctime_ns = 500;
  MarkDirty(entry);
  meta::Inode renamed = file;  // a rename stamps ctime, at 400
  renamed.ctime_ns = 400;
  renamed.row_epoch = 6;
  ApplyRow(entry, renamed);
  EXPECT_EQ(entry.attr.size, 4096u);
  EXPECT_EQ(entry.attr.mtime_ns, 500);
  EXPECT_EQ(entry.attr.ctime_ns, 500);  // never backwards
  EXPECT_EQ(entry.attr.row_epoch, 6u);
  meta::Inode chmodded = renamed;  // a newer row changes what memory does not own
  chmodded.mode = S_IFREG | 0600;
  chmodded.ctime_ns = 600;
  chmodded.row_epoch = 7;
  ApplyRow(entry, chmodded);
  EXPECT_EQ(entry.attr.mode, S_IFREG | 0600u);
  EXPECT_EQ(entry.attr.ctime_ns, 600);
  EXPECT_EQ(entry.attr.size, 4096u);
}

meta::Inode File(uint64_t epoch, uint32_t nlink) {
  meta::Inode row = Row(epoch, nlink, 100);
  row.ino = 9;
  row.mode = S_IFREG | 0644;
  return row;
}

// A lookup that read the row after a change whose row found no entry yet
// brings the newer row with it; an older one changes nothing.
TEST(InodeTableTest, RememberTakesANewerRowOfAnActiveEntry) {
  InodeTable table;
  InodeRef entry = table.HoldRow(Row(10, 2, 100), table.Ticket(), Hold::kPin, 1).entry;
  EXPECT_EQ(table.Remember(Row(12, 3, 300), 1).nlink, 3u);
  table.Remember(Row(11, 2, 200), 1);
  EXPECT_EQ(table.LookupCount(7), 3u);
  MutexLock lock(entry->mu);
  EXPECT_EQ(entry->attr.nlink, 3u);
  EXPECT_EQ(entry->attr.row_epoch, 12u);
}

// An inode the kernel only looked up keeps its lookup count and no entry; the
// last hold given back makes an active inode idle again.
TEST(InodeTableTest, AnIdleInodeKeepsOnlyItsLookups) {
  InodeTable table;
  EXPECT_EQ(table.Count().known, 1u);  // the root
  EXPECT_EQ(table.Remember(File(5, 1), 2).row_epoch, 5u);
  EXPECT_EQ(table.Find(9), nullptr);
  EXPECT_EQ(table.Count().known, 2u);
  EXPECT_EQ(table.Count().active, 0u);

  InodeTable::Held held = table.HoldRow(File(6, 1), table.Ticket(), Hold::kPin);
  EXPECT_TRUE(held.current);
  EXPECT_TRUE(held.made);
  EXPECT_EQ(table.Find(9), held.entry);
  EXPECT_EQ(table.TryHold(9, Hold::kPin).entry, held.entry);  // a second hold
  EXPECT_FALSE(table.Unpin(held.entry));
  EXPECT_EQ(table.Find(9), held.entry);
  {
    MutexLock lock(held.entry->mu);
    MarkDirty(*held.entry);  // attributes not flushed keep it active
  }
  EXPECT_FALSE(table.Unpin(held.entry));
  EXPECT_EQ(table.Count().active, 1u);
  {
    MutexLock lock(held.entry->mu);
    held.entry->dirty = false;  // as an attribute flush leaves it
  }
  EXPECT_FALSE(table.MaybeErase(held.entry));
  EXPECT_EQ(table.Find(9), nullptr);
  EXPECT_EQ(table.Count().active, 0u);
  EXPECT_EQ(table.LookupCount(9), 2u);
  EXPECT_FALSE(table.Forget(9, 2).has_value());
  EXPECT_EQ(table.Count().known, 1u);
}

// A row read for an idle inode is current only when no change of the inode
// reached the table since the ticket taken before the read.
TEST(InodeTableTest, HoldRowKnowsWhenItsRowMayBeOlder) {
  InodeTable table;
  table.Remember(File(5, 1), 1);
  uint64_t ticket = table.TryHold(9, Hold::kOpen).ticket;
  table.Apply(File(7, 2));  // a link, while the row was being read
  InodeTable::Held held = table.HoldRow(File(6, 1), ticket, Hold::kOpen);
  EXPECT_FALSE(held.current);
  table.Apply(File(8, 2));  // the row read again
  {
    MutexLock lock(held.entry->mu);
    EXPECT_EQ(held.entry->attr.nlink, 2u);
    held.entry->nopen--;
  }
  // Going idle counts as a change too: a row read while it was active may be
  // older than the entry was.
  ticket = table.Ticket();
  EXPECT_FALSE(table.MaybeErase(held.entry));
  EXPECT_FALSE(table.HoldRow(File(8, 2), ticket, Hold::kPin).current);

  // And a change reported before the kernel forgot the inode.
  meta::Inode forgotten = File(9, 1);
  forgotten.ino = 40;
  table.Remember(forgotten, 1);
  ticket = table.TryHold(40, Hold::kPin).ticket;  // idle: a ticket only
  forgotten.row_epoch = 10;
  table.Apply(forgotten);
  table.Forget(40, 1);
  forgotten.row_epoch = 9;
  EXPECT_FALSE(table.HoldRow(forgotten, ticket, Hold::kPin).current);

  // So does a change of an inode the kernel does not know.
  ticket = table.Ticket();
  meta::Inode other = File(9, 1);
  other.ino = 11;
  table.Apply(other);
  other.row_epoch = 8;
  EXPECT_FALSE(table.HoldRow(other, ticket, Hold::kPin).current);
  ticket = table.Ticket();
  other.ino = 12;
  meta::Inode root = Row(10, 2, 100);
  root.ino = meta::kRootIno;
  table.Apply(root);  // a create in the root, whose slot the table starts with
  EXPECT_TRUE(table.HoldRow(other, ticket, Hold::kPin).current);
}

// The reclaim rule: an unlinked inode goes when the kernel forgets it and
// nothing holds it, whether it was idle or active when its last name went.
TEST(InodeTableTest, AnUnlinkedInodeIsReclaimedByItsLastReference) {
  InodeTable table;
  EXPECT_EQ(table.NameRemoved(File(5, 0)).value().ino, 9u);  // unknown: at once

  table.Remember(File(5, 1), 2);
  EXPECT_FALSE(table.NameRemoved(File(6, 0)).has_value());
  EXPECT_EQ(table.Count().active, 1u);  // kept for the last Forget
  EXPECT_FALSE(table.Forget(9, 1).has_value());
  std::optional<meta::Inode> gone = table.Forget(9, 1);
  ASSERT_TRUE(gone.has_value());
  EXPECT_EQ(gone->nlink, 0u);
  EXPECT_EQ(table.Count().known, 1u);
  EXPECT_EQ(table.Count().active, 0u);

  // Held (open) when unlinked: the last of the forget and the release reclaims.
  table.Remember(File(7, 1), 1);
  InodeRef open = table.HoldRow(File(7, 1), table.Ticket(), Hold::kPin).entry;
  EXPECT_FALSE(table.NameRemoved(File(8, 0)).has_value());
  EXPECT_FALSE(table.Forget(9, 1).has_value());
  EXPECT_TRUE(table.Unpin(open));
  EXPECT_EQ(table.Count().active, 0u);
}

// With room for N idle entries, the table keeps the N most recently used
// (CLOCK: an entry used since the last turn gets a second chance), and drops
// an entry the kernel forgot at once.
TEST(InodeTableTest, KeepsTheMostRecentlyUsedIdleEntries) {
  InodeTable table(/*keep_idle=*/2, /*shards=*/1);
  auto file = [](uint64_t ino) {
    meta::Inode row = File(5, 1);
    row.ino = ino;
    return row;
  };
  auto make_idle = [&](uint64_t ino) {
    table.Remember(file(ino), 1);
    EXPECT_FALSE(table.Unpin(table.HoldRow(file(ino), table.Ticket(), Hold::kPin).entry));
  };
  make_idle(20);
  make_idle(21);
  EXPECT_EQ(table.Count().active, 2u);
  make_idle(22);  // three idle: the least recently used goes
  EXPECT_EQ(table.Count().active, 2u);
  EXPECT_EQ(table.Find(20), nullptr);
  EXPECT_NE(table.Find(21), nullptr);  // used again now
  make_idle(23);
  EXPECT_NE(table.Find(21), nullptr);
  EXPECT_EQ(table.Find(22), nullptr);
  EXPECT_NE(table.Find(23), nullptr);
  EXPECT_FALSE(table.Forget(23, 1).has_value());
  EXPECT_EQ(table.Find(23), nullptr);
  EXPECT_EQ(table.Count().active, 1u);
}

// When every kept entry was used since the last turn, one settle does not
// sweep the whole ring under the table lock: the ring may run over by an
// entry or two, and the next settles bring it back.
TEST(InodeTableTest, DroppingKeptEntriesTakesBoundedSteps) {
  constexpr uint64_t kKeep = 100;
  InodeTable table(kKeep, /*shards=*/1);
  auto make_idle = [&](uint64_t ino) {
    meta::Inode row = File(5, 1);
    row.ino = ino;
    table.Remember(row, 1);
    EXPECT_FALSE(table.Unpin(table.HoldRow(row, table.Ticket(), Hold::kPin).entry));
  };
  for (uint64_t ino = 1000; ino < 1000 + kKeep; ++ino) make_idle(ino);
  for (uint64_t ino = 1000; ino < 1000 + kKeep; ++ino) ASSERT_NE(table.Find(ino), nullptr);
  make_idle(5000);
  EXPECT_GT(table.Count().active, kKeep);
  EXPECT_LE(table.Count().active, kKeep + 1);
  make_idle(5001);
  make_idle(5002);
  EXPECT_EQ(table.Count().active, kKeep);
}

// A getattr's row joins the kept idle entries, unless the inode changed
// since the ticket taken before the read, or the kernel does not know it.
TEST(InodeTableTest, KeepTakesARowReadForAKnownIdleInode) {
  InodeTable table(/*keep_idle=*/4, /*shards=*/1);
  table.Remember(File(5, 1), 1);
  InodeTable::Holding peek = table.Peek(9);
  EXPECT_EQ(peek.entry, nullptr);
  table.Apply(File(6, 2));  // a link while the row was being read
  table.Keep(File(5, 1), peek.ticket);
  EXPECT_EQ(table.Find(9), nullptr);
  peek = table.Peek(9);
  table.Keep(File(6, 2), peek.ticket);
  InodeRef kept = table.Find(9);
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->attr.nlink, 2u);
  EXPECT_EQ(table.Peek(9).entry, kept);

  meta::Inode unknown = File(7, 1);
  unknown.ino = 30;
  table.Keep(unknown, table.Ticket());
  EXPECT_EQ(table.Find(30), nullptr);
}

// A rename's rows join the kept idle entries, so that the kernel's setattr of
// the moved inode that follows needs no read; unless a change reported since
// the rename began may be newer, or the kernel does not know the inode.
TEST(InodeTableTest, ApplyAndKeepKeepsAChangedRowOfAKnownIdleInode) {
  InodeTable table(/*keep_idle=*/4, /*shards=*/1);
  table.Remember(File(5, 1), 1);
  uint64_t ticket = table.Ticket();
  table.ApplyAndKeep(File(6, 1), ticket);
  InodeRef kept = table.Find(9);
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->attr.row_epoch, 6u);
  table.ApplyAndKeep(File(8, 1), table.Ticket());  // active now: applied
  table.ApplyAndKeep(File(7, 1), ticket);          // older: ignored
  EXPECT_EQ(table.Find(9)->attr.row_epoch, 8u);

  EXPECT_FALSE(table.Forget(9, 1).has_value());
  table.Remember(File(8, 1), 1);  // known again, idle
  ticket = table.Ticket();
  table.Apply(File(10, 2));  // another change (a link) while this one ran
  table.ApplyAndKeep(File(9, 1), ticket);
  EXPECT_EQ(table.Find(9), nullptr);
  InodeTable::Holding peek = table.Peek(9);
  table.Keep(File(9, 1), peek.ticket - 1);  // a reader from before either: refused
  EXPECT_EQ(table.Find(9), nullptr);

  meta::Inode unknown = File(7, 1);
  unknown.ino = 30;
  table.ApplyAndKeep(unknown, table.Ticket());
  EXPECT_EQ(table.Find(30), nullptr);
  EXPECT_EQ(InodeTable(/*keep_idle=*/0).Find(9), nullptr);
}

// Threads looking up, forgetting, holding, releasing, changing and reading a
// few inodes at once, with room for fewer kept entries than inodes: no
// deadlock, no inode reclaimed while linked, and once every lookup and hold
// is given back, nothing is left but the root.
TEST(InodeTableTest, ConcurrentUseLeavesNothingBehind) {
  InodeTable table(/*keep_idle=*/8);
  constexpr int kThreads = 4;
  constexpr int kInodes = 50;
  constexpr int kSteps = 100000;
  std::atomic<uint64_t> epoch{1};
  std::atomic<int> reclaims{0};
  auto row = [&](uint64_t ino) {
    meta::Inode r = File(epoch.fetch_add(1), 1);
    r.ino = 100 + ino;
    return r;
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      std::vector<uint64_t> lookups(kInodes, 0);
      std::vector<InodeRef> pins;
      for (int step = 0; step < kSteps; ++step) {
        const uint64_t i = rng() % kInodes;
        const uint64_t ino = 100 + i;
        switch (rng() % 8) {
          case 0:
            table.Remember(row(i), 1, rng() % 2 ? table.Ticket() : InodeTable::kDoNotKeep);
            lookups[i]++;
            break;
          case 1:
            if (lookups[i] > 0) {
              lookups[i]--;
              if (table.Forget(ino, 1)) reclaims++;
            }
            break;
          case 2: {
            InodeTable::Holding h = table.TryHold(ino, Hold::kPin);
            pins.push_back(h.entry ? h.entry : table.HoldRow(row(i), h.ticket, Hold::kPin).entry);
            break;
          }
          case 3:
            if (!pins.empty()) {
              if (table.Unpin(pins.back())) reclaims++;
              pins.pop_back();
            }
            break;
          case 4:
            if (rng() % 2) {
              table.Apply(row(i));
            } else {
              const uint64_t ticket = table.Ticket();
              table.ApplyAndKeep(row(i), ticket);
            }
            break;
          case 5:
            if (InodeRef e = table.Changed(ino)) {
              MutexLock lock(e->mu);
              ApplyRow(*e, row(i));
            }
            break;
          case 6: {
            InodeTable::Holding h = table.Peek(ino);
            if (!h.entry) table.Keep(row(i), h.ticket);
            break;
          }
          default:
            if (InodeRef e = table.Find(ino)) {
              MutexLock lock(e->mu);
              EXPECT_EQ(e->attr.ino, ino);
            }
        }
      }
      for (const InodeRef& e : pins) {
        if (table.Unpin(e)) reclaims++;
      }
      for (int i = 0; i < kInodes; ++i) {
        if (lookups[i] > 0 && table.Forget(100 + i, lookups[i])) reclaims++;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(reclaims.load(), 0);
  EXPECT_EQ(table.Count().known, 1u);  // the root
  EXPECT_EQ(table.Count().active, 0u);
}

// Split in shards, the table keeps no more idle entries than asked in all
// (each shard its share), and each shard keeps its most recently used.
TEST(InodeTableTest, ShardsShareTheKeptEntriesOut) {
  constexpr size_t kKeep = 10, kShards = 4;
  InodeTable table(kKeep, kShards);
  auto make_idle = [&](uint64_t ino) {
    meta::Inode row = File(5, 1);
    row.ino = ino;
    table.Remember(row, 1);
    EXPECT_FALSE(table.Unpin(table.HoldRow(row, table.Ticket(), Hold::kPin).entry));
  };
  // Shares: 3, 3, 2, 2. Eight idle inodes in each shard (ino mod 4).
  for (uint64_t ino = 100; ino < 132; ++ino) make_idle(ino);
  for (uint64_t ino = 132; ino < 140; ++ino) make_idle(ino);  // each shard turns over
  EXPECT_EQ(table.Count().active, kKeep);
  EXPECT_EQ(table.Count().known, 40u + 1);  // and the root
  // The last ones made idle in each shard are the ones kept.
  for (uint64_t ino = 136; ino < 140; ++ino) EXPECT_NE(table.Find(ino), nullptr) << ino;
  EXPECT_EQ(table.Find(100), nullptr);
}

}  // namespace
}  // namespace tierfs
