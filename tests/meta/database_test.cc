#include "meta/database.h"
#include "meta/info_table.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "tests/meta/meta_test_util.h"

namespace tierfs::meta {
namespace {

using testing::TempDir;

class DatabaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.path() + "/test.db";
    auto db = Database::Open(path_, Database::OpenMode::kReadWrite, Database::Settings{});
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::make_unique<Database>(std::move(db).value());
    auto lock = db_->Lock();
    ASSERT_TRUE(db_->Exec("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT UNIQUE, v)").ok());
  }

  int PreparedCount() {
    int n = 0;
    for (sqlite3_stmt* s = sqlite3_next_stmt(db_->handle(), nullptr); s != nullptr;
         s = sqlite3_next_stmt(db_->handle(), s)) {
      ++n;
    }
    return n;
  }

  int64_t RowCount() {
    Statement st = db_->Prepare("SELECT count(*) FROM t");
    auto row = st.Step();
    EXPECT_TRUE(row.ok() && *row);
    return st.Int64(0);
  }

  std::string PragmaText(const char* sql) {
    Statement st = db_->Prepare(sql);
    auto row = st.Step();
    EXPECT_TRUE(row.ok() && *row);
    return st.Text(0);
  }

  TempDir dir_;
  std::string path_;
  std::unique_ptr<Database> db_;
};

TEST_F(DatabaseTest, AppliesConnectionSettings) {
  auto lock = db_->Lock();
  EXPECT_EQ(PragmaText("PRAGMA journal_mode"), "wal");
  EXPECT_EQ(PragmaText("PRAGMA synchronous"), "1");  // NORMAL
  EXPECT_EQ(PragmaText("PRAGMA foreign_keys"), "1");
  EXPECT_EQ(PragmaText("PRAGMA busy_timeout"), "5000");
}

TEST_F(DatabaseTest, SyncFullSetting) {
  db_.reset();  // one connection at a time (exclusive locking)
  Database::Settings settings;
  settings.sync_full = true;
  auto db = Database::Open(path_, Database::OpenMode::kExisting, settings);
  ASSERT_TRUE(db.ok());
  auto lock = db->Lock();
  Statement st = db->Prepare("PRAGMA synchronous");
  ASSERT_TRUE(*st.Step());
  EXPECT_EQ(st.Int64(0), 2);  // FULL
}

TEST_F(DatabaseTest, OpenExistingMissingFileIsEnoent) {
  auto db = Database::Open(dir_.path() + "/nope.db", Database::OpenMode::kExisting,
                           Database::Settings{});
  EXPECT_EQ(db.status().code(), ENOENT);
}

TEST_F(DatabaseTest, OpenGarbageIsEinval) {
  std::string garbage = dir_.path() + "/garbage.db";
  std::ofstream(garbage) << std::string(8192, 'x');
  auto db = Database::Open(garbage, Database::OpenMode::kExisting, Database::Settings{});
  EXPECT_EQ(db.status().code(), EINVAL) << db.status().ToString();
}

TEST_F(DatabaseTest, StatementsArePreparedOnceAndCached) {
  auto lock = db_->Lock();
  int before = PreparedCount();
  for (int i = 0; i < 5; ++i) {
    Statement st = db_->Prepare("INSERT INTO t(name, v) VALUES (?1, ?2)");
    st.BindAll("n" + std::to_string(i), i);
    ASSERT_TRUE(st.Run().ok());
  }
  EXPECT_EQ(PreparedCount(), before + 1);
  EXPECT_EQ(RowCount(), 5);
}

TEST_F(DatabaseTest, NestedUseOfTheSameSqlGetsAPrivateStatement) {
  auto lock = db_->Lock();
  for (int i = 0; i < 3; ++i) {
    Statement st = db_->Prepare("INSERT INTO t(name, v) VALUES (?1, ?2)");
    st.BindAll("n" + std::to_string(i), i);
    ASSERT_TRUE(st.Run().ok());
  }
  constexpr char kSql[] = "SELECT v FROM t WHERE v >= ?1 ORDER BY v";
  Statement outer = db_->Prepare(kSql);
  outer.BindAll(0);
  ASSERT_TRUE(*outer.Step());
  EXPECT_EQ(outer.Int64(0), 0);
  int cached = PreparedCount();
  {
    Statement inner = db_->Prepare(kSql);
    inner.BindAll(2);
    ASSERT_TRUE(*inner.Step());
    EXPECT_EQ(inner.Int64(0), 2);
    EXPECT_EQ(PreparedCount(), cached + 1);
  }
  EXPECT_EQ(PreparedCount(), cached);  // the private one is finalized
  ASSERT_TRUE(*outer.Step());
  EXPECT_EQ(outer.Int64(0), 1);  // the outer cursor was not disturbed
}

TEST_F(DatabaseTest, ReleasedStatementIsResetAndUnbound) {
  auto lock = db_->Lock();
  {
    Statement st = db_->Prepare("INSERT INTO t(name, v) VALUES (?1, ?2)");
    st.BindAll("a", 1);
    ASSERT_TRUE(st.Run().ok());
  }
  {
    // Same cached statement, no bindings: NULLs.
    Statement st = db_->Prepare("INSERT INTO t(name, v) VALUES (?1, ?2)");
    ASSERT_TRUE(st.Run().ok());
  }
  Statement st = db_->Prepare("SELECT count(*) FROM t WHERE name IS NULL AND v IS NULL");
  ASSERT_TRUE(*st.Step());
  EXPECT_EQ(st.Int64(0), 1);
}

TEST_F(DatabaseTest, ValuesRoundTripByteForByte) {
  auto lock = db_->Lock();
  const std::string odd_name("caf\xc3\xa9\xff\x01", 7);
  const std::string blob("a\0b\xff", 4);
  {
    Statement st = db_->Prepare("INSERT INTO t(id, name, v) VALUES (?1, ?2, ?3)");
    st.BindAll(int64_t{-5}, odd_name);
    st.BindBlob(3, blob);
    ASSERT_TRUE(st.Run().ok());
    st.Reset();
    st.BindAll(int64_t{7}, std::string("plain"), 2.5);
    ASSERT_TRUE(st.Run().ok());
    st.Reset();
    st.BindAll(int64_t{8}, std::string(""));
    st.BindNull(3);
    ASSERT_TRUE(st.Run().ok());
  }
  Statement st = db_->Prepare("SELECT id, name, v FROM t ORDER BY id");
  ASSERT_TRUE(*st.Step());
  EXPECT_EQ(st.Int64(0), -5);
  EXPECT_EQ(st.Text(1), odd_name);
  EXPECT_EQ(st.Blob(2), blob);
  ASSERT_TRUE(*st.Step());
  EXPECT_DOUBLE_EQ(st.Double(2), 2.5);
  ASSERT_TRUE(*st.Step());
  EXPECT_FALSE(st.IsNull(1));  // "" is not NULL
  EXPECT_EQ(st.Text(1), "");
  EXPECT_TRUE(st.IsNull(2));
  EXPECT_FALSE(*st.Step());
}

TEST_F(DatabaseTest, PrepareErrorIsReturnedByStep) {
  auto lock = db_->Lock();
  Statement st = db_->Prepare("SELEC nonsense");
  auto row = st.Step();
  EXPECT_EQ(row.status().code(), EIO);
  EXPECT_NE(row.status().message().find("syntax"), std::string::npos);
  EXPECT_EQ(st.Run().code(), EIO);
}

TEST_F(DatabaseTest, BindOutOfRangeIsReported) {
  auto lock = db_->Lock();
  Statement st = db_->Prepare("SELECT ?1");
  st.Bind(5, 1);
  EXPECT_FALSE(st.Step().ok());
}

TEST_F(DatabaseTest, UniqueViolationIsEexist) {
  auto lock = db_->Lock();
  Statement st = db_->Prepare("INSERT INTO t(name) VALUES (?1)");
  st.BindAll("x");
  ASSERT_TRUE(st.Run().ok());
  st.Reset();
  st.BindAll("x");
  EXPECT_EQ(st.Run().code(), EEXIST);
}

TEST_F(DatabaseTest, ForeignKeyViolationIsEinval) {
  auto lock = db_->Lock();
  ASSERT_TRUE(db_->Exec("CREATE TABLE child(id INTEGER PRIMARY KEY, t_id REFERENCES t(id))").ok());
  Statement st = db_->Prepare("INSERT INTO child(t_id) VALUES (?1)");
  st.BindAll(42);
  EXPECT_EQ(st.Run().code(), EINVAL);
}

TEST(SqliteStatusTest, MapsEveryResultInOnePlace) {
  EXPECT_EQ(SqliteStatus(nullptr, SQLITE_FULL, "").code(), ENOSPC);
  EXPECT_EQ(SqliteStatus(nullptr, SQLITE_CONSTRAINT, "").code(), EEXIST);
  EXPECT_EQ(SqliteStatus(nullptr, SQLITE_CONSTRAINT_UNIQUE, "").code(), EEXIST);
  EXPECT_EQ(SqliteStatus(nullptr, SQLITE_CONSTRAINT_PRIMARYKEY, "").code(), EEXIST);
  EXPECT_EQ(SqliteStatus(nullptr, SQLITE_CONSTRAINT_FOREIGNKEY, "").code(), EINVAL);
  EXPECT_EQ(SqliteStatus(nullptr, SQLITE_BUSY, "").code(), EBUSY);
  EXPECT_EQ(SqliteStatus(nullptr, SQLITE_BUSY_SNAPSHOT, "").code(), EBUSY);
  EXPECT_EQ(SqliteStatus(nullptr, SQLITE_LOCKED, "").code(), EBUSY);
  EXPECT_EQ(SqliteStatus(nullptr, SQLITE_NOTADB, "").code(), EINVAL);
  EXPECT_EQ(SqliteStatus(nullptr, SQLITE_READONLY, "").code(), EROFS);
  EXPECT_EQ(SqliteStatus(nullptr, SQLITE_NOMEM, "").code(), ENOMEM);
  EXPECT_EQ(SqliteStatus(nullptr, SQLITE_IOERR_WRITE, "").code(), EIO);
  EXPECT_EQ(SqliteStatus(nullptr, SQLITE_CORRUPT, "ctx").code(), EIO);
  EXPECT_NE(SqliteStatus(nullptr, SQLITE_CORRUPT, "ctx").message().find("ctx"), std::string::npos);
}

TEST_F(DatabaseTest, TransactionRollsBackUnlessCommitted) {
  auto lock = db_->Lock();
  {
    auto txn = Transaction::Begin(db_.get());
    ASSERT_TRUE(txn.ok());
    EXPECT_TRUE(db_->InTransaction());
    Statement st = db_->Prepare("INSERT INTO t(name) VALUES ('gone')");
    ASSERT_TRUE(st.Run().ok());
  }
  EXPECT_FALSE(db_->InTransaction());
  EXPECT_EQ(RowCount(), 0);
  {
    auto txn = Transaction::Begin(db_.get());
    ASSERT_TRUE(txn.ok());
    Statement st = db_->Prepare("INSERT INTO t(name) VALUES ('kept')");
    ASSERT_TRUE(st.Run().ok());
    ASSERT_TRUE(txn->Commit().ok());
    EXPECT_FALSE(txn->Commit().ok());  // only once
  }
  EXPECT_EQ(RowCount(), 1);
}

// FclIsOn keeps the state it read; a write of fs_info and a rollback of what
// set it make it read again.
TEST_F(DatabaseTest, CachedFclStateFollowsWritesAndRollbacks) {
  auto lock = db_->Lock();
  ASSERT_TRUE(db_->Exec("CREATE TABLE fs_info(key TEXT PRIMARY KEY, value)").ok());
  auto fcl_on = [&] {
    Result<bool> on = FclIsOn(db_.get());
    EXPECT_TRUE(on.ok()) << on.status().ToString();
    return on.ok() && *on;
  };
  ASSERT_TRUE(SetInfoText(db_.get(), kInfoFclState, "on").ok());
  EXPECT_TRUE(fcl_on());
  // Changed behind the cache's back: still the cached answer.
  ASSERT_TRUE(db_->Exec("UPDATE fs_info SET value = 'off' WHERE key = 'fcl_state'").ok());
  EXPECT_TRUE(fcl_on());
  ASSERT_TRUE(SetInfoText(db_.get(), kInfoFclState, "off").ok());
  EXPECT_FALSE(fcl_on());
  {
    auto txn = Transaction::Begin(db_.get());
    ASSERT_TRUE(txn.ok());
    ASSERT_TRUE(SetInfoText(db_.get(), kInfoFclState, "on").ok());
    EXPECT_TRUE(fcl_on());
  }  // rolled back
  EXPECT_FALSE(fcl_on());
}

TEST_F(DatabaseTest, SecondConnectionIsRefusedWithEbusy) {
  // Exclusive locking: while one connection has the database (the mounted daemon),
  // another is refused instead of sharing the namespace.
  {
    auto lock = db_->Lock();
    Statement st = db_->Prepare("INSERT INTO t(name) VALUES ('held')");
    ASSERT_TRUE(st.Run().ok());
  }
  Database::Settings impatient;
  impatient.busy_timeout_ms = 0;
  auto other = Database::Open(path_, Database::OpenMode::kExisting, impatient);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), EBUSY) << other.status().ToString();
  db_.reset();
  other = Database::Open(path_, Database::OpenMode::kExisting, impatient);
  EXPECT_TRUE(other.ok()) << other.status().ToString();
}

TEST_F(DatabaseTest, MovedDatabaseKeepsWorking) {
  Database moved = std::move(*db_);
  auto lock = moved.Lock();
  Statement st = moved.Prepare("INSERT INTO t(name) VALUES ('m')");
  EXPECT_TRUE(st.Run().ok());
}

// A Lock() that finds the lock taken counts one wait and its length; one
// that finds it free counts nothing.
TEST_F(DatabaseTest, LockCountsTheWaitsOfThoseWhoFindItTaken) {
  const uint64_t taken = db_->lock_waits().taken;
  { auto free = db_->Lock(); }
  EXPECT_EQ(db_->lock_waits().count, 0u);
  EXPECT_EQ(db_->lock_waits().taken, taken + 1);
  std::atomic<bool> holding{false};
  std::thread holder([&] {
    auto lock = db_->Lock();
    holding = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  });
  for (int i = 0; i < 5000 && !holding; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(holding.load());
  { auto waited = db_->Lock(); }
  holder.join();
  const LockWaits waits = db_->lock_waits();
  EXPECT_EQ(waits.count, 1u);
  EXPECT_GE(waits.nanos, 10'000'000u) << "the holder kept it 50 ms";
}

}  // namespace
}  // namespace tierfs::meta
