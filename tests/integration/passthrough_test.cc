// `tierfs --passthrough` (fs/fuse/passthrough.h): opens the kernel serves from the
// object itself. Driven through the mount; the daemon's request counts (its
// metrics textfile, written at unmount) show which I/O reached it.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>

#include "tests/integration/random_file_ops.h"
#include "tests/integration/test_policies.h"
#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

class PassthroughTest : public TierfsFixture {
 protected:
  // Each test says which mode it mounts in (MountIn); until it does, and
  // after a plain Mount({}), the daemon serves everything, as a mount
  // without passthrough (the default, auto, would pass through here).
  std::vector<std::string> FixtureMountArgs() const override { return {"--passthrough=off"}; }

  void SetUp() override {
    TierfsFixture::SetUp();
    if (HasFatalFailure()) return;
    textfile_ = root_ + "/tierfs.prom";
  }

  // Mounts again in `mode` with the metrics textfile; skips the test where the
  // kernel or the privileges leave passthrough off (the log says which).
  void MountIn(const std::string& mode) {
    Unmount();
    Mount({"--passthrough=" + mode, "--metrics_textfile", textfile_});
    struct stat st;
    ASSERT_EQ(stat(mnt_.c_str(), &st), 0);  // INIT is answered once this returns
    // The log line comes from the INIT's handler; the log file may trail it.
    const std::string on = "passthrough=" + mode + ": asked for in INIT";
    const std::string off = "passthrough=" + mode + ": off";
    std::string log;
    for (int i = 0; i < 100; ++i) {
      log = Log();
      if (log.find(on) != std::string::npos || log.find(off) != std::string::npos) break;
      usleep(50000);
    }
    if (log.find(off) != std::string::npos) {
      GTEST_SKIP() << "passthrough is off here: " << log.substr(log.rfind(off));
    }
    ASSERT_NE(log.find(on), std::string::npos) << log;
  }

  std::string Log() const {
    std::ifstream in(ssd_ + "/.tierfs/tierfs.log");
    std::stringstream all;
    all << in.rdbuf();
    return all.str();
  }

  // The sample of metric `name` whose labels include `label` (`op="read"`),
  // from the textfile the daemon writes at unmount; 0 when there is none.
  double Metric(const std::string& name, const std::string& label) {
    std::ifstream in(textfile_);
    EXPECT_TRUE(in.good()) << "no metrics textfile at " << textfile_;
    for (std::string line; std::getline(in, line);) {
      const size_t end = line.find("} ");
      if (line.starts_with(name + "{") && end != std::string::npos &&
          line.find(label) < end) {
        return std::strtod(line.c_str() + end + 2, nullptr);
      }
    }
    return 0;
  }
  // FUSE requests of `op` ("read", "write") the daemon answered.
  double Requests(const std::string& op) {
    return Metric("tierfs_fuse_requests_total", "op=\"" + op + "\"");
  }

  static off_t SizeOf(int fd) {
    struct stat st;
    EXPECT_EQ(fstat(fd, &st), 0);
    return st.st_size;
  }

  std::string textfile_;
};

TEST_F(PassthroughTest, ReadsAndWritesOfOpenFilesNeverReachTheDaemon) {
  ASSERT_NO_FATAL_FAILURE(MountIn("rw"));
  if (IsSkipped()) return;
  const std::string data = RandomBytes(3 << 20, 5);
  const int fd = open(Path("f").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0) << strerror(errno);
  PwriteAll(fd, data.data(), data.size(), 0);
  // The size the kernel wrote to the object, seen through the daemon's GETATTR.
  EXPECT_EQ(SizeOf(fd), static_cast<off_t>(data.size()));
  ASSERT_EQ(fsync(fd), 0);
  ASSERT_EQ(close(fd), 0);
  EXPECT_EQ(ReadFile(Path("f")), data);
  Unmount();
  EXPECT_EQ(Requests("write"), 0) << "writes reached the daemon";
  EXPECT_EQ(Requests("read"), 0) << "reads reached the daemon";
  EXPECT_GT(Requests("open"), 0);

  // Off: the same I/O is the daemon's.
  Mount({"--passthrough=off", "--metrics_textfile", textfile_});
  EXPECT_EQ(ReadFile(Path("f")), data) << "not what was written, after a remount";
  Unmount();
  EXPECT_GT(Requests("read"), 0);
  Mount();
}

// A lease broken while the daemon probes an object (VolumeIo::HasWriters:
// an open for writing in that microsecond, the daemon's own included) makes
// the kernel send the daemon SIGIO, which must not end it: it went down under
// PostgreSQL's initdb once the probe ran at a passthrough writer's last close.
TEST_F(PassthroughTest, SigioFromABrokenLeaseLeavesTheDaemonServing) {
  WriteFile(Path("f"), "bytes");
  const pid_t pid = DaemonPid();
  ASSERT_GT(pid, 0);
  ASSERT_EQ(kill(pid, SIGIO), 0);  // the daemon this fixture started
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(kill(pid, 0), 0) << "the daemon ended on SIGIO";
  EXPECT_EQ(ReadFile(Path("f")), "bytes");
}

TEST_F(PassthroughTest, SizeAndTimesFollowWritesTheDaemonDidNotSee) {
  ASSERT_NO_FATAL_FAILURE(MountIn("rw"));
  if (IsSkipped()) return;
  const int fd = open(Path("f").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  struct stat before;
  ASSERT_EQ(stat(Path("f").c_str(), &before), 0);
  usleep(20000);
  const std::string a = RandomBytes(10000, 1), b = RandomBytes(5000, 2);
  PwriteAll(fd, a.data(), a.size(), 0);
  struct stat after;
  ASSERT_EQ(stat(Path("f").c_str(), &after), 0);
  EXPECT_EQ(after.st_size, 10000);
  EXPECT_GT(after.st_mtim.tv_sec * 1000000000LL + after.st_mtim.tv_nsec,
            before.st_mtim.tv_sec * 1000000000LL + before.st_mtim.tv_nsec);
  PwriteAll(fd, b.data(), b.size(), 20000);  // past the end: a hole between
  EXPECT_EQ(SizeOf(fd), 25000);
  ASSERT_EQ(close(fd), 0);
  // Written back at the last close: the size survives a remount.
  Remount();
  std::string want = a + std::string(10000, '\0') + b;
  EXPECT_EQ(Difference(ReadFile(Path("f")), want), "");
  CommandResult check = Tool("tierfs", {"check", mnt_});
  EXPECT_EQ(check.exit_code, 0) << check.output;
}

TEST_F(PassthroughTest, WritesAcknowledgedByFsyncSurviveKill9) {
  ASSERT_NO_FATAL_FAILURE(MountIn("rw"));
  if (IsSkipped()) return;
  const std::string first = RandomBytes(200000, 3), second = RandomBytes(70001, 4);
  const int fd = open(Path("f").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  PwriteAll(fd, first.data(), first.size(), 0);
  ASSERT_EQ(fsync(fd), 0);
  PwriteAll(fd, second.data(), second.size(), static_cast<off_t>(first.size()));
  ASSERT_EQ(fdatasync(fd), 0);
  // The daemon dies with the file still open: nothing is written back at close.
  const pid_t daemon = DaemonPid();
  ASSERT_GT(daemon, 1);
  ASSERT_EQ(kill(daemon, SIGKILL), 0);
  for (int i = 0; i < 400 && kill(daemon, 0) == 0; ++i) usleep(25000);
  close(fd);  // on a dead connection: no RELEASE reaches anyone
  Unmount();
  Mount(mount_args_);
  EXPECT_EQ(Difference(ReadFile(Path("f")), first + second), "");
  CommandResult check = Tool("tierfs", {"check", mnt_});
  EXPECT_EQ(check.exit_code, 0) << check.output;
}

TEST_F(PassthroughTest, AFileOpenByPassthroughIsBusyAndMovesAfterItsLastClose) {
  ASSERT_NO_FATAL_FAILURE(MountIn("rw"));
  if (IsSkipped()) return;
  AssignPolicy(MoveEverythingPolicy("hdd", "ssd"));
  const std::string data = RandomBytes(1 << 20, 6);
  WriteFileSynced(Path("f"), data);
  ASSERT_EQ(ClassOf("f"), "hdd");
  const int reader = open(Path("f").c_str(), O_RDONLY);
  ASSERT_GE(reader, 0);
  CommandResult enforce = Tool("fsppadm", {"enforce", mnt_});
  EXPECT_EQ(enforce.exit_code, 0) << enforce.output;
  EXPECT_NE(enforce.output.find("busy"), std::string::npos) << enforce.output;
  EXPECT_EQ(ClassOf("f"), "hdd") << "moved while the kernel held its object";
  std::string read_back(data.size(), '\0');
  ASSERT_EQ(pread(reader, read_back.data(), read_back.size(), 0),
            static_cast<ssize_t>(data.size()));
  EXPECT_TRUE(read_back == data);
  ASSERT_EQ(close(reader), 0);
  // The RELEASE comes after close(2) returns: the next enforce moves it, whole.
  EXPECT_TRUE(EnforceUntilClass("f", "ssd", 50));
  EXPECT_EQ(ReadFile(Path("f")), data);
}

// The relocator asks the object whether a mapping kept after close still
// writes it (a read lease). A volume that cannot answer keeps its files where
// they are on a passthrough mount, and says why once; a mount without
// passthrough never asks.
TEST_F(PassthroughTest, AVolumeThatTakesNoLeaseKeepsItsFilesInPlace) {
  setenv("TIERFS_FAULTS", "lease@1+=EINVAL", 1);
  MountIn("rw");
  unsetenv("TIERFS_FAULTS");
  if (HasFatalFailure() || IsSkipped()) return;
  AssignPolicy(MoveEverythingPolicy("hdd", "ssd"));
  const std::string data = RandomBytes(256 << 10, 16);
  WriteFileSynced(Path("f"), data);
  ASSERT_EQ(ClassOf("f"), "hdd");
  std::string output;
  for (int i = 0; i < 10; ++i) {  // the RELEASE of the write's open may trail
    CommandResult enforce = Tool("fsppadm", {"enforce", mnt_});
    ASSERT_EQ(enforce.exit_code, 0) << enforce.output;
    output = enforce.output;
    usleep(50000);
  }
  EXPECT_NE(output.find("busy"), std::string::npos) << output;
  EXPECT_EQ(ClassOf("f"), "hdd") << "moved though no one could tell whether a mapping writes it";
  EXPECT_NE(Log().find("no read lease"), std::string::npos) << Log();
  EXPECT_EQ(ReadFile(Path("f")), data);

  setenv("TIERFS_FAULTS", "lease@1+=EINVAL", 1);
  Unmount();
  Mount({"--passthrough=off"});
  unsetenv("TIERFS_FAULTS");
  CommandResult enforce = Tool("fsppadm", {"enforce", mnt_});
  ASSERT_EQ(enforce.exit_code, 0) << enforce.output;
  EXPECT_EQ(ClassOf("f"), "ssd") << "a mount without passthrough asked for a lease: "
                                 << enforce.output;
  EXPECT_EQ(ReadFile(Path("f")), data);
}

// A registration the kernel refuses (any error but ELOOP) turns passthrough off
// for new files; a file that still has passthrough opens must go on getting
// passthrough for its next opens with the backing id they share, since the
// kernel fails any other open of it (EIO).
TEST_F(PassthroughTest, AFileOpenByPassthroughStillOpensAfterPassthroughTurnsOff) {
  const std::string data = RandomBytes(100000, 21), other = RandomBytes(5000, 22);
  WriteFileSynced(Path("a"), data);
  WriteFileSynced(Path("b"), other);
  setenv("TIERFS_FAULTS", "backing@2=EIO", 1);  // the second registration: b's
  MountIn("rw");
  unsetenv("TIERFS_FAULTS");
  if (HasFatalFailure() || IsSkipped()) return;
  const int a = open(Path("a").c_str(), O_RDONLY);
  ASSERT_GE(a, 0) << strerror(errno);
  const int b = open(Path("b").c_str(), O_RDONLY);
  ASSERT_GE(b, 0) << strerror(errno);
  EXPECT_NE(Log().find("passthrough: off for this mount"), std::string::npos) << Log();
  passthrough_ = false;  // as the fault made it: Unmount() need not say so
  // a still has its passthrough open: a reader and a writer open it as well.
  const int a2 = open(Path("a").c_str(), O_RDONLY);
  EXPECT_GE(a2, 0) << "a second open of a file open by passthrough: " << strerror(errno);
  const int a3 = open(Path("a").c_str(), O_RDWR);
  EXPECT_GE(a3, 0) << "a writer of a file open by passthrough: " << strerror(errno);
  const std::string patch = RandomBytes(4096, 23);
  if (a3 >= 0) PwriteAll(a3, patch.data(), patch.size(), 4096);
  std::string read_back(patch.size(), '\0');
  if (a2 >= 0) {
    ASSERT_EQ(pread(a2, read_back.data(), read_back.size(), 4096),
              static_cast<ssize_t>(patch.size()));
    EXPECT_TRUE(read_back == patch);
  }
  EXPECT_EQ(ReadFile(Path("b")), other);
  for (int fd : {a, b, a2, a3}) {
    if (fd >= 0) close(fd);
  }
  // Every passthrough open closed: a is the daemon's again, like every file.
  std::string want = data;
  want.replace(4096, patch.size(), patch);
  EXPECT_EQ(Difference(ReadFile(Path("a")), want), "");
  Remount();
  EXPECT_EQ(Difference(ReadFile(Path("a")), want), "");
}

// The RELEASE of a file's last passthrough open ends the handle and closes the
// inode's backing id. A relocation that commits between the two steps must not
// let the next open be given the old object through the id not yet closed. With
// `ro` a writer opened meanwhile is the daemon's, whose descriptor spares the
// relocation its lease probe: it commits, and the next reader would read the
// old object, without what the writer wrote.
TEST_F(PassthroughTest, AnOpenRightAfterTheLastPassthroughReleaseGetsTheFilesObject) {
  AssignPolicy(MoveEverythingPolicy("hdd", "ssd"));
  const std::string data = RandomBytes(200000, 24);
  WriteFileSynced(Path("f"), data);
  ASSERT_EQ(ClassOf("f"), "hdd");
  const std::string hold_dir = root_ + "/hold", marker = hold_dir + "/point.held";
  std::filesystem::create_directories(hold_dir);
  setenv("TIERFS_FAULTS", "point:passthrough-release@1=hold", 1);
  setenv("TIERFS_FAULTS_HOLD_DIR", hold_dir.c_str(), 1);
  MountIn("ro");
  unsetenv("TIERFS_FAULTS");
  unsetenv("TIERFS_FAULTS_HOLD_DIR");
  if (HasFatalFailure() || IsSkipped()) return;
  struct Unhold {
    std::string marker;
    ~Unhold() { std::filesystem::remove(marker); }
  } unhold{marker};
  const int reader = open(Path("f").c_str(), O_RDONLY);
  ASSERT_GE(reader, 0) << strerror(errno);
  ASSERT_EQ(close(reader), 0);
  // Its RELEASE is held between its two steps.
  bool held = false;
  for (int i = 0; i < 3000 && !(held = std::filesystem::exists(marker)); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(held) << "the RELEASE never reached passthrough-release";
  const int writer = open(Path("f").c_str(), O_RDWR);
  ASSERT_GE(writer, 0) << strerror(errno);
  // Moves the file, or finds it busy: either way readers must see the writes.
  CommandResult enforce = Tool("fsppadm", {"enforce", mnt_});
  EXPECT_EQ(enforce.exit_code, 0) << enforce.output;
  const std::string patch = RandomBytes(8192, 25);
  PwriteAll(writer, patch.data(), patch.size(), 4096);
  ASSERT_EQ(close(writer), 0);
  usleep(200000);  // its RELEASE trails close(2)
  const int reader2 = open(Path("f").c_str(), O_RDONLY);
  ASSERT_GE(reader2, 0) << strerror(errno);
  std::string read_back(patch.size(), '\0');
  ASSERT_EQ(pread(reader2, read_back.data(), read_back.size(), 4096),
            static_cast<ssize_t>(patch.size()));
  EXPECT_TRUE(read_back == patch) << "the reader read an object the file no longer has; "
                                  << enforce.output;
  std::filesystem::remove(marker);
  ASSERT_EQ(close(reader2), 0);
  std::string want = data;
  want.replace(4096, patch.size(), patch);
  EXPECT_EQ(Difference(ReadFile(Path("f")), want), "");
  Remount();
  EXPECT_EQ(Difference(ReadFile(Path("f")), want), "");
  EXPECT_TRUE(EnforceUntilClass("f", "ssd", 50));
  EXPECT_EQ(Difference(ReadFile(Path("f")), want), "");
}

// A kernel that does not offer passthrough at INIT (Linux 6.2 to 6.8; here a
// test seam, TIERFS_TEST_NO_PASSTHROUGH_OFFER, on a kernel that does): the mount
// never passes through, so it is one without passthrough in every way. No
// kernel counter is attached for its heat, and crash recovery after it trims
// objects to their files' sizes as after any such mount.
TEST_F(PassthroughTest, AMountWhoseInitDeclinesPassthroughIsOneWithoutIt) {
  Unmount();
  const size_t log_before = Log().size();
  setenv("TIERFS_TEST_NO_PASSTHROUGH_OFFER", "1", 1);
  Mount({"--passthrough=rw"});
  unsetenv("TIERFS_TEST_NO_PASSTHROUGH_OFFER");
  ASSERT_FALSE(passthrough_) << "the daemon asked for passthrough though INIT did not offer it";
  const std::string data = RandomBytes(70000, 26);
  WriteFileSynced(Path("f"), data);
  std::string log = Log().substr(log_before);
  EXPECT_NE(log.find("passthrough=rw: off, the kernel does not offer"), std::string::npos) << log;
  EXPECT_EQ(log.find("counted for heat by BPF"), std::string::npos)
      << "a kernel counter was attached for a mount that never passes through:\n" << log;
  CrashDaemon();
  const size_t log_at_recovery = Log().size();
  Mount();
  log = Log().substr(log_at_recovery);
  EXPECT_NE(log.find("the last mount did not end cleanly: checked"), std::string::npos) << log;
  EXPECT_EQ(log.find("(passthrough opens)"), std::string::npos)
      << "recovered as a mount the kernel may have written:\n" << log;
  EXPECT_EQ(Difference(ReadFile(Path("f")), data), "");
}

// With `ro`, a writer that joined readers' passthrough maps the object itself;
// its shared writable mapping outlives the close of every passthrough open. A
// daemon-served open for writing made afterwards (the daemon's own descriptor
// hides the mapping from a lease) must not let a relocation commit under it.
TEST_F(PassthroughTest, AWritableMappingKeepsItsFileBusyBesideADaemonServedWriter) {
  ASSERT_NO_FATAL_FAILURE(MountIn("ro"));
  if (IsSkipped()) return;
  AssignPolicy(MoveEverythingPolicy("hdd", "ssd"));
  const std::string data = RandomBytes(1 << 20, 27);
  WriteFileSynced(Path("f"), data);
  ASSERT_EQ(ClassOf("f"), "hdd");
  const int reader = open(Path("f").c_str(), O_RDONLY);
  ASSERT_GE(reader, 0) << strerror(errno);
  const int writer = open(Path("f").c_str(), O_RDWR);  // joins the reader's passthrough
  ASSERT_GE(writer, 0) << strerror(errno);
  void* map = mmap(nullptr, data.size(), PROT_READ | PROT_WRITE, MAP_SHARED, writer, 0);
  ASSERT_NE(map, MAP_FAILED) << strerror(errno);
  ASSERT_EQ(close(writer), 0);
  ASSERT_EQ(close(reader), 0);
  usleep(200000);  // their RELEASEs trail close(2)
  const int served = open(Path("f").c_str(), O_RDWR);  // no passthrough opens: the daemon's
  ASSERT_GE(served, 0) << strerror(errno);
  CommandResult enforce = Tool("fsppadm", {"enforce", mnt_});
  EXPECT_EQ(enforce.exit_code, 0) << enforce.output;
  const std::string patch = RandomBytes(8192, 28);
  std::memcpy(static_cast<char*>(map) + 12288, patch.data(), patch.size());
  ASSERT_EQ(msync(map, data.size(), MS_SYNC), 0) << strerror(errno);
  ASSERT_EQ(munmap(map, data.size()), 0);
  ASSERT_EQ(close(served), 0);
  std::string want = data;
  want.replace(12288, patch.size(), patch);
  EXPECT_EQ(Difference(ReadFile(Path("f")), want), "")
      << "the mapping wrote an object the file no longer has; " << enforce.output;
  EXPECT_TRUE(EnforceUntilClass("f", "ssd", 50));
  EXPECT_EQ(Difference(ReadFile(Path("f")), want), "");
}

TEST_F(PassthroughTest, ReadOnlyModeKeepsWritersOnTheDaemon) {
  ASSERT_NO_FATAL_FAILURE(MountIn("ro"));
  if (IsSkipped()) return;
  const std::string data = RandomBytes(100000, 7);
  WriteFileSynced(Path("f"), data);
  // A reader first (passthrough), then a writer, which must join it: its writes
  // still reach the daemon (direct I/O), and the reader sees them at once.
  const int reader = open(Path("f").c_str(), O_RDONLY);
  ASSERT_GE(reader, 0);
  const int writer = open(Path("f").c_str(), O_RDWR);
  ASSERT_GE(writer, 0) << strerror(errno);
  const std::string patch = RandomBytes(4096, 8);
  PwriteAll(writer, patch.data(), patch.size(), 8192);
  std::string read_back(patch.size(), '\0');
  ASSERT_EQ(pread(reader, read_back.data(), read_back.size(), 8192),
            static_cast<ssize_t>(patch.size()));
  EXPECT_TRUE(read_back == patch);
  close(writer);
  close(reader);
  Unmount();
  EXPECT_GT(Requests("write"), 0) << "the writer's writes did not reach the daemon";
  Mount();
  std::string want = data;
  want.replace(8192, patch.size(), patch);
  EXPECT_EQ(Difference(ReadFile(Path("f")), want), "");
}

// The daemon's own I/O is counted once, by the daemon: the page-cache counter
// ignores the daemon's process. With `ro`, a writer beside a passthrough
// reader writes through the daemon into an object the counter watches (the
// reader's backing file); the kernel must count none of those bytes.
TEST_F(PassthroughTest, TheDaemonsWritesToAWatchedObjectAreCountedOnlyByTheDaemon) {
  ASSERT_NO_FATAL_FAILURE(MountIn("ro"));
  if (IsSkipped()) return;
  WriteFileSynced(Path("f"), RandomBytes(4096, 30));
  const int reader = open(Path("f").c_str(), O_RDONLY);  // passthrough: watched
  ASSERT_GE(reader, 0);
  const int writer = open(Path("f").c_str(), O_RDWR);  // joins it, served by the daemon
  ASSERT_GE(writer, 0) << strerror(errno);
  const std::string data = RandomBytes(1 << 20, 31);
  PwriteAll(writer, data.data(), data.size(), 0);
  EXPECT_EQ(fsync(writer), 0);
  close(writer);
  close(reader);
  usleep(1200000);  // past a drain of the counter
  Unmount();
  EXPECT_GE(Requests("write"), 1) << "the writes did not reach the daemon: nothing was proven";
  EXPECT_GE(Metric("tierfs_class_written_bytes_total", "class=\"hdd\"") +
                Metric("tierfs_class_written_bytes_total", "class=\"ssd\""),
            static_cast<double>(data.size()));
  EXPECT_EQ(Metric("tierfs_heat_kernel_counted_bytes_total", "direction=\"write\""), 0)
      << "the kernel counted the daemon's writes again";
  Mount();
}

// Heat stays honest: reads the kernel serves by passthrough never reach the
// daemon, yet they count (fs/daemon/passthrough_heat.h) and move the file.
TEST_F(PassthroughTest, PassthroughReadsHeatTheFileAndEnforceMovesIt) {
  ASSERT_NO_FATAL_FAILURE(MountIn("rw"));
  if (IsSkipped()) return;
  AssignPolicy(PeriodPolicy("read_heat", "1"));  // moves a file once it has been read
  const std::string data = RandomBytes(256 << 10, 9);
  WriteFileSynced(Path("read"), data);
  WriteFileSynced(Path("unread"), data);
  ASSERT_EQ(ClassOf("read"), "hdd");
  // Heat counts the bytes that reach a volume: with the page-cache counter a
  // read of the pages the write left cached would earn none.
  DropPageCacheUnder(hdd_);
  EXPECT_EQ(ReadFile(Path("read")), data);
  // The scan says how its heat was obtained: counted, the kernel counting these.
  CommandResult query = Tool("fsppadm", {"query", mnt_});
  ASSERT_EQ(query.exit_code, 0) << query.output;
  EXPECT_NE(query.output.find("Heat           : counted (by the daemon; passthrough I/O by "
                              "the kernel, "),
            std::string::npos)
      << query.output;
  // Within the counter's drain period (a second) the reads reach the counters.
  usleep(200000);
  EXPECT_TRUE(EnforceUntilClass("read", "ssd", 30, 200)) << "passthrough reads earned no heat";
  EXPECT_EQ(ClassOf("unread"), "hdd");
  Unmount();
  EXPECT_EQ(Requests("read"), 0) << "the reads reached the daemon: nothing was proven";
  // The metrics count those reads too: as the kernel's, and in the classes'
  // shares of the I/O (hdd's, unless a late drain found the file moved).
  EXPECT_GE(Metric("tierfs_heat_kernel_counted_bytes_total", "direction=\"read\""),
            static_cast<double>(data.size()));
  EXPECT_GE(Metric("tierfs_class_read_bytes_total", "class=\"hdd\"") +
                Metric("tierfs_class_read_bytes_total", "class=\"ssd\""),
            static_cast<double>(data.size()));
  EXPECT_EQ(Metric("tierfs_heat_uncounted_calls_total", ""), 0);
  Mount();
}

TEST_F(PassthroughTest, RandomWritesTruncatesAndEnforcesReadBackAsWritten) {
  ASSERT_NO_FATAL_FAILURE(MountIn("rw"));
  if (IsSkipped()) return;
  AssignPolicy(kPinHotPolicy);
  const std::string path = Path("f.hot");
  int a = open(path.c_str(), O_RDWR | O_CREAT, 0644);
  int b = open(path.c_str(), O_RDWR);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  auto write = [&](int op, unsigned kind, std::mt19937& rng) {
    RandomWrite w;
    w.offset = rng() % (3 << 20);
    w.data = RandomBytes(1 + rng() % 200000, static_cast<uint32_t>(op));
    PwriteAll(kind % 2 ? a : b, w.data.data(), w.data.size(), static_cast<off_t>(w.offset));
    return w;
  };
  std::string model;
  int enforces = 0;
  ASSERT_NO_FATAL_FAILURE(RunRandomFileOps(mnt_, a, b, 200, 57, write, &model, &enforces));
  close(a);
  close(b);
  EXPECT_TRUE(ReadFile(path) == model) << "contents differ";
  Remount();
  EXPECT_TRUE(ReadFile(path) == model) << "contents differ after a remount";
}

// A full volume under a file open by passthrough (docs/reliability.md, "What a
// full volume does"). With `ro` a writer's writes reach the daemon, but one
// that opens the file beside readers' passthrough opens joins them (the
// kernel's rule), and the kernel holds the object for those readers: a move
// would leave them reading the old object, blind to every later write. The
// file stays, and the write gets ENOSPC, as with `rw`; what was written before
// it is the file's. Once they are closed a writer's write moves the file on.
class PassthroughFullVolumeTest : public PassthroughTest {
 protected:
  void PrepareVolumes() override { MountScratch(hdd_, "64m"); }
};

TEST_F(PassthroughFullVolumeTest, AWriterBesideReadersGetsEnospcAndMovesOnAfterThem) {
  ASSERT_NO_FATAL_FAILURE(MountIn("ro"));
  if (IsSkipped()) return;
  AssignPolicy(kHddThenSsdPolicy);
  std::string model = RandomBytes(1 << 20, 29);
  WriteFileSynced(Path("f"), model);
  ASSERT_EQ(ClassOf("f"), "hdd");
  const int reader = open(Path("f").c_str(), O_RDONLY);
  ASSERT_GE(reader, 0) << strerror(errno);
  const int writer = open(Path("f").c_str(), O_RDWR);
  ASSERT_GE(writer, 0) << strerror(errno);
  const std::string chunk = RandomBytes(1 << 20, 30);
  int err = 0;
  for (int i = 0; i < 100 && err == 0; ++i) {
    const ssize_t n = pwrite(writer, chunk.data(), chunk.size(), static_cast<off_t>(model.size()));
    if (n < 0) {
      err = errno;
    } else {
      model.append(chunk, 0, static_cast<size_t>(n));
    }
  }
  EXPECT_EQ(err, ENOSPC) << strerror(err) << " after " << model.size() << " bytes";
  EXPECT_EQ(ClassOf("f"), "hdd");
  std::string read_back(model.size(), '\0');
  ASSERT_EQ(pread(reader, read_back.data(), read_back.size(), 0),
            static_cast<ssize_t>(model.size()));
  EXPECT_EQ(Difference(read_back, model), "") << "the reader misses what was written";
  ASSERT_EQ(close(writer), 0);
  ASSERT_EQ(close(reader), 0);
  EXPECT_EQ(Difference(ReadFile(Path("f")), model), "");
  // No passthrough open now: a writer's open is the daemon's, and its write
  // moves the file on (the lease at the last close found no mapping writing it).
  usleep(200000);  // the RELEASEs trail close(2)
  const int writer2 = open(Path("f").c_str(), O_RDWR);
  ASSERT_GE(writer2, 0) << strerror(errno);
  const ssize_t n = pwrite(writer2, chunk.data(), chunk.size(), static_cast<off_t>(model.size()));
  EXPECT_EQ(n, static_cast<ssize_t>(chunk.size())) << strerror(errno);
  if (n > 0) model.append(chunk, 0, static_cast<size_t>(n));
  EXPECT_EQ(fsync(writer2), 0) << strerror(errno);
  ASSERT_EQ(close(writer2), 0);
  EXPECT_EQ(ClassOf("f"), "ssd") << "the write did not move on";
  EXPECT_EQ(Difference(ReadFile(Path("f")), model), "");
}

}  // namespace
}  // namespace tierfs::testing
