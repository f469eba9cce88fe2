// --splice_writes: WRITE requests whose bytes libfuse leaves in its pipe and the
// daemon splices into the object (fs/fuse/fuse_ops.cc OpWriteBuf). A random mix of
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

#include "tests/integration/random_file_ops.h"
#include "tests/integration/test_policies.h"
#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

class SpliceWritesTest : public TierfsFixture {};

TEST_F(SpliceWritesTest, RandomWritesReadBackAsWritten) {
  Unmount();
  Mount({"--splice_writes=true"});
  AssignPolicy(kPinHotPolicy);  // created on hdd, moved to ssd by the first enforce
  const std::string path = Path("f.hot");
  std::string model;
  // From one byte to more than one WRITE request (max_write is 1 MiB - 4 KiB).
  const size_t sizes[] = {1, 100, 4096, 8192, 65536, 300000, 1 << 20, (3 << 20) / 2};
  int a = open(path.c_str(), O_RDWR | O_CREAT, 0644);
  int b = open(path.c_str(), O_RDWR);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  // A write through either descriptor.
  auto write = [&](int op, unsigned kind, std::mt19937& rng) {
    RandomWrite w;
    const size_t size = sizes[rng() % std::size(sizes)];
    w.offset = rng() % (6u << 20);
    w.data = RandomBytes(size, static_cast<uint32_t>(op));
    PwriteAll(kind % 2 ? a : b, w.data.data(), size, static_cast<off_t>(w.offset));
    return w;
  };
  int enforces = 0;
  ASSERT_NO_FATAL_FAILURE(RunRandomFileOps(mnt_, a, b, 300, 11, write, &model, &enforces));
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
