// The consistency-check queries and repairs (meta/check_queries.cc) and the online backup
// (meta/backup.cc).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "meta/metadata.h"
#include "tests/meta/meta_test_util.h"

namespace tierfs::meta {
namespace {

using testing::MetaTest;
using testing::RawExec;

class CheckQueriesTest : public MetaTest {
 protected:
  std::vector<LinkCountProblem> Links() {
    auto links = meta_->LinkCountProblems();
    EXPECT_TRUE(links.ok()) << links.status().ToString();
    return links.ok() ? *links : std::vector<LinkCountProblem>{};
  }
  std::vector<DirentProblem> Dirents() {
    auto dirents = meta_->DirentProblems();
    EXPECT_TRUE(dirents.ok()) << dirents.status().ToString();
    return dirents.ok() ? *dirents : std::vector<DirentProblem>{};
  }
  // Runs `sql` with the Metadata closed, then opens it again.
  void Damage(const char* sql) {
    meta_.reset();
    RawExec(db_path_, sql);
    Reopen();
  }
};

TEST_F(CheckQueriesTest, AHealthyNamespaceHasNoProblems) {
  Inode d = MakeDir(kRootIno, "d");
  MakeDir(d.ino, "sub");
  Inode f = MakeFile(d.ino, "f");
  ASSERT_TRUE(meta_->Link(f.ino, kRootIno, "f2").ok());
  MakeSymlink(kRootIno, "l", "f2");
  // An unlinked file (nlink 0, no name) is an orphan the next mount reclaims.
  Inode gone = MakeFile(kRootIno, "gone");
  ASSERT_TRUE(meta_->Unlink(kRootIno, "gone").ok());
  (void)gone;
  EXPECT_TRUE(Links().empty());
  EXPECT_TRUE(Dirents().empty());
  // SQLite 3.40 reported a NULL in pending_objects.generation for every row of the
  // version-1 table (meta/schema.cc, kMigrateV1ToV2); not any more.
  ASSERT_TRUE(meta_->AddPendingObject({f.ino, 1, 2}).ok());
  auto problems = meta_->IntegrityCheck();
  ASSERT_TRUE(problems.ok());
  EXPECT_TRUE(problems->empty());
}

TEST_F(CheckQueriesTest, LinkCountsFollowTheSchemaConvention) {
  Inode d = MakeDir(kRootIno, "d");
  MakeDir(d.ino, "sub");
  Inode f = MakeFile(kRootIno, "f");
  Inode named_nowhere = MakeFile(kRootIno, "x");
  Damage(("UPDATE inodes SET nlink = 7 WHERE ino = " + std::to_string(d.ino) + ";" +
          "UPDATE inodes SET nlink = 3 WHERE ino = " + std::to_string(f.ino) + ";" +
          "UPDATE inodes SET nlink = 9 WHERE ino = 1;" +
          "DELETE FROM dirents WHERE name = 'x';")
             .c_str());
  std::vector<LinkCountProblem> links = Links();
  ASSERT_EQ(links.size(), 4u);
  EXPECT_EQ(links[0].ino, kRootIno);
  EXPECT_EQ(links[0].expected, 3u);  // 2 + d
  EXPECT_EQ(links[1].ino, d.ino);
  EXPECT_EQ(links[1].expected, 3u);  // 2 + sub
  EXPECT_EQ(links[1].subdirs, 1u);
  EXPECT_EQ(links[2].ino, f.ino);
  EXPECT_EQ(links[2].expected, 1u);
  EXPECT_EQ(links[3].ino, named_nowhere.ino);
  EXPECT_EQ(links[3].names, 0u);
  EXPECT_EQ(links[3].nlink, 1u);

  for (const LinkCountProblem& p : links) {
    if (p.names == 0 && p.ino != kRootIno) continue;  // reconnected below
    InodeRepair fix;
    fix.ino = p.ino;
    fix.nlink = p.expected;
    ASSERT_TRUE(meta_->RepairInode(fix).ok());
  }
  ASSERT_TRUE(meta_->RepairAddDirent(kRootIno, "#x", named_nowhere.ino).ok());
  for (const LinkCountProblem& p : Links()) {
    ADD_FAILURE() << "inode " << p.ino << " nlink " << p.nlink << " names " << p.names
                  << " expected " << p.expected;
  }
  EXPECT_EQ(Fcl().back().event, "repair");
}

TEST_F(CheckQueriesTest, DirentsThatCannotStand) {
  Inode f = MakeFile(kRootIno, "f");
  Damage(("INSERT INTO dirents(parent, name, ino) VALUES (1, 'ghost', 999);"
          "INSERT INTO dirents(parent, name, ino) VALUES (888, 'lost', 1);"
          "INSERT INTO dirents(parent, name, ino) VALUES (" +
          std::to_string(f.ino) + ", 'in-a-file', 1);")
             .c_str());
  std::vector<DirentProblem> dirents = Dirents();
  ASSERT_EQ(dirents.size(), 3u);
  EXPECT_EQ(dirents[0].name, "ghost");
  EXPECT_TRUE(dirents[0].inode_missing);
  EXPECT_TRUE(dirents[1].parent_not_directory);
  EXPECT_TRUE(dirents[2].parent_missing);
  for (const DirentProblem& p : dirents) {
    ASSERT_TRUE(meta_->RepairRemoveDirent(p.parent, p.name).ok()) << p.name;
  }
  EXPECT_TRUE(Dirents().empty());
  EXPECT_EQ(meta_->RepairRemoveDirent(kRootIno, "ghost").code(), ENOENT);
}

TEST_F(CheckQueriesTest, RepairInodeChangesOnlyWhatItNames) {
  Inode f = MakeFile(kRootIno, "f", 1);
  InodeRepair fix;
  fix.ino = f.ino;
  fix.size = 0;
  fix.volume_id = 2;
  ASSERT_TRUE(meta_->RepairInode(fix).ok());
  Inode after = Get(f.ino);
  EXPECT_EQ(after.size, 0u);
  EXPECT_EQ(after.volume_id, 2u);
  EXPECT_EQ(after.nlink, 1u);
  fix.volume_id = 7;
  EXPECT_EQ(meta_->RepairInode(fix).code(), EINVAL);
  InodeRepair on_dir;
  on_dir.ino = kRootIno;
  on_dir.volume_id = 1;
  EXPECT_EQ(meta_->RepairInode(on_dir).code(), EINVAL);
  InodeRepair none;
  none.ino = 12345;
  EXPECT_EQ(meta_->RepairInode(none).code(), ENOENT);
}

TEST_F(CheckQueriesTest, InodeSequenceMovesPastObjects) {
  Inode f = MakeFile(kRootIno, "f");
  auto last = meta_->LastInodeNumber();
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(*last, f.ino);
  ASSERT_TRUE(meta_->RepairInodeSequence(f.ino + 10).ok());
  ASSERT_TRUE(meta_->RepairInodeSequence(f.ino + 5).ok());  // never backwards
  EXPECT_EQ(MakeFile(kRootIno, "g").ino, f.ino + 11);
}

TEST_F(CheckQueriesTest, RegularFilesAreVisitedInBatches) {
  std::vector<uint64_t> made;
  for (int i = 0; i < 2500; ++i) made.push_back(MakeFile(kRootIno, "f" + std::to_string(i)).ino);
  MakeDir(kRootIno, "d");
  std::vector<uint64_t> seen;
  ASSERT_TRUE(meta_->ForEachRegularFile([&](const Inode& i) { seen.push_back(i.ino); }).ok());
  EXPECT_EQ(seen, made);
}

TEST_F(CheckQueriesTest, IntegrityCheckFindsAnIndexThatDisagreesWithItsTable) {
  MakeFile(kRootIno, "a");
  MakeFile(kRootIno, "b");
  // Redefine an index behind SQLite's back: its entries no longer match the rows.
  Damage(
      "PRAGMA writable_schema=ON;"
      "UPDATE sqlite_schema SET sql = 'CREATE INDEX dirents_by_ino ON dirents(parent)' "
      "WHERE name = 'dirents_by_ino';");
  auto problems = meta_->IntegrityCheck();
  ASSERT_TRUE(problems.ok()) << problems.status().ToString();
  EXPECT_FALSE(problems->empty());
}

TEST_F(CheckQueriesTest, OpenForCheckReadsAndRefusesWrites) {
  MakeFile(kRootIno, "f");
  meta_.reset();
  struct stat before;
  ASSERT_EQ(stat(db_path_.c_str(), &before), 0);
  {
    auto checked = Metadata::OpenForCheck(db_path_);
    ASSERT_TRUE(checked.ok()) << checked.status().ToString();
    auto found = (*checked)->Lookup(kRootIno, "f");
    EXPECT_TRUE(found.ok());
    EXPECT_FALSE((*checked)->Create(kRootIno, "g", Proto(S_IFREG | 0644)).ok());
  }
  struct stat after;
  ASSERT_EQ(stat(db_path_.c_str(), &after), 0);
  EXPECT_EQ(before.st_size, after.st_size);
  EXPECT_EQ(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
  struct stat st;
  EXPECT_NE(stat((db_path_ + "-shm").c_str(), &st), 0);
  EXPECT_EQ(Metadata::OpenForCheck(dir_.path() + "/nope.db").status().code(), ENOENT);
}

TEST_F(CheckQueriesTest, BackupIsAConsistentCopy) {
  for (int i = 0; i < 300; ++i) MakeFile(kRootIno, "f" + std::to_string(i));
  const std::string copy = dir_.path() + "/copy.db";
  uint64_t calls = 0, last_done = 0, last_total = 0;
  ASSERT_TRUE(meta_
                  ->BackupTo(copy, 4,
                             [&](uint64_t done, uint64_t total) {
                               ++calls;
                               last_done = done;
                               last_total = total;
                               // Changes between steps reach the copy too.
                               if (calls == 2) MakeFile(kRootIno, "during");
                             })
                  .ok());
  EXPECT_GT(calls, 2u);
  EXPECT_EQ(last_done, last_total);
  auto copied = Metadata::OpenForCheck(copy);
  ASSERT_TRUE(copied.ok()) << copied.status().ToString();
  EXPECT_TRUE((*copied)->Lookup(kRootIno, "f299").ok());
  EXPECT_TRUE((*copied)->Lookup(kRootIno, "during").ok());
  auto problems = (*copied)->IntegrityCheck();
  ASSERT_TRUE(problems.ok());
  EXPECT_TRUE(problems->empty());
}

}  // namespace
}  // namespace tierfs::meta
