// --splice_writes: WRITE requests whose bytes libfuse leaves in its pipe and the
// daemon splices into the object (fs/fuse_ops.cc OpWriteBuf). A random mix of
// writes of every size through two descriptors, truncates, fsyncs and a
// relocation in the middle must read back exactly as a model of the file says,
// before and after a remount. (Faults on this path: fault_injection_test.cc.)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <random>
#include <cstring>
#include <iterator>
#include <string>

#include "tests/integration/test_policies.h"
#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

class SpliceWritesTest : public TierfsFixture {};

// pwrite of all of `data` at `offset`; fails the test on error or a short write.
void PwriteAll(int fd, const std::string& data, off_t offset) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = pwrite(fd, data.data() + done, data.size() - done,
                       offset + static_cast<off_t>(done));
    ASSERT_GT(n, 0) << "pwrite: " << strerror(errno);
    done += static_cast<size_t>(n);
  }
}

TEST_F(SpliceWritesTest, RandomWritesReadBackAsWritten) {
  Unmount();
  Mount({"--splice_writes=true"});
  AssignPolicy(kPinHotPolicy);  // created on hdd, moved to ssd by the first enforce
  const std::string path = Path("f.hot");
  std::string model;
  std::mt19937 rng(11);
  // From one byte to more than one WRITE request (max_write is 1 MiB - 4 KiB).
  const size_t sizes[] = {1, 100, 4096, 8192, 65536, 300000, 1 << 20, (3 << 20) / 2};
  int a = open(path.c_str(), O_RDWR | O_CREAT, 0644);
  int b = open(path.c_str(), O_RDWR);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  for (int op = 0; op < 300; ++op) {
    SCOPED_TRACE("operation " + std::to_string(op));
    const unsigned kind = rng() % 20;
    if (kind < 16) {  // a write, through either descriptor
      const size_t size = sizes[rng() % std::size(sizes)];
      const size_t offset = rng() % (6u << 20);
      const std::string data = RandomBytes(size, static_cast<uint32_t>(op));
      ASSERT_NO_FATAL_FAILURE(PwriteAll(kind % 2 ? a : b, data, static_cast<off_t>(offset)));
      if (model.size() < offset + size) model.resize(offset + size, '\0');
      std::copy(data.begin(), data.end(), model.begin() + static_cast<long>(offset));
    } else if (kind < 17) {
      const size_t size = rng() % (4u << 20);
      ASSERT_EQ(ftruncate(a, static_cast<off_t>(size)), 0);
      model.resize(size, '\0');
    } else if (kind < 19) {
      ASSERT_EQ(fsync(kind % 2 ? a : b), 0);
    } else {  // every page the kernel holds goes to the daemon, then it moves
      ASSERT_EQ(fsync(a), 0);
      CommandResult r = Tool("fsppadm", {"enforce", mnt_});
      EXPECT_EQ(r.exit_code, 0) << r.output;
    }
  }
  EXPECT_EQ(ClassOf("f.hot"), "ssd") << "no enforce ran: change the seed";
  close(a);
  close(b);
  const std::string got = ReadFile(path);
  ASSERT_EQ(got.size(), model.size());
  EXPECT_TRUE(got == model) << "contents differ";
  Remount();
  EXPECT_TRUE(ReadFile(path) == model) << "contents differ after a remount";
}

}  // namespace
}  // namespace tierfs::testing
