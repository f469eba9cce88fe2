// Metadata::Open's checks before it serves a database (meta/schema.h
// CheckDatabase on a Database::OpenForCheck connection): damage is refused with
// EUCLEAN and a message that says what is wrong, and a refused database is left
// exactly as it was (no byte, size or mtime changed, no -wal/-shm/-journal
// created), while a WAL left by a crash is honoured.
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>

#include "meta/database.h"
#include "tests/meta/meta_test_util.h"

namespace tierfs::meta {
namespace {

using testing::MetaTest;

// What a file looked like: enough to see any change but ctime.
struct FileState {
  off_t size = 0;
  int64_t mtime_ns = 0;
  std::string bytes;
  bool operator==(const FileState&) const = default;
};

// Every entry of `dir` by name.
std::map<std::string, FileState> Snapshot(const std::string& dir) {
  std::map<std::string, FileState> files;
  DIR* d = opendir(dir.c_str());
  EXPECT_NE(d, nullptr) << dir;
  if (d == nullptr) return files;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st;
    const std::string path = dir + "/" + name;
    EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
    FileState state;
    state.size = st.st_size;
    state.mtime_ns = st.st_mtim.tv_sec * kNanosPerSecond + st.st_mtim.tv_nsec;
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    state.bytes = ss.str();
    files[name] = std::move(state);
  }
  closedir(d);
  return files;
}

std::string Listing(const std::map<std::string, FileState>& files) {
  std::string names;
  for (const auto& [name, state] : files) names += name + "(" + std::to_string(state.size) + ") ";
  return names;
}

// One integer from a read-only query (the database must be closed elsewhere).
int64_t QueryInt(const std::string& db_path, const char* sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(("file:" + db_path + "?immutable=1").c_str(), &db,
                            SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr),
            SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  int64_t value = -1;
  if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW) {
    value = sqlite3_column_int64(st, 0);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return value;
}

// Writes 4 KiB of garbage over page `page` (1-based) of the database file.
void DamagePage(const std::string& db_path, int64_t page) {
  int fd = open(db_path.c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  std::string garbage(4096, '\0');
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<char>((i * 7919 + 13) % 251);
  ASSERT_EQ(pwrite(fd, garbage.data(), garbage.size(), (page - 1) * 4096), 4096);
  close(fd);
}

class MetadataCheckTest : public MetaTest {
 protected:
  // A database of several hundred pages: `files` files in a few directories.
  void Populate(int files) {
    uint64_t dir = 1;
    for (int i = 0; i < files; ++i) {
      if (i % 500 == 0) dir = MakeDir(1, "d" + std::to_string(i)).ino;
      MakeFile(dir, "file-with-a-longish-name-" + std::to_string(i));
    }
  }
  Status OpenStatus() {
    MetadataOptions options;
    options.clock = &clock_;
    return Metadata::Open(db_path_, options).status();
  }
  // Commits in a child process that dies without closing the database (kill -9),
  // leaving the transaction in meta.db-wal only: `change` through Metadata, or
  // `sql` through a raw connection set up as the daemon's.
  void CommitAndDie(const std::function<void(Metadata&)>& change, const char* sql = nullptr) {
    meta_.reset();
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      if (sql != nullptr) {
        sqlite3* db = nullptr;
        if (sqlite3_open(db_path_.c_str(), &db) != SQLITE_OK) _exit(2);
        if (sqlite3_exec(db, "PRAGMA locking_mode=EXCLUSIVE; PRAGMA journal_mode=WAL", nullptr,
                         nullptr, nullptr) != SQLITE_OK ||
            sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) {
          _exit(3);
        }
        _exit(0);  // no sqlite3_close: no checkpoint, the WAL stays
      }
      MetadataOptions options;
      options.clock = &clock_;
      auto meta = Metadata::Open(db_path_, options);
      if (!meta.ok()) _exit(2);
      change(**meta);
      _exit(0);  // no destructor: no checkpoint, the WAL stays
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    struct stat st;
    ASSERT_EQ(stat((db_path_ + "-wal").c_str(), &st), 0) << "the crash left no WAL";
    ASSERT_GT(st.st_size, 0);
  }
};

TEST_F(MetadataCheckTest, DamagedPageIsRefusedAndNothingChanges) {
  Populate(3000);
  meta_.reset();  // closed: checkpointed, no WAL left
  const int64_t pages = QueryInt(db_path_, "PRAGMA page_count");
  ASSERT_GT(pages, 20);
  ASSERT_EQ(QueryInt(db_path_, "PRAGMA freelist_count"), 0);  // every page is in use
  DamagePage(db_path_, pages / 2);
  const auto before = Snapshot(dir_.path());

  Status st = OpenStatus();
  EXPECT_EQ(st.code(), EUCLEAN) << st.ToString();
  EXPECT_NE(st.message().find(db_path_ + " is damaged (quick_check"), std::string::npos)
      << st.message();

  const auto after = Snapshot(dir_.path());
  EXPECT_EQ(Listing(after), Listing(before));
  EXPECT_TRUE(after == before) << "a refused open changed a file";
}

TEST_F(MetadataCheckTest, EmptyFileIsRefusedAndStaysEmpty) {
  meta_.reset();
  ASSERT_EQ(truncate(db_path_.c_str(), 0), 0);
  const auto before = Snapshot(dir_.path());
  Status st = OpenStatus();
  EXPECT_EQ(st.code(), EUCLEAN) << st.ToString();
  EXPECT_NE(st.message().find("empty"), std::string::npos) << st.message();
  const auto after = Snapshot(dir_.path());
  EXPECT_EQ(Listing(after), Listing(before));
  EXPECT_TRUE(after == before);
}

TEST_F(MetadataCheckTest, GarbageHeaderIsRefusedAndNothingChanges) {
  meta_.reset();
  DamagePage(db_path_, 1);
  const auto before = Snapshot(dir_.path());
  Status st = OpenStatus();
  EXPECT_EQ(st.code(), EUCLEAN) << st.ToString();
  EXPECT_TRUE(Snapshot(dir_.path()) == before);
}

// What a crash leaves in the WAL is part of the database: the next open sees it.
TEST_F(MetadataCheckTest, WalLeftByACrashIsHonoured) {
  CommitAndDie([this](Metadata& meta) {
    ASSERT_TRUE(meta.Create(1, "after-crash", Proto(S_IFREG | 0644)).ok());
  });
  Reopen();
  EXPECT_TRUE(meta_->Lookup(1, "after-crash").ok());
}

// A database refused for what its WAL holds keeps both files as they were: the
// check neither checkpoints nor rewrites the WAL (nor creates -shm).
TEST_F(MetadataCheckTest, RefusalWithAWalChangesNeither) {
  CommitAndDie(nullptr, "UPDATE fs_info SET value = 99 WHERE key = 'schema_version'");
  const auto before = Snapshot(dir_.path());
  ASSERT_TRUE(before.count("meta.db-wal")) << Listing(before);
  Status st = OpenStatus();
  EXPECT_EQ(st.code(), EINVAL) << st.ToString();
  EXPECT_NE(st.message().find("schema version 99 is newer"), std::string::npos) << st.message();
  const auto after = Snapshot(dir_.path());
  EXPECT_EQ(Listing(after), Listing(before));
  EXPECT_TRUE(after == before) << "a refused open changed a file";
}

// A healthy database with a WAL: opening for a check creates nothing either
// (exclusive locking keeps the WAL index off disk: no -shm).
TEST_F(MetadataCheckTest, CheckConnectionCreatesNoFiles) {
  meta_.reset();
  for (bool with_wal : {false, true}) {
    if (with_wal) {
      CommitAndDie([this](Metadata& meta) {
        ASSERT_TRUE(meta.Create(1, "w", Proto(S_IFREG | 0644)).ok());
      });
    }
    const auto before = Snapshot(dir_.path());
    {
      auto db = Database::OpenForCheck(db_path_);
      ASSERT_TRUE(db.ok()) << db.status().ToString();
      auto lock = db->Lock();
      Statement st = db->Prepare("SELECT count(*) FROM dirents WHERE name = 'w'");
      auto row = st.Step();
      ASSERT_TRUE(row.ok() && *row) << row.status().ToString();
      EXPECT_EQ(st.Int64(0), with_wal ? 1 : 0);
      EXPECT_EQ(db->Exec("DELETE FROM fcl").code(), EROFS);
    }
    const auto after = Snapshot(dir_.path());
    EXPECT_EQ(Listing(after), Listing(before)) << (with_wal ? "with" : "without") << " a WAL";
    EXPECT_TRUE(after == before);
  }
}

}  // namespace
}  // namespace tierfs::meta
