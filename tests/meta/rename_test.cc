// Metadata::Rename in all its shapes: move, replace, NOREPLACE, EXCHANGE,
// directories between parents, the subtree rules, same-inode no-ops, errors.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>

#include "meta/metadata.h"
#include "tests/meta/meta_test_util.h"

namespace tierfs::meta {
namespace {

using testing::MetaTest;

class RenameTest : public MetaTest {
 protected:
  // The rename result's errno (0 for success).
  int Err(uint64_t p, const std::string& n, uint64_t np, const std::string& nn,
          unsigned flags = 0) {
    return meta_->Rename(p, n, np, nn, flags).status().code();
  }
  uint64_t Ino(uint64_t parent, const std::string& name) {
    auto ino = meta_->Lookup(parent, name);
    return ino.ok() ? *ino : 0;
  }
  int64_t Cookie(uint64_t dir, const std::string& name) {
    int64_t cookie = 0;
    EXPECT_TRUE(meta_->ReadDir(dir, 0, [&](const Dirent& d) {
      if (d.name == name) cookie = d.cookie;
      return true;
    }).ok());
    return cookie;
  }
};

TEST_F(RenameTest, WithinADirectoryKeepsTheCookie) {
  Inode file = MakeFile(kRootIno, "old");
  const int64_t cookie = Cookie(kRootIno, "old");
  clock_.AdvanceSeconds(4);
  const int64_t now = clock_.NowNanos();
  auto renamed = meta_->Rename(kRootIno, "old", kRootIno, "new", 0);
  ASSERT_TRUE(renamed.ok()) << renamed.status().ToString();
  EXPECT_FALSE(renamed->replaced.has_value());
  EXPECT_EQ(renamed->moved, file.ino);
  EXPECT_EQ(renamed->exchanged, 0u);
  // The parent and the moved file, as stored.
  ASSERT_EQ(renamed->changed.size(), 2u);
  EXPECT_EQ(renamed->changed[0].ino, kRootIno);
  EXPECT_EQ(renamed->changed[1].ino, file.ino);
  for (const Inode& row : renamed->changed) ExpectRowIsStored(row);
  EXPECT_EQ(Ino(kRootIno, "new"), file.ino);
  EXPECT_EQ(Ino(kRootIno, "old"), 0u);
  EXPECT_EQ(Cookie(kRootIno, "new"), cookie);
  EXPECT_EQ(Get(file.ino).ctime_ns, now);
  EXPECT_EQ(Get(kRootIno).mtime_ns, now);
  EXPECT_EQ(Get(kRootIno).ctime_ns, now);
  EXPECT_EQ(Get(kRootIno).nlink, 2u);
}

TEST_F(RenameTest, FileBetweenDirectories) {
  Inode a = MakeDir(kRootIno, "a");
  Inode b = MakeDir(kRootIno, "b");
  Inode file = MakeFile(a.ino, "f");
  clock_.AdvanceSeconds(1);
  const int64_t now = clock_.NowNanos();
  ASSERT_TRUE(meta_->Rename(a.ino, "f", b.ino, "g", 0).ok());
  EXPECT_EQ(Ino(b.ino, "g"), file.ino);
  EXPECT_TRUE(Names(a.ino).empty());
  EXPECT_EQ(Get(a.ino).mtime_ns, now);
  EXPECT_EQ(Get(b.ino).mtime_ns, now);
  EXPECT_EQ(Get(a.ino).ctime_ns, now);
  EXPECT_EQ(Get(b.ino).ctime_ns, now);
  EXPECT_EQ(Get(a.ino).nlink, 2u);
  EXPECT_EQ(Get(b.ino).nlink, 2u);
  EXPECT_EQ(Get(file.ino).nlink, 1u);
}

TEST_F(RenameTest, DirectoryBetweenParentsMovesItsDotDotLink) {
  Inode a = MakeDir(kRootIno, "a");
  Inode b = MakeDir(kRootIno, "b");
  Inode d = MakeDir(a.ino, "d");
  MakeFile(d.ino, "inside");
  EXPECT_EQ(Get(a.ino).nlink, 3u);
  auto renamed = meta_->Rename(a.ino, "d", b.ino, "d", 0);
  ASSERT_TRUE(renamed.ok());
  // Both parents (their link counts changed) and the moved directory, as stored.
  ASSERT_EQ(renamed->changed.size(), 3u);
  for (const Inode& row : renamed->changed) ExpectRowIsStored(row);
  EXPECT_EQ(Get(a.ino).nlink, 2u);
  EXPECT_EQ(Get(b.ino).nlink, 3u);
  EXPECT_EQ(Get(d.ino).nlink, 2u);
  EXPECT_EQ(*meta_->PathOf(*meta_->Lookup(d.ino, "inside")), "/b/d/inside");
  EXPECT_EQ(Get(kRootIno).nlink, 4u);
}

TEST_F(RenameTest, FileReplacesFile) {
  Inode src = MakeFile(kRootIno, "src");
  Inode dst = MakeFile(kRootIno, "dst", 2);
  clock_.AdvanceSeconds(1);
  auto renamed = meta_->Rename(kRootIno, "src", kRootIno, "dst", 0);
  ASSERT_TRUE(renamed.ok());
  ASSERT_TRUE(renamed->replaced.has_value());
  EXPECT_EQ(renamed->replaced->ino, dst.ino);
  EXPECT_EQ(renamed->replaced->nlink, 0u);
  EXPECT_EQ(renamed->replaced->volume_id, 2u);  // so the caller can reclaim the object
  EXPECT_EQ(renamed->replaced->ctime_ns, clock_.NowNanos());
  ExpectRowIsStored(*renamed->replaced);
  EXPECT_EQ(Ino(kRootIno, "dst"), src.ino);
  EXPECT_EQ(Names(kRootIno), std::vector<std::string>{"dst"});
  ASSERT_EQ(meta_->ListOrphans()->size(), 1u);
  EXPECT_EQ(Get(dst.ino).nlink, 0u);
}

TEST_F(RenameTest, ReplacingAHardLinkedFileDropsOneLink) {
  MakeFile(kRootIno, "src");
  Inode dst = MakeFile(kRootIno, "dst");
  ASSERT_TRUE(meta_->Link(dst.ino, kRootIno, "other").ok());
  auto renamed = meta_->Rename(kRootIno, "src", kRootIno, "dst", 0);
  ASSERT_TRUE(renamed.ok());
  EXPECT_EQ(renamed->replaced->nlink, 1u);
  EXPECT_EQ(Get(dst.ino).nlink, 1u);
  EXPECT_TRUE(meta_->ListOrphans()->empty());
}

TEST_F(RenameTest, EmptyDirectoryReplacesDirectoryInTheSameParent) {
  Inode src = MakeDir(kRootIno, "src");
  Inode dst = MakeDir(kRootIno, "dst");
  EXPECT_EQ(Get(kRootIno).nlink, 4u);
  auto renamed = meta_->Rename(kRootIno, "src", kRootIno, "dst", 0);
  ASSERT_TRUE(renamed.ok()) << renamed.status().ToString();
  EXPECT_EQ(renamed->replaced->ino, dst.ino);
  EXPECT_EQ(renamed->replaced->nlink, 0u);
  EXPECT_EQ(Ino(kRootIno, "dst"), src.ino);
  EXPECT_EQ(Get(kRootIno).nlink, 3u);
  EXPECT_EQ(Get(dst.ino).nlink, 0u);
}

TEST_F(RenameTest, DirectoryReplacesEmptyDirectoryInAnotherParent) {
  Inode a = MakeDir(kRootIno, "a");
  Inode b = MakeDir(kRootIno, "b");
  Inode src = MakeDir(a.ino, "src");
  MakeFile(src.ino, "content");
  Inode dst = MakeDir(b.ino, "dst");
  ASSERT_EQ(Get(a.ino).nlink, 3u);
  ASSERT_EQ(Get(b.ino).nlink, 3u);
  auto renamed = meta_->Rename(a.ino, "src", b.ino, "dst", 0);
  ASSERT_TRUE(renamed.ok()) << renamed.status().ToString();
  EXPECT_EQ(renamed->replaced->ino, dst.ino);
  EXPECT_EQ(Get(a.ino).nlink, 2u);
  EXPECT_EQ(Get(b.ino).nlink, 3u);  // lost dst, gained src
  EXPECT_EQ(Ino(b.ino, "dst"), src.ino);
  EXPECT_EQ(Names(b.ino), std::vector<std::string>{"dst"});
  EXPECT_EQ(Names(src.ino), std::vector<std::string>{"content"});
}

TEST_F(RenameTest, TypeMismatchesAndNonEmptyTargets) {
  MakeDir(kRootIno, "dir");
  MakeFile(kRootIno, "file");
  Inode full = MakeDir(kRootIno, "full");
  MakeFile(full.ino, "x");
  EXPECT_EQ(Err(kRootIno, "dir", kRootIno, "file"), ENOTDIR);
  EXPECT_EQ(Err(kRootIno, "file", kRootIno, "dir"), EISDIR);
  EXPECT_EQ(Err(kRootIno, "dir", kRootIno, "full"), ENOTEMPTY);
  // Nothing changed.
  EXPECT_EQ(Names(kRootIno), (std::vector<std::string>{"dir", "file", "full"}));
  EXPECT_EQ(Get(kRootIno).nlink, 4u);
}

TEST_F(RenameTest, DirectoryIntoItsOwnSubtreeIsEinval) {
  Inode a = MakeDir(kRootIno, "a");
  Inode b = MakeDir(a.ino, "b");
  Inode c = MakeDir(b.ino, "c");
  EXPECT_EQ(Err(kRootIno, "a", a.ino, "x"), EINVAL);   // into itself
  EXPECT_EQ(Err(kRootIno, "a", b.ino, "x"), EINVAL);   // into its child
  EXPECT_EQ(Err(kRootIno, "a", c.ino, "x"), EINVAL);   // deeper
  EXPECT_EQ(Err(a.ino, "b", c.ino, "x"), EINVAL);
  EXPECT_EQ(Err(kRootIno, "a", a.ino, "x", RENAME_NOREPLACE), EINVAL);
  // Moving up or sideways is fine.
  EXPECT_EQ(Err(b.ino, "c", kRootIno, "c"), 0);
  EXPECT_EQ(Err(kRootIno, "c", a.ino, "c"), 0);
}

TEST_F(RenameTest, OntoAnAncestorOfTheSourceIsEnotempty) {
  Inode a = MakeDir(kRootIno, "a");
  Inode b = MakeDir(a.ino, "b");
  MakeFile(b.ino, "f");
  EXPECT_EQ(Err(a.ino, "b", kRootIno, "a"), ENOTEMPTY);  // rename a/b over a
  EXPECT_EQ(Err(b.ino, "f", kRootIno, "a"), ENOTEMPTY);  // as Linux answers
  EXPECT_EQ(Err(b.ino, "f", kRootIno, "a", RENAME_EXCHANGE), EINVAL);
  EXPECT_EQ(Err(kRootIno, "a", b.ino, "f", RENAME_EXCHANGE), EINVAL);
}

TEST_F(RenameTest, NoReplace) {
  Inode a = MakeFile(kRootIno, "a");
  Inode b = MakeFile(kRootIno, "b");
  EXPECT_EQ(Err(kRootIno, "a", kRootIno, "b", RENAME_NOREPLACE), EEXIST);
  EXPECT_EQ(Ino(kRootIno, "a"), a.ino);
  EXPECT_EQ(Ino(kRootIno, "b"), b.ino);
  EXPECT_EQ(Err(kRootIno, "a", kRootIno, "a", RENAME_NOREPLACE), EEXIST);  // even onto itself
  EXPECT_EQ(Err(kRootIno, "a", kRootIno, "c", RENAME_NOREPLACE), 0);
  EXPECT_EQ(Ino(kRootIno, "c"), a.ino);
}

TEST_F(RenameTest, ExchangeTwoFiles) {
  Inode a = MakeFile(kRootIno, "a");
  Inode b = MakeFile(kRootIno, "b", 2);
  const int64_t cookie_a = Cookie(kRootIno, "a");
  clock_.AdvanceSeconds(1);
  const int64_t now = clock_.NowNanos();
  auto renamed = meta_->Rename(kRootIno, "a", kRootIno, "b", RENAME_EXCHANGE);
  ASSERT_TRUE(renamed.ok()) << renamed.status().ToString();
  EXPECT_FALSE(renamed->replaced.has_value());
  EXPECT_EQ(renamed->moved, a.ino);
  EXPECT_EQ(renamed->exchanged, b.ino);
  ASSERT_EQ(renamed->changed.size(), 3u);  // the parent and both files
  EXPECT_EQ(renamed->changed[2].ino, b.ino);
  for (const Inode& row : renamed->changed) ExpectRowIsStored(row);
  EXPECT_EQ(Ino(kRootIno, "a"), b.ino);
  EXPECT_EQ(Ino(kRootIno, "b"), a.ino);
  EXPECT_EQ(Cookie(kRootIno, "a"), cookie_a);
  EXPECT_EQ(Get(a.ino).ctime_ns, now);
  EXPECT_EQ(Get(b.ino).ctime_ns, now);
  EXPECT_EQ(Get(a.ino).nlink, 1u);
  EXPECT_EQ(Get(b.ino).nlink, 1u);
  EXPECT_EQ(Get(kRootIno).mtime_ns, now);
}

TEST_F(RenameTest, ExchangeFileAndDirectoryAcrossParents) {
  Inode p = MakeDir(kRootIno, "p");
  Inode q = MakeDir(kRootIno, "q");
  Inode dir = MakeDir(p.ino, "d");
  Inode file = MakeFile(q.ino, "f");
  ASSERT_EQ(Get(p.ino).nlink, 3u);
  ASSERT_TRUE(meta_->Rename(p.ino, "d", q.ino, "f", RENAME_EXCHANGE).ok());
  EXPECT_EQ(Ino(p.ino, "d"), file.ino);
  EXPECT_EQ(Ino(q.ino, "f"), dir.ino);
  EXPECT_EQ(Get(p.ino).nlink, 2u);  // the directory left p
  EXPECT_EQ(Get(q.ino).nlink, 3u);  // and arrived in q
  EXPECT_EQ(*meta_->PathOf(dir.ino), "/q/f");
  // And back again, from the other side.
  ASSERT_TRUE(meta_->Rename(p.ino, "d", q.ino, "f", RENAME_EXCHANGE).ok());
  EXPECT_EQ(Get(p.ino).nlink, 3u);
  EXPECT_EQ(Get(q.ino).nlink, 2u);
}

TEST_F(RenameTest, ExchangeTwoDirectoriesAcrossParentsKeepsCounts) {
  Inode p = MakeDir(kRootIno, "p");
  Inode q = MakeDir(kRootIno, "q");
  Inode d1 = MakeDir(p.ino, "d1");
  Inode d2 = MakeDir(q.ino, "d2");
  MakeFile(d1.ino, "x");  // non-empty is fine for an exchange
  ASSERT_TRUE(meta_->Rename(p.ino, "d1", q.ino, "d2", RENAME_EXCHANGE).ok());
  EXPECT_EQ(Ino(p.ino, "d1"), d2.ino);
  EXPECT_EQ(Ino(q.ino, "d2"), d1.ino);
  EXPECT_EQ(Get(p.ino).nlink, 3u);
  EXPECT_EQ(Get(q.ino).nlink, 3u);
}

TEST_F(RenameTest, ExchangeErrors) {
  MakeFile(kRootIno, "a");
  EXPECT_EQ(Err(kRootIno, "a", kRootIno, "missing", RENAME_EXCHANGE), ENOENT);
  EXPECT_EQ(Err(kRootIno, "missing", kRootIno, "a", RENAME_EXCHANGE), ENOENT);
  EXPECT_EQ(Err(kRootIno, "a", kRootIno, "a", RENAME_EXCHANGE | RENAME_NOREPLACE), EINVAL);
  EXPECT_EQ(Err(kRootIno, "a", kRootIno, "b", 1u << 2), EINVAL);  // RENAME_WHITEOUT
  EXPECT_EQ(Err(kRootIno, "a", kRootIno, "b", 1u << 7), EINVAL);
  EXPECT_EQ(Ino(kRootIno, "b"), 0u);
}

TEST_F(RenameTest, HardLinksToTheSameInodeAreANoOp) {
  Inode file = MakeFile(kRootIno, "one");
  ASSERT_TRUE(meta_->Link(file.ino, kRootIno, "two").ok());
  const size_t fcl = Fcl().size();
  const int64_t ctime = Get(file.ino).ctime_ns;
  clock_.AdvanceSeconds(9);
  auto renamed = meta_->Rename(kRootIno, "one", kRootIno, "two", 0);
  ASSERT_TRUE(renamed.ok());
  EXPECT_FALSE(renamed->replaced.has_value());
  EXPECT_TRUE(renamed->changed.empty());  // nothing changed
  // POSIX: both names stay, nothing changes.
  EXPECT_EQ(Ino(kRootIno, "one"), file.ino);
  EXPECT_EQ(Ino(kRootIno, "two"), file.ino);
  EXPECT_EQ(Get(file.ino).nlink, 2u);
  EXPECT_EQ(Get(file.ino).ctime_ns, ctime);
  EXPECT_EQ(Fcl().size(), fcl);
  EXPECT_EQ(Err(kRootIno, "one", kRootIno, "two", RENAME_EXCHANGE), 0);
  EXPECT_EQ(Ino(kRootIno, "one"), file.ino);
}

TEST_F(RenameTest, OntoItselfIsANoOp) {
  Inode dir = MakeDir(kRootIno, "d");
  Inode file = MakeFile(kRootIno, "f");
  EXPECT_EQ(Err(kRootIno, "d", kRootIno, "d"), 0);
  EXPECT_EQ(Err(kRootIno, "f", kRootIno, "f"), 0);
  EXPECT_EQ(Ino(kRootIno, "d"), dir.ino);
  EXPECT_EQ(Ino(kRootIno, "f"), file.ino);
  EXPECT_EQ(Get(kRootIno).nlink, 3u);
}

TEST_F(RenameTest, LookupErrors) {
  Inode dir = MakeDir(kRootIno, "d");
  Inode file = MakeFile(kRootIno, "f");
  EXPECT_EQ(Err(kRootIno, "missing", kRootIno, "x"), ENOENT);
  EXPECT_EQ(Err(999, "f", kRootIno, "x"), ENOENT);
  EXPECT_EQ(Err(kRootIno, "f", 999, "x"), ENOENT);
  EXPECT_EQ(Err(file.ino, "f", kRootIno, "x"), ENOTDIR);
  EXPECT_EQ(Err(kRootIno, "f", file.ino, "x"), ENOTDIR);
  EXPECT_EQ(Err(kRootIno, "f", kRootIno, ""), EINVAL);
  EXPECT_EQ(Err(kRootIno, "f", kRootIno, "a/b"), EINVAL);
  EXPECT_EQ(Err(kRootIno, "f", kRootIno, std::string(300, 'x')), ENAMETOOLONG);
  ASSERT_TRUE(meta_->Rmdir(kRootIno, "d").ok());
  EXPECT_EQ(Err(kRootIno, "f", dir.ino, "x"), ENOENT);  // into a removed directory
  EXPECT_EQ(Ino(kRootIno, "f"), file.ino);
}

TEST_F(RenameTest, LogsOneFclRecordWithTheNewPath) {
  Inode a = MakeDir(kRootIno, "a");
  Inode b = MakeDir(a.ino, "b");
  Inode file = MakeFile(kRootIno, "f");
  Inode victim = MakeFile(b.ino, "g");
  const size_t before = Fcl().size();
  ASSERT_TRUE(meta_->Rename(kRootIno, "f", b.ino, "g", 0).ok());
  auto records = Fcl();
  ASSERT_EQ(records.size(), before + 1);
  const FclRecord& r = records.back();
  EXPECT_EQ(r.event, "rename");
  EXPECT_EQ(r.ino, file.ino);
  EXPECT_EQ(r.parent, kRootIno);
  EXPECT_EQ(r.name, "f");
  EXPECT_EQ(r.detail, "to=/a/b/g replaced=" + std::to_string(victim.ino));
  EXPECT_EQ(r.time_ns, clock_.NowNanos());
  ASSERT_TRUE(meta_->Rename(b.ino, "g", kRootIno, "a", RENAME_EXCHANGE).status().code() ==
              EINVAL);
  MakeFile(kRootIno, "h");
  ASSERT_TRUE(meta_->Rename(b.ino, "g", kRootIno, "h", RENAME_EXCHANGE).ok());
  EXPECT_EQ(Fcl().back().detail, "exchange=/h");
}

TEST_F(RenameTest, FailedRenameChangesNothing) {
  Inode full = MakeDir(kRootIno, "full");
  MakeFile(full.ino, "x");
  Inode src = MakeDir(kRootIno, "src");
  const Inode root = Get(kRootIno);
  const size_t fcl = Fcl().size();
  clock_.AdvanceSeconds(1);
  EXPECT_EQ(Err(kRootIno, "src", kRootIno, "full"), ENOTEMPTY);
  EXPECT_EQ(Ino(kRootIno, "src"), src.ino);
  EXPECT_EQ(Ino(kRootIno, "full"), full.ino);
  EXPECT_EQ(Get(kRootIno).mtime_ns, root.mtime_ns);
  EXPECT_EQ(Get(kRootIno).nlink, root.nlink);
  EXPECT_EQ(Get(src.ino).ctime_ns, src.ctime_ns);
  EXPECT_EQ(Fcl().size(), fcl);
}

}  // namespace
}  // namespace tierfs::meta
