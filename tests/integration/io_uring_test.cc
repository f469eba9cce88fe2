// `tierfs --io_uring` (fs/fuse/uring_transport.h, on by default): requests served over
// the kernel's per-CPU rings, through the mount, and /dev/fuse when the kernel does
// not offer them or --io_uring=false.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

constexpr char kParameter[] = "/sys/module/fuse/parameters/enable_uring";

class IoUringTest : public TierfsFixture {
 protected:
  void SetUp() override {
    std::ifstream in(kParameter);
    if (!(in >> saved_)) GTEST_SKIP() << "this kernel has no FUSE over io_uring (" << kParameter << ")";
    TierfsFixture::SetUp();
  }
  void TearDown() override {
    TierfsFixture::TearDown();
    if (!saved_.empty()) SetParameter(saved_ == "Y" || saved_ == "1");
  }
  // The kernel offers io_uring to the mounts made while this is on, also to those
  // other tests of the suite make meanwhile (which serve over the rings then).
  static void SetParameter(bool on) {
    std::ofstream out(kParameter);
    out << (on ? "1" : "0");
    out.close();
    ASSERT_TRUE(out.good()) << "cannot write " << kParameter;
  }
  std::string Log() const {
    std::ifstream in(ssd_ + "/.tierfs/tierfs.log");
    std::stringstream all;
    all << in.rdbuf();
    return all.str();
  }
  // How many "io_uring: served N requests" lines the log has (one per mount whose
  // rings served).
  size_t MountsServedByRings() const {
    const std::string log = Log();
    size_t count = 0;
    for (size_t at = log.find("io_uring: served"); at != std::string::npos;
         at = log.find("io_uring: served", at + 1)) {
      ++count;
    }
    return count;
  }
  // The count of the daemon's last "io_uring: served N requests" line, or -1.
  long long ServedByRings() const {
    const std::string log = Log();
    static const std::regex served("io_uring: served ([0-9]+) requests");
    long long last = -1;
    for (auto it = std::sregex_iterator(log.begin(), log.end(), served);
         it != std::sregex_iterator(); ++it) {
      last = std::stoll((*it)[1]);
    }
    return last;
  }
  // Every kind of request a workload makes, checked as it goes.
  void Workload() {
    ASSERT_EQ(mkdir(Path("d").c_str(), 0755), 0);
    const std::string big = RandomBytes(3 * 1024 * 1024 + 5, 1);  // payloads of 1 MiB
    WriteFileSynced(Path("d/big"), big);
    EXPECT_EQ(ReadFileDirect(Path("d/big")), big);  // READs of 1 MiB over the transport
    for (int i = 0; i < 200; ++i) WriteFile(Path("d/f" + std::to_string(i)), std::to_string(i));
    ASSERT_EQ(rename(Path("d/f0").c_str(), Path("d/renamed").c_str()), 0);
    ASSERT_EQ(unlink(Path("d/f1").c_str()), 0);
    ASSERT_EQ(truncate(Path("d/f2").c_str(), 10), 0);
    ASSERT_EQ(setxattr(Path("d/f3").c_str(), "user.k", "v", 1, 0), 0);
    char value[8] = {};
    EXPECT_EQ(getxattr(Path("d/f3").c_str(), "user.k", value, sizeof value), 1);
    struct stat st;
    ASSERT_EQ(stat(Path("d/f2").c_str(), &st), 0);
    EXPECT_EQ(st.st_size, 10);
    size_t names = 0;
    for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(Path("d"))) ++names;
    EXPECT_EQ(names, 200u);  // 200 small files - 1 unlinked + big
    FsyncDir(Path("d"));
  }
  void CheckWorkloadAfterRemount() {
    EXPECT_EQ(ReadFile(Path("d/big")), RandomBytes(3 * 1024 * 1024 + 5, 1));
    EXPECT_EQ(ReadFile(Path("d/renamed")), "0");
    EXPECT_NE(access(Path("d/f1").c_str(), F_OK), 0);
    EXPECT_EQ(ReadFile(Path("d/f2")), std::string("2") + std::string(9, '\0'));
    EXPECT_EQ(ReadFile(Path("d/f199")), "199");
  }

  std::string saved_;
};

// One test for both cases: the module parameter is global, and ctest runs tests
// in parallel processes.
TEST_F(IoUringTest, ServesOverTheRingsWhenOfferedAndOverDevFuseWhenNot) {
  // Offered: the default mount serves over the rings.
  Unmount();
  SetParameter(true);
  Mount();
  Workload();
  Unmount();
  EXPECT_GT(ServedByRings(), 200) << "the rings served no requests:\n" << Log();
  const size_t served_mounts = MountsServedByRings();

  // Offered, but --io_uring=false: /dev/fuse serves.
  Mount({"--io_uring=false"});
  CheckWorkloadAfterRemount();
  WriteFile(Path("d/more"), "more");
  Unmount();
  SetParameter(false);
  EXPECT_EQ(MountsServedByRings(), served_mounts) << "--io_uring=false used rings:\n" << Log();
  Mount();
  CheckWorkloadAfterRemount();
  EXPECT_EQ(ReadFile(Path("d/more")), "more");

  // Not offered (the parameter off at the mount): /dev/fuse serves, as with
  // --io_uring=false.
  Unmount();
  Mount({"--io_uring"});
  std::filesystem::remove_all(Path("d"));
  Workload();
  Unmount();
  const std::string log = Log();
  EXPECT_NE(log.rfind("io_uring: the kernel does not offer it"), std::string::npos) << log;
  EXPECT_LT(log.rfind("io_uring: served"), log.rfind("io_uring: the kernel does not offer it"))
      << "the second mount used rings:\n" << log;
  Mount();
  CheckWorkloadAfterRemount();
}

}  // namespace
}  // namespace tierfs::testing
