// MAP_SHARED mappings of tierfs files, on three mounts: the default one (the
// kernel's writeback cache, no-open), one without the writeback cache, and one
// with passthrough opens (where the kernel maps the object on its volume
// itself: Linux's fuse_passthrough_mmap).
//   - fsx's mix with its mapped reads and writes (random_file_ops.h), checked
//     against a model at every read and at the end, with relocations between;
//   - a mapping that outlives its descriptor, written after the file moved;
//   - an msync(MS_SYNC)'ed mapped write past the old end survives kill -9.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "tests/integration/random_file_ops.h"
#include "tests/integration/test_policies.h"
#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

// A descriptor and a mapping released on every way out of a test, so that a
// failure leaves the mount free to unmount.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
  int Release() { return std::exchange(fd, -1); }
};
struct Mapping {
  char* p = nullptr;
  size_t size = 0;
  ~Mapping() {
    if (p != nullptr) munmap(p, size);
  }
  // Maps `size` bytes of `fd` from 0, MAP_SHARED, read and write; false on error.
  bool Map(int fd, size_t bytes) {
    void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) return false;
    p = static_cast<char*>(m);
    size = bytes;
    return true;
  }
  int Unmap() { return munmap(std::exchange(p, nullptr), size); }
};

class MmapFixture : public TierfsFixture, public ::testing::WithParamInterface<const char*> {
 protected:
  // Mounts again as the parameter says (with `extra` options after); skips the
  // passthrough case where the kernel or the privileges leave it off.
  void MountAsParam(const std::vector<std::string>& extra = {}) {
    const std::string mount = GetParam();
    std::vector<std::string> args;
    if (mount == "passthrough") args.push_back("--passthrough=rw");
    if (mount == "no_writeback_cache") args.push_back("--writeback_cache=false");
    args.insert(args.end(), extra.begin(), extra.end());
    Unmount();
    ASSERT_NO_FATAL_FAILURE(Mount(args));
    if (mount == "passthrough" && !passthrough_) {
      GTEST_SKIP() << "passthrough is off here: " << passthrough_off_reason_;
    }
  }
};

// fsx's mix, on every mount.
class MmapTest : public MmapFixture {};
// What a mapping promises beyond its descriptor and through a crash.
class MmapLifetimeTest : public MmapFixture {};

TEST_P(MmapTest, RandomMappedAndPlainIoReadsBackAsWritten) {
  ASSERT_NO_FATAL_FAILURE(MountAsParam());
  if (IsSkipped()) return;
  AssignPolicy(kPinHotPolicy);  // created on hdd, moved to ssd by the first enforce
  const std::string path = Path("f.hot");
  Fd fd_a{open(path.c_str(), O_RDWR | O_CREAT, 0644)}, fd_b{open(path.c_str(), O_RDWR)};
  const int a = fd_a.fd, b = fd_b.fd;
  ASSERT_GE(a, 0) << strerror(errno);
  ASSERT_GE(b, 0) << strerror(errno);
  auto write = [&](int op, unsigned kind, std::mt19937& rng) {
    RandomWrite w;
    w.offset = rng() % (3 << 20);
    w.data = RandomBytes(1 + rng() % 200000, static_cast<uint32_t>(op));
    PwriteAll(kind % 2 ? a : b, w.data.data(), w.data.size(), static_cast<off_t>(w.offset));
    return w;
  };
  std::string model;
  RandomFileOpsCounts counts;
  ASSERT_NO_FATAL_FAILURE(RunRandomFileOps(mnt_, a, b, 400, 71, write,
                                           RandomFileOpsOptions{.mmap = true}, &model, &counts));
  // The seed makes every kind of operation happen; a change of the mix that
  // stops one shows here.
  EXPECT_GT(counts.mapped_reads, 10);
  EXPECT_GT(counts.mapped_writes, 10);
  EXPECT_GT(counts.extends, 0);
  EXPECT_GT(counts.msyncs, 0);
  EXPECT_GT(counts.reads, 0);
  EXPECT_GT(counts.enforces, 0);
  // Open by passthrough, the file is busy for the relocator; else it moved.
  EXPECT_EQ(ClassOf("f.hot"), passthrough_ ? "hdd" : "ssd");
  EXPECT_EQ(close(fd_a.Release()), 0);
  EXPECT_EQ(close(fd_b.Release()), 0);
  EXPECT_EQ(Difference(ReadFile(path), model), "") << "contents differ";
  Remount();
  EXPECT_EQ(Difference(ReadFile(path), model), "") << "contents differ after a remount";
  CommandResult check = Tool("tierfs", {"check", mnt_});
  EXPECT_EQ(check.exit_code, 0) << check.output;
}

// Runs `body` in a child process and returns its wait(2) status: a mapping
// whose object went away kills the child with SIGBUS, not the test.
int InChild(const std::function<void()>& body) {
  const pid_t pid = fork();
  if (pid == 0) {
    body();
    _exit(0);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
  return status;
}

std::string Describe(int status) {
  if (status == -1) return "could not run";
  if (WIFSIGNALED(status)) return std::string("killed by ") + strsignal(WTERMSIG(status));
  return "exit " + std::to_string(WEXITSTATUS(status));
}

// A mapping keeps its file mapped after close(2). When the file moves to
// another volume meanwhile, writes through the mapping are still that file's,
// and never reach another file's bytes (such as a file created after the move
// on the volume the file left).
TEST_P(MmapLifetimeTest, AMappingWrittenAfterItsFileMovedWritesThatFileOnly) {
  ASSERT_NO_FATAL_FAILURE(MountAsParam());
  if (IsSkipped()) return;
  AssignPolicy(kPinHotPolicy);  // *.hot: created on hdd, moved to ssd; the rest on hdd
  const std::string path = Path("m.hot");
  const std::string data = RandomBytes(1 << 20, 11);
  WriteFileSynced(path, data);
  ASSERT_EQ(ClassOf("m.hot"), "hdd");
  Fd fd{open(path.c_str(), O_RDWR)};
  ASSERT_GE(fd.fd, 0) << strerror(errno);
  Mapping mapping;
  ASSERT_TRUE(mapping.Map(fd.fd, data.size())) << strerror(errno);
  char* const map = mapping.p;
  ASSERT_EQ(close(fd.Release()), 0);
  EXPECT_EQ(std::memcmp(map, data.data(), data.size()), 0);
  // The kernel's RELEASE of a passthrough open comes after close(2) returns:
  // enforce until the file moves (bounded, as PassthroughTest does). With
  // passthrough the mapping writes the object itself, so the move must wait
  // for munmap (busy); through the daemon the mapping follows the file.
  const bool passthrough = std::string(GetParam()) == "passthrough";
  const bool moved = EnforceUntilClass("m.hot", "ssd", passthrough ? 10 : 30);
  if (passthrough) {
    EXPECT_FALSE(moved) << "relocated while a mapping kept after close still writes its object";
  }
  // A new file on the volume m.hot left.
  const std::string other = RandomBytes(1 << 20, 15);
  WriteFileSynced(Path("other"), other);
  ASSERT_EQ(ClassOf("other"), "hdd");

  const std::string patch = RandomBytes(3 * 4096, 12);
  const int status = InChild([&] {
    std::memcpy(map + 8192, patch.data(), patch.size());
    if (msync(map, data.size(), MS_SYNC) != 0) _exit(1);
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "the write through the mapping: " << Describe(status);
  EXPECT_EQ(mapping.Unmap(), 0);
  if (passthrough) {
    EXPECT_TRUE(EnforceUntilClass("m.hot", "ssd", 30)) << "still busy after munmap";
  }
  std::string want = data;
  want.replace(8192, patch.size(), patch);
  const std::string moved_note = moved ? " (it moved while mapped)" : " (it did not move)";
  EXPECT_EQ(Difference(ReadFile(path), want), "") << "the mapped write is not in m.hot"
                                                  << moved_note;
  EXPECT_EQ(Difference(ReadFile(Path("other")), other), "")
      << "another file changed under a mapping of m.hot" << moved_note;
  Remount();
  EXPECT_EQ(Difference(ReadFile(path), want), "") << "after a remount";
  EXPECT_EQ(Difference(ReadFile(Path("other")), other), "") << "after a remount";
}

// msync(MS_SYNC) is fdatasync of the mapped range (Linux's msync calls
// vfs_fsync_range with datasync): like ext4, the file keeps the synced bytes
// and the size needed to read them through kill -9 of the daemon. A long
// commit window keeps the ftruncate that made room from reaching the database
// on its own before the kill.
TEST_P(MmapLifetimeTest, MsyncedMappedWritePastTheOldEndSurvivesKill9) {
  ASSERT_NO_FATAL_FAILURE(MountAsParam({"--commit_ms=1000"}));
  if (IsSkipped()) return;
  const std::string path = Path("f");
  const std::string base = RandomBytes(64 << 10, 13), tail = RandomBytes(64 << 10, 14);
  Fd fd{open(path.c_str(), O_RDWR | O_CREAT, 0644)};
  ASSERT_GE(fd.fd, 0) << strerror(errno);
  PwriteAll(fd.fd, base.data(), base.size(), 0);
  ASSERT_EQ(fsync(fd.fd), 0);
  const size_t size = 1 << 20;
  ASSERT_EQ(ftruncate(fd.fd, static_cast<off_t>(size)), 0);
  Mapping mapping;
  ASSERT_TRUE(mapping.Map(fd.fd, size)) << strerror(errno);
  std::memcpy(mapping.p + size - tail.size(), tail.data(), tail.size());
  ASSERT_EQ(msync(mapping.p, size, MS_SYNC), 0) << strerror(errno);
  // The daemon dies with the file open and mapped: nothing more reaches it.
  const pid_t daemon = DaemonPid();
  ASSERT_GT(daemon, 1);
  ASSERT_EQ(kill(daemon, SIGKILL), 0);
  for (int i = 0; i < 400 && kill(daemon, 0) == 0; ++i) usleep(25000);
  mapping.Unmap();
  close(fd.Release());  // on a dead connection
  Unmount();
  // A repair before the next mount keeps the bytes as the mount would: on
  // passthrough the object is longer than the recorded size, and its tail is
  // the msync'ed write, not garbage to trim.
  CommandResult repair = Tool("tierfs", {"check", "--repair", ssd_});
  EXPECT_TRUE(repair.exit_code == 0 || repair.exit_code == 1) << repair.output;
  ASSERT_NO_FATAL_FAILURE(Mount(mount_args_));
  std::string want = base + std::string(size - base.size(), '\0');
  want.replace(size - tail.size(), tail.size(), tail);
  EXPECT_EQ(Difference(ReadFile(path), want), "") << "msync'ed bytes or size lost";
  CommandResult check = Tool("tierfs", {"check", mnt_});
  EXPECT_EQ(check.exit_code, 0) << check.output;
}

INSTANTIATE_TEST_SUITE_P(Mounts, MmapTest,
                         ::testing::Values("default", "no_writeback_cache", "passthrough"));
INSTANTIATE_TEST_SUITE_P(Mounts, MmapLifetimeTest,
                         ::testing::Values("default", "no_writeback_cache", "passthrough"));

}  // namespace
}  // namespace tierfs::testing
