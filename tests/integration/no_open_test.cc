// FUSE no-open (--no_open, the default): the kernel sends no OPEN or RELEASE,
// and the daemon keeps one handle per inode for at most --cached_opens files
// (fs/core/kernel_open_cache.h). With room for a single file, every request on
// another file evicts the handle in use a moment ago, so a random mix of
// writes, truncates, fsyncs and relocations on three files at once reopens
// objects all the time, in the middle of relocations too. Every file must read
// back as its model says, before and after a remount.
#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <random>
#include <string>

#include "tests/integration/random_file_ops.h"
#include "tests/integration/test_policies.h"
#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

class NoOpenTest : public TierfsFixture {
 protected:
  // The daemon's data path: no-open, which passthrough turns off, and relocation of open handles.
  std::vector<std::string> FixtureMountArgs() const override { return {"--passthrough=off"}; }
};

TEST_F(NoOpenTest, HandlesEvictedBetweenRequestsLoseNothing) {
  Unmount();
  // Without the writeback cache every write(2) is a WRITE request, so the
  // three files' requests interleave one by one.
  Mount({"--cached_opens", "1", "--writeback_cache=false"});
  AssignPolicy(kPinHotPolicy);  // created on hdd, moved to ssd by the first enforce
  const std::array<std::string, 3> names = {"f0.hot", "f1.hot", "f2.hot"};
  std::array<std::string, 3> models;
  std::array<int, 3> fds;
  for (size_t i = 0; i < names.size(); ++i) {
    fds[i] = open(Path(names[i]).c_str(), O_RDWR | O_CREAT, 0644);
    ASSERT_GE(fds[i], 0);
  }
  int b = open(Path(names[0]).c_str(), O_RDWR);
  ASSERT_GE(b, 0);
  // Each write to f0 (through `fds[0]` or `b`) comes with one to f1 or f2.
  auto write = [&](int op, unsigned kind, std::mt19937& rng) {
    RandomWrite w;
    w.offset = rng() % (2 << 20);
    w.data = RandomBytes(1 + rng() % 70000, static_cast<uint32_t>(op));
    PwriteAll(kind % 2 ? fds[0] : b, w.data.data(), w.data.size(), static_cast<off_t>(w.offset));
    const size_t other = 1 + kind % 2;
    const size_t at = rng() % (1 << 20);
    const std::string more = RandomBytes(1 + rng() % 5000, static_cast<uint32_t>(op) + 7);
    PwriteAll(fds[other], more.data(), more.size(), static_cast<off_t>(at));
    if (models[other].size() < at + more.size()) models[other].resize(at + more.size(), '\0');
    models[other].replace(at, more.size(), more);
    return w;
  };
  int enforces = 0;
  ASSERT_NO_FATAL_FAILURE(
      RunRandomFileOps(mnt_, fds[0], b, 200, 41, write, &models[0], &enforces));
  EXPECT_GT(enforces, 0) << "no enforce ran: change the seed";
  for (int fd : fds) close(fd);
  close(b);
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_TRUE(ReadFile(Path(names[i])) == models[i]) << names[i] << ": contents differ";
  }
  EXPECT_EQ(ClassOf(names[0]), "ssd");
  Remount();
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_TRUE(ReadFile(Path(names[i])) == models[i])
        << names[i] << ": contents differ after a remount";
  }
}

}  // namespace
}  // namespace tierfs::testing
