// st_blocks of a closed regular file comes from its inode row (recorded at its
// last attribute flush, schema v3), so stat, lookup and `ls -l` of closed files never
// stat(2) the object: on a cold cache that would read each object's inode from
// the backing disk. A size change or a relocation forgets the recorded value
// until the next attribute flush; an open file reports its object as it is now.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

class AllocatedBlocksTest : public TierfsFixture {
 protected:
  // The path of the one object on either volume.
  std::string OnlyObject() const {
    std::string found;
    for (const std::string& vol : {ssd_, hdd_}) {
      if (!std::filesystem::exists(vol + "/.tierfs/objects")) continue;
      for (auto& e : std::filesystem::recursive_directory_iterator(vol + "/.tierfs/objects")) {
        if (e.is_regular_file()) found = e.path();
      }
    }
    return found;
  }
  static blkcnt_t Blocks(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 ? st.st_blocks : -1;
  }
};

TEST_F(AllocatedBlocksTest, AClosedFileReportsWhatItsLastFlushRecorded) {
  // Sparse: 4 KiB at 0 and 4 KiB at 1 MiB.
  const int fd = open(Path("f").c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  const std::string page(4096, 'x');
  ASSERT_EQ(pwrite(fd, page.data(), page.size(), 0), 4096);
  ASSERT_EQ(pwrite(fd, page.data(), page.size(), 1 << 20), 4096);
  ASSERT_EQ(close(fd), 0);
  // Flushed (no-open mode flushes a closed file's attributes shortly after its
  // last write; `fcladm sync` does it at once).
  ASSERT_EQ(Tool("fcladm", {"sync", mnt_}).exit_code, 0);
  const std::string object = OnlyObject();
  ASSERT_FALSE(object.empty());
  const blkcnt_t recorded = Blocks(object);
  EXPECT_EQ(Blocks(Path("f")), recorded);

  // Grow the object's allocation behind tierfs's back, then ask the daemon again
  // (a remount empties the kernel's attribute cache): it answers from the row.
  const int raw = open(object.c_str(), O_WRONLY);
  ASSERT_GE(raw, 0);
  ASSERT_EQ(fallocate(raw, FALLOC_FL_KEEP_SIZE, 0, 8 << 20), 0);
  close(raw);
  ASSERT_GT(Blocks(object), recorded);
  Remount();
  EXPECT_EQ(Blocks(Path("f")), recorded) << "stat of a closed file looked at its object";

  // A size change forgets the record: the object is asked once more.
  ASSERT_EQ(truncate(Path("f").c_str(), 2 << 20), 0);
  Remount();
  EXPECT_EQ(Blocks(Path("f")), Blocks(object));
}

TEST_F(AllocatedBlocksTest, AnOpenFileReportsItsObjectAsItIsNow) {
  // Every write(2) at the object at once: without the writeback cache (with it,
  // pages count once written back: WritebackCacheTest.BlocksAreTheObjectsAfterFsync).
  Unmount();
  Mount({"--writeback_cache=false"});
  const int fd = open(Path("g").c_str(), O_CREAT | O_RDWR, 0644);
  ASSERT_GE(fd, 0);
  const std::string data(64 * 1024, 'y');
  ASSERT_EQ(write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
  struct stat st;
  ASSERT_EQ(fstat(fd, &st), 0);
  EXPECT_EQ(st.st_blocks, Blocks(OnlyObject()));
  EXPECT_GE(st.st_blocks, 128);
  close(fd);
}

}  // namespace
}  // namespace tierfs::testing
