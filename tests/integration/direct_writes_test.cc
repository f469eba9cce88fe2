// --direct_writes (on by default): whole pages of large writes go to the object
// with O_DIRECT, past the volume's page cache (FileSystem::Write). A random
// mix of writes of every size and alignment through buffered and O_DIRECT
// descriptors, truncates, fsyncs and relocations in the middle (which switch
// the object under the O_DIRECT fd) must read back exactly as a model of the
// file says, before and after a remount, and after a kill -9 for what an fsync
// acknowledged. The daemon's metrics (the textfile written at unmount) tell
// whether bytes went direct. (Faults on this path: fault_injection_test.cc.)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

#include "tests/integration/random_file_ops.h"
#include "tests/integration/test_policies.h"
#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

constexpr size_t kPage = 4096;
constexpr size_t kMiB = 1 << 20;

class DirectWritesTest : public TierfsFixture {
 protected:
  // The daemon's data path: the daemon's O_DIRECT path for large writes (passthrough opens skip it)
  // and relocation of open files (busy under passthrough).
  std::vector<std::string> FixtureMountArgs() const override { return {"--passthrough=off"}; }

 protected:
  void SetUp() override {
    TierfsFixture::SetUp();
    if (HasFatalFailure()) return;
    textfile_ = root_ + "/tierfs.prom";
    // Where the volumes live must take O_DIRECT, or nothing can go direct.
    const std::string probe = ssd_ + "/direct-probe";
    const int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_DIRECT, 0600);
    if (fd < 0) GTEST_SKIP() << "the volumes' file system takes no O_DIRECT";
    close(fd);
    unlink(probe.c_str());
  }

  // Mounts again with the metrics textfile (written at unmount) and `args`.
  void MountWith(const std::vector<std::string>& args) {
    Unmount();
    std::vector<std::string> all = {"--metrics_textfile", textfile_};
    all.insert(all.end(), args.begin(), args.end());
    Mount(all);
  }

  // The sum of `metric`'s samples (every volume) in the textfile, which the
  // daemon writes at unmount.
  double Sum(const std::string& metric) {
    std::ifstream in(textfile_);
    EXPECT_TRUE(in.good()) << "no metrics textfile at " << textfile_;
    double sum = 0;
    for (std::string line; std::getline(in, line);) {
      if (line.starts_with(metric + "{")) {
        sum += std::strtod(line.c_str() + line.rfind(' '), nullptr);
      }
    }
    return sum;
  }

  std::string textfile_;
};

// A page-aligned copy of `data`, for writes through an O_DIRECT descriptor.
struct AlignedCopy {
  explicit AlignedCopy(const std::string& data) {
    const size_t bytes = (data.size() + kPage - 1) / kPage * kPage;
    p = static_cast<char*>(std::aligned_alloc(kPage, std::max(bytes, kPage)));
    std::memcpy(p, data.data(), data.size());
  }
  ~AlignedCopy() { std::free(p); }
  char* p;
};

TEST_F(DirectWritesTest, RandomWritesReadBackAsWrittenAndLargeOnesGoDirect) {
  MountWith({});
  AssignPolicy(kPinHotPolicy);  // created on hdd, moved to ssd by the first enforce
  const std::string path = Path("f.hot");
  std::string model;
  // From one byte to more than one WRITE request (max_write is 1 MiB).
  const size_t sizes[] = {1, 100, 4096, 8192, 65536, 128 * 1024, 300000, kMiB, 3 * kMiB / 2};
  int a = open(path.c_str(), O_RDWR | O_CREAT, 0644);
  int b = open(path.c_str(), O_RDWR);
  int direct = open(path.c_str(), O_RDWR | O_DIRECT);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  ASSERT_GE(direct, 0) << strerror(errno);
  // A quarter through the O_DIRECT descriptor, a quarter of whole pages through
  // `b`, the rest of any shape through `a` or `b`.
  auto write = [&](int op, unsigned kind, std::mt19937& rng) {
    RandomWrite w;
    size_t size = sizes[rng() % std::size(sizes)];
    w.offset = rng() % (6 * kMiB);
    const bool through_direct = kind % 4 == 0;
    if (through_direct || kind % 4 == 1) {
      size = std::max(kPage, size / kPage * kPage);
      w.offset = w.offset / kPage * kPage;
    }
    w.data = RandomBytes(size, static_cast<uint32_t>(op));
    if (through_direct) {
      AlignedCopy aligned(w.data);
      PwriteAll(direct, aligned.p, size, static_cast<off_t>(w.offset));
    } else {
      PwriteAll(kind % 2 ? a : b, w.data.data(), size, static_cast<off_t>(w.offset));
    }
    return w;
  };
  int enforces = 0;
  ASSERT_NO_FATAL_FAILURE(RunRandomFileOps(mnt_, a, b, 300, 23, write, &model, &enforces));
  EXPECT_GT(enforces, 0) << "no enforce ran: change the seed";
  EXPECT_EQ(ClassOf("f.hot"), "ssd");
  close(a);
  close(b);
  close(direct);
  const std::string got = ReadFile(path);
  ASSERT_EQ(got.size(), model.size());
  EXPECT_TRUE(got == model) << "contents differ";
  Unmount();
  EXPECT_GE(Sum("tierfs_volume_direct_written_bytes_total"), 4.0 * kMiB)
      << "large writes of whole pages did not go direct";
  Mount(mount_args_);
  EXPECT_TRUE(ReadFile(path) == model) << "contents differ after a remount";
}

TEST_F(DirectWritesTest, FsyncedDirectWritesSurviveAKill) {
  MountWith({});
  const std::string data = RandomBytes(8 * kMiB + 1234, 5);  // a tail short of a page
  WriteFileSynced(Path("f"), data);
  CrashDaemon();
  Mount(mount_args_);
  EXPECT_TRUE(ReadFile(Path("f")) == data) << "contents differ after a kill -9";
}

TEST_F(DirectWritesTest, TurnedOffNothingGoesDirect) {
  MountWith({"--direct_writes=false"});
  const std::string data = RandomBytes(4 * kMiB, 9);
  WriteFileSynced(Path("f"), data);
  EXPECT_TRUE(ReadFile(Path("f")) == data) << "contents differ";
  Unmount();
  EXPECT_EQ(Sum("tierfs_volume_direct_written_bytes_total"), 0);
  EXPECT_GE(Sum("tierfs_volume_written_bytes_total"), 4.0 * kMiB);
}

}  // namespace
}  // namespace tierfs::testing
