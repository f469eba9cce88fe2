// fsppadm schedule ("Scheduled scans"; cli/common/scan_schedule.h): the cron
// file or the systemd service and timer it installs, replaced and removed; and
// a scheduled run refused by the daemon while another enforce runs, the refusal
// listed by `fsppadm status` with its message.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <string>

#include "tests/integration/test_policies.h"
#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

class ScheduleTest : public TierfsFixture {
 protected:
  void SetUp() override {
    TierfsFixture::SetUp();
    if (HasFatalFailure()) return;
    cron_dir_ = root_ + "/cron.d";
    systemd_dir_ = root_ + "/systemd";
    std::filesystem::create_directories(cron_dir_);
    std::filesystem::create_directories(systemd_dir_);
    setenv("TIERFS_CRON_DIR", cron_dir_.c_str(), 1);
    setenv("TIERFS_SYSTEMD_DIR", systemd_dir_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("TIERFS_CRON_DIR");
    unsetenv("TIERFS_SYSTEMD_DIR");
    unsetenv("TIERFS_SCHEDULER");
    TierfsFixture::TearDown();
  }
  std::string Fsppadm() const { return TIERFS_BINARY_DIR "/cli/fsppadm"; }
  // The file system's name, as the fixture's mkdstfs gave it.
  std::string CronFile() const {
    for (const auto& e : std::filesystem::directory_iterator(cron_dir_)) return e.path();
    return "";
  }

  std::string cron_dir_, systemd_dir_;
};

TEST_F(ScheduleTest, CronEntriesAreInstalledListedAndRemoved) {
  setenv("TIERFS_SCHEDULER", "cron", 1);
  CommandResult r = Tool("fsppadm", {"schedule", mnt_});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("scheduled with cron"), std::string::npos) << r.output;
  const std::string file = CronFile();
  ASSERT_FALSE(file.empty());
  const std::string text = ReadFile(file);
  EXPECT_NE(text.find("15 * * * * root '" + Fsppadm() + "' enforce --no-wait -C -T ssd '" +
                      mnt_ + "' >/dev/null\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("45 3 * * * root '" + Fsppadm() + "' enforce --no-wait '" + mnt_ +
                      "' >/dev/null\n"),
            std::string::npos)
      << text;
  // Only the hourly run: the file is replaced.
  r = Tool("fsppadm", {"schedule", "--hourly-active", mnt_});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(ReadFile(file).find("45 3 * * *"), std::string::npos);
  r = Tool("fsppadm", {"schedule", "--list", mnt_});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("==> " + file + " <=="), std::string::npos) << r.output;
  r = Tool("fsppadm", {"schedule", "--remove", mnt_});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(access(file.c_str(), F_OK), 0);
  EXPECT_TRUE(std::filesystem::is_empty(systemd_dir_));
  // Bad usage changes nothing and names the options.
  r = Tool("fsppadm", {"schedule", "--remove", "--list", mnt_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--remove"), std::string::npos) << r.output;
}

TEST_F(ScheduleTest, SystemdGetsAServiceAndATimerPerRunAndCronIsReplaced) {
  setenv("TIERFS_SCHEDULER", "cron", 1);
  ASSERT_EQ(Tool("fsppadm", {"schedule", mnt_}).exit_code, 0);
  ASSERT_FALSE(CronFile().empty());
  setenv("TIERFS_SCHEDULER", "systemd", 1);
  CommandResult r = Tool("fsppadm", {"schedule", mnt_});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("scheduled with systemd"), std::string::npos) << r.output;
  EXPECT_TRUE(CronFile().empty()) << "the cron schedule was left behind";
  std::string service, timer;
  int units = 0;
  for (const auto& e : std::filesystem::directory_iterator(systemd_dir_)) {
    units++;
    const std::string name = e.path().filename();
    if (name.ends_with("-active.service")) service = ReadFile(e.path());
    if (name.ends_with("-active.timer")) timer = ReadFile(e.path());
  }
  EXPECT_EQ(units, 4);  // active and full, a service and a timer each
  EXPECT_NE(service.find("ExecStart=\"" + Fsppadm() + "\" enforce --no-wait -C -T ssd \"" +
                         mnt_ + "\"\n"),
            std::string::npos)
      << service;
  EXPECT_NE(service.find("Type=oneshot"), std::string::npos);
  EXPECT_NE(timer.find("OnCalendar=*-*-* *:15:00\n"), std::string::npos) << timer;
  EXPECT_NE(timer.find("Persistent=true"), std::string::npos);
  ASSERT_EQ(Tool("fsppadm", {"schedule", "--remove", mnt_}).exit_code, 0);
  EXPECT_TRUE(std::filesystem::is_empty(systemd_dir_));
}

TEST_F(ScheduleTest, AScheduledRunIsRefusedWhileAnotherEnforceRunsAndStatusShowsIt) {
  AssignPolicy(kPinHotPolicy);
  WriteFile(Path("a.hot"), RandomBytes(1 << 20, 4));
  // The first copy of a relocation takes 3 s: the first enforce holds the
  // daemon's enforce lock that long.
  Unmount();
  setenv("TIERFS_FAULTS", "copy@1=delay3000", 1);
  Mount();
  unsetenv("TIERFS_FAULTS");
  auto first = std::async(std::launch::async, [&] { return Tool("fsppadm", {"enforce", mnt_}); });
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  // What the hourly schedule runs.
  const auto start = std::chrono::steady_clock::now();
  CommandResult scheduled = Tool("fsppadm", {"enforce", "--no-wait", "-C", "-T", "ssd", mnt_});
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(scheduled.exit_code, 0) << scheduled.output;
  EXPECT_NE(scheduled.output.find("another fsppadm enforce is running"), std::string::npos)
      << scheduled.output;
  EXPECT_LT(waited, 2.0) << "the refused run waited for the first";
  CommandResult done = first.get();
  EXPECT_EQ(done.exit_code, 0) << done.output;
  EXPECT_EQ(ClassOf("a.hot"), "ssd");

  CommandResult status = Tool("fsppadm", {"status", mnt_});
  ASSERT_EQ(status.exit_code, 0) << status.output;
  EXPECT_NE(status.output.find("failed: another fsppadm enforce is running"), std::string::npos)
      << status.output;
  EXPECT_NE(status.output.find("-C -T ssd --no-wait /"), std::string::npos) << status.output;
  status = Tool("fsppadm", {"status", "--json", mnt_});
  EXPECT_NE(status.output.find("\"failure\": \"another fsppadm enforce is running"),
            std::string::npos)
      << status.output.substr(0, 3000);
}

}  // namespace
}  // namespace tierfs::testing
