// DentryCache (meta/dentry_cache.h): what it answers, how it is bounded, and,
// through Metadata, that every answer it gives agrees with the database after
// any sequence of namespace changes.
#include "meta/dentry_cache.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "tests/meta/meta_test_util.h"

namespace tierfs::meta {
namespace {

using Known = DentryCache::Known;

TEST(DentryCacheTest, AnswersWhatItWasToldAndNothingElse) {
  DentryCache cache(1024);
  EXPECT_EQ(cache.Find(5, "a").known, Known::kUnknown);
  cache.Put(5, "a", 77);
  cache.PutAbsent(5, "b");
  EXPECT_EQ(cache.Find(5, "a").known, Known::kPresent);
  EXPECT_EQ(cache.Find(5, "a").ino, 77u);
  EXPECT_EQ(cache.Find(5, "b").known, Known::kAbsent);
  EXPECT_EQ(cache.Find(5, "c").known, Known::kUnknown);  // directory 5 is not whole
  EXPECT_EQ(cache.Find(6, "a").known, Known::kUnknown);
  cache.PutAbsent(5, "a");
  EXPECT_EQ(cache.Find(5, "a").known, Known::kAbsent);
  EXPECT_EQ(cache.Size(), 2u);
}

TEST(DentryCacheTest, ADirectoryMadeHereIsKnownWhole) {
  DentryCache cache(1024);
  cache.PutEmptyDirectory(9);
  EXPECT_EQ(cache.Find(9, "anything").known, Known::kAbsent);
  cache.Put(9, "x", 10);
  EXPECT_EQ(cache.Find(9, "x").ino, 10u);
  // Absent names of a whole directory need no entry.
  cache.PutAbsent(9, "x");
  EXPECT_EQ(cache.Find(9, "x").known, Known::kAbsent);
  EXPECT_EQ(cache.Size(), 0u);
  cache.DropDirectory(9);
  EXPECT_EQ(cache.Find(9, "x").known, Known::kUnknown);
}

TEST(DentryCacheTest, ZeroEntriesKeepsNothing) {
  DentryCache cache(0);
  cache.Put(5, "a", 7);
  cache.PutEmptyDirectory(8);
  EXPECT_EQ(cache.Find(5, "a").known, Known::kUnknown);
  EXPECT_EQ(cache.Find(8, "a").known, Known::kUnknown);
  EXPECT_EQ(cache.Size(), 0u);
}

// Every directory number below lands in one shard (a multiple of kShards
// apart), whose share is 4 entries.
TEST(DentryCacheTest, AFullShardDropsTheLeastRecentlyUsedDirectory) {
  constexpr uint64_t k = DentryCache::kShards;
  DentryCache cache(4 * k);
  cache.Put(k, "a", 1);
  cache.Put(k, "b", 2);
  cache.Put(2 * k, "a", 3);
  cache.Put(2 * k, "b", 4);
  // The CLOCK gives each directory a second chance; using one keeps it.
  cache.Put(3 * k, "a", 5);
  EXPECT_LE(cache.Size(), 4u);
  EXPECT_EQ(cache.Find(3 * k, "a").ino, 5u);
  const int kept = (cache.Find(k, "a").known == Known::kPresent) +
                   (cache.Find(2 * k, "a").known == Known::kPresent);
  EXPECT_EQ(kept, 1);
}

TEST(DentryCacheTest, ADirectoryLargerThanAShardIsNotKeptWhole) {
  constexpr uint64_t k = DentryCache::kShards;
  DentryCache cache(4 * k);
  cache.PutEmptyDirectory(k);
  for (int i = 0; i < 6; ++i) cache.Put(k, "f" + std::to_string(i), 100 + i);
  EXPECT_LE(cache.Size(), 4u);
  // Whatever it dropped, it no longer claims to know every name.
  int present = 0;
  for (int i = 0; i < 6; ++i) {
    const DentryCache::Hit hit = cache.Find(k, "f" + std::to_string(i));
    EXPECT_NE(hit.known, Known::kAbsent) << i;
    present += hit.known == Known::kPresent;
  }
  EXPECT_LE(present, 4);
  EXPECT_EQ(cache.Find(k, "never").known, Known::kUnknown);
}

TEST(DentryCacheTest, DisabledAnswersNothing) {
  DentryCache cache(1024);
  cache.Put(5, "a", 7);
  cache.Disable();
  EXPECT_EQ(cache.Find(5, "a").known, Known::kUnknown);
  cache.Put(5, "a", 7);
  EXPECT_EQ(cache.Find(5, "a").known, Known::kUnknown);
}

// ---- through Metadata ----------------------------------------------------------

class MetadataDentryTest : public testing::MetaTest {
 protected:
  void SetUp() override {
    MetaTest::SetUp();
    meta_.reset();
    MetadataOptions options;
    options.clock = &clock_;
    options.cached_dentries = kCachedDentries;
    auto opened = Metadata::Open(db_path_, options);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    meta_ = std::move(opened).value();
  }
  // What the cache says of `name` in `parent` agrees with the database: a
  // known name names the inode the dirents table says, an absent one has no
  // row. Returns whether the cache knew.
  bool CheckAgrees(uint64_t parent, const std::string& name) {
    const DentryCache::Hit hit = meta_->CachedLookup(parent, name);
    if (hit.known == Known::kUnknown) return false;
    Result<uint64_t> truth = meta_->Lookup(parent, name);
    if (hit.known == Known::kAbsent) {
      EXPECT_EQ(truth.status().code(), ENOENT) << parent << "/" << name;
    } else {
      EXPECT_TRUE(truth.ok()) << parent << "/" << name << ": " << truth.status().ToString();
      if (truth.ok()) {
        EXPECT_EQ(*truth, hit.ino) << parent << "/" << name;
      }
    }
    return true;
  }
  static constexpr size_t kCachedDentries = 4096;
  // An inode number no name has: an Unlink expecting it is ESTALE.
  static constexpr uint64_t kNoSuchIno = 999999;
};

TEST_F(MetadataDentryTest, LookupsFillAndChangesUpdate) {
  const Inode dir = MakeDir(kRootIno, "d");
  // A directory made here is whole: the lookup before a create needs no read.
  EXPECT_EQ(meta_->CachedLookup(dir.ino, "f").known, Known::kAbsent);
  const Inode f = MakeFile(dir.ino, "f");
  EXPECT_EQ(meta_->CachedLookup(dir.ino, "f").ino, f.ino);
  // The root existed before this Metadata: names become known as they are read.
  EXPECT_EQ(meta_->Lookup(kRootIno, "nothing").status().code(), ENOENT);
  EXPECT_EQ(meta_->CachedLookup(kRootIno, "nothing").known, Known::kAbsent);
  ASSERT_TRUE(meta_->Link(f.ino, kRootIno, "nothing").ok());
  EXPECT_EQ(meta_->CachedLookup(kRootIno, "nothing").ino, f.ino);
  ASSERT_TRUE(meta_->Rename(dir.ino, "f", kRootIno, "g", 0).ok());
  EXPECT_EQ(meta_->CachedLookup(dir.ino, "f").known, Known::kAbsent);
  EXPECT_EQ(meta_->CachedLookup(kRootIno, "g").ino, f.ino);
  ASSERT_TRUE(meta_->Unlink(kRootIno, "nothing").ok());
  EXPECT_EQ(meta_->CachedLookup(kRootIno, "nothing").known, Known::kAbsent);
  ASSERT_TRUE(meta_->Rmdir(kRootIno, "d").ok());
  EXPECT_EQ(meta_->CachedLookup(kRootIno, "d").known, Known::kAbsent);
  EXPECT_EQ(meta_->CachedLookup(dir.ino, "f").known, Known::kUnknown);
}

// A failed change leaves the cache as it was: the lookup after it answers as
// before.
TEST_F(MetadataDentryTest, AFailedChangeChangesNoEntry) {
  const Inode dir = MakeDir(kRootIno, "d");
  const Inode f = MakeFile(dir.ino, "f");
  EXPECT_EQ(meta_->Create(dir.ino, "f", Proto(S_IFREG | 0644)).status().code(), EEXIST);
  EXPECT_EQ(meta_->Rmdir(kRootIno, "d").status().code(), ENOTEMPTY);
  EXPECT_EQ(meta_->Rename(dir.ino, "f", dir.ino, "f2", RENAME_EXCHANGE).status().code(), ENOENT);
  EXPECT_EQ(meta_->CachedLookup(dir.ino, "f").ino, f.ino);
  EXPECT_EQ(meta_->CachedLookup(dir.ino, "f2").known, Known::kAbsent);
  EXPECT_EQ(meta_->CachedLookup(kRootIno, "d").ino, dir.ino);
}

// A create in a directory the cache knows whole reads no dirents row for a
// name the cache knows absent; one it knows present is still EEXIST with
// nothing left behind, and the parent row each change returns (computed, not
// read back) is the one the database holds.
TEST_F(MetadataDentryTest, CreatesInAWholeDirectoryFollowWhatTheCacheKnows) {
  const Inode dir = MakeDir(kRootIno, "d");
  ASSERT_EQ(meta_->CachedLookup(dir.ino, "f").known, Known::kAbsent);
  clock_.AdvanceSeconds(1);
  Inode parent_after;
  auto made = meta_->Create(dir.ino, "f", Proto(S_IFREG | 0644), &parent_after);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  EXPECT_EQ(parent_after.mtime_ns, clock_.NowNanos());
  ExpectRowIsStored(parent_after);
  EXPECT_EQ(made->row_epoch, parent_after.row_epoch);
  const size_t fcl = [&] {
    size_t n = 0;
    EXPECT_TRUE(meta_->ReadFcl(0, 0, 0, [&](const FclRecord&) { ++n; }).ok());
    return n;
  }();
  const uint64_t inodes = *meta_->CountInodes();
  EXPECT_EQ(meta_->Create(dir.ino, "f", Proto(S_IFREG | 0644)).status().code(), EEXIST);
  EXPECT_EQ(*meta_->CountInodes(), inodes);
  size_t fcl_after = 0;
  ASSERT_TRUE(meta_->ReadFcl(0, 0, 0, [&](const FclRecord&) { ++fcl_after; }).ok());
  EXPECT_EQ(fcl_after, fcl);
  clock_.AdvanceSeconds(1);
  auto sub = meta_->Create(dir.ino, "sub", Proto(S_IFDIR | 0755), &parent_after);
  ASSERT_TRUE(sub.ok()) << sub.status().ToString();
  EXPECT_EQ(parent_after.nlink, 3u);
  ExpectRowIsStored(parent_after);
  clock_.AdvanceSeconds(1);
  ASSERT_TRUE(meta_->Unlink(dir.ino, "f", 0, &parent_after).ok());
  EXPECT_EQ(parent_after.mtime_ns, clock_.NowNanos());
  ExpectRowIsStored(parent_after);
  EXPECT_EQ(meta_->CachedLookup(dir.ino, "f").known, Known::kAbsent);
  // Known absent again: made anew.
  EXPECT_TRUE(meta_->Create(dir.ino, "f", Proto(S_IFREG | 0644)).ok());
  clock_.AdvanceSeconds(1);
  ASSERT_TRUE(meta_->Rmdir(dir.ino, "sub", &parent_after).ok());
  EXPECT_EQ(parent_after.nlink, 2u);
  ExpectRowIsStored(parent_after);
  EXPECT_EQ(meta_->Unlink(dir.ino, "missing").status().code(), ENOENT);
  EXPECT_EQ(meta_->Unlink(dir.ino, "f", kNoSuchIno).status().code(), ESTALE);
}

// Random creates, links, unlinks, rmdirs and renames (plain, NOREPLACE,
// EXCHANGE) over a few names in three directories; after every change every
// name the cache knows agrees with the database.
TEST_F(MetadataDentryTest, EveryAnswerAgreesWithTheDatabaseAfterRandomChanges) {
  std::mt19937 rng(42);
  std::vector<uint64_t> dirs = {kRootIno, MakeDir(kRootIno, "a").ino, MakeDir(kRootIno, "b").ino};
  const std::vector<std::string> names = {"n0", "n1", "n2", "n3", "n4"};
  auto pick_dir = [&] { return dirs[rng() % dirs.size()]; };
  auto pick_name = [&] { return names[rng() % names.size()]; };
  int known = 0;
  int renames = 0;
  for (int step = 0; step < 2000; ++step) {
    const uint64_t d1 = pick_dir(), d2 = pick_dir();
    const std::string n1 = pick_name(), n2 = pick_name();
    switch (rng() % 7) {
      case 0:
        (void)meta_->Create(d1, n1, Proto(S_IFREG | 0644));
        break;
      case 1:
        (void)meta_->Create(d1, n1, Proto(S_IFDIR | 0755));
        break;
      case 2:
        if (Result<uint64_t> ino = meta_->Lookup(d1, n1); ino.ok()) {
          (void)meta_->Link(*ino, d2, n2);
        }
        break;
      case 3:
        (void)meta_->Unlink(d1, n1);
        break;
      case 4:
        (void)meta_->Rmdir(d1, n1);
        break;
      case 5:
        if (meta_->Rename(d1, n1, d2, n2, rng() % 2 == 0 ? 0 : RENAME_NOREPLACE).ok()) ++renames;
        break;
      case 6:
        (void)meta_->Rename(d1, n1, d2, n2, RENAME_EXCHANGE);
        break;
    }
    for (uint64_t d : dirs) {
      for (const std::string& n : names) known += CheckAgrees(d, n);
    }
    if (::testing::Test::HasFailure()) FAIL() << "at step " << step;
    // New directories join the set the changes work in (after the check: a
    // read fills the cache, and would mend what a change left wrong).
    if (Result<Inode> sub = meta_->LookupInode(d1, n1); sub.ok() && S_ISDIR(sub->mode) &&
                                                        dirs.size() < 8) {
      if (std::find(dirs.begin(), dirs.end(), sub->ino) == dirs.end()) dirs.push_back(sub->ino);
    }
  }
  EXPECT_GT(known, 10000);  // the cache answered most of what was asked
  EXPECT_GT(renames, 20);  // and enough of them moved names
}

}  // namespace
}  // namespace tierfs::meta
