// Scans: WalkFiles (order, hard-link dedup, scale), PathOf, FilesOnVolumes,
// ActiveInodes.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <chrono>
#include <utility>

#include "meta/metadata.h"
#include "tests/meta/meta_test_util.h"

namespace tierfs::meta {
namespace {

using testing::kStartNs;
using testing::kStartS;
using testing::MetaTest;

class WalkTest : public MetaTest {
 protected:
  // (path, ino) of every file WalkFiles reports under `root`.
  std::vector<std::pair<std::string, uint64_t>> Walk(uint64_t root = kRootIno,
                                                     const std::string& root_path = "/") {
    std::vector<std::pair<std::string, uint64_t>> seen;
    Status st = meta_->WalkFiles(root, root_path, [&](const std::string& path, const Inode& i) {
      seen.emplace_back(path, i.ino);
      return true;
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
    return seen;
  }
  std::vector<std::string> WalkPaths(uint64_t root = kRootIno, const std::string& rp = "/") {
    std::vector<std::string> paths;
    for (auto& [path, ino] : Walk(root, rp)) paths.push_back(path);
    return paths;
  }
};

TEST_F(WalkTest, VisitsFilesInPathNameOrder) {
  // Byte order of names: "B" < "a" < "a.txt" < "b". The walk is depth-first by
  // component, so everything under "a/" comes before "a.txt" even though the
  // full string "/a.txt" sorts before "/a/z".
  Inode a = MakeDir(kRootIno, "a");
  MakeFile(a.ino, "z");
  MakeFile(a.ino, "m");
  MakeFile(kRootIno, "b");
  MakeFile(kRootIno, "a.txt");
  MakeFile(kRootIno, "B");
  Inode empty = MakeDir(kRootIno, "empty");
  (void)empty;
  MakeFile(kRootIno, "\xc3\xa9t\xc3\xa9");  // bytes > 0x7f sort last
  EXPECT_EQ(WalkPaths(), (std::vector<std::string>{"/B", "/a/m", "/a/z", "/a.txt", "/b",
                                                   "/\xc3\xa9t\xc3\xa9"}));
}

TEST_F(WalkTest, SkipsEverythingButRegularFiles) {
  Inode d = MakeDir(kRootIno, "d");
  MakeSymlink(d.ino, "link", "x");
  ASSERT_TRUE(meta_->Create(d.ino, "fifo", Proto(S_IFIFO | 0600)).ok());
  Inode f = MakeFile(d.ino, "file");
  auto seen = Walk();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].first, "/d/file");
  EXPECT_EQ(seen[0].second, f.ino);
}

TEST_F(WalkTest, HardLinkedFilesOnceAtTheirFirstPath) {
  Inode x = MakeDir(kRootIno, "x");
  Inode a = MakeDir(kRootIno, "a");
  Inode file = MakeFile(x.ino, "late");
  ASSERT_TRUE(meta_->Link(file.ino, a.ino, "zz").ok());
  ASSERT_TRUE(meta_->Link(file.ino, kRootIno, "m").ok());
  ASSERT_TRUE(meta_->Link(file.ino, a.ino, "b").ok());
  auto seen = Walk();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].first, "/a/b");
  EXPECT_EQ(*meta_->PathOf(file.ino), "/a/b");  // the same choice
}

TEST_F(WalkTest, FromASubdirectoryWithItsPath) {
  Inode a = MakeDir(kRootIno, "a");
  Inode b = MakeDir(a.ino, "b");
  MakeFile(b.ino, "f");
  MakeFile(a.ino, "g");
  MakeFile(kRootIno, "outside");
  EXPECT_EQ(WalkPaths(a.ino, "/a"), (std::vector<std::string>{"/a/b/f", "/a/g"}));
  EXPECT_EQ(WalkPaths(a.ino, "/a/"), (std::vector<std::string>{"/a/b/f", "/a/g"}));
  EXPECT_EQ(WalkPaths(b.ino, "/a/b"), std::vector<std::string>{"/a/b/f"});
}

TEST_F(WalkTest, StopsWhenTheVisitorSaysSo) {
  for (int i = 0; i < 5; ++i) MakeFile(kRootIno, "f" + std::to_string(i));
  int visits = 0;
  ASSERT_TRUE(meta_->WalkFiles(kRootIno, "/", [&](const std::string&, const Inode&) {
    return ++visits < 2;
  }).ok());
  EXPECT_EQ(visits, 2);
}

TEST_F(WalkTest, VisitorMayCallBackIntoMetadata) {
  Inode d = MakeDir(kRootIno, "d");
  MakeFile(d.ino, "f");
  int visits = 0;
  ASSERT_TRUE(meta_->WalkFiles(kRootIno, "/", [&](const std::string& path, const Inode& i) {
    EXPECT_EQ(*meta_->PathOf(i.ino), path);
    ++visits;
    return true;
  }).ok());
  EXPECT_EQ(visits, 1);
}

TEST_F(WalkTest, Errors) {
  Inode f = MakeFile(kRootIno, "f");
  auto visit = [](const std::string&, const Inode&) { return true; };
  EXPECT_EQ(meta_->WalkFiles(f.ino, "/f", visit).code(), ENOTDIR);
  EXPECT_EQ(meta_->WalkFiles(999, "/x", visit).code(), ENOENT);
}

TEST_F(WalkTest, LargeDirectoriesAcrossBatches) {
  Inode big = MakeDir(kRootIno, "big");
  for (int i = 0; i < 1200; ++i) {
    char name[16];
    std::snprintf(name, sizeof(name), "f%05d", i);
    MakeFile(big.ino, name);
  }
  Inode sub = MakeDir(big.ino, "f00600x");  // sorts between f00600 and f00601
  MakeFile(sub.ino, "inner");
  auto paths = WalkPaths();
  ASSERT_EQ(paths.size(), 1201u);
  EXPECT_EQ(paths[600], "/big/f00600");
  EXPECT_EQ(paths[601], "/big/f00600x/inner");
  EXPECT_EQ(paths[602], "/big/f00601");
  EXPECT_EQ(paths.back(), "/big/f01199");
}

// ---- PathOf ----------------------------------------------------------------------------

TEST_F(WalkTest, PathOfFilesAndDirectories) {
  EXPECT_EQ(*meta_->PathOf(kRootIno), "/");
  Inode a = MakeDir(kRootIno, "a");
  Inode b = MakeDir(a.ino, "b");
  Inode f = MakeFile(b.ino, "f");
  EXPECT_EQ(*meta_->PathOf(a.ino), "/a");
  EXPECT_EQ(*meta_->PathOf(b.ino), "/a/b");
  EXPECT_EQ(*meta_->PathOf(f.ino), "/a/b/f");
}

TEST_F(WalkTest, PathOfComparesComponentsNotStrings) {
  Inode a = MakeDir(kRootIno, "a");
  Inode file = MakeFile(a.ino, "z");
  ASSERT_TRUE(meta_->Link(file.ino, kRootIno, "a.txt").ok());
  // "/a.txt" < "/a/z" as strings, but "a" < "a.txt" as components.
  EXPECT_EQ(*meta_->PathOf(file.ino), "/a/z");
  EXPECT_EQ(Walk()[0].first, "/a/z");
}

TEST_F(WalkTest, PathOfErrors) {
  Inode f = MakeFile(kRootIno, "f");
  ASSERT_TRUE(meta_->Unlink(kRootIno, "f").ok());
  EXPECT_EQ(meta_->PathOf(f.ino).status().code(), ENOENT);  // an orphan has no name
  EXPECT_EQ(meta_->PathOf(999).status().code(), ENOENT);
}

// ---- FilesOnVolumes ------------------------------------------------------------------------

TEST_F(WalkTest, FilesOnVolumes) {
  Inode a = MakeFile(kRootIno, "a", 1);
  Inode b = MakeFile(kRootIno, "b", 2);
  Inode c = MakeFile(kRootIno, "c", 2);
  MakeDir(kRootIno, "d");
  auto on2 = meta_->FilesOnVolumes({2});
  ASSERT_TRUE(on2.ok());
  ASSERT_EQ(on2->size(), 2u);
  EXPECT_EQ((*on2)[0].ino, b.ino);
  EXPECT_EQ((*on2)[1].ino, c.ino);
  ASSERT_TRUE(meta_->SetInodeVolume(b.ino, 2, 1).ok());
  auto on1 = meta_->FilesOnVolumes({1});
  ASSERT_EQ(on1->size(), 2u);
  EXPECT_EQ((*on1)[0].ino, a.ino);
  EXPECT_EQ((*on1)[1].ino, b.ino);
  EXPECT_EQ((*on1)[1].volume_id, 1u);
  EXPECT_EQ(meta_->FilesOnVolumes({2, 1, 2})->size(), 3u);  // duplicates ignored
  EXPECT_TRUE(meta_->FilesOnVolumes({})->empty());
  EXPECT_TRUE(meta_->FilesOnVolumes({9})->empty());
  // Orphans still hold an object on their volume.
  ASSERT_TRUE(meta_->Unlink(kRootIno, "c").ok());
  auto after = meta_->FilesOnVolumes({2});
  ASSERT_EQ(after->size(), 1u);
  EXPECT_EQ((*after)[0].nlink, 0u);
}

TEST_F(WalkTest, FilesOnVolumesAcrossBatches) {
  for (int i = 0; i < 4200; ++i) MakeFile(kRootIno, "f" + std::to_string(i), 1 + i % 2);
  auto on1 = meta_->FilesOnVolumes({1});
  ASSERT_EQ(on1->size(), 2100u);
  for (size_t i = 1; i < on1->size(); ++i) ASSERT_LT((*on1)[i - 1].ino, (*on1)[i].ino);
  EXPECT_EQ(meta_->FilesOnVolumes({1, 2})->size(), 4200u);
}

// ---- ActiveInodes ----------------------------------------------------------------------------

TEST_F(WalkTest, ActiveInodesUnitesIoAndNamespaceActivity) {
  // Before the window: created (FCL) and read long ago.
  Inode old_file = MakeFile(kRootIno, "old");
  Inode io_file = MakeFile(kRootIno, "io");
  Inode quiet = MakeFile(kRootIno, "quiet");
  (void)quiet;
  clock_.AdvanceSeconds(10 * 3600);
  const int64_t since = kStartS + 9 * 3600;
  ASSERT_TRUE(meta_->AddIoStats({{old_file.ino, kStartS, 1, 0, 1, 0},
                                 {io_file.ino, kStartS + 9 * 3600, 1, 0, 1, 0}})
                  .ok());
  Inode renamed = MakeFile(kRootIno, "renamed-later");  // FCL inside the window
  auto active = meta_->ActiveInodes(since);
  ASSERT_TRUE(active.ok()) << active.status().ToString();
  EXPECT_EQ(*active, (std::vector<uint64_t>{io_file.ino, renamed.ino}));
  // Both sources for one inode: listed once.
  ASSERT_TRUE(meta_->AddIoStats({{renamed.ino, kStartS + 10 * 3600, 1, 0, 1, 0}}).ok());
  EXPECT_EQ(meta_->ActiveInodes(since)->size(), 2u);
  // Everything, from the beginning.
  EXPECT_EQ(meta_->ActiveInodes(0)->size(), 4u);  // old, io, quiet (created), renamed
  // Deleted inodes are not active files.
  ASSERT_TRUE(meta_->Unlink(kRootIno, "io").ok());
  ASSERT_TRUE(meta_->DeleteInode(io_file.ino).ok());
  EXPECT_EQ(*meta_->ActiveInodes(since), std::vector<uint64_t>{renamed.ino});
}

// ---- Scale --------------------------------------------------------------------------------------

// Loads `dirs` directories of `per_dir` files straight into the database (one
// transaction), as a stand-in for a large file system.
void BulkLoad(const std::string& db_path, int dirs, int per_dir) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_stmt* ins_inode = nullptr;
  sqlite3_stmt* ins_dirent = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "INSERT INTO inodes(generation, mode, uid, gid, nlink, size, "
                               "atime_ns, mtime_ns, ctime_ns, rdev, symlink, volume_id) "
                               "VALUES (1, ?1, 0, 0, ?2, 0, 0, 0, 0, 0, NULL, ?3)",
                               -1, &ins_inode, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_prepare_v2(db, "INSERT INTO dirents(parent, name, ino) VALUES (?1, ?2, ?3)",
                               -1, &ins_dirent, nullptr),
            SQLITE_OK);
  auto add = [&](uint64_t parent, const std::string& name, bool dir) {
    sqlite3_bind_int64(ins_inode, 1, dir ? (S_IFDIR | 0755) : (S_IFREG | 0644));
    sqlite3_bind_int64(ins_inode, 2, dir ? 2 : 1);
    if (dir) {
      sqlite3_bind_null(ins_inode, 3);
    } else {
      sqlite3_bind_int64(ins_inode, 3, 1);
    }
    EXPECT_EQ(sqlite3_step(ins_inode), SQLITE_DONE);
    sqlite3_reset(ins_inode);
    const int64_t ino = sqlite3_last_insert_rowid(db);
    sqlite3_bind_int64(ins_dirent, 1, static_cast<int64_t>(parent));
    sqlite3_bind_text(ins_dirent, 2, name.data(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
    sqlite3_bind_int64(ins_dirent, 3, ino);
    EXPECT_EQ(sqlite3_step(ins_dirent), SQLITE_DONE);
    sqlite3_reset(ins_dirent);
    return static_cast<uint64_t>(ino);
  };
  for (int d = 0; d < dirs; ++d) {
    uint64_t dir = add(kRootIno, "d" + std::to_string(d), true);
    for (int f = 0; f < per_dir; ++f) add(dir, "f" + std::to_string(f), false);
  }
  sqlite3_finalize(ins_inode);
  sqlite3_finalize(ins_dirent);
  ASSERT_EQ(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
}

// Walks the bulk-loaded tree, checking count and order, and prints the rate.
void WalkAtScale(Metadata* meta, int dirs, int per_dir) {
  auto start = std::chrono::steady_clock::now();
  uint64_t files = 0;
  std::string last;
  bool ordered = true;
  ASSERT_TRUE(meta->WalkFiles(kRootIno, "/", [&](const std::string& path, const Inode&) {
                    // Names here are alphanumeric, so component order is string order.
                    ordered = ordered && last < path;
                    last = path;
                    ++files;
                    return true;
                  }).ok());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(ordered);
  EXPECT_EQ(files, static_cast<uint64_t>(dirs) * per_dir);
  std::printf("WalkFiles: %llu files in %.2f s (%.0f files/s)\n",
              static_cast<unsigned long long>(files), seconds, files / seconds);
}

TEST_F(WalkTest, WalksAHundredThousandFiles) {
  meta_.reset();
  BulkLoad(db_path_, 100, 1000);
  Reopen();
  WalkAtScale(meta_.get(), 100, 1000);
  EXPECT_EQ(meta_->FilesOnVolumes({1})->size(), 100000u);
}

// A million files in 1000 directories; run by hand (--gtest_also_run_disabled_tests).
TEST_F(WalkTest, DISABLED_WalksAMillionFiles) {
  meta_.reset();
  BulkLoad(db_path_, 1000, 1000);
  Reopen();
  WalkAtScale(meta_.get(), 1000, 1000);
}

// A flat directory of a million files.
TEST_F(WalkTest, DISABLED_WalksAMillionFilesInOneDirectory) {
  meta_.reset();
  BulkLoad(db_path_, 1, 1000000);
  Reopen();
  WalkAtScale(meta_.get(), 1, 1000000);
}

}  // namespace
}  // namespace tierfs::meta
