#include "meta/database.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "common/log.h"
#include "meta/database_vfs.h"

namespace tierfs::meta {

Status SqliteStatus(sqlite3* db, int rc, std::string_view context) {
  std::string message = "sqlite: ";
  // The connection's message describes the last failure on it, which is `rc`
  // when the caller reports right away; otherwise fall back to the code's text.
  if (db != nullptr && sqlite3_extended_errcode(db) == rc) {
    message += sqlite3_errmsg(db);
  } else {
    message += sqlite3_errstr(rc);
  }
  if (!context.empty()) {
    message += " [";
    message += context.substr(0, 200);
    message += "]";
  }
  switch (rc & 0xff) {
    case SQLITE_FULL:
      return Status::Error(ENOSPC, std::move(message));
    case SQLITE_CONSTRAINT:
      if (rc == SQLITE_CONSTRAINT_FOREIGNKEY) return Status::Error(EINVAL, std::move(message));
      return Status::Error(EEXIST, std::move(message));
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status::Error(EBUSY, std::move(message));
    case SQLITE_NOTADB:
      return Status::Error(EINVAL, std::move(message));
    case SQLITE_READONLY:
      return Status::Error(EROFS, std::move(message));
    case SQLITE_NOMEM:
      return Status::Error(ENOMEM, std::move(message));
    default:
      std::fprintf(stderr, "tierfs meta: %s (rc=%d)\n", message.c_str(), rc);
      return Status::Error(EIO, std::move(message));
  }
}

// ---- Statement ---------------------------------------------------------------------

Statement::Statement(sqlite3_stmt* stmt, bool* in_use, Status error)
    : stmt_(stmt), in_use_(in_use), error_(std::move(error)) {}

Statement::Statement(Statement&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)),
      in_use_(std::exchange(other.in_use_, nullptr)),
      error_(std::move(other.error_)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    Release();
    stmt_ = std::exchange(other.stmt_, nullptr);
    in_use_ = std::exchange(other.in_use_, nullptr);
    error_ = std::move(other.error_);
  }
  return *this;
}

Statement::~Statement() { Release(); }

void Statement::Release() {
  if (stmt_ == nullptr) return;
  if (in_use_ != nullptr) {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    *in_use_ = false;
  } else {
    sqlite3_finalize(stmt_);
  }
  stmt_ = nullptr;
  in_use_ = nullptr;
}

void Statement::NoteBind(int rc, int index) {
  if (rc != SQLITE_OK && error_.ok()) {
    error_ = SqliteStatus(sqlite3_db_handle(stmt_), rc,
                          "bind " + std::to_string(index) + " of " + sqlite3_sql(stmt_));
  }
}

void Statement::BindInt64(int index, int64_t value) {
  if (stmt_ != nullptr) NoteBind(sqlite3_bind_int64(stmt_, index, value), index);
}

void Statement::Bind(int index, double value) {
  if (stmt_ != nullptr) NoteBind(sqlite3_bind_double(stmt_, index, value), index);
}

void Statement::Bind(int index, std::string_view text) {
  if (stmt_ == nullptr) return;
  // A non-null pointer even for "" so that an empty name is '' and not NULL.
  NoteBind(sqlite3_bind_text64(stmt_, index, text.empty() ? "" : text.data(), text.size(),
                               SQLITE_TRANSIENT, SQLITE_UTF8),
           index);
}

void Statement::BindBlob(int index, std::string_view bytes) {
  if (stmt_ == nullptr) return;
  NoteBind(sqlite3_bind_blob64(stmt_, index, bytes.empty() ? "" : bytes.data(), bytes.size(),
                               SQLITE_TRANSIENT),
           index);
}

void Statement::BindNull(int index) {
  if (stmt_ != nullptr) NoteBind(sqlite3_bind_null(stmt_, index), index);
}

Result<bool> Statement::Step() {
  if (!error_.ok()) return error_;
  if (stmt_ == nullptr) return Status::Io("step of a moved-from statement");
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  Status status = SqliteStatus(sqlite3_db_handle(stmt_), rc, sqlite3_sql(stmt_));
  // Leave the statement restartable; the error is reported once.
  sqlite3_reset(stmt_);
  return status;
}

Status Statement::Run() {
  for (;;) {
    Result<bool> row = Step();
    if (!row.ok()) return row.status();
    if (!*row) return Status::Ok();
  }
}

bool Statement::IsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

int64_t Statement::Int64(int column) const { return sqlite3_column_int64(stmt_, column); }

double Statement::Double(int column) const { return sqlite3_column_double(stmt_, column); }

std::string Statement::Text(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

std::string Statement::Blob(int column) const {
  const void* blob = sqlite3_column_blob(stmt_, column);
  if (blob == nullptr) return {};
  return std::string(static_cast<const char*>(blob),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

void Statement::Reset() {
  if (stmt_ == nullptr) return;
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  error_ = Status::Ok();
}

// ---- Database ----------------------------------------------------------------------

Database::Database(sqlite3* db) : db_(db), mu_(std::make_unique<std::mutex>()) {}

Database::Database(Database&& other) noexcept
    : seam_(std::move(other.seam_)),
      db_(std::exchange(other.db_, nullptr)),
      group_(std::move(other.group_)),
      lost_(std::move(other.lost_)),
      mu_(std::move(other.mu_)),
      waits_(std::move(other.waits_)),
      statements_(std::move(other.statements_)) {}

Database& Database::operator=(Database&& other) noexcept {
  if (this != &other) {
    Close();
    seam_ = std::move(other.seam_);
    db_ = std::exchange(other.db_, nullptr);
    group_ = std::move(other.group_);
    lost_ = std::move(other.lost_);
    mu_ = std::move(other.mu_);
    waits_ = std::move(other.waits_);
    statements_ = std::move(other.statements_);
  }
  return *this;
}

Database::~Database() {
  Close();
  seam_.reset();  // once the connection's files are closed
}

void Database::Close() {
  // An open group holds acknowledged changes: commit them, never roll back.
  if (db_ != nullptr && group_ != nullptr && InTransaction()) {
    Status st = CommitGroup();
    if (!st.ok()) LogError("final group commit: {}", st.ToString());
  }
  for (auto& [sql, cached] : statements_) sqlite3_finalize(cached->stmt);
  statements_.clear();
  if (db_ != nullptr) {
    // Close runs a final WAL checkpoint; its failure leaves the data in the WAL
    // file, where the next open finds it, so there is nothing to report.
    sqlite3_close_v2(db_);
    db_ = nullptr;
  }
}

Result<Database> Database::Open(const std::string& path, OpenMode mode,
                                const Settings& settings) {
  ConfigureSqliteOnce();
  FileIo& io = settings.io != nullptr ? *settings.io : FileIo::Posix();
  if (mode == OpenMode::kExisting) {
    struct stat st;
    if (io.Stat(path, &st) != 0) return Status::FromErrno("open database " + path);
  }
  std::unique_ptr<DatabaseSeam> seam;
  if (settings.io != nullptr) {
    TIERFS_RETURN_IF_ERROR(RegisterDatabaseVfs());
    seam = std::make_unique<DatabaseSeam>(path, *settings.io);
  }
  sqlite3* raw = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE;
  if (mode == OpenMode::kReadWrite) flags |= SQLITE_OPEN_CREATE;
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  // From here `db` owns the handle, even when the open failed.
  Database db(raw);
  db.seam_ = std::move(seam);
  if (rc != SQLITE_OK) return SqliteStatus(raw, rc, "open " + path);
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, settings.busy_timeout_ms);

  // The daemon is the database's only user while mounted: exclusive locking takes
  // the file lock once instead of on every transaction (about 40 fcntl calls per
  // create), keeps the WAL index in heap memory, and makes a second opener fail
  // with EBUSY rather than share the namespace. Must precede the switch to WAL.
  TIERFS_RETURN_IF_ERROR(db.Exec("PRAGMA locking_mode=EXCLUSIVE"));
  // journal_mode answers with the mode in force; anything but "wal" means the
  // file is not usable as we intend (e.g. on a file system without shared memory).
  {
    Statement journal = db.Prepare("PRAGMA journal_mode=WAL");
    META_ASSIGN_OR_RETURN(bool row, journal.Step());
    if (!row || journal.Text(0) != "wal") {
      return Status::Io("database " + path + ": cannot switch to WAL journal mode");
    }
  }
  TIERFS_RETURN_IF_ERROR(db.Exec(settings.sync_full ? "PRAGMA synchronous=FULL"
                                                    : "PRAGMA synchronous=NORMAL"));
  TIERFS_RETURN_IF_ERROR(db.Exec("PRAGMA foreign_keys=ON"));
  // 32 MiB of page cache: a scan of a million inodes stays in memory.
  TIERFS_RETURN_IF_ERROR(db.Exec("PRAGMA cache_size=-32768"));
  TIERFS_RETURN_IF_ERROR(db.Exec("PRAGMA temp_store=MEMORY"));
  return db;
}

namespace {

// `path` as an SQLite URI ("file:" + path, percent-encoded where URI syntax needs it).
std::string FileUri(const std::string& path) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string uri = "file:";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      uri += static_cast<char>(c);
    } else {
      uri += '%';
      uri += kHex[c >> 4];
      uri += kHex[c & 15];
    }
  }
  return uri;
}

// Refuses a file that SQLite would treat as an empty database (0 bytes: any
// open would make it one) or that does not start with the SQLite header,
// before SQLite touches it.
Status CheckSqliteHeader(const std::string& path, FileIo& io) {
  int fd = io.Open(path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return Status::FromErrno("open database " + path);
  struct stat st;
  char header[16] = {};
  ssize_t n = -1;
  int err = 0;
  if (io.Fstat(fd, &st) != 0) {
    err = errno;
  } else if (st.st_size > 0) {
    n = io.Pread(fd, header, sizeof header, 0);
    if (n < 0) err = errno;
  }
  io.Close(fd);
  if (err != 0) return Status::FromErrno(err, "read database " + path);
  if (!S_ISREG(st.st_mode)) return Status::Error(EUCLEAN, path + " is not a regular file");
  if (st.st_size == 0) return Status::Error(EUCLEAN, path + " is empty (0 bytes)");
  static constexpr char kMagic[16] = "SQLite format 3";  // with its NUL: 16 bytes
  if (n != static_cast<ssize_t>(sizeof header) || std::memcmp(header, kMagic, sizeof header) != 0) {
    return Status::Error(EUCLEAN, path + " does not start with an SQLite header");
  }
  return Status::Ok();
}

}  // namespace

Result<Database> Database::OpenForCheck(const std::string& path, FileIo& io) {
  ConfigureSqliteOnce();
  TIERFS_RETURN_IF_ERROR(CheckSqliteHeader(path, io));
  struct stat st;
  const bool has_wal = io.Lstat(path + "-wal", &st) == 0;
  // A -wal that cannot be looked at may hold committed transactions: never
  // taken for none.
  if (!has_wal && errno != ENOENT) return Status::FromErrno("look for " + path + "-wal");
  sqlite3* raw = nullptr;
  int rc;
  if (!has_wal) {
    rc = sqlite3_open_v2(FileUri(path).append("?immutable=1").c_str(), &raw,
                         SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX |
                             SQLITE_OPEN_EXRESCODE,
                         nullptr);
  } else {
    rc = sqlite3_open_v2(path.c_str(), &raw,
                         SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE,
                         nullptr);
  }
  Database db(raw);
  if (rc != SQLITE_OK) return SqliteStatus(raw, rc, "open " + path);
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, Settings{}.busy_timeout_ms);
  if (has_wal) {
    // All three before the first read: the exclusive lock keeps the WAL index in
    // heap memory (no -shm), query_only refuses writes, and closing does not
    // checkpoint (which would write the database and delete the WAL).
    rc = sqlite3_db_config(raw, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
    if (rc != SQLITE_OK) return SqliteStatus(raw, rc, "no_ckpt_on_close " + path);
    TIERFS_RETURN_IF_ERROR(db.Exec("PRAGMA locking_mode=EXCLUSIVE"));
    TIERFS_RETURN_IF_ERROR(db.Exec("PRAGMA query_only=ON"));
  }
  TIERFS_RETURN_IF_ERROR(db.Exec("PRAGMA temp_store=MEMORY"));
  return db;
}

Statement Database::Prepare(std::string_view sql) {
  auto it = statements_.find(sql);
  if (it != statements_.end() && !it->second->in_use) {
    it->second->in_use = true;
    return Statement(it->second->stmt, &it->second->in_use, Status::Ok());
  }
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                              it == statements_.end() ? SQLITE_PREPARE_PERSISTENT : 0, &stmt,
                              nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return Statement(nullptr, nullptr, SqliteStatus(db_, rc, sql));
  }
  if (it != statements_.end()) {
    // The cached one is busy (nested use of the same SQL): a private copy.
    return Statement(stmt, nullptr, Status::Ok());
  }
  auto cached = std::make_unique<CachedStatement>();
  cached->stmt = stmt;
  cached->in_use = true;
  bool* in_use = &cached->in_use;
  statements_.emplace(std::string(sql), std::move(cached));
  return Statement(stmt, in_use, Status::Ok());
}

Status Database::Exec(const char* sql) {
  char* error = nullptr;
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &error);
  sqlite3_free(error);  // the same text is available from sqlite3_errmsg
  if (rc != SQLITE_OK) return SqliteStatus(db_, rc, sql);
  return Status::Ok();
}

int64_t Database::LastInsertRowId() const { return sqlite3_last_insert_rowid(db_); }

uint64_t Database::ChangeEpoch() const {
  return static_cast<uint64_t>(sqlite3_total_changes64(db_));
}

int64_t Database::Changes() const { return sqlite3_changes64(db_); }

bool Database::InTransaction() const { return sqlite3_get_autocommit(db_) == 0; }

void Database::EnableGroupCommit(std::function<void()> on_group_open) {
  group_ = std::make_unique<Group>();
  group_->on_open = std::move(on_group_open);
}

void Database::WaitFor(std::unique_lock<std::mutex>& lock) {
  const auto start = std::chrono::steady_clock::now();
  lock.lock();
  const auto waited = std::chrono::steady_clock::now() - start;
  waits_->count.fetch_add(1, std::memory_order_relaxed);
  waits_->nanos.fetch_add(
      static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(waited).count()),
      std::memory_order_relaxed);
}

Status Database::CommitGroup() {
  if (group_ == nullptr) return Status::Ok();
  if (!lost_.ok()) return lost_;
  if (!InTransaction()) {
    // An open group that is no transaction any more was rolled back by an
    // error outside any Transaction (a checkpoint, a statement made without one).
    if (group_->open) {
      NoteGroupLost("found rolled back at its commit");
      return lost_;
    }
    return Status::Ok();
  }
  if (Status st = Prepare("COMMIT").Run(); !st.ok()) {
    ForgetCachedInfo();  // SQLite may have rolled the group back
    if (!InTransaction()) NoteGroupLost("its COMMIT failed: " + st.message());
    return st;
  }
  group_->commits++;
  group_->open = false;
  return Status::Ok();
}

void Database::NoteGroupLost(const std::string& how) {
  if (!lost_.ok()) return;
  // `open` stays true: the lost group's ticket never commits.
  lost_ = Status::Io("the metadata database rolled back its open commit group (" + how +
                     "): changes acknowledged since its last commit are lost; tierfs refuses "
                     "every change until it is mounted again");
  LogError("{}", lost_.message());
  if (lost_hook_) lost_hook_();
}

std::optional<uint64_t> Database::UncommittedTicket() const {
  if (group_ == nullptr) return std::nullopt;
  // `commits` first: if the group of the caller's changes commits in between,
  // `open` then reads false (committed) or belongs to a later group (a later
  // ticket); never an earlier one.
  const uint64_t committed = group_->commits;
  if (!group_->open) return std::nullopt;
  return committed + 1;  // the open group's, once committed
}

uint64_t Database::CommittedTickets() const {
  return group_ == nullptr ? 0 : group_->commits.load();
}

// ---- Transaction -------------------------------------------------------------------

Result<Transaction> Transaction::Begin(Database* db) {
  if (!db->group_commit()) {
    TIERFS_RETURN_IF_ERROR(db->Prepare("BEGIN IMMEDIATE").Run());
    return Transaction(db, /*savepoint=*/false);
  }
  // Nothing may build on changes that are gone while memory still shows them.
  if (!db->lost_.ok()) return db->lost_;
  if (!db->InTransaction()) {
    TIERFS_RETURN_IF_ERROR(db->Prepare("BEGIN IMMEDIATE").Run());
    db->group_->open = true;
    if (db->group_->on_open) db->group_->on_open();
  }
  TIERFS_RETURN_IF_ERROR(db->Prepare("SAVEPOINT change").Run());
  return Transaction(db, /*savepoint=*/true);
}

Transaction::Transaction(Transaction&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), savepoint_(other.savepoint_) {}

Transaction::~Transaction() {
  // Some errors (SQLITE_FULL, SQLITE_IOERR...) roll the transaction back
  // already; ROLLBACK would then fail with "no transaction is active".
  if (db_ == nullptr) return;
  db_->ForgetCachedInfo();  // it may have been read inside what is undone
  if (!db_->InTransaction()) {
    // In a group, that rollback took every change since the last group commit
    // with it, acknowledged ones included.
    if (savepoint_) db_->NoteGroupLost("a change in it met an error SQLite rolls back for");
    return;
  }
  if (savepoint_) {
    Status ignored = db_->Prepare("ROLLBACK TO change").Run();
    ignored = db_->Prepare("RELEASE change").Run();
    (void)ignored;
  } else {
    Status ignored = db_->Prepare("ROLLBACK").Run();
    (void)ignored;
  }
}

Status Transaction::Commit() {
  if (db_ == nullptr) return Status::Invalid("commit of a finished transaction");
  Status status = db_->Prepare(savepoint_ ? "RELEASE change" : "COMMIT").Run();
  if (status.ok()) db_ = nullptr;  // on failure the destructor rolls back
  return status;
}

}  // namespace tierfs::meta
