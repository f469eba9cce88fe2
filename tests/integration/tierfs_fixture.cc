#include "tests/integration/tierfs_fixture.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

namespace tierfs::testing {
namespace {

using Clock = std::chrono::steady_clock;

bool IsMounted(const std::string& dir) {
  std::ifstream mounts("/proc/mounts");
  std::string line;
  while (std::getline(mounts, line)) {
    std::istringstream fields(line);
    std::string source, target;
    fields >> source >> target;
    if (target == dir) return true;
  }
  return false;
}

// Waits until no daemon holds the file system's daemon lock (it has flushed and exited).
bool WaitForDaemonExit(const std::string& metadata_dir, int timeout_seconds) {
  const std::string lock = metadata_dir + "/.tierfs/daemon.lock";
  const auto deadline = Clock::now() + std::chrono::seconds(timeout_seconds);
  while (Clock::now() < deadline) {
    int fd = open(lock.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return true;
    bool free = flock(fd, LOCK_EX | LOCK_NB) == 0;
    close(fd);
    if (free) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

}  // namespace

std::string Difference(const std::string& got, const std::string& want) {
  if (got == want) return "";
  size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) i++;
  return "size " + std::to_string(got.size()) + " want " + std::to_string(want.size()) +
         " first-diff " + std::to_string(i);
}

std::vector<std::string> CommonMountArgs() {
  std::vector<std::string> args;
  if (const char* common = getenv("TIERFS_TEST_MOUNT_ARGS")) {
    std::istringstream words(common);
    for (std::string word; words >> word;) args.push_back(word);
  }
  return args;
}

std::string Tool(const std::string& name) { return std::string(TIERFS_BINARY_DIR) + "/cli/" + name; }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string ReadFileDirect(const std::string& path) {
  constexpr size_t kChunk = 1 << 20;
  std::string bytes;
  const int fd = open(path.c_str(), O_RDONLY | O_DIRECT);
  if (fd < 0) {
    ADD_FAILURE() << "cannot open " << path << ": " << strerror(errno);
    return bytes;
  }
  void* buf = nullptr;
  if (posix_memalign(&buf, 4096, kChunk) != 0) {
    ADD_FAILURE() << "posix_memalign";
    close(fd);
    return bytes;
  }
  ssize_t n = 0;
  for (int i = 0; i < 100000 && (n = read(fd, buf, kChunk)) > 0; ++i) {
    bytes.append(static_cast<const char*>(buf), static_cast<size_t>(n));
  }
  EXPECT_EQ(n, 0) << path << ": " << strerror(errno);
  free(buf);
  close(fd);
  return bytes;
}

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  ASSERT_TRUE(out.good()) << "cannot create " << path;
  out << data;
  out.close();
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

void WriteFileSynced(const std::string& path, const std::string& data) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0) << "create " << path << ": " << strerror(errno);
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  EXPECT_EQ(done, data.size()) << "write " << path << ": " << strerror(errno);
  EXPECT_EQ(fsync(fd), 0) << "fsync " << path << ": " << strerror(errno);
  EXPECT_EQ(close(fd), 0) << "close " << path << ": " << strerror(errno);
}

void FsyncDir(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(fd, 0) << "open " << path << ": " << strerror(errno);
  EXPECT_EQ(fsync(fd), 0) << "fsync " << path << ": " << strerror(errno);
  close(fd);
}

void DropPageCacheUnder(const std::string& dir) {
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const int fd = open(it->path().c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;  // gone meanwhile (a temporary file of the daemon's)
    EXPECT_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0) << it->path();
    close(fd);
  }
  EXPECT_FALSE(ec) << dir << ": " << ec.message();
}

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

void TierfsFixture::SetUp() {
  // The volumes on a disk: where /tmp is a tmpfs (Debian 13's default), the
  // page-cache heat counter cannot see them and the default mount would not
  // pass through (PageCacheHookUnusable), which is not what most tests mean.
  struct statfs tmp;
  const bool tmp_in_memory = statfs("/tmp", &tmp) == 0 && tmp.f_type == TMPFS_MAGIC;
  char tmpl[] = "/tmp/tierfs-it-XXXXXX";
  char var_tmpl[] = "/var/tmp/tierfs-it-XXXXXX";
  char* chosen = tmp_in_memory ? var_tmpl : tmpl;
  ASSERT_NE(mkdtemp(chosen), nullptr) << strerror(errno);
  root_ = chosen;
  ssd_ = root_ + "/ssd";
  hdd_ = root_ + "/hdd";
  mnt_ = root_ + "/mnt";
  for (const std::string& d : {ssd_, hdd_, mnt_}) ASSERT_EQ(mkdir(d.c_str(), 0755), 0) << d;
  PrepareVolumes();
  if (HasFatalFailure()) return;
  // mkdstfs mounts with no options of its own to give the daemon; with
  // $TIERFS_TEST_MOUNT_ARGS set, it only creates the file system and Mount()
  // serves it with those options, so that every mount of the run has them.
  const bool common_args = !CommonMountArgs().empty() || !FixtureMountArgs().empty();
  std::vector<std::string> argv = {testing::Tool("mkdstfs")};
  for (const std::string& option : MkdstfsOptions()) argv.push_back(option);
  if (common_args) argv.push_back("--no-mount");
  argv.insert(argv.end(), {mnt_, "testfs", ssd_ + ":ssd", hdd_ + ":hdd"});
  CommandResult r = RunCommand(argv);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  if (common_args) {
    ASSERT_NO_FATAL_FAILURE(Mount());
  } else {
    mounted_ = true;
  }
  ASSERT_TRUE(IsMounted(mnt_)) << "mkdstfs returned but " << mnt_ << " is not mounted";
  // A run asked to repeat a suite on passthrough proves nothing where the kernel
  // or the privileges leave it off: its tests are skipped, saying why.
  for (const std::string& arg : CommonMountArgs()) {
    if (arg.starts_with("--passthrough=") && arg != "--passthrough=off" && !passthrough_) {
      GTEST_SKIP() << "TIERFS_TEST_MOUNT_ARGS asks for " << arg
                   << " but the daemon serves every read and write: " << passthrough_off_reason_;
    }
  }
  // It took it: every later mount that asks for it must take it too.
  require_passthrough_ = passthrough_;
}

void TierfsFixture::TearDown() {
  Unmount();
  for (auto it = scratch_mounts_.rbegin(); it != scratch_mounts_.rend(); ++it) {
    if (!IsMounted(*it)) continue;
    if (RunCommand({"/bin/umount", *it}, 30).exit_code != 0) {
      RunCommand({"/bin/umount", "-l", *it}, 30);
    }
  }
  bool busy = IsMounted(mnt_);
  for (const std::string& m : scratch_mounts_) busy = busy || IsMounted(m);
  if (!root_.empty() && !busy) {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
}

void TierfsFixture::Unmount() {
  if (!mounted_) return;
  mounted_ = false;
  if (passthrough_) {
    const std::string log = DaemonLog();
    const size_t off = log.find("passthrough: off for this mount", log_at_mount_);
    EXPECT_EQ(off, std::string::npos)
        << "the daemon turned passthrough off: " << log.substr(off, log.find('\n', off) - off);
  }
  for (int attempt = 0; attempt < 50 && IsMounted(mnt_); ++attempt) {
    RunCommand({"/usr/bin/fusermount3", "-u", mnt_}, 30);
    if (IsMounted(mnt_)) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (IsMounted(mnt_)) {
    ADD_FAILURE() << mnt_ << " stayed busy; detaching it lazily";
    RunCommand({"/usr/bin/fusermount3", "-uz", mnt_}, 30);
  }
  EXPECT_TRUE(WaitForDaemonExit(ssd_, 30)) << "the tierfs daemon did not exit after unmount";
}

void TierfsFixture::Mount(const std::vector<std::string>& extra_args) {
  mount_args_ = extra_args;
  std::vector<std::string> argv = {testing::Tool("tierfs")};
  const std::vector<std::string> common = CommonMountArgs();
  argv.insert(argv.end(), common.begin(), common.end());
  const std::vector<std::string> fixture = FixtureMountArgs();
  argv.insert(argv.end(), fixture.begin(), fixture.end());
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  // The mode asked for is the last --passthrough= (gflags takes the last one);
  // without one, the daemon's default.
  std::string mode = "auto";
  for (const std::string& arg : argv) {
    if (arg.starts_with("--passthrough=")) mode = arg.substr(std::strlen("--passthrough="));
  }
  const size_t log_before = log_at_mount_ = DaemonLog().size();
  argv.push_back(ssd_);
  argv.push_back(mnt_);
  CommandResult r = RunCommand(argv, 60);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  mounted_ = true;
  passthrough_ = false;
  passthrough_off_reason_.clear();
  if (mode == "off") return;
  // The daemon logs its decision in INIT's handler and, if the reply drops it,
  // while sending that reply: both have happened once a stat of the mount point
  // returns, and each line is flushed as it is logged. The bounded poll (5 s) is
  // for a log that trails anyway.
  struct stat st;
  ASSERT_EQ(stat(mnt_.c_str(), &st), 0) << strerror(errno);
  const std::string on = "passthrough=" + mode + ": asked for in INIT";
  const std::vector<std::string> offs = {"passthrough=" + mode + ": off",
                                         "passthrough: not asked for in INIT"};
  for (int i = 0; i < 100; ++i) {
    const std::string log = DaemonLog();
    const std::string fresh = log.size() > log_before ? log.substr(log_before) : log;
    for (const std::string& off : offs) {
      const size_t at = fresh.find(off);
      if (at != std::string::npos) {
        passthrough_off_reason_ = fresh.substr(at, fresh.find('\n', at) - at);
        EXPECT_FALSE(require_passthrough_)
            << "passthrough was on at the first mount, off at this one: "
            << passthrough_off_reason_;
        return;
      }
    }
    if (fresh.find(on) != std::string::npos) {
      passthrough_ = true;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ADD_FAILURE() << "no passthrough decision in the daemon's log within 5 s:\n" << DaemonLog();
}

std::string TierfsFixture::DaemonLog() const {
  std::ifstream in(ssd_ + "/.tierfs/tierfs.log");
  std::stringstream all;
  all << in.rdbuf();
  return all.str();
}

void TierfsFixture::MountScratch(const std::string& dir, const std::string& size,
                                 const std::string& source) {
  std::vector<std::string> argv =
      size.empty() ? std::vector<std::string>{"/bin/mount", "--bind", source, dir}
                   : std::vector<std::string>{"/bin/mount", "-t", "tmpfs", "-o", "size=" + size,
                                              "tmpfs", dir};
  CommandResult r = RunCommand(argv, 30);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  scratch_mounts_.push_back(dir);
}

pid_t TierfsFixture::DaemonPid() const {
  std::ifstream in(ssd_ + "/.tierfs/daemon.lock");
  long pid = -1;
  if (!(in >> pid) || pid <= 0) return -1;
  return static_cast<pid_t>(pid);
}

void TierfsFixture::CrashDaemon() {
  const pid_t pid = DaemonPid();
  ASSERT_GT(pid, 1);
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  for (int i = 0; i < 400 && kill(pid, 0) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  ASSERT_NE(kill(pid, 0), 0) << "daemon " << pid << " outlived kill -9 by 10 s";
  Unmount();
}

void TierfsFixture::StopDaemon() {
  const pid_t pid = DaemonPid();
  ASSERT_GT(pid, 1);
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  ASSERT_TRUE(WaitForDaemonExit(ssd_, 30)) << "daemon " << pid << " outlived SIGTERM by 30 s";
  Unmount();
}

CommandResult TierfsFixture::Tool(const std::string& name, const std::vector<std::string>& args,
                                  int timeout_seconds) {
  std::vector<std::string> argv = {testing::Tool(name)};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, timeout_seconds);
}

void TierfsFixture::AssignPolicy(const std::string& xml) {
  const std::string file = root_ + "/policy.xml";
  WriteFile(file, xml);
  CommandResult r = Tool("fsppadm", {"assign", mnt_, file});
  ASSERT_EQ(r.exit_code, 0) << r.output;
}

std::string TierfsFixture::ClassOf(const std::string& relative) {
  CommandResult r = Tool("fsmap", {"--json", Path(relative)});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json doc = nlohmann::json::parse(r.output, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("files") || doc["files"].empty()) {
    ADD_FAILURE() << "fsmap --json: " << r.output;
    return "";
  }
  return doc["files"][0].value("class", "");
}

bool TierfsFixture::EnforceUntilClass(const std::string& relative, const std::string& cls,
                                      int attempts, int pause_ms) {
  for (int i = 0; i < attempts; ++i) {
    if (i > 0) usleep(static_cast<useconds_t>(pause_ms) * 1000);
    CommandResult enforce = Tool("fsppadm", {"enforce", mnt_});
    EXPECT_EQ(enforce.exit_code, 0) << enforce.output;
    if (enforce.exit_code != 0) return false;
    if (ClassOf(relative) == cls) return true;
  }
  return false;
}

}  // namespace tierfs::testing
