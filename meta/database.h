// Database, Statement, Transaction: RAII over one SQLite connection.
//
// This is the only place in tierfs that calls the SQLite C API (apart from
// schema.cc's constant DDL, which goes through Database::Exec, backup.cc's
// online backup and the VFS of database_vfs.h). It is internal
// to meta/: fs/ and cli/ speak to meta::Metadata, never to these classes.
//
// Ownership:
//   - Database owns the sqlite3* connection, the cache of prepared statements
//     (keyed by SQL text, finalized when the Database is destroyed) and the one
//     mutex that guards both. Move-only.
//   - Statement is a lease on a prepared statement: it binds, steps and reads
//     columns; its destructor resets it, clears its bindings and gives it back
//     to the cache. A Statement must not outlive its Database.
//   - Transaction is BEGIN IMMEDIATE ... COMMIT; its destructor rolls back
//     unless Commit() succeeded. With group commit on (EnableGroupCommit), a
//     Transaction is instead a SAVEPOINT inside one long write transaction, the
//     group, which CommitGroup() ends (docs/design.md, "Group commit").
//
// Thread safety: a Database may be used by many threads, but every call on it
// and on its Statements and Transactions must be made while holding the lock
// returned by Database::Lock() (SQLite is opened in "multi-thread" mode, so
// this mutex is what serializes use of the connection). Nothing here throws;
// SQLite result codes become a Status in exactly one function, SqliteStatus().
#pragma once

#include <atomic>
#include <concepts>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include <unordered_map>
#include <utility>

#include "common/file_io.h"
#include "common/status.h"
#include "meta/records.h"

struct sqlite3;
struct sqlite3_stmt;

namespace tierfs::meta {

class DatabaseSeam;

// The one mapping from an SQLite result code to a Status:
//   SQLITE_FULL -> ENOSPC, SQLITE_CONSTRAINT_FOREIGNKEY -> EINVAL (a reference to
//   a row that does not exist, e.g. an unknown volume id), other SQLITE_CONSTRAINT
//   -> EEXIST, SQLITE_BUSY / SQLITE_LOCKED -> EBUSY, SQLITE_NOTADB -> EINVAL (not a
//   database), SQLITE_READONLY -> EROFS, SQLITE_NOMEM -> ENOMEM, anything else ->
//   EIO (logged to stderr, since it means a broken database or a bug).
// `db` may be null (then only the code's generic text is used); `context` names
// the operation (e.g. the SQL text) for the message. rc must not be SQLITE_OK.
Status SqliteStatus(sqlite3* db, int rc, std::string_view context);

class Database;

// A prepared statement on loan from a Database (see the file comment). Bind
// indexes are 1-based, column indexes 0-based, as in SQLite. A bind error or a
// prepare error is remembered and returned by the next Step() / Run().
class Statement {
 public:
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Integers of any width are stored as SQLite INTEGER (int64; uint64 values
  // above INT64_MAX wrap, which no tierfs quantity reaches).
  template <std::integral T>
  void Bind(int index, T value) {
    BindInt64(index, static_cast<int64_t>(value));
  }
  void Bind(int index, double value);
  // Text is bound byte-for-byte (no encoding conversion), so names compare by bytes.
  void Bind(int index, std::string_view text);
  void BindBlob(int index, std::string_view bytes);
  void BindNull(int index);
  // Binds `args` to parameters 1, 2, 3...
  template <typename... Args>
  void BindAll(const Args&... args) {
    int index = 1;
    (Bind(index++, args), ...);
  }

  // Runs to the next row: true when a row is available, false when done.
  Result<bool> Step();
  // Runs a statement to completion, ignoring any rows (INSERT, UPDATE, DELETE).
  Status Run();
  // Steps through every row, appending read(*this) (a T made from the current
  // row's columns) to *out for each. Errors: Step()'s; *out keeps the rows read
  // before the error.
  template <typename T, typename Read>
  Status AppendRows(std::vector<T>* out, Read read) {
    for (;;) {
      Result<bool> row = Step();
      if (!row.ok()) return row.status();
      if (!*row) return Status::Ok();
      out->push_back(read(*this));
    }
  }

  // Columns of the current row.
  bool IsNull(int column) const;
  int64_t Int64(int column) const;
  uint64_t Uint64(int column) const { return static_cast<uint64_t>(Int64(column)); }
  double Double(int column) const;
  std::string Text(int column) const;  // empty for NULL
  std::string Blob(int column) const;  // empty for NULL

  // Back to the start, bindings cleared, remembered errors forgotten (a
  // prepare error stays).
  void Reset();

 private:
  friend class Database;
  // `in_use` is the cache slot's flag (cleared on release), or null when this
  // Statement owns `stmt` and finalizes it.
  Statement(sqlite3_stmt* stmt, bool* in_use, Status error);
  void BindInt64(int index, int64_t value);
  void NoteBind(int rc, int index);
  void Release();

  sqlite3_stmt* stmt_ = nullptr;
  bool* in_use_ = nullptr;
  Status error_;
};

// One SQLite connection (see the file comment).
class Database {
 public:
  enum class OpenMode {
    kExisting,   // the file must exist and be writable
    kReadWrite,  // open or create (Format creates the empty file first)
  };
  struct Settings {
    bool sync_full = false;     // PRAGMA synchronous=FULL (else NORMAL)
    int busy_timeout_ms = 5000; // how long to wait for another connection's lock
    // The seam of the database's volume (common/file_io.h), which must outlive
    // the Database: its own calls (the stat of kExisting) go through it, and so,
    // by the database VFS (meta/database_vfs.h, registered by Open), do SQLite's
    // writes, truncates and syncs of the database and its WAL. Null: the plain
    // calls, and SQLite's files as the process's default VFS has them.
    FileIo* io = nullptr;
  };

  // Opens `path` and applies the connection settings: journal_mode=WAL,
  // synchronous, foreign_keys=ON, busy timeout, a larger page cache.
  // Errors: ENOENT (kExisting and no such file), EINVAL (not a database), EIO;
  // ENOSPC or EIO when the seam (settings.io) refuses a step.
  static Result<Database> Open(const std::string& path, OpenMode mode,
                               const Settings& settings);

  // Opens the existing database `path` for inspection (checks before a mount,
  // `tierfs check`) so that nothing on disk changes, whatever the checks find:
  // no byte, size or mtime of `path` or of its -wal, and no -wal, -shm or
  // -journal file created. A read-only connection cannot promise that for a WAL
  // database (it creates -wal and -shm, or with locking_mode=EXCLUSIVE it fails
  // with SQLITE_IOERR_LOCK because it needs a write lock for the heap WAL index),
  // so:
  //   - without `path`-wal: read-only with immutable=1 (no locks, no journal or
  //     WAL files); the database is all in `path`;
  //   - with `path`-wal (left by a crash; its committed transactions are part of
  //     the database and must be seen): read-write with locking_mode=EXCLUSIVE
  //     (WAL index in heap memory, no -shm), query_only=ON, and no checkpoint on
  //     close, so the WAL is read, never written. (As root, SQLite chowns the WAL
  //     to the database's owner when opening it: its ctime may change.)
  // Every write through the result fails. The caller must keep other writers
  // away (the daemon lock). The header's read and the look for the -wal go
  // through `io` (SQLite then reads by itself). Errors: ENOENT (no such file),
  // EUCLEAN (empty, or without an SQLite header: not usable as a database),
  // EBUSY, EIO (also: the header could not be read).
  static Result<Database> OpenForCheck(const std::string& path, FileIo& io = FileIo::Posix());

  Database(Database&& other) noexcept;
  Database& operator=(Database&& other) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  // Finalizes cached statements and closes the connection.
  ~Database();

  // The lock that guards the connection and the statement cache; hold it
  // around every other call below. A caller that finds it taken adds to
  // lock_waits (one clock read before and after; none when it is free).
  [[nodiscard]] std::unique_lock<std::mutex> Lock() {
    std::unique_lock lock(*mu_, std::try_to_lock);
    if (!lock.owns_lock()) WaitFor(lock);
    // Under the lock: no cache line more than the lock's is shared for it.
    waits_->taken.store(waits_->taken.load(std::memory_order_relaxed) + 1,
                        std::memory_order_relaxed);
    return lock;
  }
  // How often Lock was taken, how often a caller found it taken, and how long
  // such callers waited in all: the one lane every namespace request of the
  // daemon shares, measured. Read without the lock.
  LockWaits lock_waits() const {
    return {waits_->taken.load(std::memory_order_relaxed),
            waits_->count.load(std::memory_order_relaxed),
            waits_->nanos.load(std::memory_order_relaxed)};
  }

  // A statement for `sql` (constant text with `?` parameters, never built from
  // values). Prepared once and cached; if the cached one is in use (a query
  // nested inside another with the same text) a private one is prepared.
  // Never fails here: a prepare error is returned by the Statement's Step/Run.
  Statement Prepare(std::string_view sql);
  // Runs constant SQL without parameters (DDL, PRAGMA), possibly several statements.
  Status Exec(const char* sql);

  int64_t LastInsertRowId() const;
  // Rows changed by the last INSERT, UPDATE or DELETE.
  int64_t Changes() const;
  // True inside an explicit transaction.
  bool InTransaction() const;
  // A count that grows with every row an INSERT, UPDATE or DELETE changed on
  // this connection (sqlite3_total_changes64), never shrinking: a row read now
  // shows every change counted up to here (Inode::row_epoch). A rolled-back
  // change keeps its count, which only makes later rows look newer, as they
  // are. Lock held.
  uint64_t ChangeEpoch() const;
  sqlite3* handle() const { return db_; }

  // The FCL state (fs_info fcl_state) as last read, so that the FCL record of
  // every change does not read it again (FclIsOn). SetInfoText/SetInfoInt and
  // every rollback forget it. Lock held.
  std::optional<bool> cached_fcl_on() const { return fcl_on_; }
  void CacheFclOn(bool on) { fcl_on_ = on; }
  void ForgetCachedInfo() { fcl_on_.reset(); }

  // ---- Group commit (docs/design.md, "Group commit")
  // From now on Transaction::Begin joins the open group (a write transaction
  // shared by every change until CommitGroup), opening one when none is open and
  // then calling `on_group_open` (lock held; it must not call back into the
  // Database). Each Transaction is a SAVEPOINT in the group, so a failed one
  // still rolls back alone. Changes made outside a Transaction while a group is
  // open join the group too.
  void EnableGroupCommit(std::function<void()> on_group_open);
  bool group_commit() const { return group_ != nullptr; }
  // Commits the open group; OK when none is open (or group commit is off). On an
  // error that leaves the group open the next CommitGroup retries it. An error
  // that made SQLite roll the group back (a full volume or an I/O error, met
  // by the COMMIT or by a change in the group) lost changes already
  // acknowledged: that is returned once as it came (ENOSPC, EIO), and from
  // then on the database is `lost` (GroupLost).
  Status CommitGroup();
  // Once the open group was rolled back, every CommitGroup and every
  // Transaction::Begin fail with EIO saying so, and the group's ticket never
  // commits (UncommittedTicket keeps returning it), so that nothing a lost
  // change made obsolete (an unlinked file's object) is ever reclaimed: the
  // daemon's memory no longer matches the database, and only a new mount,
  // which reads the database as of its last commit (as after a crash), may
  // change it again. OK while nothing was lost. Lock held.
  const Status& GroupLost() const { return lost_; }
  // `hook` runs once, with the lock held, when the open group is found rolled
  // back (when GroupLost turns to an error): the owner drops what it keeps in
  // memory of the changes the group held. It must not call into the Database.
  void SetGroupLostHook(std::function<void()> hook) { lost_hook_ = std::move(hook); }
  // The ticket of the changes made so far, or nullopt when they are all
  // committed (always, without group commit). A ticket is committed once
  // CommittedTickets() reaches it. Both may be called without the lock (they
  // read two atomics), so that the forget of every unlinked file does not
  // queue for the connection; the answer errs only late: a change made
  // before the call is never reported committed before it is.
  std::optional<uint64_t> UncommittedTicket() const;
  // Every ticket up to this one is committed.
  uint64_t CommittedTickets() const;

 private:
  struct CachedStatement {
    sqlite3_stmt* stmt = nullptr;
    bool in_use = false;
  };
  // Lets the cache be searched with a string_view, without building a string.
  struct SqlHash {
    using is_transparent = void;
    size_t operator()(std::string_view sql) const { return std::hash<std::string_view>{}(sql); }
  };
  friend class Transaction;  // opens groups (group_->on_open)
  explicit Database(sqlite3* db);
  void Close();

  // Group commit state; null while group commit is off.
  struct Group {
    std::function<void()> on_open;
    // Written under the lock, read without it (UncommittedTicket): `commits`
    // is raised before `open` is cleared, and read before it.
    std::atomic<uint64_t> commits{0};  // groups committed so far
    std::atomic<bool> open{false};     // a group transaction is open
  };

  std::unique_ptr<DatabaseSeam> seam_;  // reset after Close() closed the connection
  sqlite3* db_ = nullptr;
  std::unique_ptr<Group> group_;
  Status lost_;  // see GroupLost
  std::function<void()> lost_hook_;  // see SetGroupLostHook
  // Records that SQLite rolled the open group back (`how` says what met the
  // error): GroupLost from now on, logged once.
  void NoteGroupLost(const std::string& how);
  std::optional<bool> fcl_on_;  // see cached_fcl_on
  // Guards db_ and statements_. A unique_ptr so that the Database can move.
  std::unique_ptr<std::mutex> mu_;
  struct WaitCounters {
    std::atomic<uint64_t> taken{0};  // written under the lock only
    std::atomic<uint64_t> count{0};
    std::atomic<uint64_t> nanos{0};
  };
  std::unique_ptr<WaitCounters> waits_ = std::make_unique<WaitCounters>();
  // Lock()'s slow path: takes `lock` (not owned) and counts the wait.
  void WaitFor(std::unique_lock<std::mutex>& lock);
  // SQL text -> prepared statement. Entries are heap-allocated so that the
  // `in_use` flag a Statement points to stays put when the map rehashes.
  std::unordered_map<std::string, std::unique_ptr<CachedStatement>, SqlHash, std::equal_to<>>
      statements_;
};

// BEGIN IMMEDIATE (takes the write lock up front, so a transaction never fails
// half-way with SQLITE_BUSY); rolled back on destruction unless committed.
// With group commit on, a SAVEPOINT in the open group instead: Commit releases
// it (durable at the next CommitGroup), the destructor rolls back to it.
// Transactions do not nest.
class Transaction {
 public:
  static Result<Transaction> Begin(Database* db);
  Transaction(Transaction&& other) noexcept;
  Transaction& operator=(Transaction&&) = delete;
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();

  Status Commit();

 private:
  Transaction(Database* db, bool savepoint) : db_(db), savepoint_(savepoint) {}
  Database* db_ = nullptr;  // null once committed or rolled back
  bool savepoint_ = false;  // a SAVEPOINT in a commit group
};

}  // namespace tierfs::meta

// `lhs = value of expr`, or return its error Status from the enclosing function
// (which returns a Status or a Result<...>).
#define META_ASSIGN_OR_RETURN(lhs, expr) \
  META_ASSIGN_OR_RETURN_IMPL(META_CONCAT(meta_result_, __LINE__), lhs, expr)
#define META_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()
#define META_CONCAT(a, b) META_CONCAT_INNER(a, b)
#define META_CONCAT_INNER(a, b) a##b
