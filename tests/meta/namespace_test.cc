// Metadata namespace operations other than rename: create, lookup, link,
// unlink, rmdir, write-back, relocation commit, readdir, orphans, delete.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <atomic>
#include <set>
#include <thread>

#include "meta/database.h"
#include "meta/metadata.h"
#include "meta/schema.h"
#include "tests/meta/meta_test_util.h"

namespace tierfs::meta {
namespace {

using testing::kStartNs;
using testing::MetaTest;

using NamespaceTest = MetaTest;

// ---- Create --------------------------------------------------------------------------

TEST_F(NamespaceTest, CreateRegularFile) {
  clock_.AdvanceSeconds(10);
  const int64_t now = kStartNs + 10 * kNanosPerSecond;
  Inode proto = Proto(S_IFREG | 0640, 2);
  proto.size = 123;
  proto.nlink = 9;       // ignored
  proto.ino = 555;       // ignored
  proto.atime_ns = 1;    // ignored
  auto made = meta_->Create(kRootIno, "file", proto);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  EXPECT_GT(made->ino, kRootIno);
  EXPECT_NE(made->ino, 555u);
  EXPECT_NE(made->generation, 0u);
  EXPECT_EQ(made->mode, S_IFREG | 0640u);
  EXPECT_EQ(made->uid, 1000u);
  EXPECT_EQ(made->gid, 100u);
  EXPECT_EQ(made->nlink, 1u);
  EXPECT_EQ(made->size, 123u);
  EXPECT_EQ(made->volume_id, 2u);
  EXPECT_EQ(made->atime_ns, now);
  EXPECT_EQ(made->mtime_ns, now);
  EXPECT_EQ(made->ctime_ns, now);
  Inode stored = Get(made->ino);
  EXPECT_EQ(stored.mode, made->mode);
  EXPECT_EQ(stored.size, 123u);
  EXPECT_EQ(stored.volume_id, 2u);
  EXPECT_EQ(stored.generation, made->generation);
  EXPECT_EQ(stored.ctime_ns, now);
  Inode root = Get(kRootIno);
  EXPECT_EQ(root.nlink, 2u);  // a file adds no link to its parent
  EXPECT_EQ(root.mtime_ns, now);
  EXPECT_EQ(root.ctime_ns, now);
  EXPECT_EQ(root.atime_ns, kStartNs);
}

// An empty new file's object holds no blocks, so stat and readdirplus need no
// stat(2) of it; any other size (fsck adopting an orphan object) leaves the
// count unknown, to be read from the object.
TEST_F(NamespaceTest, CreateRecordsNoBlocksForAnEmptyFileOnly) {
  Inode empty = MakeFile(kRootIno, "empty");
  EXPECT_EQ(empty.blocks, 0);
  EXPECT_EQ(Get(empty.ino).blocks, 0);
  Inode proto = Proto(S_IFREG | 0644);
  proto.size = 4096;
  auto adopted = meta_->Create(kRootIno, "adopted", proto);
  ASSERT_TRUE(adopted.ok()) << adopted.status().ToString();
  EXPECT_EQ(Get(adopted->ino).blocks, -1);
  EXPECT_EQ(Get(MakeDir(kRootIno, "d").ino).blocks, -1);
  EXPECT_EQ(Get(MakeSymlink(kRootIno, "l", "target").ino).blocks, -1);
}

TEST_F(NamespaceTest, CreateDirectoryLinksTheParent) {
  Inode dir = MakeDir(kRootIno, "d");
  EXPECT_EQ(dir.nlink, 2u);
  EXPECT_EQ(dir.volume_id, 0u);
  EXPECT_EQ(Get(kRootIno).nlink, 3u);
  MakeDir(dir.ino, "e");
  MakeDir(dir.ino, "f");
  MakeFile(dir.ino, "g");
  EXPECT_EQ(Get(dir.ino).nlink, 4u);
  EXPECT_EQ(Get(kRootIno).nlink, 3u);
}

// Under a setgid directory new inodes take its group, and new directories its
// setgid bit too (ext4 without `grpid`); elsewhere the caller's group.
TEST_F(NamespaceTest, CreateUnderASetgidDirectoryTakesItsGroup) {
  Inode shared = MakeDir(kRootIno, "shared");
  Inode setgid = shared;
  setgid.mode = S_IFDIR | S_ISGID | 0775;
  setgid.gid = 50;
  ASSERT_TRUE(meta_->UpdateAttributes(setgid, kAttrMode | kAttrGid, "setattr").ok());
  Inode file = MakeFile(shared.ino, "f");
  EXPECT_EQ(file.gid, 50u);
  EXPECT_EQ(file.mode, S_IFREG | 0644u);
  Inode dir = MakeDir(shared.ino, "d");
  EXPECT_EQ(dir.gid, 50u);
  EXPECT_EQ(dir.mode, S_IFDIR | S_ISGID | 0755u);
  EXPECT_EQ(Get(dir.ino).mode, dir.mode);
  EXPECT_EQ(MakeFile(kRootIno, "plain").gid, 100u);
}

TEST_F(NamespaceTest, CreateSymlinkSizeIsTargetLength) {
  Inode link = MakeSymlink(kRootIno, "l", "../some/where");
  EXPECT_EQ(link.mode, S_IFLNK | 0777u);
  EXPECT_EQ(Get(link.ino).symlink, "../some/where");
  EXPECT_EQ(Get(link.ino).size, 13u);
  EXPECT_EQ(Get(link.ino).volume_id, 0u);
}

TEST_F(NamespaceTest, CreateSpecialFiles) {
  Inode dev = Proto(S_IFCHR | 0600);
  dev.rdev = makedev(1, 3);
  dev.volume_id = 2;  // ignored for non-regular files
  auto chr = meta_->Create(kRootIno, "null", dev);
  ASSERT_TRUE(chr.ok());
  EXPECT_EQ(Get(chr->ino).rdev, makedev(1, 3));
  EXPECT_EQ(Get(chr->ino).volume_id, 0u);
  auto fifo = meta_->Create(kRootIno, "fifo", Proto(S_IFIFO | 0600));
  ASSERT_TRUE(fifo.ok());
  EXPECT_TRUE(S_ISFIFO(Get(fifo->ino).mode));
  auto sock = meta_->Create(kRootIno, "sock", Proto(S_IFSOCK | 0600));
  ASSERT_TRUE(sock.ok());
  // mknod(2) with no type bits makes a regular file.
  Inode typeless = Proto(0644);
  typeless.volume_id = 1;
  auto reg = meta_->Create(kRootIno, "plain", typeless);
  ASSERT_TRUE(reg.ok());
  EXPECT_EQ(reg->mode, S_IFREG | 0644u);
}

TEST_F(NamespaceTest, CreateExistingNameIsEexistAndLeavesNothingBehind) {
  MakeFile(kRootIno, "a");
  const uint64_t count = Count();
  const size_t fcl = Fcl().size();
  const Inode root = Get(kRootIno);
  clock_.AdvanceSeconds(5);
  EXPECT_EQ(meta_->Create(kRootIno, "a", Proto(S_IFREG | 0644)).status().code(), EEXIST);
  EXPECT_EQ(meta_->Create(kRootIno, "a", Proto(S_IFDIR | 0755)).status().code(), EEXIST);
  // The transaction rolled back: no orphan inode row, no FCL row, parent untouched.
  EXPECT_EQ(Count(), count);
  EXPECT_TRUE(meta_->ListOrphans()->empty());
  EXPECT_EQ(Fcl().size(), fcl);
  EXPECT_EQ(Get(kRootIno).mtime_ns, root.mtime_ns);
  EXPECT_EQ(Get(kRootIno).nlink, root.nlink);
}

TEST_F(NamespaceTest, FailureAfterWritesRollsEverythingBack) {
  MakeDir(kRootIno, "d");
  MakeFile(kRootIno, "f");
  const Inode root = Get(kRootIno);
  // Break the last step of every change (its FCL insert) so that each fails
  // after it has already written its inode, dirent and parent rows.
  meta_.reset();
  testing::RawExec(db_path_, "DROP TABLE fcl");
  Reopen();
  clock_.AdvanceSeconds(5);
  EXPECT_EQ(meta_->Create(kRootIno, "new", Proto(S_IFREG | 0644)).status().code(), EIO);
  EXPECT_EQ(meta_->Create(kRootIno, "newdir", Proto(S_IFDIR | 0755)).status().code(), EIO);
  EXPECT_EQ(meta_->Rename(kRootIno, "f", kRootIno, "d2", 0).status().code(), EIO);
  EXPECT_EQ(meta_->Unlink(kRootIno, "f").status().code(), EIO);
  EXPECT_EQ(meta_->Rmdir(kRootIno, "d").status().code(), EIO);
  EXPECT_EQ(Count(), 3u);  // no inode row left behind
  EXPECT_TRUE(meta_->ListOrphans()->empty());
  EXPECT_EQ(Names(kRootIno), (std::vector<std::string>{"d", "f"}));
  EXPECT_EQ(Get(kRootIno).nlink, root.nlink);
  EXPECT_EQ(Get(kRootIno).mtime_ns, root.mtime_ns);
  EXPECT_EQ(Get(*meta_->Lookup(kRootIno, "f")).nlink, 1u);
  // With the log off the same changes succeed: nothing was left half-done.
  // (SetFclEnabled would fail too, logging the switch; flip the state directly.)
  meta_.reset();
  testing::RawExec(db_path_, "UPDATE fs_info SET value = 'off' WHERE key = 'fcl_state'");
  Reopen();
  EXPECT_TRUE(meta_->Create(kRootIno, "new", Proto(S_IFREG | 0644)).ok());
  EXPECT_TRUE(meta_->Rename(kRootIno, "f", kRootIno, "g", 0).ok());
}

TEST_F(NamespaceTest, CreateErrors) {
  Inode file = MakeFile(kRootIno, "file");
  EXPECT_EQ(meta_->Create(999, "x", Proto(S_IFREG | 0644)).status().code(), ENOENT);
  EXPECT_EQ(meta_->Create(file.ino, "x", Proto(S_IFREG | 0644)).status().code(), ENOTDIR);
  for (const char* bad : {"", ".", "..", "a/b", "/"}) {
    EXPECT_EQ(meta_->Create(kRootIno, bad, Proto(S_IFREG | 0644)).status().code(), EINVAL) << bad;
  }
  EXPECT_EQ(meta_->Create(kRootIno, std::string("a\0b", 3), Proto(S_IFREG | 0644)).status().code(),
            EINVAL);
  EXPECT_EQ(meta_->Create(kRootIno, std::string(256, 'n'), Proto(S_IFREG | 0644)).status().code(),
            ENAMETOOLONG);
  EXPECT_TRUE(meta_->Create(kRootIno, std::string(255, 'n'), Proto(S_IFREG | 0644)).ok());
  EXPECT_EQ(meta_->Create(kRootIno, "novol", Proto(S_IFREG | 0644, 0)).status().code(), EINVAL);
  EXPECT_EQ(meta_->Create(kRootIno, "badvol", Proto(S_IFREG | 0644, 9)).status().code(), EINVAL);
  EXPECT_EQ(meta_->Create(kRootIno, "emptylink", Proto(S_IFLNK | 0777)).status().code(), ENOENT);
  EXPECT_EQ(meta_->Create(kRootIno, "badtype", Proto(0170000 | 0644)).status().code(), EINVAL);
  EXPECT_EQ(Count(), 3u);  // root, file, the 255-byte name
}

TEST_F(NamespaceTest, CreateInRemovedDirectoryIsEnoent) {
  Inode dir = MakeDir(kRootIno, "d");
  ASSERT_TRUE(meta_->Rmdir(kRootIno, "d").ok());
  EXPECT_EQ(meta_->Create(dir.ino, "x", Proto(S_IFREG | 0644)).status().code(), ENOENT);
}

TEST_F(NamespaceTest, InodeNumbersAreNeverReused) {
  Inode a = MakeFile(kRootIno, "a");
  ASSERT_TRUE(meta_->Unlink(kRootIno, "a").ok());
  ASSERT_TRUE(meta_->DeleteInode(a.ino).ok());
  Inode b = MakeFile(kRootIno, "a");
  EXPECT_GT(b.ino, a.ino);
  Reopen();
  Inode c = MakeFile(kRootIno, "c");
  EXPECT_GT(c.ino, b.ino);
}

// ---- Lookup ----------------------------------------------------------------------------

TEST_F(NamespaceTest, LookupIsByteExact) {
  Inode lower = MakeFile(kRootIno, "name");
  Inode upper = MakeFile(kRootIno, "NAME");
  Inode nfc = MakeFile(kRootIno, "caf\xc3\xa9");
  Inode nfd = MakeFile(kRootIno, "cafe\xcc\x81");
  Inode raw = MakeFile(kRootIno, "bin\xff\xfe");
  EXPECT_EQ(*meta_->Lookup(kRootIno, "name"), lower.ino);
  EXPECT_EQ(*meta_->Lookup(kRootIno, "NAME"), upper.ino);
  EXPECT_EQ(*meta_->Lookup(kRootIno, "caf\xc3\xa9"), nfc.ino);
  EXPECT_EQ(*meta_->Lookup(kRootIno, "cafe\xcc\x81"), nfd.ino);
  EXPECT_EQ(*meta_->Lookup(kRootIno, "bin\xff\xfe"), raw.ino);
  EXPECT_EQ(meta_->Lookup(kRootIno, "Name").status().code(), ENOENT);
  EXPECT_EQ(meta_->Lookup(kRootIno, "name ").status().code(), ENOENT);
  EXPECT_EQ(meta_->Lookup(kRootIno, "bin\xff").status().code(), ENOENT);
}

TEST_F(NamespaceTest, LookupErrors) {
  Inode file = MakeFile(kRootIno, "f");
  EXPECT_EQ(meta_->Lookup(kRootIno, "missing").status().code(), ENOENT);
  EXPECT_EQ(meta_->Lookup(12345, "f").status().code(), ENOENT);
  EXPECT_EQ(meta_->Lookup(file.ino, "x").status().code(), ENOTDIR);
  EXPECT_EQ(meta_->LookupInode(kRootIno, "missing").status().code(), ENOENT);
  EXPECT_EQ(meta_->LookupInode(file.ino, "x").status().code(), ENOTDIR);
  EXPECT_EQ(meta_->GetInode(12345).status().code(), ENOENT);
}

TEST_F(NamespaceTest, LookupInodeReturnsAttributes) {
  Inode dir = MakeDir(kRootIno, "d");
  Inode file = MakeFile(dir.ino, "f", 2);
  auto got = meta_->LookupInode(dir.ino, "f");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->ino, file.ino);
  EXPECT_EQ(got->volume_id, 2u);
  EXPECT_EQ(got->mode, file.mode);
  EXPECT_EQ(got->nlink, 1u);
}

// ---- Link / Unlink / Rmdir --------------------------------------------------------------

TEST_F(NamespaceTest, LinkAddsANameAndALink) {
  Inode dir = MakeDir(kRootIno, "d");
  Inode file = MakeFile(kRootIno, "f");
  clock_.AdvanceSeconds(3);
  const int64_t now = clock_.NowNanos();
  auto linked = meta_->Link(file.ino, dir.ino, "g");
  ASSERT_TRUE(linked.ok()) << linked.status().ToString();
  EXPECT_EQ(linked->nlink, 2u);
  EXPECT_EQ(linked->ctime_ns, now);
  EXPECT_EQ(Get(file.ino).nlink, 2u);
  EXPECT_EQ(Get(file.ino).ctime_ns, now);
  EXPECT_EQ(*meta_->Lookup(dir.ino, "g"), file.ino);
  EXPECT_EQ(Get(dir.ino).mtime_ns, now);
  EXPECT_EQ(Get(dir.ino).nlink, 2u);
}

TEST_F(NamespaceTest, LinkErrors) {
  Inode dir = MakeDir(kRootIno, "d");
  Inode file = MakeFile(kRootIno, "f");
  EXPECT_EQ(meta_->Link(dir.ino, kRootIno, "d2").status().code(), EPERM);
  EXPECT_EQ(meta_->Link(file.ino, kRootIno, "d").status().code(), EEXIST);
  EXPECT_EQ(meta_->Link(file.ino, kRootIno, "f").status().code(), EEXIST);
  EXPECT_EQ(meta_->Link(777, kRootIno, "x").status().code(), ENOENT);
  EXPECT_EQ(meta_->Link(file.ino, 777, "x").status().code(), ENOENT);
  EXPECT_EQ(meta_->Link(file.ino, file.ino, "x").status().code(), ENOTDIR);
  EXPECT_EQ(meta_->Link(file.ino, kRootIno, "..").status().code(), EINVAL);
  ASSERT_TRUE(meta_->Unlink(kRootIno, "f").ok());
  EXPECT_EQ(meta_->Link(file.ino, kRootIno, "back").status().code(), ENOENT);  // orphan
  EXPECT_EQ(Get(file.ino).nlink, 0u);
}

TEST_F(NamespaceTest, LinkStopsAtTheExt4LinkLimit) {
  Inode file = MakeFile(kRootIno, "f");
  // 65000 real links would take long: start just below the limit.
  meta_.reset();
  testing::RawExec(db_path_, ("UPDATE inodes SET nlink = " + std::to_string(kMaxLinks - 1) +
                              " WHERE ino = " + std::to_string(file.ino))
                                 .c_str());
  Reopen();
  auto last = meta_->Link(file.ino, kRootIno, "last");
  ASSERT_TRUE(last.ok()) << last.status().ToString();
  EXPECT_EQ(last->nlink, kMaxLinks);
  EXPECT_EQ(meta_->Link(file.ino, kRootIno, "one-too-many").status().code(), EMLINK);
  EXPECT_FALSE(meta_->Lookup(kRootIno, "one-too-many").ok());
  EXPECT_EQ(Get(file.ino).nlink, kMaxLinks);
  // An existing name still wins over the limit, as on ext4 (EEXIST first).
  EXPECT_EQ(meta_->Link(file.ino, kRootIno, "last").status().code(), EEXIST);
  ASSERT_TRUE(meta_->Unlink(kRootIno, "last").ok());
  EXPECT_TRUE(meta_->Link(file.ino, kRootIno, "again").ok());
}

TEST_F(NamespaceTest, UnlinkDropsALinkAndMakesOrphans) {
  Inode file = MakeFile(kRootIno, "f");
  ASSERT_TRUE(meta_->Link(file.ino, kRootIno, "g").ok());
  clock_.AdvanceSeconds(1);
  const int64_t now = clock_.NowNanos();
  auto after = meta_->Unlink(kRootIno, "f");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->nlink, 1u);
  EXPECT_EQ(after->ctime_ns, now);
  EXPECT_EQ(Get(kRootIno).mtime_ns, now);
  EXPECT_TRUE(meta_->ListOrphans()->empty());
  after = meta_->Unlink(kRootIno, "g");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->nlink, 0u);
  EXPECT_EQ(after->volume_id, 1u);  // the caller reclaims its object
  auto orphans = meta_->ListOrphans();
  ASSERT_EQ(orphans->size(), 1u);
  EXPECT_EQ((*orphans)[0].ino, file.ino);
  EXPECT_EQ(Get(file.ino).nlink, 0u);  // still readable while open
  EXPECT_TRUE(Names(kRootIno).empty());
}

// Each change returns the rows it changed as stored, so that a cache takes them
// without reading them back; their epochs order them after every earlier read.
TEST_F(NamespaceTest, ChangesReturnTheRowsTheyLeave) {
  Inode dir = MakeDir(kRootIno, "d");
  const uint64_t before = Get(dir.ino).row_epoch;
  clock_.AdvanceSeconds(1);
  Inode parent;
  auto file = meta_->Create(dir.ino, "f", Proto(S_IFREG | 0644), &parent);
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(parent.ino, dir.ino);
  EXPECT_EQ(parent.mtime_ns, clock_.NowNanos());
  EXPECT_GT(parent.row_epoch, before);
  ExpectRowIsStored(parent);
  ExpectRowIsStored(*file);

  clock_.AdvanceSeconds(1);
  auto sub = meta_->Create(dir.ino, "sub", Proto(S_IFDIR | 0755), &parent);
  ASSERT_TRUE(sub.ok());
  EXPECT_EQ(parent.nlink, 3u);
  ExpectRowIsStored(parent);
  ExpectRowIsStored(*sub);

  clock_.AdvanceSeconds(1);
  auto linked = meta_->Link(file->ino, kRootIno, "g", &parent);
  ASSERT_TRUE(linked.ok());
  EXPECT_EQ(parent.ino, kRootIno);
  ExpectRowIsStored(parent);
  ExpectRowIsStored(*linked);

  clock_.AdvanceSeconds(1);
  auto unlinked = meta_->Unlink(dir.ino, "f", 0, &parent);
  ASSERT_TRUE(unlinked.ok());
  EXPECT_EQ(unlinked->nlink, 1u);
  ExpectRowIsStored(parent);
  ExpectRowIsStored(*unlinked);

  clock_.AdvanceSeconds(1);
  const uint64_t before_rmdir = parent.row_epoch;
  auto removed = meta_->Rmdir(dir.ino, "sub", &parent);
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(parent.nlink, 2u);
  EXPECT_GT(parent.row_epoch, before_rmdir);
  ExpectRowIsStored(parent);
  ExpectRowIsStored(*removed);

  // A failed change returns nothing and leaves the rows as they were.
  const Inode kept = parent;
  EXPECT_EQ(meta_->Rmdir(dir.ino, "missing", &parent).status().code(), ENOENT);
  EXPECT_EQ(parent.row_epoch, kept.row_epoch);
}

TEST_F(NamespaceTest, UnlinkErrors) {
  MakeDir(kRootIno, "d");
  Inode file = MakeFile(kRootIno, "f");
  EXPECT_EQ(meta_->Unlink(kRootIno, "d").status().code(), EISDIR);
  EXPECT_EQ(meta_->Unlink(kRootIno, "nope").status().code(), ENOENT);
  EXPECT_EQ(meta_->Unlink(999, "f").status().code(), ENOENT);
  EXPECT_EQ(meta_->Unlink(file.ino, "f").status().code(), ENOTDIR);
  EXPECT_EQ(Get(kRootIno).nlink, 3u);
}

TEST_F(NamespaceTest, RmdirRemovesAnEmptyDirectory) {
  Inode dir = MakeDir(kRootIno, "d");
  clock_.AdvanceSeconds(2);
  const int64_t now = clock_.NowNanos();
  auto removed = meta_->Rmdir(kRootIno, "d");
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(removed->ino, dir.ino);
  EXPECT_EQ(removed->nlink, 0u);
  EXPECT_EQ(Get(kRootIno).nlink, 2u);
  EXPECT_EQ(Get(kRootIno).mtime_ns, now);
  EXPECT_EQ(meta_->Lookup(kRootIno, "d").status().code(), ENOENT);
  // Kept as an orphan until the last user lets go, then deleted.
  ASSERT_EQ(meta_->ListOrphans()->size(), 1u);
  EXPECT_TRUE(Names(dir.ino).empty());  // an open, removed directory reads as empty
  ASSERT_TRUE(meta_->DeleteInode(dir.ino).ok());
  EXPECT_TRUE(meta_->ListOrphans()->empty());
}

TEST_F(NamespaceTest, RmdirErrors) {
  Inode dir = MakeDir(kRootIno, "d");
  MakeFile(dir.ino, "inner");
  Inode file = MakeFile(kRootIno, "f");
  EXPECT_EQ(meta_->Rmdir(kRootIno, "d").status().code(), ENOTEMPTY);
  EXPECT_EQ(meta_->Rmdir(kRootIno, "f").status().code(), ENOTDIR);
  EXPECT_EQ(meta_->Rmdir(kRootIno, "nope").status().code(), ENOENT);
  EXPECT_EQ(meta_->Rmdir(file.ino, "x").status().code(), ENOTDIR);
  EXPECT_EQ(Get(kRootIno).nlink, 3u);
  EXPECT_EQ(Get(dir.ino).nlink, 2u);
}

// ---- WriteInode / SetInodeVolume ---------------------------------------------------------

TEST_F(NamespaceTest, WriteInodeWritesBackAttributes) {
  Inode file = MakeFile(kRootIno, "f", 1);
  Inode changed = file;
  changed.mode = S_IFDIR | 04711;  // the type cannot change
  changed.uid = 5;
  changed.gid = 6;
  changed.size = 1 << 20;
  changed.atime_ns = 11;
  changed.mtime_ns = 22;
  changed.ctime_ns = 33;
  changed.rdev = 44;
  changed.nlink = 7;       // not written
  changed.volume_id = 2;   // not written
  changed.symlink = "x";   // not written
  ASSERT_TRUE(meta_->WriteInode(changed).ok());
  Inode got = Get(file.ino);
  EXPECT_EQ(got.mode, S_IFREG | 04711u);
  EXPECT_EQ(got.uid, 5u);
  EXPECT_EQ(got.gid, 6u);
  EXPECT_EQ(got.size, 1u << 20);
  EXPECT_EQ(got.atime_ns, 11);
  EXPECT_EQ(got.mtime_ns, 22);
  EXPECT_EQ(got.ctime_ns, 33);
  EXPECT_EQ(got.rdev, 44u);
  EXPECT_EQ(got.nlink, 1u);
  EXPECT_EQ(got.volume_id, 1u);
  EXPECT_EQ(got.symlink, "");
}

TEST_F(NamespaceTest, WriteInodeLogsOnlyWhenAsked) {
  Inode file = MakeFile(kRootIno, "f");
  const size_t before = Fcl().size();
  ASSERT_TRUE(meta_->WriteInode(file).ok());
  EXPECT_EQ(Fcl().size(), before);
  ASSERT_TRUE(meta_->WriteInode(file, "truncate").ok());
  auto records = Fcl();
  ASSERT_EQ(records.size(), before + 1);
  EXPECT_EQ(records.back().event, "truncate");
  EXPECT_EQ(records.back().ino, file.ino);
}

// ---- UpdateAttributes / ParentOf ------------------------------------------------------

TEST_F(NamespaceTest, UpdateAttributesWritesOnlyTheNamedFields) {
  Inode file = MakeFile(kRootIno, "f", 1);
  Inode values = file;
  values.mode = S_IFDIR | 04711;  // the type cannot change
  values.uid = 5;
  values.gid = 6;
  values.size = 1 << 20;
  values.atime_ns = 11;
  values.mtime_ns = 22;
  values.ctime_ns = file.ctime_ns + 5;
  auto after = meta_->UpdateAttributes(values, kAttrMode | kAttrSize | kAttrCtime);
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(after->mode, S_IFREG | 04711u);
  EXPECT_EQ(after->size, 1u << 20);
  EXPECT_EQ(after->ctime_ns, file.ctime_ns + 5);
  EXPECT_EQ(after->uid, file.uid);          // not named: unchanged
  EXPECT_EQ(after->gid, file.gid);
  EXPECT_EQ(after->atime_ns, file.atime_ns);
  EXPECT_EQ(after->mtime_ns, file.mtime_ns);
  EXPECT_EQ(after->nlink, 1u);
  ExpectRowIsStored(*after);
  EXPECT_GT(after->row_epoch, file.row_epoch);
  Inode got = Get(file.ino);
  EXPECT_EQ(got.mode, after->mode);
  EXPECT_EQ(got.size, after->size);
  EXPECT_EQ(got.uid, file.uid);

  values = got;
  values.uid = 7;
  values.gid = 8;
  values.atime_ns = 111;
  values.mtime_ns = 222;
  after = meta_->UpdateAttributes(values, kAttrUid | kAttrGid | kAttrAtime | kAttrMtime);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->uid, 7u);
  EXPECT_EQ(after->gid, 8u);
  EXPECT_EQ(after->atime_ns, 111);
  EXPECT_EQ(after->mtime_ns, 222);
}

// The delayed size flush of many files: one lock hold per kAttributeBatch
// rows, and a failing update (an inode reclaimed meanwhile, a bad mask) fails
// alone.
TEST_F(NamespaceTest, UpdateAttributesEachWritesEveryRowAndFailsOnlyTheBadOnes) {
  std::vector<AttributeUpdate> updates;
  for (int i = 0; i < 70; ++i) {
    Inode values = MakeFile(kRootIno, "f" + std::to_string(i));
    values.size = 1000 + i;
    updates.push_back({values, kAttrSize, {}, /*log_write=*/true});
  }
  updates[3].values.ino = 999'999;  // no such inode
  updates[5].fields = 0;            // no field
  const uint64_t taken = meta_->LockWaits().taken;
  std::vector<Result<Inode>> rows = meta_->UpdateAttributesEach(updates);
  // 70 rows: two holds of the lock.
  EXPECT_EQ(meta_->LockWaits().taken - taken, 2u);
  ASSERT_EQ(rows.size(), updates.size());
  EXPECT_EQ(rows[3].status().code(), ENOENT);
  EXPECT_EQ(rows[5].status().code(), EINVAL);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i == 3 || i == 5) continue;
    ASSERT_TRUE(rows[i].ok()) << i << ": " << rows[i].status().ToString();
    EXPECT_EQ(rows[i]->size, 1000 + i);
    EXPECT_EQ(Get(updates[i].values.ino).size, 1000 + i);
  }
  size_t writes = 0;
  for (const FclRecord& r : Fcl()) writes += r.event == "write";
  EXPECT_EQ(writes, rows.size() - 2);
}

TEST_F(NamespaceTest, UpdateAttributesNeverMovesCtimeBackwards) {
  Inode file = MakeFile(kRootIno, "f");
  Inode values = file;
  values.ctime_ns = file.ctime_ns - 1000;
  auto after = meta_->UpdateAttributes(values, kAttrCtime);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->ctime_ns, file.ctime_ns);
}

TEST_F(NamespaceTest, UpdateAttributesLeavesConcurrentNamespaceChangesAlone) {
  // A stale copy of a directory written back must not undo the mtime and nlink a
  // mkdir inside it gave it meanwhile.
  Inode dir = MakeDir(kRootIno, "d");
  Inode stale = dir;
  clock_.AdvanceSeconds(5);
  MakeDir(dir.ino, "sub");
  stale.atime_ns = 77;
  auto after = meta_->UpdateAttributes(stale, kAttrAtime);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->atime_ns, 77);
  EXPECT_EQ(after->nlink, 3u);
  EXPECT_EQ(after->mtime_ns, kStartNs + 5 * kNanosPerSecond);
}

TEST_F(NamespaceTest, UpdateAttributesErrorsAndLog) {
  Inode file = MakeFile(kRootIno, "f");
  EXPECT_EQ(meta_->UpdateAttributes(file, 0).status().code(), EINVAL);
  EXPECT_EQ(meta_->UpdateAttributes(file, 1u << 20).status().code(), EINVAL);
  Inode ghost;
  ghost.ino = 4242;
  EXPECT_EQ(meta_->UpdateAttributes(ghost, kAttrSize).status().code(), ENOENT);
  const size_t before = Fcl().size();
  ASSERT_TRUE(meta_->UpdateAttributes(file, kAttrSize).ok());
  EXPECT_EQ(Fcl().size(), before);
  ASSERT_TRUE(meta_->UpdateAttributes(file, kAttrSize, "truncate").ok());
  auto records = Fcl();
  ASSERT_EQ(records.size(), before + 1);
  EXPECT_EQ(records.back().event, "truncate");
}

TEST_F(NamespaceTest, ParentOfDirectories) {
  Inode a = MakeDir(kRootIno, "a");
  Inode b = MakeDir(a.ino, "b");
  Inode f = MakeFile(a.ino, "f");
  EXPECT_EQ(*meta_->ParentOf(kRootIno), kRootIno);
  EXPECT_EQ(*meta_->ParentOf(a.ino), kRootIno);
  EXPECT_EQ(*meta_->ParentOf(b.ino), a.ino);
  EXPECT_EQ(meta_->ParentOf(f.ino).status().code(), ENOTDIR);
  EXPECT_EQ(meta_->ParentOf(9999).status().code(), ENOENT);
  ASSERT_TRUE(meta_->Rename(a.ino, "b", kRootIno, "b", 0).ok());
  EXPECT_EQ(*meta_->ParentOf(b.ino), kRootIno);
  ASSERT_TRUE(meta_->Rmdir(kRootIno, "b").ok());
  EXPECT_EQ(*meta_->ParentOf(b.ino), kRootIno);  // removed: no parent left
}

TEST_F(NamespaceTest, WriteInodeOfMissingInodeIsEnoent) {
  Inode ghost;
  ghost.ino = 4242;
  EXPECT_EQ(meta_->WriteInode(ghost, "setattr").code(), ENOENT);
  EXPECT_TRUE(Fcl().empty());
}

TEST_F(NamespaceTest, SetInodeVolumeMovesTheObject) {
  Inode file = MakeFile(kRootIno, "f", 1);
  const int64_t ctime = Get(file.ino).ctime_ns;
  clock_.AdvanceSeconds(1);
  auto after = meta_->SetInodeVolume(file.ino, 1, 2);
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(after->volume_id, 2u);
  EXPECT_GT(after->row_epoch, file.row_epoch);  // the row it returns is the newer one
  EXPECT_EQ(Get(file.ino).volume_id, 2u);
  EXPECT_EQ(Get(file.ino).ctime_ns, ctime);  // relocation is invisible
  auto records = Fcl();
  EXPECT_EQ(records.back().event, "relocate");
  EXPECT_EQ(records.back().ino, file.ino);
  EXPECT_EQ(records.back().detail, "vol1->vol2");
}

TEST_F(NamespaceTest, SetInodeVolumeErrors) {
  Inode file = MakeFile(kRootIno, "f", 1);
  Inode dir = MakeDir(kRootIno, "d");
  EXPECT_EQ(meta_->SetInodeVolume(file.ino, 2, 1).status().code(), ESTALE);  // not where the caller thinks
  EXPECT_EQ(meta_->SetInodeVolume(file.ino, 1, 9).status().code(), EINVAL);  // no volume 9
  EXPECT_EQ(meta_->SetInodeVolume(dir.ino, 0, 1).status().code(), EINVAL);
  EXPECT_EQ(meta_->SetInodeVolume(999, 1, 2).status().code(), ENOENT);
  EXPECT_EQ(Get(file.ino).volume_id, 1u);
}

// ---- ReadDir ----------------------------------------------------------------------------

TEST_F(NamespaceTest, ReadDirListsInCookieOrderWithModes) {
  MakeFile(kRootIno, "zeta");
  MakeDir(kRootIno, "alpha");
  MakeSymlink(kRootIno, "mid", "t");
  std::vector<Dirent> entries;
  ASSERT_TRUE(meta_->ReadDir(kRootIno, 0, [&](const Dirent& d) {
    entries.push_back(d);
    return true;
  }).ok());
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].name, "zeta");
  EXPECT_TRUE(S_ISREG(entries[0].mode));
  EXPECT_EQ(entries[1].name, "alpha");
  EXPECT_TRUE(S_ISDIR(entries[1].mode));
  EXPECT_TRUE(S_ISLNK(entries[2].mode));
  EXPECT_GE(entries[0].cookie, kFirstDirentCookie);  // 1 and 2 are free for "." and ".."
  EXPECT_LT(entries[0].cookie, entries[1].cookie);
  EXPECT_LT(entries[1].cookie, entries[2].cookie);
  EXPECT_EQ(entries[1].ino, *meta_->Lookup(kRootIno, "alpha"));
}

TEST_F(NamespaceTest, ReadDirResumesAfterACookieAndStops) {
  for (int i = 0; i < 10; ++i) MakeFile(kRootIno, "f" + std::to_string(i));
  int64_t offset = 0;
  std::vector<std::string> seen;
  // Three entries per call, as a small readdir buffer would take.
  for (int call = 0; call < 10; ++call) {
    int taken = 0;
    ASSERT_TRUE(meta_->ReadDir(kRootIno, offset, [&](const Dirent& d) {
      if (taken == 3) return false;
      seen.push_back(d.name);
      offset = d.cookie;
      ++taken;
      return true;
    }).ok());
    if (taken == 0) break;
  }
  ASSERT_EQ(seen.size(), 10u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(seen[i], "f" + std::to_string(i));
}

TEST_F(NamespaceTest, ReadDirCookiesStayStableAcrossChanges) {
  for (const char* n : {"a", "b", "c", "d", "e"}) MakeFile(kRootIno, n);
  int64_t offset = 0;
  std::vector<std::string> seen;
  auto take = [&](int n) {
    int taken = 0;
    ASSERT_TRUE(meta_->ReadDir(kRootIno, offset, [&](const Dirent& d) {
      if (taken == n) return false;
      seen.push_back(d.name);
      offset = d.cookie;
      ++taken;
      return true;
    }).ok());
  };
  take(2);  // a, b
  // Between calls: remove one seen and one unseen entry, add new ones, rename one.
  ASSERT_TRUE(meta_->Unlink(kRootIno, "a").ok());
  ASSERT_TRUE(meta_->Unlink(kRootIno, "c").ok());
  MakeFile(kRootIno, "new1");
  ASSERT_TRUE(meta_->Rename(kRootIno, "d", kRootIno, "d-renamed", 0).ok());
  take(100);
  // Nothing seen twice, nothing that existed throughout missed, new entries at the end.
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b", "d-renamed", "e", "new1"}));
}

TEST_F(NamespaceTest, ReadDirOfALargeDirectoryIsComplete) {
  Inode dir = MakeDir(kRootIno, "big");
  std::set<std::string> made;
  for (int i = 0; i < 700; ++i) {  // more than one internal batch
    MakeFile(dir.ino, "n" + std::to_string(i));
    made.insert("n" + std::to_string(i));
  }
  std::vector<std::string> names = Names(dir.ino);
  EXPECT_EQ(names.size(), 700u);
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()), made);
}

// The first batch only sizes the first query: however small, every entry
// comes, once, in cookie order.
TEST_F(NamespaceTest, ReadDirFirstBatchSizesOnlyTheFirstQuery) {
  Inode dir = MakeDir(kRootIno, "sized");
  for (int i = 0; i < 300; ++i) MakeFile(dir.ino, "n" + std::to_string(i));
  for (size_t first : {size_t{1}, size_t{7}, size_t{300}, size_t{1000}}) {
    std::vector<std::string> names;
    int64_t last_cookie = 0;
    ASSERT_TRUE(meta_->ReadDir(
                         dir.ino, 0,
                         [&](const Dirent& d) {
                           EXPECT_GT(d.cookie, last_cookie);
                           last_cookie = d.cookie;
                           names.push_back(d.name);
                           return true;
                         },
                         first)
                    .ok());
    EXPECT_EQ(names.size(), 300u) << "first batch " << first;
    EXPECT_EQ(names.front(), "n0");
    EXPECT_EQ(names.back(), "n299");
  }
}

TEST_F(NamespaceTest, ReadDirVisitorMayCallBackIntoMetadata) {
  MakeFile(kRootIno, "a");
  MakeFile(kRootIno, "b");
  int visited = 0;
  ASSERT_TRUE(meta_->ReadDir(kRootIno, 0, [&](const Dirent& d) {
    EXPECT_TRUE(meta_->GetInode(d.ino).ok());  // no self-deadlock
    ++visited;
    return true;
  }).ok());
  EXPECT_EQ(visited, 2);
}

TEST_F(NamespaceTest, ReadDirErrors) {
  Inode file = MakeFile(kRootIno, "f");
  auto never = [](const Dirent&) { return true; };
  EXPECT_EQ(meta_->ReadDir(file.ino, 0, never).code(), ENOTDIR);
  EXPECT_EQ(meta_->ReadDir(999, 0, never).code(), ENOENT);
}

// ---- DeleteInode / ListOrphans ----------------------------------------------------------------

TEST_F(NamespaceTest, DeleteInodeRemovesRowAndXattrs) {
  Inode file = MakeFile(kRootIno, "f");
  ASSERT_TRUE(meta_->SetXattr(file.ino, "user.a", "1", 0).ok());
  EXPECT_EQ(meta_->DeleteInode(file.ino).code(), EBUSY);  // still named
  ASSERT_TRUE(meta_->Unlink(kRootIno, "f").ok());
  ASSERT_TRUE(meta_->DeleteInode(file.ino).ok());
  EXPECT_EQ(meta_->GetInode(file.ino).status().code(), ENOENT);
  EXPECT_EQ(meta_->GetXattr(file.ino, "user.a").status().code(), ENOENT);
  EXPECT_EQ(meta_->DeleteInode(file.ino).code(), ENOENT);
  EXPECT_EQ(Fcl().back().event, "delete");
  EXPECT_EQ(Count(), 1u);
  EXPECT_EQ(meta_->DeleteInode(kRootIno).code(), EBUSY);
}

TEST_F(NamespaceTest, DeleteInodesDeletesTheUnlinkedOnesInOneChange) {
  Inode a = MakeFile(kRootIno, "a");
  Inode b = MakeFile(kRootIno, "b");
  Inode c = MakeFile(kRootIno, "c");
  ASSERT_TRUE(meta_->SetXattr(a.ino, "user.x", "1", 0).ok());
  ASSERT_TRUE(meta_->Unlink(kRootIno, "a").ok());
  ASSERT_TRUE(meta_->Unlink(kRootIno, "b").ok());
  const size_t fcl = Fcl().size();
  // c still has its name; 999999 never existed.
  auto kept = meta_->DeleteInodes({a.ino, c.ino, b.ino, 999999});
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ(*kept, (std::vector<uint64_t>{c.ino, 999999}));
  EXPECT_EQ(meta_->GetInode(a.ino).status().code(), ENOENT);
  EXPECT_EQ(meta_->GetInode(b.ino).status().code(), ENOENT);
  EXPECT_EQ(meta_->GetXattr(a.ino, "user.x").status().code(), ENOENT);
  EXPECT_EQ(Get(c.ino).nlink, 1u);
  ASSERT_EQ(Fcl().size(), fcl + 2);
  EXPECT_EQ(Fcl().back().event, "delete");
  EXPECT_EQ(Fcl().back().ino, b.ino);
  EXPECT_TRUE(meta_->ListOrphans()->empty());
  // Again: nothing left to delete (a reclaim is idempotent).
  kept = meta_->DeleteInodes({a.ino, b.ino});
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->size(), 2u);
  // No xattr row outlives its inode.
  meta_.reset();
  auto db = Database::Open(db_path_, Database::OpenMode::kExisting, {});
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto lock = db->Lock();
  Statement st = db->Prepare("SELECT count(*) FROM xattrs WHERE ino = ?1");
  st.BindAll(a.ino);
  ASSERT_TRUE(*st.Step());
  EXPECT_EQ(st.Int64(0), 0);
}

TEST_F(NamespaceTest, OrphansSurviveReopen) {
  Inode a = MakeFile(kRootIno, "a");
  Inode b = MakeFile(kRootIno, "b");
  MakeFile(kRootIno, "c");
  Inode link = MakeSymlink(kRootIno, "l", "a");
  ASSERT_TRUE(meta_->Unlink(kRootIno, "b").ok());
  ASSERT_TRUE(meta_->Unlink(kRootIno, "a").ok());
  ASSERT_TRUE(meta_->Unlink(kRootIno, "l").ok());
  Reopen();  // as after a crash: orphans are found at mount
  auto orphans = meta_->ListOrphans();
  ASSERT_TRUE(orphans.ok());
  ASSERT_EQ(orphans->size(), 3u);
  EXPECT_EQ((*orphans)[0].ino, a.ino);  // ordered by inode number
  EXPECT_EQ((*orphans)[1].ino, b.ino);
  EXPECT_EQ((*orphans)[2].ino, link.ino);
  EXPECT_EQ((*orphans)[0].volume_id, 1u);
  for (const Inode& orphan : *orphans) ASSERT_TRUE(meta_->DeleteInode(orphan.ino).ok());
  EXPECT_TRUE(meta_->ListOrphans()->empty());
}

// ---- Threads ---------------------------------------------------------------------------------

TEST_F(NamespaceTest, ConcurrentChangesFromManyThreads) {
  constexpr int kThreads = 4;
  constexpr int kFiles = 150;
  std::vector<uint64_t> dirs;
  for (int t = 0; t < kThreads; ++t) dirs.push_back(MakeDir(kRootIno, "t" + std::to_string(t)).ino);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kFiles; ++i) {
        const std::string name = "f" + std::to_string(i);
        auto made = meta_->Create(dirs[t], name, Proto(S_IFREG | 0644));
        if (!made.ok()) ++failures;
        if (i % 3 == 0 && !meta_->Rename(dirs[t], name, dirs[(t + 1) % kThreads],
                                         "from" + std::to_string(t) + "_" + name, 0).ok()) {
          ++failures;
        }
      }
    });
  }
  // A reader walking and listing while the writers run.
  threads.emplace_back([&] {
    for (int round = 0; round < 20; ++round) {
      Status st = meta_->WalkFiles(kRootIno, "/", [](const std::string&, const Inode&) {
        return true;
      });
      if (!st.ok()) ++failures;
      if (!meta_->ReadDir(kRootIno, 0, [](const Dirent&) { return true; }).ok()) ++failures;
    }
  });
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  uint64_t files = 0;
  ASSERT_TRUE(meta_->WalkFiles(kRootIno, "/", [&](const std::string&, const Inode&) {
    ++files;
    return true;
  }).ok());
  EXPECT_EQ(files, static_cast<uint64_t>(kThreads * kFiles));
  EXPECT_EQ(Count(), 1u + kThreads + kThreads * kFiles);
}

}  // namespace
}  // namespace tierfs::meta
