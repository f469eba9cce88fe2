// Faults on the database volume through the metadata layer's seam (FileIo,
// common/file_io.h): the Nth call meta/ makes, or SQLite's Nth write, truncate
// or sync of the database and its WAL (meta/database_vfs.h), fails; the error
// surfaces as documented, nothing changes, and once the fault is lifted the
// database is whole. The reserve file's calls too (meta/space_reserve.h).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <optional>
#include <string>

#include "meta/database_vfs.h"
#include "tests/meta/meta_test_util.h"
#include "tests/meta/scripted_file_io.h"
#include "meta/space_reserve.h"

namespace tierfs::meta::testing {
namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

class DatabaseFaultTest : public MetaTest {
 protected:
  // Closes and opens the database again with io_ as its seam.
  void ReopenWithSeam(bool sync_full = false) {
    meta_.reset();
    MetadataOptions options;
    options.clock = &clock_;
    options.io = &io_;
    options.sync_full = sync_full;
    options.cached_dentries = 1024;
    auto opened = Metadata::Open(db_path_, options);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    meta_ = std::move(opened).value();
  }
  // Reopened without the seam: `present` names are there, `absent` ones are
  // not, and SQLite finds nothing wrong.
  void ExpectWhole(const std::vector<std::string>& present,
                   const std::vector<std::string>& absent) {
    Reopen();
    for (const std::string& name : present) {
      EXPECT_TRUE(meta_->Lookup(kRootIno, name).ok()) << name;
    }
    for (const std::string& name : absent) {
      EXPECT_EQ(meta_->Lookup(kRootIno, name).status().code(), ENOENT) << name;
    }
    auto problems = meta_->IntegrityCheck();
    ASSERT_TRUE(problems.ok()) << problems.status().ToString();
    EXPECT_TRUE(problems->empty()) << (*problems)[0];
  }

  ScriptedFileIo io_;  // outlives meta_: MetaTest::TearDown closes it first
};

// With group commit, a change joins the open group, and the group's commit is
// what meets the full WAL. SQLite rolls the whole group back then, changes
// already acknowledged included: the Sync that met it fails with ENOSPC,
// every later Sync and every change fail with EIO (nothing may build on a
// change that is gone while memory still shows it), the lost group's ticket
// never counts as committed (so nothing it made obsolete is reclaimed), and
// a new open finds the database as of its last commit.
TEST_F(DatabaseFaultTest, AGroupRolledBackByAFullWalRefusesEveryLaterChange) {
  ReopenWithSeam();
  MakeFile(kRootIno, "before");
  meta_->StartGroupCommit(std::chrono::hours(1), {});  // commits only at Sync
  io_.FailAt("db-write", "-wal", 1, ENOSPC, /*every_later=*/true);
  MakeFile(kRootIno, "grouped");
  ASSERT_EQ(meta_->CachedLookup(kRootIno, "grouped").known, DentryCache::Known::kPresent);
  const std::optional<uint64_t> ticket = meta_->UncommittedTicket();
  ASSERT_TRUE(ticket.has_value());
  EXPECT_EQ(meta_->Sync().code(), ENOSPC);
  // The entry cache showed the lost create: it answers nothing from now on,
  // and lookups read the database, which no longer has the name.
  EXPECT_EQ(meta_->CachedLookup(kRootIno, "grouped").known, DentryCache::Known::kUnknown);
  EXPECT_EQ(meta_->Lookup(kRootIno, "grouped").status().code(), ENOENT);
  EXPECT_EQ(meta_->CachedLookup(kRootIno, "grouped").known, DentryCache::Known::kUnknown);
  io_.Lift();
  Status again = meta_->Sync();
  EXPECT_EQ(again.code(), EIO);
  EXPECT_NE(again.message().find("until it is mounted again"), std::string::npos)
      << again.message();
  Inode proto;
  proto.mode = S_IFDIR | 0755;
  EXPECT_EQ(meta_->Create(kRootIno, "later", proto).status().code(), EIO);
  EXPECT_EQ(meta_->UncommittedTicket(), ticket);
  EXPECT_LT(meta_->CommittedTickets(), *ticket);
  ExpectWhole({"before"}, {"grouped", "later"});
}

// A change whose commit cannot reach the WAL fails with the errno SQLite's unix
// VFS gives (ENOSPC for a full volume, EIO otherwise) and is rolled back whole.
TEST_F(DatabaseFaultTest, AFailedWalStepFailsTheChangeAndChangesNothing) {
  struct Case {
    const char* op;
    int injected;
    bool sync_full;  // the WAL is synced at each commit only with synchronous=FULL
    int expected;
  };
  const Case cases[] = {{"db-write", ENOSPC, false, ENOSPC},
                        {"db-write", EIO, false, EIO},
                        {"db-sync", EIO, true, EIO}};
  int round = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.op) + " " + std::to_string(c.injected));
    ReopenWithSeam(c.sync_full);
    const std::string before = "before" + std::to_string(round);
    const std::string during = "during" + std::to_string(round);
    const std::string after = "after" + std::to_string(round++);
    MakeFile(kRootIno, before);
    io_.FailAt(c.op, "-wal", 1, c.injected, /*every_later=*/true);
    auto made = meta_->Create(kRootIno, during, Proto(S_IFREG | 0644));
    EXPECT_EQ(made.status().code(), c.expected) << made.status().ToString();
    EXPECT_GT(io_.failed(), 0u);
    io_.Lift();
    EXPECT_EQ(meta_->Lookup(kRootIno, during).status().code(), ENOENT);
    MakeFile(kRootIno, after);
    ExpectWhole({before, after}, {during});
  }
}

// Every call Metadata::Open makes through the seam, failed in turn: the open
// fails with that errno (or, for a call whose failure costs nothing, succeeds),
// and the database opens whole once the fault is lifted.
TEST_F(DatabaseFaultTest, EachCallOfAnOpenFailsItCleanly) {
  MakeFile(kRootIno, "kept");
  meta_.reset();
  int failures = 0;
  for (uint64_t n = 1; n < 500; ++n) {
    SCOPED_TRACE("call " + std::to_string(n));
    io_.FailAt("any", "", n, EIO);
    MetadataOptions options;
    options.clock = &clock_;
    options.io = &io_;
    auto opened = Metadata::Open(db_path_, options);
    const uint64_t failed = io_.failed();
    if (opened.ok()) opened->reset();  // closes through the seam too
    io_.Lift();
    if (failed == 0 && opened.ok()) break;  // past the last call
    if (!opened.ok()) {
      EXPECT_EQ(opened.status().code(), EIO) << opened.status().ToString();
      ++failures;
    }
    ExpectWhole({"kept"}, {});
    meta_.reset();
  }
  EXPECT_GT(failures, 3);  // the checks' open, stat and read, SQLite's writes
}

// Format with the Nth call failed: the error is returned and no file is left
// (or, when only a call whose failure costs nothing failed, a whole database).
TEST_F(DatabaseFaultTest, EachCallOfAFormatFailsItAndLeavesNothing) {
  meta_.reset();
  const std::string path = dir_.path() + "/new.db";
  int failures = 0;
  for (uint64_t n = 1; n < 500; ++n) {
    SCOPED_TRACE("call " + std::to_string(n));
    io_.FailAt("any", "", n, EIO);
    Status st = Metadata::Format(path, TestFsInfo(), TwoVolumes(dir_.path()), 0, 0, clock_, &io_);
    const uint64_t failed = io_.failed();
    io_.Lift();
    if (!st.ok()) {
      EXPECT_EQ(st.code(), EIO) << st.ToString();
      for (const char* suffix : {"", "-wal", "-shm"}) {
        EXPECT_FALSE(Exists(path + suffix)) << suffix;
      }
      ++failures;
      continue;
    }
    MetadataOptions options;
    options.clock = &clock_;
    auto opened = Metadata::Open(path, options);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    EXPECT_EQ((*opened)->GetFsInfo()->uuid, TestFsInfo().uuid);
    opened->reset();
    if (failed == 0) break;  // past the last call
    for (const char* suffix : {"", "-wal", "-shm"}) ::unlink((path + suffix).c_str());
  }
  EXPECT_GT(failures, 2);  // the create, SQLite's writes and syncs
}

// The reserve's own calls (meta/space_reserve.h "What an I/O error on the
// reserve file does").
class ReserveFaultTest : public DatabaseFaultTest {
 protected:
  void SetUp() override {
    DatabaseFaultTest::SetUp();
    reserve_path_ = dir_.path() + "/meta.reserve";
  }
  void TearDown() override {
    DatabaseFaultTest::TearDown();
    reserve_.reset();  // after the database it protects
  }
  void Install() {
    auto installed = SpaceReserve::Install(reserve_path_, kTarget, io_);
    ASSERT_TRUE(installed.ok()) << installed.status().ToString();
    reserve_ = std::move(installed).value();
  }
  static constexpr uint64_t kTarget = 4 << 20;
  std::string reserve_path_;
  std::unique_ptr<SpaceReserve> reserve_;
};

TEST_F(ReserveFaultTest, AnEioGrowingTheReserveAtInstallIsReturned) {
  io_.FailAt("fallocate", "meta.reserve", 1, EIO);
  auto installed = SpaceReserve::Install(reserve_path_, kTarget, io_);
  EXPECT_EQ(installed.status().code(), EIO) << installed.status().ToString();
  io_.Lift();
  Install();  // nothing stays installed from the failed one
  EXPECT_EQ(reserve_->held_bytes(), kTarget);
  EXPECT_FALSE(reserve_->depleted());
}

TEST_F(ReserveFaultTest, AnEioRefillingLeavesItDepletedUntilARefillSucceeds) {
  Install();
  ASSERT_TRUE(reserve_->ReleaseSlice());
  ASSERT_TRUE(reserve_->depleted());
  io_.FailAt("fallocate", "meta.reserve", 1, EIO, /*every_later=*/true);
  EXPECT_EQ(reserve_->Refill().code(), EIO);
  EXPECT_TRUE(reserve_->depleted());
  io_.Lift();
  EXPECT_TRUE(reserve_->Refill().ok());
  EXPECT_FALSE(reserve_->depleted());
}

// A slice that cannot be released is no room: a WAL write that meets ENOSPC
// then fails with ENOSPC, and the reserve keeps what it held.
TEST_F(ReserveFaultTest, AnEioReleasingASliceIsNoRoom) {
  Install();
  ReopenWithSeam();
  MakeFile(kRootIno, "before");
  io_.FailAt("truncate", "meta.reserve", 1, EIO, /*every_later=*/true);
  EXPECT_FALSE(reserve_->ReleaseSlice());
  EXPECT_EQ(reserve_->held_bytes(), kTarget);
  EXPECT_EQ(reserve_->releases(), 0u);
  io_.Lift();
  ExpectWhole({"before"}, {});
}

// ENOSPC on the WAL takes the reserve's room: one failed write is retried after
// a slice is released, and the change commits; a volume that stays full empties
// the reserve, then the change fails with ENOSPC and nothing changes.
TEST_F(ReserveFaultTest, EnospcOnTheWalTakesSlicesOfTheReserve) {
  Install();
  ReopenWithSeam();
  MakeFile(kRootIno, "before");
  io_.FailAt("db-write", "-wal", 1, ENOSPC);
  MakeFile(kRootIno, "retried");
  EXPECT_EQ(io_.failed(), 1u);
  EXPECT_EQ(reserve_->releases(), 1u);
  EXPECT_TRUE(reserve_->depleted());

  io_.FailAt("db-write", "-wal", 1, ENOSPC, /*every_later=*/true);
  auto made = meta_->Create(kRootIno, "refused", Proto(S_IFREG | 0644));
  EXPECT_EQ(made.status().code(), ENOSPC) << made.status().ToString();
  EXPECT_EQ(reserve_->held_bytes(), 0u);
  io_.Lift();
  EXPECT_TRUE(reserve_->Refill().ok());
  EXPECT_FALSE(reserve_->depleted());
  ExpectWhole({"before", "retried"}, {"refused"});
}

}  // namespace
}  // namespace tierfs::meta::testing
