// Metadata: Format, Open (and migrations), file-system facts, volumes, counts,
// persistence across close and reopen.
#include "meta/metadata.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>

#include "meta/schema.h"
#include "tests/meta/meta_test_util.h"

namespace tierfs::meta {
namespace {

using testing::kStartNs;
using testing::MetaTest;
using testing::RawExec;
using testing::TempDir;
using testing::TestFsInfo;
using testing::TwoVolumes;

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

constexpr char kSchemaVersionQuery[] = "SELECT value FROM fs_info WHERE key = 'schema_version'";

// The integer the first row of `sql` holds in its first column, read with the
// SQLite C API (not through Metadata); -1 when the query yields no row.
int64_t QueryInt(const std::string& db_path, const char* sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &st, nullptr), SQLITE_OK) << sql;
  const int64_t value = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
  sqlite3_finalize(st);
  sqlite3_close(db);
  return value;
}

MetadataOptions Options(const Clock* clock) {
  MetadataOptions options;
  options.clock = clock;
  return options;
}

TEST_F(MetaTest, FormatMakesTheRootDirectory) {
  Inode root = Get(kRootIno);
  EXPECT_EQ(root.ino, kRootIno);
  EXPECT_EQ(root.mode, S_IFDIR | 0755u);
  EXPECT_EQ(root.nlink, 2u);
  EXPECT_EQ(root.uid, 0u);
  EXPECT_EQ(root.gid, 0u);
  EXPECT_EQ(root.volume_id, 0u);
  EXPECT_NE(root.generation, 0u);
  EXPECT_EQ(root.atime_ns, kStartNs);
  EXPECT_EQ(root.mtime_ns, kStartNs);
  EXPECT_EQ(root.ctime_ns, kStartNs);
  EXPECT_TRUE(Names(kRootIno).empty());
  EXPECT_EQ(Count(), 1u);
  EXPECT_TRUE(*meta_->FclEnabled());  // the FCL starts on
  EXPECT_TRUE(Fcl().empty());
}

TEST_F(MetaTest, FormatGivesTheRootItsOwner) {
  TempDir dir;
  std::string path = dir.path() + "/meta.db";
  ASSERT_TRUE(Metadata::Format(path, TestFsInfo(), TwoVolumes(dir.path()), 1000, 100, clock_).ok());
  auto meta = Metadata::Open(path, Options(&clock_));
  ASSERT_TRUE(meta.ok());
  auto root = (*meta)->GetInode(kRootIno);
  EXPECT_EQ(root->uid, 1000u);
  EXPECT_EQ(root->gid, 100u);
}

TEST_F(MetaTest, FormatRecordsFsInfo) {
  auto info = meta_->GetFsInfo();
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->uuid, TestFsInfo().uuid);
  EXPECT_EQ(info->name, "testfs");
  EXPECT_EQ(info->created_ns, kStartNs);  // 0 in FsInfo: taken from the clock
  EXPECT_EQ(info->iostat_bucket_seconds, 3600);
}

TEST_F(MetaTest, FormatKeepsAGivenCreationTime) {
  TempDir dir;
  std::string path = dir.path() + "/meta.db";
  FsInfo info = TestFsInfo();
  info.created_ns = 42;
  info.iostat_bucket_seconds = 600;
  ASSERT_TRUE(Metadata::Format(path, info, TwoVolumes(dir.path()), 0, 0, clock_).ok());
  auto meta = Metadata::Open(path, Options(&clock_));
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ((*meta)->GetFsInfo()->created_ns, 42);
  EXPECT_EQ((*meta)->GetFsInfo()->iostat_bucket_seconds, 600);
}

TEST_F(MetaTest, FormatNumbersVolumesInOrder) {
  auto volumes = meta_->ListVolumes();
  ASSERT_TRUE(volumes.ok());
  ASSERT_EQ(volumes->size(), 2u);
  EXPECT_EQ((*volumes)[0].id, 1u);
  EXPECT_EQ((*volumes)[0].name, "vol1");
  EXPECT_EQ((*volumes)[0].placement_class, "ssd");
  EXPECT_EQ((*volumes)[0].media_type, "ssd");
  EXPECT_EQ((*volumes)[0].media_type_source, "detected");
  EXPECT_EQ((*volumes)[0].role, "metadataok");
  EXPECT_EQ((*volumes)[0].state, "online");
  EXPECT_EQ((*volumes)[0].path, dir_.path() + "/ssd");
  EXPECT_EQ((*volumes)[1].id, 2u);
  EXPECT_EQ((*volumes)[1].name, "vol2");
  EXPECT_EQ((*volumes)[1].role, "dataonly");
}

TEST_F(MetaTest, FormatRefusesAnExistingFile) {
  Status st = Metadata::Format(db_path_, TestFsInfo(), TwoVolumes(dir_.path()), 0, 0, clock_);
  EXPECT_EQ(st.code(), EEXIST);
  Reopen();  // untouched
  EXPECT_EQ(Count(), 1u);
}

TEST(MetadataFormatTest, BadArgumentsAreEinvalAndLeaveNoFile) {
  TempDir dir;
  FakeClock clock(kStartNs);
  std::string path = dir.path() + "/meta.db";
  EXPECT_EQ(Metadata::Format(path, TestFsInfo(), {}, 0, 0, clock).code(), EINVAL);
  FsInfo bad = TestFsInfo();
  bad.iostat_bucket_seconds = 0;
  EXPECT_EQ(Metadata::Format(path, bad, TwoVolumes(dir.path()), 0, 0, clock).code(), EINVAL);
  EXPECT_FALSE(Exists(path));
}

TEST(MetadataFormatTest, FailedFormatRemovesTheFile) {
  TempDir dir;
  FakeClock clock(kStartNs);
  std::string path = dir.path() + "/meta.db";
  std::vector<Volume> volumes = TwoVolumes(dir.path());
  volumes[1].name = volumes[0].name;  // duplicate names
  EXPECT_EQ(Metadata::Format(path, TestFsInfo(), volumes, 0, 0, clock).code(), EEXIST);
  EXPECT_FALSE(Exists(path));
  EXPECT_FALSE(Exists(path + "-wal"));
  EXPECT_TRUE(Metadata::Format(path, TestFsInfo(), TwoVolumes(dir.path()), 0, 0, clock).ok());
}

TEST(MetadataOpenTest, MissingFileIsEnoent) {
  TempDir dir;
  FakeClock clock(kStartNs);
  auto meta = Metadata::Open(dir.path() + "/none.db", Options(&clock));
  EXPECT_EQ(meta.status().code(), ENOENT);
}

// A file without an SQLite header where the database should be is a damaged
// database (EUCLEAN, as a mount reports it), not a wrong argument.
TEST(MetadataOpenTest, NotADatabaseIsEuclean) {
  TempDir dir;
  FakeClock clock(kStartNs);
  std::string path = dir.path() + "/junk.db";
  std::ofstream(path) << std::string(4096, 'j');
  EXPECT_EQ(Metadata::Open(path, Options(&clock)).status().code(), EUCLEAN);
}

TEST(MetadataOpenTest, ForeignSqliteDatabaseIsEinval) {
  TempDir dir;
  FakeClock clock(kStartNs);
  std::string path = dir.path() + "/other.db";
  RawExec(path, "CREATE TABLE something(x)");
  EXPECT_EQ(Metadata::Open(path, Options(&clock)).status().code(), EINVAL);
}

TEST(MetadataOpenTest, NullClockIsEinval) {
  TempDir dir;
  EXPECT_EQ(Metadata::Open(dir.path() + "/x.db", MetadataOptions{false, nullptr}).status().code(),
            EINVAL);
}

TEST_F(MetaTest, IsMarkedWithTheApplicationIdAndSchemaVersion) {
  meta_.reset();
  EXPECT_EQ(QueryInt(db_path_, "PRAGMA application_id"), kApplicationId);
  EXPECT_EQ(QueryInt(db_path_, kSchemaVersionQuery), kSchemaVersion);
}

TEST_F(MetaTest, NewerSchemaIsEinval) {
  meta_.reset();
  RawExec(db_path_, "UPDATE fs_info SET value = 999 WHERE key = 'schema_version'");
  auto meta = Metadata::Open(db_path_, Options(&clock_));
  EXPECT_EQ(meta.status().code(), EINVAL);
  EXPECT_NE(meta.status().message().find("newer"), std::string::npos);
}

TEST_F(MetaTest, MissingSchemaVersionIsEinval) {
  meta_.reset();
  RawExec(db_path_, "DELETE FROM fs_info WHERE key = 'schema_version'");
  EXPECT_EQ(Metadata::Open(db_path_, Options(&clock_)).status().code(), EINVAL);
}

TEST_F(MetaTest, OpensWithSyncFull) {
  meta_.reset();
  MetadataOptions options = Options(&clock_);
  options.sync_full = true;
  auto meta = Metadata::Open(db_path_, options);
  ASSERT_TRUE(meta.ok());
  EXPECT_TRUE((*meta)->GetInode(kRootIno).ok());
}

TEST_F(MetaTest, AddVolumeAssignsTheNextId) {
  Volume v = TwoVolumes(dir_.path())[1];
  v.name = "vol3";
  v.id = 77;  // ignored
  ASSERT_TRUE(meta_->AddVolume(&v).ok());
  EXPECT_EQ(v.id, 3u);
  auto volumes = meta_->ListVolumes();
  ASSERT_EQ(volumes->size(), 3u);
  EXPECT_EQ((*volumes)[2].name, "vol3");
}

// An object volume keeps its endpoint and the path of its credentials file (not
// their contents); a directory's row has neither.
TEST_F(MetaTest, ObjectVolumeKeepsEndpointAndCredentialsPath) {
  Volume v = TwoVolumes(dir_.path())[1];
  v.name = "vol3";
  v.path = "s3://bucket/tierfs";
  v.endpoint = "http://127.0.0.1:7480";
  v.credentials_file = "/etc/tierfs/s3.cred";
  v.region = "eu-west-1";
  v.addressing = "virtual";
  v.ca_file = "/etc/tierfs/ca.pem";
  ASSERT_TRUE(meta_->AddVolume(&v).ok());
  auto volumes = meta_->ListVolumes();
  ASSERT_EQ(volumes->size(), 3u);
  EXPECT_TRUE(IsObjectVolume((*volumes)[2]));
  EXPECT_EQ((*volumes)[2].endpoint, "http://127.0.0.1:7480");
  EXPECT_EQ((*volumes)[2].credentials_file, "/etc/tierfs/s3.cred");
  EXPECT_EQ((*volumes)[2].region, "eu-west-1");
  EXPECT_EQ((*volumes)[2].addressing, "virtual");
  EXPECT_EQ((*volumes)[2].ca_file, "/etc/tierfs/ca.pem");
  EXPECT_EQ((*volumes)[1].region, "");
  EXPECT_FALSE(IsObjectVolume((*volumes)[1]));
  EXPECT_EQ((*volumes)[1].endpoint, "");
  EXPECT_EQ((*volumes)[1].credentials_file, "");
}

TEST_F(MetaTest, AddVolumeWithATakenNameIsEexist) {
  Volume v = TwoVolumes(dir_.path())[1];
  EXPECT_EQ(meta_->AddVolume(&v).code(), EEXIST);
  EXPECT_EQ(meta_->ListVolumes()->size(), 2u);
}

TEST_F(MetaTest, UpdateVolumeReplacesMutableFields) {
  Volume v = (*meta_->ListVolumes())[1];
  v.path = "/mnt/new";
  v.placement_class = "tier1";
  v.media_type = "mixed";
  v.media_type_source = "configured";
  v.role = "dataonly";
  v.state = "removing";
  v.name = "renamed";  // not mutable
  ASSERT_TRUE(meta_->UpdateVolume(v).ok());
  Volume got = (*meta_->ListVolumes())[1];
  EXPECT_EQ(got.path, "/mnt/new");
  EXPECT_EQ(got.placement_class, "tier1");
  EXPECT_EQ(got.media_type, "mixed");
  EXPECT_EQ(got.media_type_source, "configured");
  EXPECT_EQ(got.state, "removing");
  EXPECT_EQ(got.name, "vol2");
}

TEST_F(MetaTest, UpdateUnknownVolumeIsEnoent) {
  Volume v;
  v.id = 9;
  EXPECT_EQ(meta_->UpdateVolume(v).code(), ENOENT);
}

TEST_F(MetaTest, CountsInodesAndUsagePerVolume) {
  Inode a = MakeFile(kRootIno, "a", 1);
  Inode b = MakeFile(kRootIno, "b", 2);
  MakeDir(kRootIno, "d");
  a.size = 100;
  b.size = 5;
  ASSERT_TRUE(meta_->WriteInode(a).ok());
  ASSERT_TRUE(meta_->WriteInode(b).ok());
  Inode c = MakeFile(kRootIno, "c", 2);
  c.size = 7;
  ASSERT_TRUE(meta_->WriteInode(c).ok());
  EXPECT_EQ(Count(), 5u);
  auto usage = meta_->UsageByVolume();
  ASSERT_TRUE(usage.ok()) << usage.status().ToString();
  ASSERT_EQ(usage->size(), 2u);
  EXPECT_EQ((*usage)[0].volume_id, 1u);
  EXPECT_EQ((*usage)[0].files, 1u);
  EXPECT_EQ((*usage)[0].bytes, 100u);
  EXPECT_EQ((*usage)[1].volume_id, 2u);
  EXPECT_EQ((*usage)[1].files, 2u);
  EXPECT_EQ((*usage)[1].bytes, 12u);
}

TEST_F(MetaTest, UsageListsEmptyVolumes) {
  auto usage = meta_->UsageByVolume();
  ASSERT_EQ(usage->size(), 2u);
  EXPECT_EQ((*usage)[1].files, 0u);
  EXPECT_EQ((*usage)[1].bytes, 0u);
}

TEST_F(MetaTest, EverythingPersistsAcrossReopen) {
  Inode dir = MakeDir(kRootIno, "dir");
  Inode file = MakeFile(dir.ino, "file", 2);
  ASSERT_TRUE(meta_->Link(file.ino, kRootIno, "hard").ok());
  Inode link = MakeSymlink(kRootIno, "sym", "dir/file");
  ASSERT_TRUE(meta_->SetXattr(file.ino, "user.k", "v", 0).ok());
  ASSERT_TRUE(meta_->SetFclEnabled(false).ok());
  ASSERT_TRUE(meta_->AddIoStats({{file.ino, testing::kStartS - 3600 * 10, 1, 2, 3, 4}}).ok());
  ASSERT_TRUE(meta_->SetPolicy({"p", "<xml/>", 5}).ok());
  const int64_t cookie_probe = [&] {
    int64_t cookie = 0;
    EXPECT_TRUE(meta_->ReadDir(kRootIno, 0, [&](const Dirent& d) {
      if (d.name == "sym") cookie = d.cookie;
      return true;
    }).ok());
    return cookie;
  }();

  Reopen();
  EXPECT_EQ(*meta_->Lookup(kRootIno, "dir"), dir.ino);
  EXPECT_EQ(*meta_->Lookup(dir.ino, "file"), file.ino);
  EXPECT_EQ(*meta_->Lookup(kRootIno, "hard"), file.ino);
  Inode got = Get(file.ino);
  EXPECT_EQ(got.nlink, 2u);
  EXPECT_EQ(got.volume_id, 2u);
  EXPECT_EQ(got.generation, file.generation);
  EXPECT_EQ(Get(link.ino).symlink, "dir/file");
  EXPECT_EQ(*meta_->GetXattr(file.ino, "user.k"), "v");
  EXPECT_FALSE(*meta_->FclEnabled());
  EXPECT_EQ(Get(kRootIno).nlink, 3u);
  EXPECT_EQ((*meta_->GetPolicy())->name, "p");
  int buckets = 0;
  ASSERT_TRUE(meta_->ForEachIoBucket(0, [&](const IoBucket&) { ++buckets; }).ok());
  EXPECT_EQ(buckets, 1);
  std::vector<std::string> names = Names(kRootIno);
  EXPECT_EQ(names, (std::vector<std::string>{"dir", "hard", "sym"}));
  int64_t cookie_after = 0;
  ASSERT_TRUE(meta_->ReadDir(kRootIno, 0, [&](const Dirent& d) {
    if (d.name == "sym") cookie_after = d.cookie;
    return true;
  }).ok());
  EXPECT_EQ(cookie_after, cookie_probe);
  // Inode numbers continue after the old ones.
  EXPECT_GT(MakeFile(kRootIno, "new").ino, link.ino);
}

// Schema v1 kept pending_objects' generation before its key's volume_id, and
// SQLite 3.40's quick_check calls such a row's generation NULL: a version-1 file
// system with a relocation interrupted by a crash must still mount, and come out
// of the migration with a table quick_check accepts.
TEST_F(MetaTest, VersionOneWithAPendingObjectMountsAndMigrates) {
  meta_.reset();
  RawExec(db_path_,
          "DROP TABLE pending_objects;"
          "CREATE TABLE pending_objects(ino INTEGER NOT NULL, generation INTEGER NOT NULL,"
          "  volume_id INTEGER NOT NULL, PRIMARY KEY(ino, volume_id)) WITHOUT ROWID;"
          "INSERT INTO pending_objects VALUES (7, 1, 2);"
          "UPDATE fs_info SET value = 1 WHERE key = 'schema_version'");
  auto meta = Metadata::Open(db_path_, Options(&clock_));
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  auto pending = (*meta)->ListPendingObjects();
  ASSERT_TRUE(pending.ok());
  ASSERT_EQ(pending->size(), 1u);
  EXPECT_EQ((*pending)[0].ino, 7u);
  EXPECT_EQ((*pending)[0].generation, 1u);
  EXPECT_EQ((*pending)[0].volume_id, 2u);
  meta->reset();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path_.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "ok");
  sqlite3_finalize(st);
  sqlite3_close(db);
}

// Every older schema version migrates to the current one with nothing lost
// (an upgrade mounts the file systems an earlier release made). The
// database is taken back to version V by undoing each later step (the columns
// it added, v1's pending_objects layout), then opened.
class MigrationTest : public MetaTest, public ::testing::WithParamInterface<int> {};

TEST_P(MigrationTest, FromAnOlderSchemaVersionNothingIsLost) {
  static_assert(kSchemaVersion == 7, "a new schema version needs its step undone here too");
  const int from = GetParam();
  Inode dir = MakeDir(kRootIno, "dir");
  Inode file = MakeFile(dir.ino, "file", 2);
  file.size = 12345;
  ASSERT_TRUE(meta_->WriteInode(file).ok());
  ASSERT_TRUE(meta_->SetXattr(file.ino, "user.k", "v", 0).ok());
  ASSERT_TRUE(meta_->AddIoStats({{file.ino, testing::kStartS - 3600, 10, 20, 30, 40}}).ok());
  ASSERT_TRUE(meta_->SetPolicy({"p", "<xml/>", 5}).ok());
  ASSERT_TRUE(meta_->AddPendingObject({file.ino, file.generation, 1}).ok());
  const size_t fcl_records = Fcl().size();
  ASSERT_GT(fcl_records, 0u);
  // An object volume of version 5, which had no region, addressing or CA file.
  Volume store = TwoVolumes(dir_.path())[1];
  if (from == 5) {
    store.name = "vol3";
    store.path = "s3://bucket/old";
    store.endpoint = "http://127.0.0.1:7480";
    store.credentials_file = "/etc/tierfs/s3.cred";
    ASSERT_TRUE(meta_->AddVolume(&store).ok());
  }
  meta_.reset();

  std::string undo;
  if (from < 7) undo += "ALTER TABLE inodes DROP COLUMN store_version;";
  if (from < 6) {
    undo += "ALTER TABLE volumes DROP COLUMN region;"
            "ALTER TABLE volumes DROP COLUMN addressing;"
            "ALTER TABLE volumes DROP COLUMN ca_file;";
  }
  if (from < 5) {
    undo += "ALTER TABLE volumes DROP COLUMN endpoint;"
            "ALTER TABLE volumes DROP COLUMN credentials_file;";
  }
  if (from < 4) undo += "ALTER TABLE scans DROP COLUMN failure;";
  if (from < 3) undo += "ALTER TABLE inodes DROP COLUMN blocks;";
  if (from < 2) {
    undo += "CREATE TABLE pending_v1(ino INTEGER NOT NULL, generation INTEGER NOT NULL,"
            "  volume_id INTEGER NOT NULL, PRIMARY KEY(ino, volume_id)) WITHOUT ROWID;"
            "INSERT INTO pending_v1 SELECT ino, generation, volume_id FROM pending_objects;"
            "DROP TABLE pending_objects; ALTER TABLE pending_v1 RENAME TO pending_objects;";
  }
  undo += "UPDATE fs_info SET value = " + std::to_string(from) + " WHERE key = 'schema_version'";
  RawExec(db_path_, undo.c_str());

  auto reopened = Metadata::Open(db_path_, Options(&clock_));
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  meta_ = std::move(*reopened);
  Inode got = Get(file.ino);
  EXPECT_EQ(got.size, 12345u);
  EXPECT_EQ(got.volume_id, 2u);
  EXPECT_EQ(got.store_version, 0u);  // its object's key as before: unversioned
  EXPECT_EQ(*meta_->GetXattr(file.ino, "user.k"), "v");
  EXPECT_EQ((*meta_->GetPolicy())->name, "p");
  uint64_t read_bytes = 0;
  ASSERT_TRUE(meta_->ForEachIoBucket(0, [&](const IoBucket& b) { read_bytes += b.rbytes; }).ok());
  EXPECT_EQ(read_bytes, 10u);
  auto pending = meta_->ListPendingObjects();
  ASSERT_TRUE(pending.ok());
  ASSERT_EQ(pending->size(), 1u);
  EXPECT_EQ((*pending)[0].volume_id, 1u);
  EXPECT_EQ(Fcl().size(), fcl_records);
  EXPECT_EQ(Names(dir.ino), std::vector<std::string>{"file"});
  if (from == 5) {
    // Its store as before, with the defaults for what version 5 did not keep.
    auto volumes = meta_->ListVolumes();
    ASSERT_TRUE(volumes.ok());
    ASSERT_EQ(volumes->size(), 3u);
    EXPECT_EQ((*volumes)[2].endpoint, "http://127.0.0.1:7480");
    EXPECT_EQ((*volumes)[2].credentials_file, "/etc/tierfs/s3.cred");
    EXPECT_EQ((*volumes)[2].region, "");
    EXPECT_EQ((*volumes)[2].addressing, "");
    EXPECT_EQ((*volumes)[2].ca_file, "");
  }
  meta_.reset();
  EXPECT_EQ(QueryInt(db_path_, kSchemaVersionQuery), kSchemaVersion);
}

INSTANTIATE_TEST_SUITE_P(EachOlderVersion, MigrationTest, ::testing::Values(1, 2, 3, 4, 5, 6));

}  // namespace
}  // namespace tierfs::meta
