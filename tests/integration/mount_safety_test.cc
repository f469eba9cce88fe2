// What `tierfs` does before it serves, against a real mount:
//  - a damaged or empty meta.db is refused with a message saying what is wrong
//    and what to do, and the refused mount changes no file of the database (no
//    byte, size or mtime; no -wal, -shm or -journal created);
//  - what a kill -9 left in meta.db-wal is honoured by the next mount;
//  - a mount right after `fusermount3 -u` waits for the exiting daemon instead of
//    failing with "already mounted", and that message has no newline inside;
//  - the daemon's control socket refuses trailing garbage and out-of-range
//    numbers, and the tools and the daemon's flags refuse out-of-range values.
// Only processes the test started (its daemons) are ever signalled, by pid.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "fs/control/control_server.h"
#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

using Clock = std::chrono::steady_clock;

struct FileState {
  off_t size = 0;
  int64_t mtime_ns = 0;
  std::string bytes;
  bool operator==(const FileState&) const = default;
};

// Every file of `dir` but the log. The daemon's lock file is compared too: a mount
// attempt takes its lock but writes its pid only once the file system opened.
std::map<std::string, FileState> Snapshot(const std::string& dir) {
  std::map<std::string, FileState> files;
  DIR* d = opendir(dir.c_str());
  EXPECT_NE(d, nullptr) << dir;
  if (d == nullptr) return files;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == ".." || name == "tierfs.log") continue;
    const std::string path = dir + "/" + name;
    struct stat st;
    EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
    FileState state;
    state.size = st.st_size;
    state.mtime_ns = st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec;
    if (S_ISREG(st.st_mode)) state.bytes = ReadFile(path);
    files[name] = std::move(state);
  }
  closedir(d);
  return files;
}

std::string Listing(const std::map<std::string, FileState>& files) {
  std::string out;
  for (const auto& [name, state] : files) out += name + "(" + std::to_string(state.size) + ") ";
  return out;
}

bool IsMounted(const std::string& dir) {
  std::ifstream mounts("/proc/mounts");
  std::string source, target, rest;
  while (mounts >> source >> target && std::getline(mounts, rest)) {
    if (target == dir) return true;
  }
  return false;
}

class MountSafetyTest : public TierfsFixture {
 protected:
  std::string TierfsDir() const { return ssd_ + "/.tierfs"; }
  std::string DbPath() const { return TierfsDir() + "/meta.db"; }

  // The pid in the lock file, -1 if none.
  pid_t LockPid() {
    std::ifstream in(TierfsDir() + "/daemon.lock");
    long pid = -1;
    if (!(in >> pid)) return -1;
    return static_cast<pid_t>(pid);
  }
  // True once no process holds the daemon lock (bounded).
  bool WaitLockFree(int seconds) {
    const auto deadline = Clock::now() + std::chrono::seconds(seconds);
    while (Clock::now() < deadline) {
      int fd = open((TierfsDir() + "/daemon.lock").c_str(), O_RDWR | O_CLOEXEC);
      if (fd < 0) return true;
      bool free = flock(fd, LOCK_EX | LOCK_NB) == 0;
      close(fd);
      if (free) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  // Runs `tierfs SSD MNT`; marks the fixture mounted when it succeeds.
  CommandResult MountCommand(const std::vector<std::string>& flags = {}) {
    std::vector<std::string> argv = {testing::Tool("tierfs")};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.push_back(ssd_);
    argv.push_back(mnt_);
    CommandResult r = RunCommand(argv, 60);
    if (r.exit_code == 0) mounted_ = true;
    return r;
  }
  // Writes 4 KiB of garbage over page `page` (1-based; pages are 4096 bytes).
  void DamagePage(int64_t page) {
    int fd = open(DbPath().c_str(), O_WRONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    const std::string garbage = RandomBytes(4096, 77);
    ASSERT_EQ(pwrite(fd, garbage.data(), garbage.size(), (page - 1) * 4096), 4096);
    close(fd);
  }
  // One raw request on the daemon's control socket; the last line of the answer.
  nlohmann::json RawRequest(const std::string& text) {
    Result<int> fd = ConnectControlSocket(TierfsDir() + "/control.sock");
    EXPECT_TRUE(fd.ok()) << fd.status().ToString();
    if (!fd.ok()) return {};
    EXPECT_EQ(send(*fd, text.data(), text.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(text.size()));
    timeval tv{10, 0};  // bounded: a missing answer fails the test
    setsockopt(*fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = recv(*fd, buf, sizeof buf, 0)) > 0) out.append(buf, static_cast<size_t>(n));
    close(*fd);
    if (!out.empty() && out.back() == '\n') out.pop_back();
    return nlohmann::json::parse(out.substr(out.find_last_of('\n') + 1), nullptr, false);
  }
};

TEST_F(MountSafetyTest, DamagedDatabaseIsRefusedAndLeftAsItWas) {
  for (int i = 0; i < 50; ++i) WriteFile(Path("f" + std::to_string(i)), "x");
  Unmount();
  struct stat st;
  ASSERT_EQ(stat(DbPath().c_str(), &st), 0);
  const int64_t pages = st.st_size / 4096;
  ASSERT_GE(pages, 4);
  DamagePage(pages / 2);  // not page 1: the header stays valid
  const auto before = Snapshot(TierfsDir());

  CommandResult r = MountCommand();
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_FALSE(IsMounted(mnt_));
  EXPECT_NE(r.output.find(DbPath() + " is damaged (quick_check"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("run `tierfs check --repair " + ssd_ + "` or restore a backup"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("docs/reliability.md"), std::string::npos) << r.output;

  const auto after = Snapshot(TierfsDir());
  EXPECT_EQ(Listing(after), Listing(before));
  EXPECT_TRUE(after == before) << "the refused mount changed a file in " << TierfsDir();
}

TEST_F(MountSafetyTest, EmptyDatabaseIsRefusedAndStaysEmpty) {
  Unmount();
  ASSERT_EQ(truncate(DbPath().c_str(), 0), 0);
  const auto before = Snapshot(TierfsDir());
  CommandResult r = MountCommand();
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(DbPath() + " is empty (0 bytes)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("tierfs check --repair"), std::string::npos) << r.output;
  const auto after = Snapshot(TierfsDir());
  EXPECT_EQ(Listing(after), Listing(before));
  EXPECT_TRUE(after == before);
  struct stat st;
  ASSERT_EQ(stat(DbPath().c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 0);
}

// kill -9 leaves committed transactions in meta.db-wal; the next mount serves them.
TEST_F(MountSafetyTest, WalLeftByKillIsHonoured) {
  const std::string data = RandomBytes(10000, 5);
  WriteFileSynced(Path("after-crash"), data);
  ASSERT_EQ(mkdir(Path("dir-after-crash").c_str(), 0755), 0);
  FsyncDir(mnt_);  // committed: in the WAL from here on
  const pid_t pid = LockPid();
  ASSERT_GT(pid, 1);
  ASSERT_EQ(kill(pid, SIGKILL), 0);  // our own daemon, by its pid
  ASSERT_TRUE(WaitLockFree(30));
  struct stat st;
  ASSERT_EQ(stat((DbPath() + "-wal").c_str(), &st), 0) << "kill -9 left no WAL";
  ASSERT_GT(st.st_size, 0);
  Unmount();  // detaches the dead mount
  Mount();
  EXPECT_EQ(ReadFile(Path("after-crash")), data);
  EXPECT_EQ(stat(Path("dir-after-crash").c_str(), &st), 0);
}

// fusermount3 -u returns before the daemon has finished its final flush; the
// next mount waits for it (a bounded few seconds) instead of failing.
TEST_F(MountSafetyTest, MountRightAfterUnmountSucceeds) {
  for (int i = 0; i < 5; ++i) {
    WriteFile(Path("file" + std::to_string(i)), RandomBytes(100000, i));
    CommandResult u = RunCommand({"/usr/bin/fusermount3", "-u", mnt_}, 30);
    ASSERT_EQ(u.exit_code, 0) << u.output;
    mounted_ = false;
    CommandResult r = MountCommand();
    ASSERT_EQ(r.exit_code, 0) << "iteration " << i << ": " << r.output;
  }
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(ReadFile(Path("file" + std::to_string(i))), RandomBytes(100000, i));
  }
}

// A foreground daemon (a systemd service, a terminal) is stopped by SIGTERM: it
// unmounts cleanly and exits 0, so the service does not count as failed.
TEST_F(MountSafetyTest, ForegroundDaemonStoppedBySigtermExitsZero) {
  Unmount();
  const std::string tierfs = testing::Tool("tierfs");
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    execl(tierfs.c_str(), "tierfs", "-f", ssd_.c_str(), mnt_.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  bool up = false;
  for (int i = 0; i < 400 && !up; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    up = DaemonPid() == child;
  }
  if (!up) {
    kill(child, SIGKILL);  // our own child, by its id
    waitpid(child, nullptr, 0);
    FAIL() << "tierfs -f did not come up";
  }
  mounted_ = true;
  WriteFile(Path("f"), "kept");
  // A file written and still open when the daemon stops: the kernel sends no
  // RELEASE for it, so the daemon releases (and flushes) its handle itself as
  // it stops (it crashed there once, releasing into the delayed flush it had
  // already stopped).
  const int held = open(Path("g").c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
  ASSERT_GE(held, 0) << strerror(errno);
  ASSERT_EQ(write(held, "held", 4), 4);
  ASSERT_EQ(kill(child, SIGTERM), 0);
  int status = 0;
  for (int i = 0; i < 400 && waitpid(child, &status, WNOHANG) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  close(held);  // the mount is gone: whatever close says
  mounted_ = false;
  ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  Mount();
  EXPECT_EQ(ReadFile(Path("f")), "kept");
  EXPECT_EQ(ReadFile(Path("g")), "held");
}

TEST_F(MountSafetyTest, AlreadyMountedMessageIsOneLine) {
  const std::string other = root_ + "/other";
  ASSERT_EQ(mkdir(other.c_str(), 0755), 0);
  CommandResult r = RunCommand({testing::Tool("tierfs"), ssd_, other}, 60);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(IsMounted(other));
  const std::string expected = "tierfs: the file system on " + ssd_ + " is already mounted on " +
                               mnt_ + " (daemon pid " + std::to_string(LockPid()) + ")\n";
  EXPECT_EQ(r.output, expected);
}

// A lock held by something that never mounts is waited for, a bounded time.
TEST_F(MountSafetyTest, LockHeldWithoutAMountIsWaitedForThenRefused) {
  Unmount();
  int fd = open((TierfsDir() + "/daemon.lock").c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0);
  const auto start = Clock::now();
  CommandResult r = MountCommand();
  const auto waited = Clock::now() - start;
  close(fd);
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("is not mounted but its daemon lock is still held"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("waited 10 s"), std::string::npos) << r.output;
  EXPECT_GE(waited, std::chrono::seconds(9));
  EXPECT_LT(waited, std::chrono::seconds(30));
  EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << r.output;
}

TEST_F(MountSafetyTest, ControlSocketRefusesGarbageAndOutOfRangeNumbers) {
  nlohmann::json answer = RawRequest("{\"op\":\"ping\"}\ngarbage");
  EXPECT_EQ(answer["errno"], EINVAL) << answer.dump();
  answer = RawRequest("{\"op\":\"ping\"} garbage\n");
  EXPECT_EQ(answer["errno"], EINVAL) << answer.dump();
  EXPECT_NE(answer.value("error", "").find("trailing data"), std::string::npos) << answer.dump();
  answer = RawRequest("{\"op\":\"scan\",\"mode\":\"analyze\",\"io_nice\":1e300}\n");
  EXPECT_EQ(answer["errno"], EINVAL) << answer.dump();
  EXPECT_NE(answer.value("error", "").find("io_nice must be an integer from 1 to 100"),
            std::string::npos)
      << answer.dump();
  answer = RawRequest("{\"op\":\"scan\",\"mode\":\"analyze\",\"limits\":{\"files\":-1}}\n");
  EXPECT_EQ(answer["errno"], EINVAL) << answer.dump();
  // Every handler reads its numbers and flags strictly, naming the field.
  for (const char* bad : {"{\"op\":\"fcl\",\"action\":\"print\",\"limit\":-1}\n",
                          "{\"op\":\"fcl\",\"action\":\"print\",\"from_seq\":1e300}\n",
                          "{\"op\":\"fcl\",\"action\":7}\n",
                          "{\"op\":\"status\",\"limit\":-5}\n",
                          "{\"op\":\"fsmap\",\"inos\":[18446744073709551615]}\n",
                          "{\"op\":\"validate\",\"xml\":\"<x/>\",\"force\":\"yes\"}\n"}) {
    answer = RawRequest(bad);
    EXPECT_EQ(answer["errno"], EINVAL) << bad << " -> " << answer.dump();
  }
  EXPECT_EQ(RawRequest("{\"op\":\"ping\"}\n")["ok"], true);

  CommandResult r = Tool("fsppadm", {"enforce", "-p", "1e300", mnt_});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("-p: IO_NICE must be 1..100, got 1e300"), std::string::npos) << r.output;
  r = Tool("fsppadm", {"enforce", "-s", "-1", mnt_});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("-s: not a size"), std::string::npos) << r.output;
}

TEST_F(MountSafetyTest, DaemonFlagsOutOfRangeAreRefused) {
  Unmount();
  for (const std::string& flag :
       {std::string("--threads=0"), std::string("--entry_timeout=-1"),
        std::string("--attr_timeout=1e300"), std::string("--fcl_keep_hours=1e300"),
        std::string("--iostat_keep_days=-3"), std::string("--writeback_seconds=100000"),
        std::string("--fcl_max_records=-1")}) {
    CommandResult r = MountCommand({flag});
    EXPECT_NE(r.exit_code, 0) << flag << ": " << r.output;
    const std::string name = flag.substr(2, flag.find('=') - 2);
    EXPECT_NE(r.output.find(name), std::string::npos) << flag << ": " << r.output;
    EXPECT_FALSE(IsMounted(mnt_)) << flag;
  }
  mounted_ = false;
}

}  // namespace
}  // namespace tierfs::testing
