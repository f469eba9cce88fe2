// The page-cache hook (PassthroughIoHook::kPageCache) against the running
// kernel: bytes counted against bytes that reached the volume. A cold read
// (the file's cache dropped with POSIX_FADV_DONTNEED) counts the file; a warm
// re-read counts nothing; a write counts what it dirtied, not a read; the
// counting process itself (the daemon, in tierfs) is never counted; a file the
// counter was not told about is not counted. The hook keys on the backing
// file, so a plain file stands in for one and no FUSE mount is needed; the
// I/O runs in a child process, since the test process plays the daemon.
// Skipped, saying why, when not root, without kernel BTF, in a build without
// BPF, or on a kernel that refuses the tracepoints.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/unique_fd.h"
#include "fs/bpf/passthrough_io_counter.h"

namespace tierfs {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kNodeid = 42;
constexpr size_t kMiB = 1 << 20;

class PageCacheCounterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (BPF tracing programs)";
    if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) GTEST_SKIP() << "the kernel has no BTF";
    // The counter's mount device is irrelevant to this hook: 0 matches nothing.
    auto counter = PassthroughIoCounter::Start(0, {.hook = PassthroughIoHook::kPageCache});
    if (!counter.ok()) {
      if (counter.status().code() == ENOSYS || counter.status().code() == EPERM ||
          counter.status().code() == ENOENT) {
        GTEST_SKIP() << "no page-cache hook here: " << counter.status().ToString();
      }
      FAIL() << counter.status().ToString();
    }
    counter_ = std::move(*counter);
    char tmpl[] = "/var/tmp/tierfs-pagecache-test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    file_ = dir_ + "/object";
  }
  void TearDown() override {
    counter_.reset();
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Writes `bytes` to `path` from this process (not counted), makes them
  // durable and drops them from the page cache.
  static void MakeColdFile(const std::string& path, size_t bytes) {
    UniqueFd fd(open(path.c_str(), O_CREAT | O_RDWR | O_TRUNC | O_CLOEXEC, 0644));
    ASSERT_GE(fd.get(), 0) << strerror(errno);
    std::vector<char> block(kMiB, 'c');
    for (size_t done = 0; done < bytes; done += block.size()) {
      ASSERT_EQ(write(fd.get(), block.data(), block.size()), static_cast<ssize_t>(block.size()));
    }
    ASSERT_EQ(fsync(fd.get()), 0);
    ASSERT_EQ(posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED), 0);
  }

  // Tells the counter that `path` backs kNodeid.
  void Watch(const std::string& path) {
    struct stat st {};
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    ASSERT_TRUE(counter_->WatchBackingFile(st.st_dev, st.st_ino, kNodeid).ok());
  }

  // Runs `io` in a child process (another tgid than the counter's) and waits
  // for it; the child's exit status 0 means its I/O did what it said.
  static void InChild(const std::function<bool()>& io) {
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) _exit(io() ? 0 : 1);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child's I/O failed";
  }

  static bool ReadAll(const std::string& path, size_t expect) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    std::vector<char> buf(128 * 1024);
    size_t total = 0;
    ssize_t n;
    while ((n = read(fd, buf.data(), buf.size())) > 0) total += n;
    close(fd);
    return n == 0 && total == expect;
  }

  // The counts for kNodeid since the last drain (zeros when none).
  PassthroughIoCount Drained() {
    PassthroughIoCount sum;
    for (const PassthroughIoCount& c : counter_->Drain()) {
      EXPECT_EQ(c.nodeid, kNodeid);
      sum.read_bytes += c.read_bytes;
      sum.read_ops += c.read_ops;
      sum.write_bytes += c.write_bytes;
      sum.write_ops += c.write_ops;
    }
    return sum;
  }

  std::unique_ptr<PassthroughIoCounter> counter_;
  std::string dir_, file_;
};

TEST_F(PageCacheCounterTest, ColdReadCountsTheFileAndAWarmReReadNothing) {
  constexpr size_t kBytes = 8 * kMiB;
  MakeColdFile(file_, kBytes);
  Watch(file_);
  InChild([&] { return ReadAll(file_, kBytes); });
  PassthroughIoCount cold = Drained();
  std::cout << "[          ] cold read of 8 MiB: " << cold.read_bytes << " bytes in "
            << cold.read_ops << " folios, " << cold.write_bytes << " written\n";
  EXPECT_EQ(cold.read_bytes, kBytes);  // every page came from the volume, once
  EXPECT_GT(cold.read_ops, 0u);
  EXPECT_EQ(cold.write_bytes, 0u);

  InChild([&] { return ReadAll(file_, kBytes); });
  PassthroughIoCount warm = Drained();
  EXPECT_EQ(warm.read_bytes, 0u) << "a page-cache hit was counted";
  EXPECT_EQ(warm.write_bytes, 0u);
}

TEST_F(PageCacheCounterTest, AWriteCountsWhatItDirtiedAndNoRead) {
  constexpr size_t kBytes = 4 * kMiB;
  UniqueFd create(open(file_.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644));
  ASSERT_GE(create.get(), 0);
  Watch(file_);
  InChild([&] {
    int fd = open(file_.c_str(), O_WRONLY | O_CLOEXEC);
    std::vector<char> block(64 * 1024, 'w');
    bool ok = fd >= 0;
    for (size_t done = 0; ok && done < kBytes; done += block.size()) {
      ok = write(fd, block.data(), block.size()) == static_cast<ssize_t>(block.size());
    }
    // Rewriting bytes still dirty dirties nothing new.
    ok = ok && pwrite(fd, block.data(), block.size(), 0) == static_cast<ssize_t>(block.size());
    if (fd >= 0) close(fd);
    return ok;
  });
  PassthroughIoCount written = Drained();
  std::cout << "[          ] write of 4 MiB (+64 KiB rewritten): " << written.write_bytes
            << " bytes in " << written.write_ops << " folios, " << written.read_bytes
            << " read\n";
  EXPECT_EQ(written.write_bytes, kBytes);
  EXPECT_EQ(written.read_bytes, 0u) << "a write's new pages were counted as a read";
}

TEST_F(PageCacheCounterTest, StoresThroughASharedMappingCountAsWrites) {
  constexpr size_t kBytes = 1 * kMiB;
  MakeColdFile(file_, kBytes);
  Watch(file_);
  InChild([&] {
    int fd = open(file_.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return false;
    void* map = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return false;
    // One store per page: each page faults in (a read from the volume) and
    // is dirtied (a write that reaches it at writeback).
    for (size_t off = 0; off < kBytes; off += 4096) static_cast<char*>(map)[off] = 'm';
    return munmap(map, kBytes) == 0;
  });
  PassthroughIoCount mapped = Drained();
  std::cout << "[          ] stores into each page of a 1 MiB shared mapping: "
            << mapped.write_bytes << " bytes dirtied, " << mapped.read_bytes << " read\n";
  EXPECT_EQ(mapped.write_bytes, kBytes);
  EXPECT_EQ(mapped.read_bytes, kBytes);
}

TEST_F(PageCacheCounterTest, TheCountingProcessAndUnwatchedFilesAreNotCounted) {
  constexpr size_t kBytes = 2 * kMiB;
  MakeColdFile(file_, kBytes);
  const std::string other = dir_ + "/other";
  MakeColdFile(other, kBytes);
  Watch(file_);
  ASSERT_TRUE(ReadAll(file_, kBytes));                       // the "daemon" itself
  InChild([&] { return ReadAll(other, kBytes); });           // a file not watched
  PassthroughIoCount none = Drained();
  EXPECT_EQ(none.read_bytes, 0u);
  EXPECT_EQ(none.write_bytes, 0u);

  // Forgotten: its next cold read is not counted either.
  struct stat st {};
  ASSERT_EQ(stat(file_.c_str(), &st), 0);
  counter_->ForgetBackingFile(st.st_dev, st.st_ino);
  UniqueFd fd(open(file_.c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_EQ(posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED), 0);
  InChild([&] { return ReadAll(file_, kBytes); });
  EXPECT_EQ(Drained().read_bytes, 0u);
}

// What the hook cannot see, measured: O_DIRECT bypasses the page cache.
TEST_F(PageCacheCounterTest, DirectIoIsNotCounted) {
  constexpr size_t kBytes = 1 * kMiB;
  MakeColdFile(file_, kBytes);
  Watch(file_);
  InChild([&] {
    int fd = open(file_.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
    if (fd < 0) return false;
    void* buf = nullptr;
    if (posix_memalign(&buf, 4096, kBytes) != 0) return false;
    bool ok = pread(fd, buf, kBytes, 0) == static_cast<ssize_t>(kBytes) &&
              pwrite(fd, buf, kBytes, 0) == static_cast<ssize_t>(kBytes);
    free(buf);
    close(fd);
    return ok;
  });
  PassthroughIoCount direct = Drained();
  EXPECT_EQ(direct.read_bytes, 0u);
  EXPECT_EQ(direct.write_bytes, 0u);
}

}  // namespace
}  // namespace tierfs
