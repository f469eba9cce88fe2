// Access times and the kernel's page cache (a warm read of a cached
// file costs no FUSE request). By default (FUSE no-open, --no_open) the kernel
// sends no OPEN and keeps every file's cached pages: atime moves (relatime) at
// the reads that reach the daemon, and a re-read of cached pages moves nothing.
// With --no_open=false an open for reading moves atime under the relatime rule
// and the kernel still keeps the pages. With --exact_atime (which turns no-open
// off) the kernel drops the pages at such an open instead, and the first read
// reaches the daemon and moves atime there. In every mode a warm re-read after a
// write never reaches the daemon (no read counted in its heat).
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

class AtimeCacheTest : public TierfsFixture {
 protected:
  // The daemon's data path: atime moves at the reads that reach the daemon, which passthrough opens
  // skip.
  std::vector<std::string> FixtureMountArgs() const override { return {"--passthrough=off"}; }

 protected:
  static int64_t AtimeNs(const std::string& path) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) return -1;
    return int64_t{st.st_atim.tv_sec} * 1'000'000'000 + st.st_atim.tv_nsec;
  }
  static uint64_t InodeOf(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
  }
  // Read bytes the daemon counted for `ino` (its heat), from the database; call
  // unmounted, when every count has been flushed. -1 on a database error.
  int64_t ReadBytesCounted(uint64_t ino) const {
    sqlite3* db = nullptr;
    int64_t total = -1;
    if (sqlite3_open_v2((ssd_ + "/.tierfs/meta.db").c_str(), &db, SQLITE_OPEN_READONLY,
                        nullptr) == SQLITE_OK) {
      sqlite3_stmt* stmt = nullptr;
      const char* sql = "SELECT coalesce(sum(rbytes), 0) FROM iostat WHERE ino = ?";
      if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK) {
        sqlite3_bind_int64(stmt, 1, static_cast<int64_t>(ino));
        if (sqlite3_step(stmt) == SQLITE_ROW) total = sqlite3_column_int64(stmt, 0);
      }
      sqlite3_finalize(stmt);
    }
    sqlite3_close(db);
    return total;
  }

  // Writes a file through the cache, reads it back once, and returns whether
  // atime moved at that read and how many read bytes the daemon counted.
  void WriteThenReadBack(int64_t* atime_moved_ns, int64_t* read_bytes) {
    const std::string f = Path("f");
    const std::string data(8192, 'x');
    WriteFile(f, data);
    const uint64_t ino = InodeOf(f);
    const int64_t before = AtimeNs(f);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // atime moves visibly
    EXPECT_EQ(ReadFile(f), data);
    *atime_moved_ns = AtimeNs(f) - before;
    Unmount();
    *read_bytes = ReadBytesCounted(ino);
  }
};

TEST_F(AtimeCacheTest, WarmReadStaysInTheKernelAndTheOpenMovesAtime) {
  Unmount();
  Mount({"--no_open=false"});
  int64_t moved = 0, counted = 0;
  WriteThenReadBack(&moved, &counted);
  EXPECT_GT(moved, 0) << "relatime: the first read after a write moves atime";
  EXPECT_EQ(counted, 0) << "the re-read was served from the kernel's page cache";
}

TEST_F(AtimeCacheTest, NoOpenMovesAtimeAtTheReadsThatReachTheDaemon) {
  int64_t moved = 0, counted = 0;
  WriteThenReadBack(&moved, &counted);
  EXPECT_EQ(moved, 0) << "a read of cached pages never reaches the daemon";
  EXPECT_EQ(counted, 0) << "the re-read was served from the kernel's page cache";
  // After a remount nothing is cached: the first read reaches the daemon and
  // moves atime by relatime (it is not after the write's mtime), the second not.
  Mount();
  const std::string f = Path("f");
  const int64_t before = AtimeNs(f);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(ReadFile(f), std::string(8192, 'x'));
  const int64_t after_first = AtimeNs(f);
  EXPECT_GT(after_first, before) << "the first read reached the daemon";
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(ReadFile(f), std::string(8192, 'x'));
  EXPECT_EQ(AtimeNs(f), after_first) << "relatime: atime is after mtime now";
}

TEST_F(AtimeCacheTest, ExactAtimeSendsTheFirstReadToTheDaemon) {
  Unmount();
  Mount({"--exact_atime"});
  int64_t moved = 0, counted = 0;
  WriteThenReadBack(&moved, &counted);
  EXPECT_GT(moved, 0) << "relatime: the first read after a write moves atime";
  EXPECT_EQ(counted, 8192) << "the cache was dropped, so the read reached the volume";
}

TEST_F(AtimeCacheTest, OpenForWritingOnlyOrNoatimeLeavesAtime) {
  const std::string f = Path("f");
  WriteFile(f, "data");
  const int64_t before = AtimeNs(f);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  int fd = open(f.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  close(fd);
  fd = open(f.c_str(), O_RDONLY | O_NOATIME);  // we own the file, so O_NOATIME is allowed
  ASSERT_GE(fd, 0);
  char c;
  EXPECT_EQ(read(fd, &c, 1), 1);
  close(fd);
  EXPECT_EQ(AtimeNs(f), before);
}

}  // namespace
}  // namespace tierfs::testing
