// Reading writes nothing to the database while it happens: the atime
// a read moves (relatime) and the heat it earns stay in memory until the
// periodic flush, which writes all of them in one transaction.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

class ReadBatchingTest : public TierfsFixture {
 protected:
  off_t WalBytes() const {
    struct stat st;
    return stat((ssd_ + "/.tierfs/meta.db-wal").c_str(), &st) == 0 ? st.st_size : 0;
  }
  static int64_t AtimeNs(const std::string& path) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) return -1;
    return int64_t{st.st_atim.tv_sec} * 1'000'000'000 + st.st_atim.tv_nsec;
  }
};

TEST_F(ReadBatchingTest, ReadingFilesWritesNothingUntilThePeriodicFlush) {
  constexpr int kFiles = 40;
  for (int i = 0; i < kFiles; ++i) WriteFile(Path("f" + std::to_string(i)), "data");
  // No periodic flush during the test; the remount checkpoints the WAL.
  Unmount();
  Mount({"--writeback_seconds=3600"});
  const int64_t before = AtimeNs(Path("f0"));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // atime moves visibly
  const off_t wal = WalBytes();
  for (int i = 0; i < kFiles; ++i) EXPECT_EQ(ReadFile(Path("f" + std::to_string(i))), "data");
  // Past the group commit window: anything written would be in the WAL now.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(WalBytes(), wal) << "reads wrote to the database";
  const int64_t after = AtimeNs(Path("f0"));
  EXPECT_GT(after, before) << "relatime: the first read after the write moves atime";
  // The unmount's flush keeps it.
  Remount();
  EXPECT_EQ(AtimeNs(Path("f0")), after);
}

}  // namespace
}  // namespace tierfs::testing
