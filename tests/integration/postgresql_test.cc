// PostgreSQL on tierfs: a private cluster whose data directory (tables, indexes,
// WAL) lives in the mount runs pgbench while `fsppadm enforce` moves its files
// from class to class (checkpoints between), then under load alone (a
// checkpoint amid it), then crashes: PostgreSQL stopped without its shutdown
// checkpoint (immediate shutdown, SIGQUIT to the postmaster) and the tierfs
// daemon killed (kill -9), in either order:
//   - PostgresStoppedThenDaemonKilled: `pg_ctl stop -m immediate`, then kill -9.
//     With the writeback cache, the exiting server's close(2)s write its dirty
//     pages back to the daemon; what the kill loses is the daemon's own state
//     (sizes, creates, renames not yet committed).
//   - DaemonKilledUnderLoadThenPostgresStopped: kill -9 while pgbench commits,
//     then the same immediate shutdown (`pg_ctl kill QUIT`: pg_ctl stop cannot
//     read postmaster.pid on the dead mount). The writeback cache's pages not
//     yet written back die with the daemon too, as on a power cut.
//   - OnlineMovesUnderLoadThenDaemonKilled: the same crash, but no enforce:
//     the daemon moves the files itself (online promotion, docs/policies.md).
//     The policy assigned moves every file whose I/O counts change (a read
//     that misses the page cache, a write) to the other class at once, and it
//     is swapped for its mirror every few seconds, so the files PostgreSQL is
//     using go one way and back while pgbench commits (WAL segments, tables,
//     indexes and catalogs: each move that finds no passthrough open of its
//     file; one that finds one is busy and tried again). Online moves go on
//     until the kill, and one the kill interrupts must leave its file whole at
//     one place. It fails unless the daemon's own count of online moves
//     (`fsppadm status`) is above zero before the crash: about 2,300 in 20 s
//     of pgbench on the test machine.
// After the remount PostgreSQL replays its WAL, and what it acknowledged must
// all be there and consistent:
//   - pgbench's TPC-B invariant: sum(abalance) = sum(bbalance) = sum(tbalance)
//     = sum(delta) over pgbench_history;
//   - at least as many history rows as transactions pgbench saw committed
//     (each inserts one row, and pgbench counts a transaction only once the
//     server answered its COMMIT, which synchronous_commit=on sends after the
//     commit's WAL fsync returned);
//   - amcheck clean: every B-tree index of the database checked against its
//     parent levels and its table (bt_index_parent_check with heapallindexed),
//     every table's heap by verify_heapam;
//   - `tierfs check` clean, before and after PostgreSQL ran again.
//
// The cluster runs as the `postgres` user (PostgreSQL refuses root), in a
// directory of the mount that user owns, on a Unix socket in the test's
// temporary directory (no TCP), with a port number bound free on 127.0.0.1.
// Its binaries are Debian's (/usr/lib/postgresql/VERSION/bin, package
// postgresql-15, which scripts/install-deps.sh installs); without them the test
// fails and says so. Every command has a deadline; the server is stopped (by
// pg_ctl, else by its pid) before the fixture unmounts.
//
// tests/CMakeLists.txt runs it again on a passthrough mount
// (integration.postgresql_on_passthrough).
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/integration/test_policies.h"
#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr int kScale = 1;          // pgbench -s: 100,000 accounts, about 15 MB
constexpr int kClients = 4;        // pgbench -c
constexpr int kMoveSeconds = 10;   // how long files move under pgbench before the crash
constexpr int kMaxEnforces = 8;    // ... and at most this many enforces
constexpr long kTailCommits = 200; // then commits under load alone before the crash
// Online: how long the policies alternate under pgbench, and how long each
// stays assigned (the daemon looks at the counts once a second, and a file
// that is open by passthrough is busy and tried again after 1, 2, 3, 4 s).
constexpr int kOnlineMoveSeconds = 16;
constexpr int kOnlineSwitchSeconds = 4;

// The bin directory of the newest PostgreSQL under /usr/lib/postgresql that has
// every program the test runs, or "" when there is none.
std::string FindPostgresBin() {
  glob_t g{};
  std::string best;
  int best_version = -1;
  if (glob("/usr/lib/postgresql/*/bin", 0, nullptr, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) {
      const std::string bin = g.gl_pathv[i];
      bool complete = true;
      for (const char* program : {"initdb", "pg_ctl", "postgres", "psql", "pgbench"}) {
        complete = complete && access((bin + "/" + program).c_str(), X_OK) == 0;
      }
      const int version = std::atoi(bin.c_str() + std::strlen("/usr/lib/postgresql/"));
      if (complete && version > best_version) {
        best = bin;
        best_version = version;
      }
    }
  }
  globfree(&g);
  return best;
}

// A TCP port of 127.0.0.1 that nothing was bound to a moment ago (0 on error).
// The cluster listens on no TCP address; the port only names its socket file.
int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  return port;
}

double Seconds(SteadyClock::time_point since) {
  return std::chrono::duration<double>(SteadyClock::now() - since).count();
}

bool Alive(pid_t pid) { return pid > 0 && kill(pid, 0) == 0; }

// The processes whose parent is `parent` (from /proc), for the last resort of
// stopping a server whose pg_ctl failed: the postmaster's own children.
std::vector<pid_t> ChildrenOf(pid_t parent) {
  std::vector<pid_t> children;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return children;
  while (dirent* e = readdir(proc)) {
    const pid_t pid = std::atoi(e->d_name);
    if (pid <= 0) continue;
    std::ifstream stat("/proc/" + std::string(e->d_name) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // pid (comm) state ppid ...: comm may hold spaces, so read after its ')'.
    const size_t close_paren = line.rfind(')');
    if (close_paren == std::string::npos) continue;
    std::istringstream rest(line.substr(close_paren + 1));
    std::string state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent) children.push_back(pid);
  }
  closedir(proc);
  return children;
}

class PostgresqlTest : public TierfsFixture {
 protected:
  void SetUp() override {
    TierfsFixture::SetUp();
    if (HasFatalFailure() || IsSkipped()) return;
    // The longest commit window and periodic flush the daemon allows: what
    // PostgreSQL did not fsync stays out of the database as long as possible,
    // so that what survives the kill is what fsync and fsyncdir made durable.
    Unmount();
    ASSERT_NO_FATAL_FAILURE(Mount({"--commit_ms=1000", "--writeback_seconds=3600"}));
    bin_ = FindPostgresBin();
    ASSERT_FALSE(bin_.empty())
        << "PostgreSQL is not installed: no /usr/lib/postgresql/*/bin with initdb, pg_ctl, "
           "postgres, psql and pgbench. scripts/install-deps.sh installs it (Debian 12: "
           "postgresql-15).";
    ASSERT_EQ(access(kSetpriv, X_OK), 0) << kSetpriv << " (util-linux) is missing";
    const passwd* pw = getpwnam("postgres");
    ASSERT_NE(pw, nullptr) << "no `postgres` user (the postgresql-15 package makes it)";
    uid_ = pw->pw_uid;
    gid_ = pw->pw_gid;
    // The postgres user must reach the mount, its socket directory and its log.
    ASSERT_EQ(chmod(root_.c_str(), 0755), 0);
    socket_dir_ = root_ + "/sock";
    server_log_ = root_ + "/postgresql.log";
    ASSERT_EQ(mkdir(socket_dir_.c_str(), 0700), 0);
    ASSERT_EQ(chown(socket_dir_.c_str(), uid_, gid_), 0);
    WriteFile(server_log_, "");
    ASSERT_EQ(chown(server_log_.c_str(), uid_, gid_), 0);
    ASSERT_EQ(mkdir(Path("pg").c_str(), 0700), 0) << strerror(errno);
    ASSERT_EQ(chown(Path("pg").c_str(), uid_, gid_), 0) << strerror(errno);
    data_ = Path("pg/data");
    port_ = FreePort();
    ASSERT_GT(port_, 0) << "no free port: " << strerror(errno);
  }

  void TearDown() override {
    StopServerNow();
    TierfsFixture::TearDown();
  }

  // Runs PostgreSQL's `program` as the postgres user with a clean environment.
  CommandResult AsPostgres(const std::string& program, const std::vector<std::string>& args,
                           int timeout_seconds = 60) {
    std::vector<std::string> argv = {kSetpriv, "--reuid=postgres", "--regid=postgres",
                                     "--init-groups", "--reset-env", "--", bin_ + "/" + program};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(argv, timeout_seconds);
  }

  // One SQL command through psql; its rows as "a|b|c" lines. Asserts success.
  std::string Sql(const std::string& sql, int timeout_seconds = 60) {
    CommandResult r = AsPostgres("psql", {"-h", socket_dir_, "-p", std::to_string(port_), "-X",
                                          "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-d",
                                          "postgres", "-c", sql},
                                 timeout_seconds);
    EXPECT_EQ(r.exit_code, 0) << sql << ":\n" << r.output << ServerLogTail();
    return r.output;
  }

  void InitDb() {
    // 1 MiB WAL segments: many more segment files made, filled, fsynced and
    // recycled in a short run. initdb's own final fsync of every file stays on:
    // the first checkpoint assumes what initdb wrote is durable.
    CommandResult r = AsPostgres("initdb", {"-D", data_, "-U", "postgres", "-A", "trust",
                                            "-E", "UTF8", "--locale=C", "--wal-segsize=1"},
                                 90);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    // Appended as root to the file initdb made: it stays the postgres user's.
    std::ofstream conf(data_ + "/postgresql.conf", std::ios::app);
    conf << "listen_addresses = ''\n"
         << "unix_socket_directories = '" << socket_dir_ << "'\n"
         << "port = " << port_ << "\n"
         << "max_connections = 20\n"
         // Small: backends evict (write) dirty pages themselves all the time.
         << "shared_buffers = 2MB\n"
         << "max_wal_size = 32MB\nmin_wal_size = 4MB\n"
         // The defaults, said: a commit returns after its WAL is fsynced.
         << "fsync = on\nsynchronous_commit = on\nfull_page_writes = on\n";
    conf.close();
    ASSERT_TRUE(conf.good());
  }

  void StartServer() {
    CommandResult r = AsPostgres(
        "pg_ctl", {"start", "-D", data_, "-l", server_log_, "-w", "-t", "60"}, 90);
    ASSERT_EQ(r.exit_code, 0) << r.output << ServerLogTail();
    std::ifstream pid_file(data_ + "/postmaster.pid");
    long pid = 0;
    ASSERT_TRUE(pid_file >> pid) << "no postmaster.pid after pg_ctl start";
    postmaster_ = static_cast<pid_t>(pid);
    ASSERT_TRUE(Alive(postmaster_));
  }

  // pg_ctl stop in `mode` ("immediate": no shutdown checkpoint, as after a power
  // cut). Asserts that it stopped.
  void StopServer(const std::string& mode) {
    CommandResult r =
        AsPostgres("pg_ctl", {"stop", "-D", data_, "-m", mode, "-w", "-t", "60"}, 90);
    EXPECT_EQ(r.exit_code, 0) << r.output << ServerLogTail();
    for (int i = 0; i < 200 && Alive(postmaster_); ++i) {  // 10 s at most
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ASSERT_FALSE(Alive(postmaster_)) << "the postmaster outlived pg_ctl stop -m " << mode;
    postmaster_ = -1;
  }

  // Whatever state the test left: the immediate shutdown's SIGQUIT to the
  // postmaster this test started (by pid, through pg_ctl, which needs no data
  // directory for it), and if it is still there 10 s later, SIGKILL to it and
  // to its children, each by pid.
  void StopServerNow() {
    if (!Alive(postmaster_)) return;
    const std::vector<pid_t> children = ChildrenOf(postmaster_);
    AsPostgres("pg_ctl", {"kill", "QUIT", std::to_string(postmaster_)}, 30);
    for (int i = 0; i < 200 && Alive(postmaster_); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (Alive(postmaster_)) {
      ADD_FAILURE() << "the postmaster outlived its immediate shutdown by 10 s; killing "
                    << postmaster_;
      kill(postmaster_, SIGKILL);
      for (pid_t child : children) kill(child, SIGKILL);
      for (int i = 0; i < 200 && Alive(postmaster_); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
    postmaster_ = -1;
  }

  // Returns once `n` more transactions committed under pgbench than when it was
  // called (rows of pgbench_history), or after 10 s.
  void WaitForCommits(long n) {
    const long from = std::atol(Sql("SELECT count(*) FROM pgbench_history").c_str());
    for (int i = 0; i < 100 && !HasFailure(); ++i) {  // every 100 ms, 10 s at most
      if (std::atol(Sql("SELECT count(*) FROM pgbench_history").c_str()) >= from + n) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  std::string ServerLogTail() const {
    const std::string log = ReadFile(server_log_);
    return "\nserver log (end):\n" + log.substr(log.size() > 4000 ? log.size() - 4000 : 0);
  }

  // One `fsppadm enforce --json`: adds the files it moved and found busy.
  void Enforce(int* moved, int* busy) {
    CommandResult r = Tool("fsppadm", {"enforce", "--json", mnt_}, 60);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const nlohmann::json doc = nlohmann::json::parse(r.output, nullptr, false);
    ASSERT_TRUE(doc.is_object() && doc.contains("summary")) << r.output;
    *moved += doc["summary"].value("files_moved", 0);
    *busy += doc["summary"]["files_skipped"].value("busy", 0);
  }

  // The online path's counts (`fsppadm status --json`, "online"): files it
  // moved, promotions and demotions (swap-outs) together, and moves it found
  // busy. The daemon keeps them in memory since its start, so they must be
  // read before a crash.
  uint64_t OnlineMoves(uint64_t* busy) {
    CommandResult r = Tool("fsppadm", {"status", "--json", mnt_}, 60);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    const nlohmann::json doc = nlohmann::json::parse(r.output, nullptr, false);
    if (!doc.is_object() || !doc.contains("online")) {
      ADD_FAILURE() << "no online section in fsppadm status: " << r.output;
      return 0;
    }
    const nlohmann::json& online = doc["online"];
    EXPECT_TRUE(online.value("online", false)) << "no online policy in force: " << r.output;
    *busy = online["skipped"].value("busy", uint64_t{0});
    return online.value("promotions", uint64_t{0}) + online.value("demotions", uint64_t{0});
  }

  enum class CrashOrder { kPostgresFirst, kDaemonFirst };
  // The whole test: cluster, pgbench under relocations (by enforce, or with
  // `online` by the daemon itself), the crash in `order`, recovery, checks.
  void Run(CrashOrder order, bool online = false);

  static constexpr char kSetpriv[] = "/usr/bin/setpriv";
  std::string bin_, data_, socket_dir_, server_log_;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
  int port_ = 0;
  pid_t postmaster_ = -1;
};

void PostgresqlTest::Run(CrashOrder order, bool online) {
  const auto started = SteadyClock::now();
  ASSERT_NO_FATAL_FAILURE(InitDb());
  ASSERT_NO_FATAL_FAILURE(StartServer());
  const std::string connect_port = std::to_string(port_);
  CommandResult init = AsPostgres(
      "pgbench", {"-h", socket_dir_, "-p", connect_port, "-i", "-s", std::to_string(kScale),
                  "-q", "postgres"},
      90);
  ASSERT_EQ(init.exit_code, 0) << init.output << ServerLogTail();
  Sql("CHECKPOINT");
  const double ready_at = Seconds(started);

  // pgbench runs until the crash ends it (-T is only its bound).
  CommandResult bench;
  std::thread runner([&] {
    bench = AsPostgres("pgbench", {"-h", socket_dir_, "-p", connect_port, "-n", "-c",
                                   std::to_string(kClients), "-j", "2", "-T", "60", "postgres"},
                       90);
  });
  // On any failure below, the server goes first, so that pgbench ends at once.
  struct AtExit {
    std::function<void()> run;
    ~AtExit() { run(); }
  } join_runner{[&] {
    if (!runner.joinable()) return;
    StopServerNow();
    runner.join();
  }};

  // Files move one way, then the other, under the load; a checkpoint between
  // enforces makes PostgreSQL fsync its tables and drop older WAL, so that what
  // survives the crash must come from files written, moved and synced.
  int moved = 0, busy = 0, enforces = 0, switches = 0;
  const auto move_until = SteadyClock::now() +
                          std::chrono::seconds(online ? kOnlineMoveSeconds : kMoveSeconds);
  while (!online && enforces < kMaxEnforces && SteadyClock::now() < move_until) {
    AssignPolicy(MoveEverythingPolicy("ssd", enforces % 2 == 0 ? "hdd" : "ssd"));
    ASSERT_NO_FATAL_FAILURE(Enforce(&moved, &busy));
    ++enforces;
    if (enforces % 2 == 0) Sql("CHECKPOINT");
  }
  // Online, no enforce: the files in use go to hdd while one policy is
  // assigned, back to ssd while its mirror is, and so on; the checkpoint at
  // each switch makes PostgreSQL write and fsync its tables (and remove or
  // recycle old WAL), which heats those files too.
  while (online && SteadyClock::now() < move_until && !HasFailure()) {
    const bool to_hdd = switches % 2 == 0;
    AssignPolicy(OnlineMoveHotPolicy(to_hdd ? "ssd" : "hdd", to_hdd ? "hdd" : "ssd"));
    ++switches;
    std::this_thread::sleep_for(std::chrono::seconds(kOnlineSwitchSeconds));
    Sql("CHECKPOINT");
  }

  // Then load alone, a checkpoint, and load again: the tables' last pages
  // before the crash are durable by that checkpoint's fsyncs only, and the
  // commits after it by their WAL fsyncs only, not by an enforce's flush of
  // every file's size.
  WaitForCommits(kTailCommits);
  Sql("CHECKPOINT");
  WaitForCommits(kTailCommits);
  uint64_t online_moves = 0, online_busy = 0;
  if (online) online_moves = OnlineMoves(&online_busy);

  if (order == CrashOrder::kPostgresFirst) {
    ASSERT_NO_FATAL_FAILURE(StopServer("immediate"));
    ASSERT_NO_FATAL_FAILURE(CrashDaemon());
  } else {
    const pid_t daemon = DaemonPid();
    ASSERT_GT(daemon, 1);
    ASSERT_EQ(kill(daemon, SIGKILL), 0);  // the daemon this fixture started
    for (int i = 0; i < 400 && Alive(daemon); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    ASSERT_FALSE(Alive(daemon)) << "the daemon outlived kill -9 by 10 s";
    ASSERT_NO_FATAL_FAILURE(StopServerNow());  // its files must close before the unmount
    Unmount();  // detaches the dead mount
  }
  const double crash_at = Seconds(started);
  runner.join();
  std::smatch m;
  const std::regex processed("number of transactions actually processed: ([0-9]+)");
  ASSERT_TRUE(std::regex_search(bench.output, m, processed)) << bench.output;
  const long committed = std::stol(m[1]);
  EXPECT_GT(committed, 0) << "pgbench committed nothing before the crash: " << bench.output;
  if (online) {
    EXPECT_GT(online_moves, 0u) << "the daemon moved no file online under the load ("
                                << online_busy << " found busy)";
  } else {
    EXPECT_GT(moved, 0) << "no file moved under the load (" << busy << " busy)";
  }

  const size_t daemon_log_before = DaemonLog().size();
  ASSERT_NO_FATAL_FAILURE(Mount(mount_args_));
  // What the daemon's crash recovery found (objects trimmed to their sizes).
  const std::string daemon_log = DaemonLog().substr(daemon_log_before);
  const size_t recovery_at = daemon_log.find("the last mount did not end cleanly");
  EXPECT_NE(recovery_at, std::string::npos) << "no crash recovery after kill -9:\n"
                                            << daemon_log;
  const std::string recovery =
      recovery_at == std::string::npos
          ? ""
          : daemon_log.substr(recovery_at, daemon_log.find('\n', recovery_at) - recovery_at);
  CommandResult check = Tool("tierfs", {"check", mnt_});
  EXPECT_EQ(check.exit_code, 0) << check.output;
  const size_t log_before_restart = ReadFile(server_log_).size();
  ASSERT_NO_FATAL_FAILURE(StartServer());
  EXPECT_NE(ReadFile(server_log_).find("automatic recovery in progress", log_before_restart),
            std::string::npos)
      << "PostgreSQL ran no crash recovery: the crash did not happen" << ServerLogTail();

  const std::string sums = Sql(
      "SELECT (SELECT sum(abalance) FROM pgbench_accounts), (SELECT sum(bbalance) FROM "
      "pgbench_branches), (SELECT sum(tbalance) FROM pgbench_tellers), (SELECT "
      "coalesce(sum(delta), 0) FROM pgbench_history), (SELECT count(*) FROM pgbench_history), "
      "(SELECT count(*) FROM pgbench_accounts), (SELECT count(*) FROM pgbench_branches), "
      "(SELECT count(*) FROM pgbench_tellers)");
  std::vector<long> v;
  std::istringstream fields(sums);
  for (std::string field; std::getline(fields, field, '|');) v.push_back(std::atol(field.c_str()));
  ASSERT_EQ(v.size(), 8u) << sums;
  EXPECT_TRUE(v[0] == v[1] && v[1] == v[2] && v[2] == v[3])
      << "TPC-B invariant broken: sum(abalance) " << v[0] << ", sum(bbalance) " << v[1]
      << ", sum(tbalance) " << v[2] << ", sum(delta) " << v[3];
  EXPECT_GE(v[4], committed) << "history rows " << v[4] << " < " << committed
                             << " transactions pgbench saw committed: commits were lost";
  EXPECT_EQ(v[5], 100000L * kScale);
  EXPECT_EQ(v[6], 1L * kScale);
  EXPECT_EQ(v[7], 10L * kScale);

  Sql("CREATE EXTENSION IF NOT EXISTS amcheck");
  // Every B-tree index of the database (catalogs too), with its table's tuples.
  const std::string indexes = Sql(
      "SELECT count(bt_index_parent_check(c.oid, true, true)) FROM pg_class c JOIN pg_am a ON "
      "a.oid = c.relam WHERE a.amname = 'btree' AND c.relkind = 'i' AND c.relpersistence = 'p'",
      120);
  EXPECT_GT(std::atol(indexes.c_str()), 3) << "amcheck checked no index: " << indexes;
  const std::string heap = Sql(
      "SELECT c.relname, v.blkno, v.offnum, v.msg FROM pg_class c, LATERAL verify_heapam(c.oid) v "
      "WHERE c.relkind IN ('r', 'm', 't') AND c.relpersistence = 'p'",
      120);
  EXPECT_EQ(heap, "") << "verify_heapam found corruption:\n" << heap;

  ASSERT_NO_FATAL_FAILURE(StopServer("fast"));
  check = Tool("tierfs", {"check", mnt_});
  EXPECT_EQ(check.exit_code, 0) << check.output;
  RecordProperty("committed", static_cast<int>(committed));
  RecordProperty("history_rows", static_cast<int>(v[4]));
  RecordProperty("files_moved", moved);
  RecordProperty("files_busy", busy);
  RecordProperty("online_moves", static_cast<int>(online_moves));
  const std::string movers =
      online ? std::to_string(switches) + " online policies moved " +
                   std::to_string(online_moves) + " files (" + std::to_string(online_busy) +
                   " busy)"
             : std::to_string(enforces) + " enforces moved " + std::to_string(moved) +
                   " files (" + std::to_string(busy) + " busy)";
  std::printf("pgbench committed %ld before the crash, %ld history rows after; %s; ready %.1f s, "
              "crash %.1f s, end %.1f s%s\ntierfs: %s\n",
              committed, v[4], movers.c_str(), ready_at, crash_at, Seconds(started),
              passthrough_ ? " (passthrough)" : "", recovery.c_str());
}

TEST_F(PostgresqlTest, PostgresStoppedThenDaemonKilled) { Run(CrashOrder::kPostgresFirst); }

TEST_F(PostgresqlTest, DaemonKilledUnderLoadThenPostgresStopped) {
  Run(CrashOrder::kDaemonFirst);
}

TEST_F(PostgresqlTest, OnlineMovesUnderLoadThenDaemonKilled) {
  Run(CrashOrder::kDaemonFirst, /*online=*/true);
}

}  // namespace
}  // namespace tierfs::testing
