// ApplyRow: rows of one inode from concurrent changes reach its entry in any
// order; the entry keeps the newest, and a dirty entry keeps its own size and
// times.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "fs/inode_table.h"

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
  std::lock_guard lock(entry.mu);
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
  std::lock_guard lock(entry.mu);
  entry.attr.size = 4096;  // written, not yet written back
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

// A lookup that read the row after a change whose row found no entry yet
// brings the newer row with it; an older one changes nothing.
TEST(InodeTableTest, GetOrInsertTakesANewerRowOfAnExistingEntry) {
  InodeTable table;
  InodeRef entry = table.GetOrInsert(Row(10, 2, 100), 1);
  EXPECT_EQ(table.GetOrInsert(Row(12, 3, 300), 1), entry);
  {
    std::lock_guard lock(entry->mu);
    EXPECT_EQ(entry->attr.nlink, 3u);
    EXPECT_EQ(entry->nlookup, 2u);
  }
  table.GetOrInsert(Row(11, 2, 200), 1);
  std::lock_guard lock(entry->mu);
  EXPECT_EQ(entry->attr.nlink, 3u);
  EXPECT_EQ(entry->attr.row_epoch, 12u);
  EXPECT_EQ(entry->nlookup, 3u);
}

}  // namespace
}  // namespace tierfs
