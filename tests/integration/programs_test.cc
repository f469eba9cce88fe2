// Real programs on the mount, without surprises: git (clone, commit, gc, fsck),
// tar and rsync of a tree with hard links, symlinks, xattrs and a sparse file
// (copied in and out, compared entry by entry with the original), make and cmake
// builds of real C code (libfuse's examples), and SQLite with a writer and
// concurrent readers in WAL and rollback-journal modes.
#include <dirent.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

class ProgramsTest : public TierfsFixture {
 protected:
  // Runs a shell script with `set -e`; returns its output, expects success.
  std::string Sh(const std::string& script, int timeout_seconds = 240) {
    CommandResult r = RunCommand({"/bin/sh", "-c", "set -e\n" + script}, timeout_seconds);
    EXPECT_EQ(r.exit_code, 0) << script << "\n" << r.output;
    return r.output;
  }
  static bool Have(const std::string& program) { return access(program.c_str(), X_OK) == 0; }
};

// Everything about an entry that tar and rsync should carry over.
struct EntryInfo {
  std::string type, target, contents, xattrs;
  mode_t mode = 0;
  off_t size = 0;
  int64_t mtime_ns = 0;
  std::string link_group;  // the first path of its inode among the entries (hard links)
  bool operator==(const EntryInfo&) const = default;
};

std::string Xattrs(const std::string& path) {
  char names[4096];
  ssize_t n = llistxattr(path.c_str(), names, sizeof names);
  std::set<std::string> sorted;
  for (ssize_t i = 0; i < n; i += static_cast<ssize_t>(std::strlen(names + i)) + 1) {
    sorted.insert(names + i);
  }
  std::string out;
  for (const std::string& name : sorted) {
    if (name.rfind("user.", 0) != 0) continue;  // tools differ on the others
    char value[4096];
    ssize_t v = lgetxattr(path.c_str(), name.c_str(), value, sizeof value);
    out += name + "=" + std::string(value, v > 0 ? static_cast<size_t>(v) : 0) + ";";
  }
  return out;
}

std::map<std::string, EntryInfo> Describe(const std::string& root) {
  std::map<std::string, EntryInfo> out;
  std::map<ino_t, std::string> first_path;
  std::vector<std::string> paths;
  for (auto& e : std::filesystem::recursive_directory_iterator(root)) {
    paths.push_back(std::filesystem::relative(e.path(), root).string());
  }
  std::sort(paths.begin(), paths.end());
  for (const std::string& rel : paths) {
    const std::string path = root + "/" + rel;
    struct stat st;
    if (lstat(path.c_str(), &st) != 0) continue;
    EntryInfo info;
    info.mode = st.st_mode & 07777;
    info.xattrs = Xattrs(path);
    if (S_ISDIR(st.st_mode)) {
      info.type = "dir";
    } else if (S_ISLNK(st.st_mode)) {
      info.type = "symlink";
      char target[4096];
      ssize_t n = readlink(path.c_str(), target, sizeof target);
      info.target.assign(target, n > 0 ? static_cast<size_t>(n) : 0);
      info.mtime_ns = st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec;
    } else if (S_ISREG(st.st_mode)) {
      info.type = "file";
      info.size = st.st_size;
      info.contents = ReadFile(path);
      info.mtime_ns = st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec;
      auto [it, inserted] = first_path.try_emplace(st.st_ino, rel);
      info.link_group = it->second;
    } else {
      info.type = "other";
    }
    out[rel] = std::move(info);
  }
  return out;
}

void ExpectSameTree(const std::string& a, const std::string& b) {
  auto da = Describe(a), db = Describe(b);
  EXPECT_EQ(da.size(), db.size()) << a << " vs " << b;
  for (const auto& [rel, info] : da) {
    auto it = db.find(rel);
    if (it == db.end()) {
      ADD_FAILURE() << rel << " missing in " << b;
      continue;
    }
    EXPECT_EQ(info.type, it->second.type) << rel;
    EXPECT_EQ(info.mode, it->second.mode) << rel;
    EXPECT_EQ(info.size, it->second.size) << rel;
    EXPECT_TRUE(info.contents == it->second.contents) << rel << " contents differ";
    EXPECT_EQ(info.target, it->second.target) << rel;
    EXPECT_EQ(info.xattrs, it->second.xattrs) << rel;
    EXPECT_EQ(info.link_group, it->second.link_group) << rel << " hard links differ";
    if (info.type != "dir") {
      EXPECT_EQ(info.mtime_ns, it->second.mtime_ns) << rel;
    }
  }
}

// A tree of a few thousand entries: nested directories, small and larger files,
// hard links across directories, relative and absolute symlinks, user xattrs,
// odd modes, a sparse file and names with spaces.
void BuildTree(const std::string& root) {
  ASSERT_EQ(mkdir(root.c_str(), 0755), 0);
  for (int d = 0; d < 40; ++d) {
    const std::string dir = root + "/dir" + std::to_string(d);
    ASSERT_EQ(mkdir(dir.c_str(), d % 7 == 0 ? 0700 : 0755), 0);
    ASSERT_EQ(mkdir((dir + "/nested level").c_str(), 0755), 0);
    for (int f = 0; f < 50; ++f) {
      const std::string file = dir + (f % 2 ? "/nested level" : "") + "/file " + std::to_string(f);
      WriteFile(file, RandomBytes(f == 7 ? 70000 : 10 + f * 13, d * 100 + f));
      if (f % 9 == 0) chmod(file.c_str(), 0600);
      if (f % 10 == 0) setxattr(file.c_str(), "user.tag", "v", 1, 0);
    }
    ASSERT_EQ(link((dir + "/file 0").c_str(), (root + "/hard" + std::to_string(d)).c_str()), 0);
    ASSERT_EQ(symlink("file 2", (dir + "/rel-link").c_str()), 0);
    ASSERT_EQ(symlink("/nonexistent/abs", (dir + "/abs-link").c_str()), 0);
  }
  int fd = open((root + "/sparse").c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_EQ(pwrite(fd, "end", 3, 64 << 20), 3);
  close(fd);
  setxattr(root.c_str(), "user.root", "r", 1, 0);
}

TEST_F(ProgramsTest, GitCloneCommitGcAndFsck) {
  if (!Have("/usr/bin/git")) GTEST_SKIP() << "git is not installed";
  const std::string src = root_ + "/src-repo", clone = Path("clone");
  const std::string git =
      "git -c user.name=t -c user.email=t@example.com -c init.defaultBranch=main";
  Sh("mkdir " + src + " && cd " + src + " && " + git +
     " init -q . && "
     "for i in 1 2 3 4 5; do seq 1 $((i*200)) > file$i.txt; mkdir -p dir$i; echo $i > dir$i/x; " +
     git + " add -A && " + git + " commit -q -m c$i; done");
  Sh(git + " clone -q " + src + " " + clone);
  Sh("cd " + clone + " && echo change >> file1.txt && ln -s file2.txt link && " + git +
     " mv file3.txt renamed.txt && " + git + " rm -q file4.txt && " + git + " add -A && " + git +
     " commit -q -m local && " + git + " gc -q --aggressive --prune=now && " + git +
     " fsck --full --strict --no-progress && " + git + " repack -adq && " + git + " gc -q");
  EXPECT_EQ(Sh("cd " + clone + " && " + git + " status --porcelain"), "");
  EXPECT_EQ(Sh("cd " + clone + " && " + git + " rev-list --count HEAD"), "6\n");
  EXPECT_EQ(Sh("cd " + clone + " && " + git + " diff --stat HEAD~1 HEAD | tail -1"),
            " 4 files changed, 2 insertions(+), 800 deletions(-)\n");
  // A clone of the clone (hard-linked objects inside the mount) is intact too.
  Sh(git + " clone -q " + clone + " " + Path("clone2") + " && cd " + Path("clone2") + " && " + git +
     " fsck --full --no-progress");
  Remount();
  Sh("cd " + clone + " && " + git + " fsck --full --no-progress && " + git +
     " log --oneline >/dev/null");
}

TEST_F(ProgramsTest, TarAndRsyncCarryTheWholeTree) {
  if (!Have("/usr/bin/rsync") || !Have("/bin/tar")) GTEST_SKIP() << "tar or rsync missing";
  const std::string src = root_ + "/tree";
  BuildTree(src);
  if (HasFatalFailure()) return;
  // tar into the mount, and out of it again.
  Sh("mkdir " + Path("untarred") + " && tar --xattrs --xattrs-include='user.*' -C " + src +
     " -cf - . | tar --xattrs --xattrs-include='user.*' -C " + Path("untarred") + " -xpf -");
  ExpectSameTree(src, Path("untarred"));
  Sh("mkdir " + root_ + "/back && tar --xattrs --xattrs-include='user.*' -C " + Path("untarred") +
     " -cf - . | tar --xattrs --xattrs-include='user.*' -C " + root_ + "/back -xpf -");
  ExpectSameTree(src, root_ + "/back");
  // rsync in; a second run finds nothing to do (sizes and mtimes are exact).
  Sh("rsync -aHX --sparse " + src + "/ " + Path("synced") + "/");
  ExpectSameTree(src, Path("synced"));
  EXPECT_EQ(Sh("rsync -aHXi " + src + "/ " + Path("synced") + "/"), "");
  // A change on the mount and an rsync back out.
  WriteFile(Path("synced/dir3/file 4"), "changed");
  Sh("rsync -aHX --delete " + Path("synced") + "/ " + src + "/");
  ExpectSameTree(Path("synced"), src);
  Remount();
  ExpectSameTree(src, Path("synced"));
  EXPECT_EQ(Sh("rsync -aHXi --delete " + src + "/ " + Path("synced") + "/"), "");
}

TEST_F(ProgramsTest, MakeAndCmakeBuildRealCCode) {
  const std::string examples = "/usr/share/doc/libfuse3-dev/examples";
  if (!Have("/usr/bin/make") || !Have("/usr/bin/cmake") || !Have("/usr/bin/cc") ||
      access((examples + "/hello.c").c_str(), R_OK) != 0) {
    GTEST_SKIP() << "make, cmake, cc or libfuse3's examples missing";
  }
  const std::string proj = Path("proj");
  Sh("cp -a " + examples + " " + proj);
  // make: a full build, nothing to do, then only what a touched source needs.
  Sh("cd " + proj +
     " && make -j2 hello hello_ll null passthrough passthrough_ll printcap >/dev/null");
  EXPECT_EQ(Sh("cd " + proj +
               " && make -q hello hello_ll null passthrough passthrough_ll printcap "
               "&& echo up-to-date"),
            "up-to-date\n");
  Sh("sleep 0.05; touch " + proj + "/null.c");
  EXPECT_EQ(Sh("cd " + proj + " && make -n hello null printcap | grep -c -- '-o '"), "1\n");
  // cmake: configure (its try-compiles run on the mount), build, rebuild after a change.
  WriteFile(
      proj + "/CMakeLists.txt",
      "cmake_minimum_required(VERSION 3.16)\nproject(examples C)\n"
      "find_package(PkgConfig REQUIRED)\npkg_check_modules(FUSE3 REQUIRED IMPORTED_TARGET fuse3)\n"
      "foreach(t hello hello_ll null passthrough passthrough_fh passthrough_ll printcap)\n"
      "  add_executable(${t} ${t}.c)\n  target_link_libraries(${t} PkgConfig::FUSE3)\n"
      "endforeach()\n");
  Sh("cmake -S " + proj + " -B " + proj + "/build >/dev/null && cmake --build " + proj +
     "/build -j2 >/dev/null");
  EXPECT_EQ(access((proj + "/build/passthrough_ll").c_str(), X_OK), 0);
  EXPECT_EQ(Sh("cmake --build " + proj + "/build -j2 | grep -c 'Building C object' || true"),
            "0\n");
  Sh("sleep 0.05; touch " + proj + "/hello.c");
  EXPECT_EQ(Sh("cmake --build " + proj + "/build -j2 | grep -c 'Building C object' || true"),
            "1\n");
  EXPECT_EQ(Sh(proj + "/build/hello --version 2>&1 | grep -c 'FUSE library version' || true"),
            "1\n");
}

// One writer commits transactions while readers check that every snapshot they
// see is consistent; then the database passes integrity_check.
void RunSqliteWorkload(const std::string& db_path, const char* journal_mode) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  std::string setup = std::string("PRAGMA journal_mode=") + journal_mode +
                      "; CREATE TABLE t(id INTEGER PRIMARY KEY, v INTEGER NOT NULL);"
                      "CREATE TABLE total(s INTEGER NOT NULL); INSERT INTO total VALUES (0);";
  ASSERT_EQ(sqlite3_exec(db, setup.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);

  constexpr int kReaders = 3, kTransactions = 150, kRowsPerTxn = 10;
  std::vector<pid_t> pids;
  pid_t writer = fork();
  if (writer == 0) {
    sqlite3* w = nullptr;
    if (sqlite3_open(db_path.c_str(), &w) != SQLITE_OK) _exit(2);
    sqlite3_busy_timeout(w, 20000);
    for (int t = 0; t < kTransactions; ++t) {
      std::string sql = "BEGIN IMMEDIATE;";
      for (int r = 0; r < kRowsPerTxn; ++r) {
        sql += "INSERT INTO t(v) VALUES (" + std::to_string(t) + ");";
      }
      sql += "UPDATE total SET s = s + " + std::to_string(t * kRowsPerTxn) + "; COMMIT;";
      if (sqlite3_exec(w, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) _exit(3);
    }
    sqlite3_close(w);
    _exit(0);
  }
  for (int i = 0; i < kReaders; ++i) {
    pid_t pid = fork();
    if (pid == 0) {
      sqlite3* r = nullptr;
      if (sqlite3_open_v2(db_path.c_str(), &r, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
        _exit(2);
      sqlite3_busy_timeout(r, 20000);
      long long last_count = 0;
      for (int round = 0; round < 200; ++round) {
        sqlite3_stmt* st = nullptr;
        // One statement, one snapshot: the sum of v must equal the running total.
        if (sqlite3_prepare_v2(
                r,
                "SELECT (SELECT count(*) FROM t), (SELECT coalesce(sum(v),0) FROM t),"
                " (SELECT s FROM total)",
                -1, &st, nullptr) != SQLITE_OK)
          _exit(4);
        int rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
          long long count = sqlite3_column_int64(st, 0);
          long long sum = sqlite3_column_int64(st, 1), total = sqlite3_column_int64(st, 2);
          if (sum != total || count % kRowsPerTxn != 0 || count < last_count) _exit(5);
          last_count = count;
        } else if (rc != SQLITE_BUSY) {
          _exit(6);
        }
        sqlite3_finalize(st);
      }
      sqlite3_close(r);
      _exit(0);
    }
    pids.push_back(pid);
  }
  int status = 0;
  waitpid(writer, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer status " << status;
  for (pid_t pid : pids) {
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "reader status " << status;
  }
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "ok");
  sqlite3_finalize(st);
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT count(*) FROM t", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int64(st, 0), kTransactions * kRowsPerTxn);
  sqlite3_finalize(st);
  sqlite3_close(db);
}

TEST_F(ProgramsTest, SqliteWithConcurrentReadersAndAWriter) {
  RunSqliteWorkload(Path("wal.db"), "WAL");
  RunSqliteWorkload(Path("rollback.db"), "DELETE");
  Remount();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(Path("wal.db").c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "ok");
  sqlite3_finalize(st);
  sqlite3_close(db);
}

}  // namespace
}  // namespace tierfs::testing
