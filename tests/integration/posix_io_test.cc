// File data as on ext4: open flags, appends from several processes, sparse files
// beyond 4 GiB, fallocate (punch hole included), SEEK_DATA/SEEK_HOLE,
// copy_file_range, the sync calls, mmap and statfs.
#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "tests/integration/posix_compare.h"

namespace tierfs::testing {
namespace {

class PosixIoTest : public PosixFixture {};

constexpr off_t kGiB = off_t{1} << 30;

std::string PreadString(int fd, size_t n, off_t off) {
  std::string s(n, '\0');
  ssize_t got = pread(fd, s.data(), n, off);
  s.resize(got < 0 ? 0 : static_cast<size_t>(got));
  return s;
}

long long SizeOf(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 ? st.st_size : -1;
}
long long BlocksOf(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 ? st.st_blocks : -1;
}

TEST_F(PosixIoTest, OpenFlags) {
  Observations o = Compare([](const std::string& b, Observations& o) {
    const std::string f = b + "/f";
    WriteFile(f, "old contents that are long");
    int fd = open(f.c_str(), O_WRONLY | O_TRUNC);
    o.Count("write after O_TRUNC", write(fd, "new", 3));
    close(fd);
    o.Text("after O_TRUNC", ReadFile(f));
    fd = open(f.c_str(), O_WRONLY | O_APPEND);
    lseek(fd, 0, SEEK_SET);
    o.Count("append write", write(fd, "+tail", 5));
    o.Count("offset after append", lseek(fd, 0, SEEK_CUR));
    o.Count("pwrite with O_APPEND (appends on Linux)", pwrite(fd, "!", 1, 0));
    close(fd);
    o.Text("after append", ReadFile(f));
    fd = open(f.c_str(), O_RDONLY | O_TRUNC);
    o.Count("size after O_RDONLY|O_TRUNC", SizeOf(fd));
    char c;
    o.Count("write to read-only fd", write(fd, "x", 1));
    close(fd);
    WriteFile(f, "abc");
    fd = open(f.c_str(), O_WRONLY);
    o.Count("read from write-only fd", read(fd, &c, 1));
    close(fd);
    o.Call("O_CREAT on existing keeps it", Opened(open(f.c_str(), O_CREAT | O_RDWR, 0600)));
    o.Text("contents kept", ReadFile(f));
    o.Call("O_CREAT|O_EXCL on existing", Opened(open(f.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600)));
    o.Call("O_DIRECTORY on dir", Opened(open(b.c_str(), O_RDONLY | O_DIRECTORY)));
    o.Call("O_PATH", Opened(open(f.c_str(), O_PATH)));
    o.Call("O_NOATIME as owner", Opened(open(f.c_str(), O_RDONLY | O_NOATIME)));
    fd = open(f.c_str(), O_WRONLY | O_SYNC);
    o.Count("O_SYNC write", write(fd, "s", 1));
    close(fd);
    fd = open(f.c_str(), O_WRONLY | O_DSYNC);
    o.Count("O_DSYNC write", write(fd, "d", 1));
    close(fd);
    o.Text("after sync writes", ReadFile(f));
    // O_DIRECT passes through: aligned I/O bypasses the page cache and buffered
    // readers see it.
    fd = open((b + "/direct").c_str(), O_CREAT | O_RDWR | O_DIRECT, 0644);
    o.Call("open O_DIRECT", fd);
    void* raw = nullptr;
    posix_memalign(&raw, 4096, 8192);
    std::unique_ptr<void, decltype(&free)> buf(raw, &free);
    std::memset(raw, 'D', 8192);
    o.Count("O_DIRECT aligned write", pwrite(fd, raw, 8192, 4096));
    std::memset(raw, 0, 8192);
    o.Count("O_DIRECT aligned read", pread(fd, raw, 4096, 8192));
    o.Flag("O_DIRECT read data", static_cast<char*>(raw)[100] == 'D');
    close(fd);
    std::string buffered = ReadFile(b + "/direct");
    o.Value("buffered size", static_cast<long long>(buffered.size()));
    o.Flag("buffered sees direct data",
           buffered.size() == 12288 && buffered[5000] == 'D' && buffered[0] == '\0');
    o.Call("fcntl F_SETFL O_DIRECT", [&] {
      int f2 = open(f.c_str(), O_RDONLY);
      int rc = fcntl(f2, F_SETFL, O_DIRECT);
      int err = errno;
      close(f2);
      errno = err;
      return rc;
    }());
  });
  EXPECT_EQ(o.Get("after O_TRUNC"), "new");
  EXPECT_EQ(o.Get("after append"), "new+tail!");
  EXPECT_EQ(o.Get("size after O_RDONLY|O_TRUNC"), "0");
  EXPECT_EQ(o.Get("write to read-only fd"), "EBADF");
  EXPECT_EQ(o.Get("O_CREAT|O_EXCL on existing"), "EEXIST");
  EXPECT_EQ(o.Get("O_DIRECT aligned write"), "8192");
  EXPECT_EQ(o.Get("buffered sees direct data"), "yes");
}

// Several processes appending records with O_APPEND never overwrite each other.
TEST_F(PosixIoTest, ConcurrentAppendersNeverOverlap) {
  constexpr int kWriters = 4, kRecords = 300, kRecordSize = 64;
  const std::string f = Path("log");
  WriteFile(f, "");
  std::vector<pid_t> pids;
  for (int w = 0; w < kWriters; ++w) {
    pid_t pid = fork();
    if (pid == 0) {
      int fd = open(f.c_str(), O_WRONLY | O_APPEND);
      for (int i = 0; i < kRecords; ++i) {
        char rec[kRecordSize];
        std::memset(rec, 'a' + w, sizeof rec);
        std::snprintf(rec, sizeof rec, "%d:%05d:", w, i);
        rec[std::strlen(rec)] = 'a' + w;
        rec[kRecordSize - 1] = '\n';
        if (write(fd, rec, sizeof rec) != kRecordSize) _exit(1);
      }
      close(fd);
      _exit(0);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const std::string data = ReadFile(f);
  ASSERT_EQ(data.size(), size_t{kWriters} * kRecords * kRecordSize);
  std::vector<int> next(kWriters, 0);
  for (size_t off = 0; off < data.size(); off += kRecordSize) {
    const std::string rec = data.substr(off, kRecordSize);
    int w = rec[0] - '0';
    ASSERT_TRUE(w >= 0 && w < kWriters) << "torn record at " << off;
    char expect[kRecordSize];
    std::memset(expect, 'a' + w, sizeof expect);
    std::snprintf(expect, sizeof expect, "%d:%05d:", w, next[w]);
    expect[std::strlen(expect)] = 'a' + w;
    expect[kRecordSize - 1] = '\n';
    ASSERT_EQ(rec, std::string(expect, kRecordSize)) << "at " << off;
    next[w]++;
  }
}

TEST_F(PosixIoTest, SparseFileBeyondFourGiB) {
  MountWithoutWritebackCache();  // ext4's times, blocks and holes: see posix_compare.h
  Observations o = Compare([](const std::string& b, Observations& o) {
    int fd = open((b + "/sparse").c_str(), O_CREAT | O_RDWR, 0644);
    o.Count("write at 5 GiB", pwrite(fd, "tail", 4, 5 * kGiB));
    o.Count("size", SizeOf(fd));
    o.Flag("few blocks", BlocksOf(fd) > 0 && BlocksOf(fd) <= 64);
    o.Value("blocks", BlocksOf(fd));
    o.Text("read at 5 GiB", PreadString(fd, 10, 5 * kGiB));
    o.Flag("hole reads as zeros", PreadString(fd, 4, 4 * kGiB) == std::string(4, '\0'));
    o.Count("read past the end", pread(fd, nullptr, 0, 6 * kGiB));
    std::string across(8192, 'x');
    o.Count("write across 4 GiB", pwrite(fd, across.data(), across.size(), 4 * kGiB - 4096));
    o.Flag("read across 4 GiB", PreadString(fd, 8192, 4 * kGiB - 4096) == across);
    o.Count("SEEK_DATA from 0", lseek(fd, 0, SEEK_DATA));
    o.Count("SEEK_HOLE from 0", lseek(fd, 0, SEEK_HOLE));
    o.Count("SEEK_HOLE in first data", lseek(fd, 4 * kGiB - 4096, SEEK_HOLE));
    o.Count("SEEK_DATA after first data", lseek(fd, 4 * kGiB + 4096, SEEK_DATA));
    o.Count("SEEK_HOLE in last data", lseek(fd, 5 * kGiB, SEEK_HOLE));
    o.Count("SEEK_DATA at end", lseek(fd, 5 * kGiB + 4, SEEK_DATA));
    o.Count("SEEK_DATA beyond end", lseek(fd, 6 * kGiB, SEEK_DATA));
    o.Count("SEEK_HOLE beyond end", lseek(fd, 6 * kGiB, SEEK_HOLE));
    o.Count("SEEK_END", lseek(fd, 0, SEEK_END));
    o.Count("ftruncate to 4 GiB + 1", ftruncate(fd, 4 * kGiB + 1));
    o.Count("size after truncate", SizeOf(fd));
    o.Count("SEEK_DATA after truncate", lseek(fd, 4 * kGiB - 1, SEEK_DATA));
    close(fd);
  });
  EXPECT_EQ(o.Get("size"), std::to_string(5 * kGiB + 4));
  EXPECT_EQ(o.Get("read at 5 GiB"), "tail");
  EXPECT_EQ(o.Get("SEEK_DATA from 0"), std::to_string(4 * kGiB - 4096));
  EXPECT_EQ(o.Get("SEEK_DATA beyond end"), "ENXIO");
  EXPECT_EQ(o.Get("few blocks"), "yes");
}

TEST_F(PosixIoTest, FallocateModes) {
  MountWithoutWritebackCache();  // ext4's SEEK_HOLE/SEEK_DATA: see posix_compare.h
  Observations o = Compare([](const std::string& b, Observations& o) {
    int fd = open((b + "/f").c_str(), O_CREAT | O_RDWR, 0644);
    std::string data(256 * 1024, 'z');
    pwrite(fd, data.data(), data.size(), 0);
    fsync(fd);
    o.Count("blocks written", BlocksOf(fd));
    o.Call("preallocate growing", fallocate(fd, 0, 0, 512 * 1024));
    o.Count("size after growing", SizeOf(fd));
    o.Count("blocks after growing", BlocksOf(fd));
    o.Call("preallocate keep size", fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 1024 * 1024));
    o.Count("size after keep size", SizeOf(fd));
    o.Count("blocks after keep size", BlocksOf(fd));
    o.Call("punch hole",
           fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 64 * 1024, 64 * 1024));
    o.Count("size after punch", SizeOf(fd));
    o.Count("blocks after punch", BlocksOf(fd));
    o.Flag("punched range reads zeros",
           PreadString(fd, 64 * 1024, 64 * 1024) == std::string(64 * 1024, '\0'));
    o.Flag("data around the hole kept", PreadString(fd, 10, 64 * 1024 - 10) == "zzzzzzzzzz" &&
                                            PreadString(fd, 10, 128 * 1024) == "zzzzzzzzzz");
    o.Count("SEEK_HOLE finds the punched range", lseek(fd, 0, SEEK_HOLE));
    o.Count("SEEK_DATA after the hole", lseek(fd, 64 * 1024, SEEK_DATA));
    o.Call("punch without keep size", fallocate(fd, FALLOC_FL_PUNCH_HOLE, 0, 4096));
    o.Call("zero range", fallocate(fd, FALLOC_FL_ZERO_RANGE, 4096, 4096));
    o.Flag("zeroed range reads zeros", PreadString(fd, 4096, 4096) == std::string(4096, '\0'));
    o.Call("zero range beyond end", fallocate(fd, FALLOC_FL_ZERO_RANGE, 900 * 1024, 200 * 1024));
    o.Count("size after zero range beyond end", SizeOf(fd));
    o.Call("negative length", fallocate(fd, 0, 0, -1));
    o.Call("zero length", fallocate(fd, 0, 0, 0));
    close(fd);
    fd = open((b + "/f").c_str(), O_RDONLY);
    o.Call("fallocate read-only fd", fallocate(fd, 0, 0, 4096));
    close(fd);
  });
  EXPECT_EQ(o.Get("size after keep size"), std::to_string(512 * 1024));
  EXPECT_EQ(o.Get("size after punch"), std::to_string(512 * 1024));
  EXPECT_EQ(o.Get("punched range reads zeros"), "yes");
  EXPECT_EQ(o.Get("punch without keep size"), "EOPNOTSUPP");
}

TEST_F(PosixIoTest, CopyFileRange) {
  Observations o = Compare([](const std::string& b, Observations& o) {
    const std::string src = RandomBytes(300000, 7);
    WriteFile(b + "/src", src);
    int in = open((b + "/src").c_str(), O_RDONLY);
    int out = open((b + "/dst").c_str(), O_CREAT | O_RDWR, 0644);
    loff_t in_off = 1000, out_off = 5000;
    o.Count("copy 200000", copy_file_range(in, &in_off, out, &out_off, 200000, 0));
    o.Value("in offset", in_off);
    o.Value("out offset", out_off);
    o.Count("dst size", SizeOf(out));
    o.Flag("copied bytes", PreadString(out, 200000, 5000) == src.substr(1000, 200000));
    o.Flag("leading gap is zeros", PreadString(out, 5000, 0) == std::string(5000, '\0'));
    in_off = 400000;
    o.Count("copy from beyond the end", copy_file_range(in, &in_off, out, nullptr, 100, 0));
    in_off = 299000;
    o.Count("copy across the end", copy_file_range(in, &in_off, out, nullptr, 5000, 0));
    o.Count("file offset moved", lseek(out, 0, SEEK_CUR));
    loff_t a = 0, c = 100;
    o.Count("overlapping range in one file", copy_file_range(out, &a, out, &c, 1000, 0));
    a = 0;
    c = 300000;
    o.Count("same file, apart", copy_file_range(out, &a, out, &c, 1000, 0));
    o.Flag("same-file copy data", PreadString(out, 1000, 300000) == PreadString(out, 1000, 0));
    o.Count("bad flags", copy_file_range(in, nullptr, out, nullptr, 10, 1));
    close(in);
    o.Count("read-only destination", [&] {
      int ro = open((b + "/src").c_str(), O_RDONLY);
      long rc = copy_file_range(out, nullptr, ro, nullptr, 10, 0);
      int err = errno;
      close(ro);
      errno = err;
      return rc;
    }());
    close(out);
  });
  EXPECT_EQ(o.Get("copy 200000"), "200000");
  EXPECT_EQ(o.Get("copied bytes"), "yes");
  EXPECT_EQ(o.Get("overlapping range in one file"), "EINVAL");
}

TEST_F(PosixIoTest, SyncCallsMmapAndLargeIo) {
  Observations o = Compare([](const std::string& b, Observations& o) {
    const std::string f = b + "/f";
    const std::string big = RandomBytes(3 * 1024 * 1024 + 333, 3);
    int fd = open(f.c_str(), O_CREAT | O_RDWR, 0644);
    size_t off = 0;
    while (off < big.size()) {
      size_t n = std::min<size_t>(1 << 20, big.size() - off);
      if (pwrite(fd, big.data() + off, n, static_cast<off_t>(off)) != static_cast<ssize_t>(n))
        break;
      off += n;
    }
    o.Call("fsync", fsync(fd));
    o.Call("fdatasync", fdatasync(fd));
    o.Call("sync_file_range", sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE));
    o.Call("syncfs", syncfs(fd));
    std::string back;
    char buf[77777];
    ssize_t n;
    lseek(fd, 0, SEEK_SET);
    while ((n = read(fd, buf, sizeof buf)) > 0) back.append(buf, static_cast<size_t>(n));
    o.Flag("odd-sized reads return the data", back == big);
    void* map = mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 4096);
    o.Flag("mmap shared", map != MAP_FAILED);
    if (map != MAP_FAILED) {
      std::memcpy(map, "mapped!", 7);
      o.Call("msync", msync(map, 8192, MS_SYNC));
      munmap(map, 8192);
    }
    o.Text("read sees the mapped write", PreadString(fd, 7, 4096));
    void* priv = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (priv != MAP_FAILED) {
      std::memcpy(priv, "private", 7);
      munmap(priv, 4096);
    }
    o.Flag("private mapping stays private", PreadString(fd, 7, 0) == big.substr(0, 7));
    close(fd);
    int dfd = open(b.c_str(), O_RDONLY | O_DIRECTORY);
    o.Call("fsync of a directory", fsync(dfd));
    o.Call("fdatasync of a directory", fdatasync(dfd));
    close(dfd);
  });
  EXPECT_EQ(o.Get("odd-sized reads return the data"), "yes");
  EXPECT_EQ(o.Get("read sees the mapped write"), "mapped!");
}

TEST_F(PosixIoTest, StatfsReportsTheVolumesSpace) {
  struct statvfs fs_st, ssd_st, hdd_st;
  ASSERT_EQ(statvfs(mnt_.c_str(), &fs_st), 0);
  ASSERT_EQ(statvfs(ssd_.c_str(), &ssd_st), 0);
  ASSERT_EQ(statvfs(hdd_.c_str(), &hdd_st), 0);
  EXPECT_EQ(fs_st.f_bsize, 4096u);
  EXPECT_EQ(fs_st.f_namemax, 255u);
  EXPECT_LE(fs_st.f_bavail, fs_st.f_bfree);
  EXPECT_LE(fs_st.f_bfree, fs_st.f_blocks);
  const double sum =
      double(ssd_st.f_blocks) * ssd_st.f_frsize + double(hdd_st.f_blocks) * hdd_st.f_frsize;
  EXPECT_NEAR(double(fs_st.f_blocks) * fs_st.f_frsize / sum, 1.0, 0.01);
  const double free_sum =
      double(ssd_st.f_bavail) * ssd_st.f_frsize + double(hdd_st.f_bavail) * hdd_st.f_frsize;
  EXPECT_NEAR(double(fs_st.f_bavail) * fs_st.f_frsize / free_sum, 1.0, 0.01);
  EXPECT_GT(fs_st.f_files, 0u);
  EXPECT_LE(fs_st.f_ffree, fs_st.f_files);
}

}  // namespace
}  // namespace tierfs::testing
