// The daemon's log (common/log.h): lines in .tierfs/tierfs.log carry an
// ISO-8601 timestamp, a level and the pid; the same messages reach syslog
// (ident tierfs), unless --syslog=false.
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

class DaemonLogTest : public TierfsFixture {
 protected:
  std::string LogFile() const { return ssd_ + "/.tierfs/tierfs.log"; }
};

TEST_F(DaemonLogTest, LinesCarryTimestampLevelAndPid) {
  const std::string extra = root_ + "/hdd2";
  ASSERT_EQ(mkdir(extra.c_str(), 0755), 0);
  CommandResult r = Tool("fsvoladm", {"add", mnt_, extra + ":hdd"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  Unmount();
  const std::string log = ReadFile(LogFile());
  const std::regex line_shape(
      R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d (info|warning|error) tierfs\[\d+\]: .+)");
  std::istringstream lines(log);
  int count = 0;
  for (std::string line; std::getline(lines, line);) {
    EXPECT_TRUE(std::regex_match(line, line_shape)) << line;
    count++;
  }
  EXPECT_GE(count, 3);
  EXPECT_NE(log.find("info tierfs["), std::string::npos);
  EXPECT_NE(log.find("]: mounted " + ssd_ + " on " + mnt_), std::string::npos) << log;
  EXPECT_NE(log.find("]: volume vol3 (" + extra + ", class hdd) added"), std::string::npos) << log;
  EXPECT_NE(log.find("]: unmounted " + mnt_), std::string::npos) << log;
}

// Listens where syslog(3) sends (/dev/log) when no system logger does; the
// socket is removed again at the end.
class SyslogTest : public TierfsFixture {
 protected:
  void SetUp() override {
    TierfsFixture::SetUp();
    if (HasFatalFailure()) return;
    if (access("/dev/log", F_OK) == 0) {
      GTEST_SKIP() << "a system logger owns /dev/log here";
    }
    sock_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(sock_, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "/dev/log");
    ASSERT_EQ(bind(sock_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0)
        << "cannot listen on /dev/log: " << strerror(errno);
    owns_dev_log_ = true;
  }
  void TearDown() override {
    TierfsFixture::TearDown();
    if (owns_dev_log_) unlink("/dev/log");
    if (sock_ >= 0) close(sock_);
  }
  // Datagrams received within `wait` that mention this test's mount point
  // (other tests' daemons may log at the same time).
  std::vector<std::string> Received(std::chrono::milliseconds wait) {
    std::vector<std::string> out;
    const auto deadline = std::chrono::steady_clock::now() + wait;
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{sock_, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      char buf[4096];
      ssize_t n = recv(sock_, buf, sizeof buf, 0);
      if (n <= 0) continue;
      std::string message(buf, static_cast<size_t>(n));
      if (message.find(mnt_) != std::string::npos) out.push_back(message);
    }
    return out;
  }

  int sock_ = -1;
  bool owns_dev_log_ = false;
};

TEST_F(SyslogTest, MountMessagesReachSyslogUnlessTurnedOff) {
  Unmount();
  Received(std::chrono::milliseconds(200));  // what the first mount sent
  Mount();
  Unmount();
  std::vector<std::string> got = Received(std::chrono::milliseconds(1500));
  bool mounted = false, unmounted = false;
  for (const std::string& m : got) {
    // <facility*8+severity>... tierfs[pid]: MOUNT: message (LOG_DAEMON = 3 << 3)
    EXPECT_NE(m.find("tierfs["), std::string::npos) << m;
    EXPECT_EQ(m.rfind("<30>", 0), 0u) << m;  // daemon.info
    if (m.find("mounted " + ssd_ + " on " + mnt_) != std::string::npos) mounted = true;
    if (m.find("unmounted " + mnt_) != std::string::npos) unmounted = true;
  }
  EXPECT_TRUE(mounted) << got.size() << " messages";
  EXPECT_TRUE(unmounted) << got.size() << " messages";

  Mount({"-o", "nosyslog"});
  Unmount();
  EXPECT_TRUE(Received(std::chrono::milliseconds(1000)).empty());
}

}  // namespace
}  // namespace tierfs::testing
