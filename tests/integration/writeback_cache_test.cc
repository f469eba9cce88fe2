// The FUSE writeback cache (--writeback_cache): the kernel keeps written pages,
// size and mtime itself and sends the pages to the daemon in batches. What the
// user sees must stay exact: size and mtime after close and after fsync (also
// across a remount, where they come from the database), O_APPEND from two fds,
// mmap, O_DIRECT, a relocation under a buffered writer, and fsync before kill -9.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "tests/integration/test_policies.h"
#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

class WritebackCacheTest : public TierfsFixture {
 protected:
  // The daemon's data path: the writeback cache, which passthrough turns off.
  std::vector<std::string> FixtureMountArgs() const override { return {"--passthrough=off"}; }

 protected:
  void SetUp() override {
    TierfsFixture::SetUp();
    if (HasFatalFailure()) return;
    MountWithCache();
  }
  void MountWithCache() {
    Unmount();
    Mount({"--writeback_cache"});
  }
};

struct Stat {
  off_t size = -1;
  timespec mtime{};
};

Stat StatOf(const std::string& path) {
  struct stat st;
  Stat s;
  if (stat(path.c_str(), &st) == 0) {
    s.size = st.st_size;
    s.mtime = st.st_mtim;
  }
  return s;
}

bool SameTime(const timespec& a, const timespec& b) {
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

TEST_F(WritebackCacheTest, SizeAndMtimeAreExactAfterCloseAndAfterFsync) {
  const std::string f = Path("f");
  const std::string data = RandomBytes(300000, 1);
  int fd = open(f.c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
  EXPECT_EQ(StatOf(f).size, static_cast<off_t>(data.size()));  // before any writeback
  ASSERT_EQ(close(fd), 0);
  const Stat after_close = StatOf(f);
  EXPECT_EQ(after_close.size, static_cast<off_t>(data.size()));

  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  fd = open(f.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(pwrite(fd, "tail", 4, 400000), 4);
  ASSERT_EQ(fsync(fd), 0);
  const Stat after_fsync = StatOf(f);
  EXPECT_EQ(after_fsync.size, 400004);
  EXPECT_FALSE(SameTime(after_fsync.mtime, after_close.mtime));
  ASSERT_EQ(close(fd), 0);
  EXPECT_TRUE(SameTime(StatOf(f).mtime, after_fsync.mtime));

  // The database agrees with what the kernel showed.
  Remount();
  const Stat again = StatOf(f);
  EXPECT_EQ(again.size, 400004);
  EXPECT_TRUE(SameTime(again.mtime, after_fsync.mtime))
      << again.mtime.tv_sec << "." << again.mtime.tv_nsec << " vs " << after_fsync.mtime.tv_sec
      << "." << after_fsync.mtime.tv_nsec;
  std::string expected = data + std::string(400000 - data.size(), '\0') + "tail";
  EXPECT_TRUE(ReadFile(f) == expected) << "contents differ";
}

TEST_F(WritebackCacheTest, AppendFromTwoDescriptors) {
  const std::string f = Path("log");
  WriteFile(f, "");
  int a = open(f.c_str(), O_WRONLY | O_APPEND);
  int b = open(f.c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  std::string expected;
  for (int i = 0; i < 200; ++i) {
    const std::string line = (i % 2 ? "b" : "a") + std::to_string(i) + "\n";
    ASSERT_EQ(write(i % 2 ? b : a, line.data(), line.size()), static_cast<ssize_t>(line.size()));
    expected += line;
  }
  EXPECT_EQ(StatOf(f).size, static_cast<off_t>(expected.size()));
  close(a);
  close(b);
  EXPECT_EQ(ReadFile(f), expected);
  Remount();
  EXPECT_EQ(ReadFile(f), expected);
}

TEST_F(WritebackCacheTest, MmapWriteReadsBackThroughAnotherFd) {
  const std::string f = Path("m");
  WriteFile(f, std::string(8192, 'x'));
  int fd = open(f.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  void* p = mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ASSERT_NE(p, MAP_FAILED);
  std::memcpy(static_cast<char*>(p) + 100, "mapped", 6);
  int other = open(f.c_str(), O_RDONLY);
  ASSERT_GE(other, 0);
  char buf[6];
  ASSERT_EQ(pread(other, buf, 6, 100), 6);
  EXPECT_EQ(std::string(buf, 6), "mapped");
  ASSERT_EQ(msync(p, 8192, MS_SYNC), 0);
  munmap(p, 8192);
  close(other);
  close(fd);
  std::string expected(8192, 'x');
  expected.replace(100, 6, "mapped");
  Remount();
  EXPECT_EQ(ReadFile(f), expected);
  EXPECT_EQ(StatOf(f).size, 8192);
}

TEST_F(WritebackCacheTest, DirectWriteThenBufferedRead) {
  const std::string f = Path("d");
  WriteFile(f, std::string(16384, 'b'));
  // A buffered read first, so the page cache holds the old bytes.
  EXPECT_EQ(ReadFile(f), std::string(16384, 'b'));
  int fd = open(f.c_str(), O_RDWR | O_DIRECT);
  ASSERT_GE(fd, 0);
  void* buf = nullptr;
  ASSERT_EQ(posix_memalign(&buf, 4096, 4096), 0);
  std::memset(buf, 'D', 4096);
  ASSERT_EQ(pwrite(fd, buf, 4096, 4096), 4096);
  ASSERT_EQ(pwrite(fd, buf, 4096, 16384), 4096);  // extends the file
  free(buf);
  close(fd);
  std::string expected(16384, 'b');
  expected.replace(4096, 4096, std::string(4096, 'D'));
  expected += std::string(4096, 'D');
  EXPECT_EQ(StatOf(f).size, 20480);
  EXPECT_TRUE(ReadFile(f) == expected) << "buffered read after O_DIRECT write differs";
}

TEST_F(WritebackCacheTest, RelocationUnderABufferedWriterLosesNothing) {
  AssignPolicy(kPinHotPolicy);
  constexpr size_t kSize = 4 * 1024 * 1024, kChunk = 65536;
  std::string expected = RandomBytes(kSize, 5);
  WriteFile(Path("data.hot"), expected);
  ASSERT_EQ(ClassOf("data.hot"), "hdd");
  int fd = open(Path("data.hot").c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  std::atomic<bool> stop{false};
  std::atomic<int> io_errors{0};
  std::string written = expected;  // only the writer thread touches it until join
  std::thread writer([&] {
    for (int v = 0; v < 3000 && !stop; ++v) {
      const off_t off = static_cast<off_t>((static_cast<size_t>(v) * 4099 * 17) % (kSize - kChunk));
      std::string chunk(kChunk, static_cast<char>('a' + v % 26));
      if (pwrite(fd, chunk.data(), chunk.size(), off) != static_cast<ssize_t>(chunk.size())) {
        io_errors++;
      }
      written.replace(static_cast<size_t>(off), kChunk, chunk);
      if (v % 50 == 0) fdatasync(fd);  // some batches reach the daemon mid-copy
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  std::string moved;
  for (int attempt = 0; attempt < 30 && moved != "ssd"; ++attempt) {
    CommandResult r = Tool("fsppadm", {"enforce", mnt_});
    ASSERT_NE(r.exit_code, 2) << r.output;
    moved = ClassOf("data.hot");
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  stop = true;
  writer.join();
  ASSERT_EQ(fsync(fd), 0);
  close(fd);
  EXPECT_EQ(moved, "ssd");
  EXPECT_EQ(io_errors.load(), 0);
  EXPECT_TRUE(ReadFile(Path("data.hot")) == written) << "contents differ after the move";
  Remount();  // cold page cache: the bytes come from the moved object
  EXPECT_EQ(ClassOf("data.hot"), "ssd");
  EXPECT_TRUE(ReadFile(Path("data.hot")) == written) << "contents differ after remount";
}

TEST_F(WritebackCacheTest, FsyncedBytesSurviveKill9) {
  const std::string f = Path("durable");
  const std::string data = RandomBytes(1 << 20, 9);
  int fd = open(f.c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
  ASSERT_EQ(fsync(fd), 0);
  const Stat synced = StatOf(f);
  // Closed so the mount is not busy (the kernel's flush at close adds nothing
  // after the fsync); then kill -9 before any periodic flush could run.
  close(fd);
  CrashDaemon();
  Mount({"--writeback_cache"});
  const Stat after = StatOf(f);
  EXPECT_EQ(after.size, static_cast<off_t>(data.size()));
  EXPECT_TRUE(SameTime(after.mtime, synced.mtime));
  EXPECT_TRUE(ReadFile(f) == data) << "fsynced bytes lost";
}

// Where the kernel, not tierfs, answers under the writeback cache (the ext4
// comparisons of these run without it, see posix_compare.h): what is stored, and
// so what every later mount shows, is still ext4's answer or tierfs's documented
// one; sizes never differ.
TEST_F(WritebackCacheTest, TruncateKeepsSizesExactAndStoresTheTimes) {
  const std::string f = Path("t");
  WriteFile(f, "0123456789");
  const Stat before = StatOf(f);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  int fd = open(f.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 10), 0);  // ftruncate stamps times even at the same size
  close(fd);
  const Stat same = StatOf(f);
  EXPECT_EQ(same.size, 10);
  EXPECT_FALSE(SameTime(same.mtime, before.mtime));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(truncate(f.c_str(), 4), 0);
  const Stat shrunk = StatOf(f);
  EXPECT_EQ(shrunk.size, 4);
  EXPECT_FALSE(SameTime(shrunk.mtime, same.mtime));
  ASSERT_EQ(truncate(f.c_str(), 8192), 0);
  EXPECT_EQ(StatOf(f).size, 8192);
  EXPECT_TRUE(ReadFile(f) == "0123" + std::string(8188, '\0'));
  const Stat grown = StatOf(f);
  Remount();
  const Stat again = StatOf(f);
  EXPECT_EQ(again.size, 8192);
  EXPECT_TRUE(SameTime(again.mtime, grown.mtime));
}

TEST_F(WritebackCacheTest, TimesBeyond2262AreStoredSaturated) {
  const std::string f = Path("late");
  WriteFile(f, "x");
  timespec ts[2] = {{static_cast<time_t>(1LL << 40), 5}, {static_cast<time_t>(1LL << 40), 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, f.c_str(), ts, 0), 0);
  struct stat st;
  ASSERT_EQ(stat(f.c_str(), &st), 0);
  // The kernel may show what was set while it caches the inode (FUSE has no
  // range of times); tierfs stores the last time its nanoseconds can hold.
  EXPECT_TRUE(st.st_mtim.tv_sec == 9223372036 || st.st_mtim.tv_sec == (1LL << 40))
      << st.st_mtim.tv_sec;
  EXPECT_EQ(st.st_atim.tv_sec, 9223372036);  // atime always comes from tierfs
  Remount();
  ASSERT_EQ(stat(f.c_str(), &st), 0);
  EXPECT_EQ(st.st_mtim.tv_sec, 9223372036);
  EXPECT_EQ(st.st_mtim.tv_nsec, 854775807);
}

TEST_F(WritebackCacheTest, FailedFallocateChangesNoSize) {
  const std::string f = Path("fa");
  WriteFile(f, "abc");
  int fd = open(f.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(posix_fallocate(fd, 1LL << 50, 4096), EFBIG);
  EXPECT_EQ(posix_fallocate(fd, 0, 10000), 0);
  close(fd);
  EXPECT_EQ(StatOf(f).size, 10000);
  Remount();
  EXPECT_EQ(StatOf(f).size, 10000);
  EXPECT_TRUE(ReadFile(f) == "abc" + std::string(9997, '\0'));
}

// SEEK_DATA/SEEK_HOLE cannot see pages not yet written back: tierfs lets the
// kernel answer from its size (all data up to the end), so no byte is ever
// skipped as a hole; st_blocks is exact once the data is written back.
TEST_F(WritebackCacheTest, SeekDataNeverSkipsUnwrittenBackData) {
  constexpr off_t kGiB = off_t{1} << 30;
  int fd = open(Path("sparse").c_str(), O_CREAT | O_RDWR, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(pwrite(fd, "tail", 4, 5 * kGiB), 4);
  const off_t data = lseek(fd, 0, SEEK_DATA);
  ASSERT_GE(data, 0) << strerror(errno);
  EXPECT_LE(data, 5 * kGiB);
  const off_t hole = lseek(fd, data, SEEK_HOLE);
  EXPECT_GE(hole, 5 * kGiB + 4);
  EXPECT_EQ(lseek(fd, 5 * kGiB + 4, SEEK_DATA), -1);
  EXPECT_EQ(errno, ENXIO);
  ASSERT_EQ(fsync(fd), 0);
  struct stat st;
  ASSERT_EQ(fstat(fd, &st), 0);
  EXPECT_EQ(st.st_size, 5 * kGiB + 4);
  EXPECT_GT(st.st_blocks, 0);
  EXPECT_LE(st.st_blocks, 64);
  char buf[4];
  ASSERT_EQ(pread(fd, buf, 4, 5 * kGiB), 4);
  EXPECT_EQ(std::string(buf, 4), "tail");
  close(fd);
}

TEST_F(WritebackCacheTest, BlocksAreTheObjectsAfterFsync) {
  const int fd = open(Path("g").c_str(), O_CREAT | O_RDWR, 0644);
  ASSERT_GE(fd, 0);
  const std::string data(64 * 1024, 'y');
  ASSERT_EQ(write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
  ASSERT_EQ(fsync(fd), 0);
  struct stat st;
  ASSERT_EQ(fstat(fd, &st), 0);
  std::string object;
  for (const std::string& vol : {ssd_, hdd_}) {
    if (!std::filesystem::exists(vol + "/.tierfs/objects")) continue;
    for (auto& e : std::filesystem::recursive_directory_iterator(vol + "/.tierfs/objects")) {
      if (e.is_regular_file()) object = e.path();
    }
  }
  struct stat ost;
  ASSERT_EQ(stat(object.c_str(), &ost), 0) << object;
  EXPECT_EQ(st.st_blocks, ost.st_blocks);
  EXPECT_GE(st.st_blocks, 128);
  // An overwrite allocates nothing: the fsync leaves the kernel's attributes,
  // which still hold the object's allocation.
  ASSERT_EQ(pwrite(fd, data.data(), 4096, 8192), 4096);
  ASSERT_EQ(fsync(fd), 0);
  ASSERT_EQ(fstat(fd, &st), 0);
  EXPECT_EQ(st.st_blocks, ost.st_blocks);
  // A write that allocates: the next fsync refreshes them again.
  ASSERT_EQ(pwrite(fd, data.data(), data.size(), off_t(data.size())),
            static_cast<ssize_t>(data.size()));
  ASSERT_EQ(fsync(fd), 0);
  ASSERT_EQ(fstat(fd, &st), 0);
  ASSERT_EQ(stat(object.c_str(), &ost), 0) << object;
  EXPECT_EQ(st.st_blocks, ost.st_blocks);
  EXPECT_GE(st.st_blocks, 256);
  close(fd);
  // Closed: the commit of the kernel's times recorded the allocation too.
  Remount();
  EXPECT_EQ(stat(Path("g").c_str(), &st), 0);
  EXPECT_EQ(st.st_blocks, ost.st_blocks);
}

}  // namespace
}  // namespace tierfs::testing
