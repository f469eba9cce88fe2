// A store that answers badly against one that is gone, through the mount: a
// proxy in front of the gateway (tests/objstore/rgw/flaky_proxy.h) answers 500
// InternalError, 503 SlowDown or 403 InvalidAccessKeyId for a while. Reads fail
// (or wait the SlowDown out) and the volume stays online while the store
// answers; keys refused make it offline until they are accepted again.
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <thread>

#include "tests/integration/test_policies.h"
#include "tests/objstore/rgw/flaky_proxy.h"
#include "tests/store/object_volume_fixture.h"

namespace tierfs::testing {
namespace {

using StoreErrorsTest = ObjectVolumeTest;

TEST_F(StoreErrorsTest, AStoreThatAnswersBadlyStaysOnlineOneThatRefusesTheKeysGoesOffline) {
  std::unique_ptr<FlakyProxy> proxied = FlakyProxy::InFrontOf(cluster_->endpoint());
  FlakyProxy& proxy = *proxied;
  ASSERT_NO_FATAL_FAILURE(AddStore(proxy.endpoint()));
  const std::string data = RandomBytes(1 * kMiB, 21);
  WriteFile(Path("cold"), data);
  WriteFile(Path("cold2"), data);  // read first through the SlowDown: nothing cached
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(ToClassPolicy("cloud")));
  ASSERT_NO_FATAL_FAILURE(Enforce());
  ASSERT_EQ(ClassOf("cold"), "cloud");
  ASSERT_EQ(ClassOf("cold2"), "cloud");
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(kAllOnSsdPolicy));
  Remount();
  ASSERT_EQ(StoreState(), "online");

  // 500 on everything for 6 s: the read fails (EIO after the quick client's
  // retries), the probe's HEADs fail too, and the volume stays online.
  proxy.FailFor(6, FlakyProxy::Fault::kInternalError500);
  const auto failing = Clock::now();
  EXPECT_EQ(ReadErrno(Path("cold")), EIO);
  std::cout << "[ measured ] read with the store answering 500: EIO after "
            << SecondsSince(failing) << " s\n";
  EXPECT_EQ(StoreState(), "online");
  while (SecondsSince(failing) < 6.5) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(StoreState(), "online");
  EXPECT_EQ(Difference(ReadFileDirect(Path("cold")), data), "");

  // SlowDown for 2 s: the read waits it out within its bounds.
  proxy.FailFor(2, FlakyProxy::Fault::kSlowDown503);
  const int failed_before = proxy.failed();
  const auto busy = Clock::now();
  EXPECT_EQ(Difference(ReadFileDirect(Path("cold2")), data), "");
  std::cout << "[ measured ] read through 2 s of SlowDown: " << SecondsSince(busy) << " s\n";
  EXPECT_GE(SecondsSince(busy), 1.0);
  EXPECT_GT(proxy.failed(), failed_before);
  EXPECT_EQ(StoreState(), "online");

  // Keys refused (403 InvalidAccessKeyId) for 4 s: offline within about a
  // second (the probe), online again once the store takes the keys.
  proxy.FailFor(4, FlakyProxy::Fault::kKeysRefused403);
  const double offline_after = WaitForState("offline", 4);
  std::cout << "[ measured ] keys refused: offline after " << offline_after << " s\n";
  EXPECT_EQ(ReadErrno(Path("cold")), EIO);
  const double online_after = WaitForState("online", 10);
  std::cout << "[ measured ] keys accepted again: online after " << online_after << " s\n";
  EXPECT_EQ(Difference(ReadFileDirect(Path("cold")), data), "");
  // The probe's HEAD of the bucket: a 403 has no body to name the code.
  EXPECT_NE(DaemonLog().find("HTTP 403"), std::string::npos);
}

}  // namespace
}  // namespace tierfs::testing
