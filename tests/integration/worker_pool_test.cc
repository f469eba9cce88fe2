// The FUSE worker pool (fs/fuse/fuse_worker_pool.h): a few threads read and serve
// requests; the others wait, and serve only while a running one waits for a
// device. With one running thread, reads stuck on a slow device (the fault
// seam's delay, in the same BlockingSection as a real read) must not hold up
// the requests queued behind them: parked threads take the stuck ones' places.
#include <sys/stat.h>

#include <chrono>
#include <future>
#include <string>
#include <vector>

#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

class WorkerPoolTest : public TierfsFixture {};

TEST_F(WorkerPoolTest, RequestsWaitingForTheDiskDoNotHoldUpOthers) {
  constexpr int kFiles = 3;
  for (int i = 0; i < kFiles; ++i) WriteFile(Path("f" + std::to_string(i)), RandomBytes(4096, i));
  Unmount();
  setenv("TIERFS_FAULTS", "read:objects@1+=delay3000", 1);
  Mount({"--running_threads=1", "--threads=8", "--io_uring=false"});
  unsetenv("TIERFS_FAULTS");

  // Reads past every page cache (O_DIRECT), each waiting 3 s in the daemon.
  std::vector<std::future<std::string>> reads;
  for (int i = 0; i < kFiles; ++i) {
    reads.push_back(std::async(std::launch::async, [this, i] {
      return ReadFileDirect(Path("f" + std::to_string(i)));
    }));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(mkdir(Path("d").c_str(), 0755), 0) << strerror(errno);
  struct stat st;
  ASSERT_EQ(stat(Path("f0").c_str(), &st), 0) << strerror(errno);
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(took, 1.5) << "the mkdir and the stat waited for the reads in front of them";
  for (int i = 0; i < kFiles; ++i) EXPECT_EQ(reads[i].get(), RandomBytes(4096, i)) << i;
}

}  // namespace
}  // namespace tierfs::testing
