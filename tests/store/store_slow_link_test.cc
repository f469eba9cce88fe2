// A store behind a slow link that drops once: a proxy in front of the gateway
// (tests/objstore/rgw/flaky_proxy.h) passes replies at 20 MB/s and cuts the
// connection of one GET part-way through the object. The recall of a large
// file completes and is verified (its bytes read back equal), and it fetches
// only the cut range again, not the object from byte 0. The file is 256 MiB in
// the suite; TIERFS_LONG_TESTS=1 makes it 2 GiB (with
// TIERFS_TEST_CEPH_MEMSTORE_BYTES=4294967296 so the cluster holds it), about
// two minutes at 20 MB/s. Every wait is bounded; the fixture always unmounts.
#include <cstdlib>
#include <iostream>
#include <string>

#include "tests/objstore/rgw/flaky_proxy.h"
#include "tests/store/object_volume_fixture.h"

namespace tierfs::testing {
namespace {

using StoreSlowLinkTest = ObjectVolumeTest;

constexpr double kLinkBytesPerSecond = 20e6;

TEST_F(StoreSlowLinkTest, ARecallOverASlowLinkThatDropsResumesAndIsVerified) {
  const char* long_tests = std::getenv("TIERFS_LONG_TESTS");
  const bool full = long_tests != nullptr && std::string(long_tests) == "1";
  const size_t size = full ? size_t{2} << 30 : size_t{256} << 20;
  std::unique_ptr<FlakyProxy> proxied = FlakyProxy::InFrontOf(cluster_->endpoint());
  FlakyProxy& proxy = *proxied;
  ASSERT_NO_FATAL_FAILURE(AddStore(proxy.endpoint()));
  {
    const std::string data = RandomBytes(size, 61);
    WriteFileSynced(Path("big"), data);
  }
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(ToClassPolicy("cloud")));
  CommandResult up = Tool("fsppadm", {"enforce", mnt_}, 900);
  ASSERT_EQ(up.exit_code, 0) << up.output;
  ASSERT_EQ(ClassOf("big"), "cloud");

  proxy.LimitReplyRate(kLinkBytesPerSecond);
  // Each of the recall's connections carries about a quarter of the object.
  proxy.CutNextReplyAfter(size / 6);
  const uint64_t before = proxy.reply_bytes();
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(ToClassPolicy("hdd")));
  const auto start = Clock::now();
  CommandResult back = Tool("fsppadm", {"enforce", mnt_}, 900);
  const double seconds = SecondsSince(start);
  ASSERT_EQ(back.exit_code, 0) << back.output;
  EXPECT_EQ(ClassOf("big"), "hdd");
  const uint64_t fetched = proxy.reply_bytes() - before;
  std::cout << "[ measured ] recall of " << (size >> 20) << " MiB at 20 MB/s with one cut: "
            << seconds << " s, " << static_cast<double>(size) / seconds / 1e6 << " MB/s, "
            << (fetched >> 20) << " MiB fetched\n";
  EXPECT_EQ(proxy.cut(), 1) << "the link never dropped";
  // The cut range (16 MiB) again, and the replies' headers; not the whole object.
  EXPECT_LT(fetched, size + (uint64_t{32} << 20));
  proxy.LimitReplyRate(0);
  Remount();
  EXPECT_EQ(Difference(ReadFileDirect(Path("big")), RandomBytes(size, 61)), "");
}

}  // namespace
}  // namespace tierfs::testing
