// Test fixtures for meta/: a temporary directory per test and a freshly
// formatted metadata database driven by a FakeClock.
#pragma once

#include <ftw.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "meta/metadata.h"

namespace tierfs::meta::testing {

// 2023-11-14T22:00:00Z: an hour boundary, so iostat buckets line up with it.
constexpr int64_t kStartS = 1'699'999'200;
constexpr int64_t kStartNs = kStartS * kNanosPerSecond;
static_assert(kStartS % 3600 == 0);

// A directory under /tmp, removed with its contents on destruction.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/tierfs_meta_test.XXXXXX";
    char* made = ::mkdtemp(tmpl);
    if (made == nullptr) {
      ADD_FAILURE() << "mkdtemp failed";
    } else {
      path_ = made;
    }
  }
  ~TempDir() {
    if (path_.empty()) return;
    ::nftw(
        path_.c_str(),
        [](const char* p, const struct stat*, int, struct FTW*) { return ::remove(p); }, 16,
        FTW_DEPTH | FTW_PHYS);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Runs `sql` on the database file directly, bypassing Metadata (which must be closed).
inline void RawExec(const std::string& db_path, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &error), SQLITE_OK) << error;
  sqlite3_free(error);
  sqlite3_close(db);
}

// Two volumes: vol1 (ssd, metadata) and vol2 (hdd).
inline std::vector<Volume> TwoVolumes(const std::string& dir) {
  Volume ssd;
  ssd.name = "vol1";
  ssd.path = dir + "/ssd";
  ssd.placement_class = "ssd";
  ssd.media_type = "ssd";
  ssd.media_type_source = "detected";
  ssd.role = "metadataok";
  Volume hdd = ssd;
  hdd.name = "vol2";
  hdd.path = dir + "/hdd";
  hdd.placement_class = "hdd";
  hdd.media_type = "hdd";
  hdd.role = "dataonly";
  return {ssd, hdd};
}

inline FsInfo TestFsInfo() {
  FsInfo info;
  info.uuid = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
  info.name = "testfs";
  info.iostat_bucket_seconds = 3600;
  return info;
}

// A formatted, opened database in a fresh directory; closed and removed in TearDown.
class MetaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_path_ = dir_.path() + "/meta.db";
    ASSERT_TRUE(Metadata::Format(db_path_, TestFsInfo(), TwoVolumes(dir_.path()), 0, 0, clock_)
                    .ok());
    Reopen();
  }
  void TearDown() override { meta_.reset(); }

  // Closes and opens the database again (what a remount does).
  void Reopen() {
    meta_.reset();
    MetadataOptions options;
    options.clock = &clock_;
    auto opened = Metadata::Open(db_path_, options);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    meta_ = std::move(opened).value();
  }

  Inode Proto(uint32_t mode, uint32_t volume = 1) {
    Inode proto;
    proto.mode = mode;
    proto.uid = 1000;
    proto.gid = 100;
    if (S_ISREG(mode)) proto.volume_id = volume;
    return proto;
  }
  // Creates a regular file / directory / symlink, failing the test on error.
  Inode MakeFile(uint64_t parent, const std::string& name, uint32_t volume = 1) {
    auto made = meta_->Create(parent, name, Proto(S_IFREG | 0644, volume));
    EXPECT_TRUE(made.ok()) << name << ": " << made.status().ToString();
    return made.ok() ? *made : Inode{};
  }
  Inode MakeDir(uint64_t parent, const std::string& name) {
    auto made = meta_->Create(parent, name, Proto(S_IFDIR | 0755));
    EXPECT_TRUE(made.ok()) << name << ": " << made.status().ToString();
    return made.ok() ? *made : Inode{};
  }
  Inode MakeSymlink(uint64_t parent, const std::string& name, const std::string& target) {
    Inode proto = Proto(S_IFLNK | 0777);
    proto.symlink = target;
    auto made = meta_->Create(parent, name, proto);
    EXPECT_TRUE(made.ok()) << name << ": " << made.status().ToString();
    return made.ok() ? *made : Inode{};
  }
  Inode Get(uint64_t ino) {
    auto inode = meta_->GetInode(ino);
    EXPECT_TRUE(inode.ok()) << ino << ": " << inode.status().ToString();
    return inode.ok() ? *inode : Inode{};
  }
  // `row`, as a change returned it, is the stored row (every column), and its
  // row_epoch is set and not above that of a read made after it.
  void ExpectRowIsStored(const Inode& row) {
    SCOPED_TRACE("inode " + std::to_string(row.ino));
    const Inode stored = Get(row.ino);
    EXPECT_EQ(row.generation, stored.generation);
    EXPECT_EQ(row.mode, stored.mode);
    EXPECT_EQ(row.uid, stored.uid);
    EXPECT_EQ(row.gid, stored.gid);
    EXPECT_EQ(row.nlink, stored.nlink);
    EXPECT_EQ(row.size, stored.size);
    EXPECT_EQ(row.atime_ns, stored.atime_ns);
    EXPECT_EQ(row.mtime_ns, stored.mtime_ns);
    EXPECT_EQ(row.ctime_ns, stored.ctime_ns);
    EXPECT_EQ(row.rdev, stored.rdev);
    EXPECT_EQ(row.symlink, stored.symlink);
    EXPECT_EQ(row.volume_id, stored.volume_id);
    EXPECT_EQ(row.blocks, stored.blocks);
    EXPECT_GT(row.row_epoch, 0u);
    EXPECT_LE(row.row_epoch, stored.row_epoch);
  }
  // Names in `dir`, in readdir order.
  std::vector<std::string> Names(uint64_t dir) {
    std::vector<std::string> names;
    Status st = meta_->ReadDir(dir, 0, [&](const Dirent& d) {
      names.push_back(d.name);
      return true;
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
    return names;
  }
  // Every FCL record.
  std::vector<FclRecord> Fcl() {
    std::vector<FclRecord> records;
    Status st = meta_->ReadFcl(0, 0, 0, [&](const FclRecord& r) { records.push_back(r); });
    EXPECT_TRUE(st.ok()) << st.ToString();
    return records;
  }
  uint64_t Count() {
    auto count = meta_->CountInodes();
    EXPECT_TRUE(count.ok());
    return count.ok() ? *count : 0;
  }

  TempDir dir_;
  std::string db_path_;
  FakeClock clock_{kStartNs};
  std::unique_ptr<Metadata> meta_;
};

}  // namespace tierfs::meta::testing
