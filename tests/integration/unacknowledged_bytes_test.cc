// Bytes that were never acknowledged never come back (defect 3): after a
// crash, an object may be longer than its file's recorded size (writes that
// reached the object but whose size never reached the database). The mount after
// the crash trims them; and should an object still be longer (here: lengthened
// behind the file system's back), reads, truncates, writes past the end and
// relocations all see only the recorded size, and extending shows zeros.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

class UnacknowledgedBytesTest : public TierfsFixture {
 protected:
  // The daemon's data path: crash recovery trims an object to its recorded size only after a mount
  // without passthrough (one with it keeps what msync may have made durable).
  std::vector<std::string> FixtureMountArgs() const override { return {"--passthrough=off"}; }

 protected:
  // Kills the daemon with SIGKILL (our own, by the pid in its lock file) and waits,
  // bounded, until it is gone.
  void CrashDaemon() {
    const pid_t pid = DaemonPid();
    ASSERT_GT(pid, 0);
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    for (int i = 0; i < 200 && kill(pid, 0) == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
  }
  // Size of the one object of inode-named file `name`'s data on any volume.
  off_t LargestObject() {
    off_t largest = -1;
    for (const std::string& vol : {ssd_, hdd_}) {
      for (auto& e : std::filesystem::recursive_directory_iterator(vol + "/.tierfs/objects")) {
        if (e.is_regular_file()) largest = std::max<off_t>(largest, e.file_size());
      }
    }
    return largest;
  }
  // Writes 100 bytes and fsyncs, then 1000 more without fsync, and crashes with the
  // file still open (so no close writes its size back).
  void WriteThenCrash(const std::string& name) {
    // A flush period longer than the test: only fsync and close write sizes.
    Unmount();
    Mount({"--writeback_seconds=3600"});
    int fd = open(Path(name).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    const std::string acked(100, 'A'), lost(1000, 'L');
    ASSERT_EQ(pwrite(fd, acked.data(), acked.size(), 0), 100);
    ASSERT_EQ(fsync(fd), 0);
    ASSERT_EQ(pwrite(fd, lost.data(), lost.size(), 100), 1000);
    CrashDaemon();
    close(fd);  // on the dead mount: ENOTCONN, nothing reaches the volume
    Unmount();  // detaches the dead mount
    Mount();
    EXPECT_EQ(LargestObject(), 100) << "crash recovery trims objects to the recorded size";
  }
  // Leaves an object longer than its file without a crash (the mount after one
  // trims them all): appends to the one object, with the file system unmounted.
  void LengthenObjectBehindTheFileSystem(const std::string& name, const std::string& tail) {
    WriteFile(Path(name), std::string(100, 'A'));
    Unmount();
    for (const std::string& vol : {ssd_, hdd_}) {
      for (auto& e : std::filesystem::recursive_directory_iterator(vol + "/.tierfs/objects")) {
        if (!e.is_regular_file()) continue;
        int fd = open(e.path().c_str(), O_WRONLY | O_APPEND);
        ASSERT_GE(fd, 0);
        ASSERT_EQ(write(fd, tail.data(), tail.size()), static_cast<ssize_t>(tail.size()));
        close(fd);
      }
    }
    Mount();
    ASSERT_EQ(LargestObject(), static_cast<off_t>(100 + tail.size()));
  }
};

TEST_F(UnacknowledgedBytesTest, TruncateUpShowsZerosNotLostBytes) {
  WriteThenCrash("f");
  struct stat st;
  ASSERT_EQ(stat(Path("f").c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 100);
  ASSERT_EQ(truncate(Path("f").c_str(), 2000), 0);
  const std::string data = ReadFile(Path("f"));
  ASSERT_EQ(data.size(), 2000u);
  EXPECT_EQ(data.substr(0, 100), std::string(100, 'A'));
  EXPECT_EQ(data.substr(100), std::string(1900, '\0'));
}

TEST_F(UnacknowledgedBytesTest, WritePastTheEndShowsZerosNotLostBytes) {
  WriteThenCrash("f");
  int fd = open(Path("f").c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(pwrite(fd, "Z", 1, 3000), 1);
  close(fd);
  const std::string data = ReadFile(Path("f"));
  ASSERT_EQ(data.size(), 3001u);
  EXPECT_EQ(data.substr(0, 100), std::string(100, 'A'));
  EXPECT_EQ(data.substr(100, 2900), std::string(2900, '\0'));
  EXPECT_EQ(data.back(), 'Z');
}

TEST_F(UnacknowledgedBytesTest, ReadSeesOnlyTheRecordedSize) {
  LengthenObjectBehindTheFileSystem("f", std::string(1000, 'L'));
  EXPECT_EQ(ReadFile(Path("f")), std::string(100, 'A'));
  EXPECT_EQ(LargestObject(), 100) << "opening the file trims its object";
}

TEST_F(UnacknowledgedBytesTest, TruncateUpOfALongObjectShowsZeros) {
  LengthenObjectBehindTheFileSystem("f", std::string(1000, 'L'));
  ASSERT_EQ(truncate(Path("f").c_str(), 1100), 0);  // by path: no open handle
  EXPECT_EQ(ReadFile(Path("f")), std::string(100, 'A') + std::string(1000, '\0'));
}

TEST_F(UnacknowledgedBytesTest, RelocationCopiesOnlyTheRecordedSize) {
  LengthenObjectBehindTheFileSystem("f", std::string(1000, 'L'));
  const std::string from = ClassOf("f");
  const std::string to = from == "ssd" ? "hdd" : "ssd";
  AssignPolicy(std::string(R"(<?xml version="1.0"?>
<PLACEMENT_POLICY Version="5.1" Name="move">
  <RULE Flags="data" Name="all"><SELECT><PATTERN>*</PATTERN></SELECT>
    <RELOCATE><TO><DESTINATION><CLASS>)") + to + R"(</CLASS></DESTINATION></TO></RELOCATE></RULE>
</PLACEMENT_POLICY>
)");
  // Moved before anything opened the file: the relocator reads the untrimmed object.
  CommandResult r = Tool("fsppadm", {"enforce", mnt_});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(ClassOf("f"), to);
  EXPECT_EQ(LargestObject(), 100);
  ASSERT_EQ(truncate(Path("f").c_str(), 1100), 0);
  EXPECT_EQ(ReadFile(Path("f")), std::string(100, 'A') + std::string(1000, '\0'));
}

}  // namespace
}  // namespace tierfs::testing
