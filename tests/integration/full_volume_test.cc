// Full volumes (defects 1 and 2; design.md "Living with full volumes"):
// a full metadata volume never wedges the file system, and a write that meets a
// full volume moves its file to the next class its CREATE rule allows and
// completes. The volumes are small tmpfs mounts, so they really fill up.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <filesystem>
#include <cstring>
#include <string>

#include "tests/integration/test_policies.h"
#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

constexpr char kSsdThenHdd[] = R"(<?xml version="1.0"?>
<PLACEMENT_POLICY Version="5.1" Name="ssd_then_hdd">
  <RULE Flags="data" Name="all"><SELECT><PATTERN>*</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>ssd</CLASS></DESTINATION>
                <DESTINATION><CLASS>hdd</CLASS></DESTINATION></ON></CREATE></RULE>
</PLACEMENT_POLICY>
)";

constexpr char kSsdOnly[] = R"(<?xml version="1.0"?>
<PLACEMENT_POLICY Version="5.1" Name="ssd_only">
  <RULE Flags="data" Name="all"><SELECT><PATTERN>*</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>ssd</CLASS></DESTINATION></ON></CREATE></RULE>
</PLACEMENT_POLICY>
)";

constexpr size_t kMiB = 1 << 20;

// Writes `data` to `path` in 1 MiB pwrites, then fsyncs. Returns the errno of the
// first failure (0 on success) and how far it got.
int WriteAndSync(const std::string& path, const std::string& data, size_t* written) {
  *written = 0;
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return errno;
  int err = 0;
  while (*written < data.size()) {
    size_t n = std::min(kMiB, data.size() - *written);
    ssize_t w = pwrite(fd, data.data() + *written, n, static_cast<off_t>(*written));
    if (w <= 0) {
      err = w < 0 ? errno : EIO;
      break;
    }
    *written += static_cast<size_t>(w);
  }
  if (err == 0 && fsync(fd) != 0) err = errno;
  if (close(fd) != 0 && err == 0) err = errno;
  return err;
}

// Fills the file system under `dir` to its last byte with a file outside tierfs
// (another user of the disk), so only the database's reserve is left.
void FillDevice(const std::string& dir) {
  const std::string filler = dir + "/other-user-of-the-disk";
  int fd = open(filler.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  ASSERT_GE(fd, 0);
  const std::string block(kMiB, 'x');
  for (int i = 0; i < 4096; ++i) {
    if (write(fd, block.data(), block.size()) < 0) break;
  }
  for (int i = 0; i < 4096; ++i) {  // the last partial blocks
    if (write(fd, block.data(), 4096) < 0) break;
  }
  close(fd);
}

class FullVolumeTest : public TierfsFixture {
 protected:
  // The daemon's data path: a write that meets a full volume moves its file
  // on (a passthrough write gets ENOSPC from the kernel instead).
  std::vector<std::string> FixtureMountArgs() const override { return {"--passthrough=off"}; }

 protected:
  // The kernel sends a close's RELEASE after close(2) returns, so an unlinked
  // file's object goes (and the volume has room again) a moment after the
  // unlink: waits, bounded (5 s), until the ssd has `bytes` available.
  void WaitForSsdRoom(uint64_t bytes) const {
    for (int i = 0; i < 100; ++i) {
      struct statvfs st;
      if (statvfs(ssd_.c_str(), &st) == 0 && uint64_t{st.f_bavail} * st.f_frsize > bytes) return;
      usleep(50 * 1000);
    }
  }
  void PrepareVolumes() override { MountScratch(ssd_, "64m"); }
};

TEST_F(FullVolumeTest, WriteMovesOnToTheNextClassAndCompletes) {
  AssignPolicy(kSsdThenHdd);
  const std::string data = RandomBytes(100 * kMiB, 1);
  size_t written = 0;
  ASSERT_EQ(WriteAndSync(Path("big"), data, &written), 0) << "after " << written << " bytes";
  EXPECT_EQ(ClassOf("big"), "hdd");
  EXPECT_TRUE(ReadFile(Path("big")) == data) << "contents differ";
  // Many small files: the ssd fills, later creates go to hdd, none fails.
  for (int i = 0; i < 80; ++i) {
    const std::string file = "small" + std::to_string(i);
    ASSERT_EQ(WriteAndSync(Path(file), RandomBytes(kMiB, 100 + i), &written), 0) << file;
  }
  int on_ssd = 0;
  for (int i = 0; i < 80; ++i) {
    const std::string file = "small" + std::to_string(i);
    EXPECT_TRUE(ReadFile(Path(file)) == RandomBytes(kMiB, 100 + i)) << file;
    on_ssd += ClassOf(file) == "ssd";
  }
  EXPECT_GT(on_ssd, 10);  // the ssd took what fit
  EXPECT_LT(on_ssd, 64);
  Remount();
  EXPECT_TRUE(ReadFile(Path("big")) == data) << "contents differ";
}

TEST_F(FullVolumeTest, EveryOperationWorksWhenTheMetadataVolumeIsFull) {
  AssignPolicy(kSsdThenHdd);
  ASSERT_EQ(mkdir(Path("dir").c_str(), 0755), 0);
  for (int i = 0; i < 20; ++i) WriteFile(Path("dir/f" + std::to_string(i)), RandomBytes(4096, i));
  FillDevice(ssd_);
  struct statvfs st;
  ASSERT_EQ(statvfs(ssd_.c_str(), &st), 0);
  EXPECT_LT(uint64_t{st.f_bavail} * st.f_frsize, 64 * 1024u) << "the ssd volume should be full";

  // Namespace changes, each one a database commit.
  EXPECT_EQ(unlink(Path("dir/f0").c_str()), 0) << strerror(errno);
  EXPECT_EQ(mkdir(Path("newdir").c_str(), 0755), 0) << strerror(errno);
  EXPECT_EQ(rename(Path("dir/f1").c_str(), Path("newdir/f1").c_str()), 0) << strerror(errno);
  EXPECT_EQ(chmod(Path("dir/f2").c_str(), 0600), 0) << strerror(errno);
  EXPECT_EQ(setxattr(Path("dir/f3").c_str(), "user.k", "v", 1, 0), 0) << strerror(errno);
  EXPECT_EQ(utimensat(AT_FDCWD, Path("dir/f4").c_str(), nullptr, 0), 0) << strerror(errno);
  EXPECT_TRUE(ReadFile(Path("dir/f5")) == RandomBytes(4096, 5)) << "contents differ";
  // New data lands on hdd and reads back.
  size_t written = 0;
  EXPECT_EQ(WriteAndSync(Path("after"), RandomBytes(2 * kMiB, 7), &written), 0);
  EXPECT_EQ(ClassOf("after"), "hdd");
  // The administrative commands that free space.
  CommandResult r = Tool("fcladm", {"sync", mnt_});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const std::string policy = root_ + "/p.xml";
  WriteFile(policy, kSsdThenHdd);
  r = Tool("fsppadm", {"assign", mnt_, policy});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = Tool("fsppadm", {"enforce", mnt_});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = Tool("fsppadm", {"status", mnt_});
  EXPECT_EQ(r.exit_code, 0) << r.output;

  // A clean unmount and a mount again, still full: deletes still work.
  Remount();
  EXPECT_EQ(unlink(Path("dir/f6").c_str()), 0) << strerror(errno);
  EXPECT_EQ(rmdir(Path("newdir").c_str()), -1);  // not empty: the right error, not ENOSPC
  EXPECT_EQ(errno, ENOTEMPTY);
  EXPECT_EQ(unlink(Path("newdir/f1").c_str()), 0) << strerror(errno);
  EXPECT_EQ(rmdir(Path("newdir").c_str()), 0) << strerror(errno);
  EXPECT_TRUE(ReadFile(Path("after")) == RandomBytes(2 * kMiB, 7)) << "contents differ";

  // Room again: the reserve grows back and the ssd takes data once more.
  std::filesystem::remove(ssd_ + "/other-user-of-the-disk");
  Remount();
  EXPECT_EQ(WriteAndSync(Path("later"), RandomBytes(kMiB, 8), &written), 0);
  EXPECT_EQ(ClassOf("later"), "ssd");
}

TEST_F(FullVolumeTest, WriterGetsEnospcOnlyWhenEveryAllowedVolumeIsFull) {
  // ENOSPC at write(2) needs every write to reach the daemon: without the
  // writeback cache (with it, see WithWritebackCacheEnospcShowsAtFsync).
  Unmount();
  Mount({"--writeback_cache=false"});
  AssignPolicy(kSsdOnly);  // no other class allowed
  const std::string data = RandomBytes(100 * kMiB, 3);
  size_t written = 0;
  EXPECT_EQ(WriteAndSync(Path("big"), data, &written), ENOSPC);
  EXPECT_GT(written, 10 * kMiB);
  EXPECT_LT(written, 64 * kMiB);
  // What was acknowledged reads back; nothing else is there.
  struct stat st;
  ASSERT_EQ(stat(Path("big").c_str(), &st), 0);
  EXPECT_EQ(static_cast<size_t>(st.st_size), written);
  EXPECT_TRUE(ReadFile(Path("big")) == data.substr(0, written)) << "contents differ";
  // Deleting it frees the room, and the database is fine.
  EXPECT_EQ(unlink(Path("big").c_str()), 0) << strerror(errno);
  WaitForSsdRoom(16 * kMiB);
  EXPECT_EQ(WriteAndSync(Path("small"), RandomBytes(kMiB, 4), &written), 0);
  Remount();
  EXPECT_TRUE(ReadFile(Path("small")) == RandomBytes(kMiB, 4)) << "contents differ";
}

// With the writeback cache the kernel accepts the bytes into its page cache, so
// the error shows at fsync (or close) instead of write(2); nothing acknowledged
// by an earlier fsync is lost, and the volume is usable again after an unlink.
TEST_F(FullVolumeTest, WithWritebackCacheEnospcShowsAtFsync) {
  Unmount();
  Mount({"--writeback_cache"});
  AssignPolicy(kSsdOnly);
  const std::string first = RandomBytes(8 * kMiB, 5);
  size_t written = 0;
  ASSERT_EQ(WriteAndSync(Path("first"), first, &written), 0);  // acknowledged by fsync
  const std::string data = RandomBytes(100 * kMiB, 3);
  int fd = open(Path("big").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  int write_err = 0;
  for (size_t done = 0; done < data.size(); done += kMiB) {
    if (pwrite(fd, data.data() + done, kMiB, static_cast<off_t>(done)) < 0) {
      write_err = errno;
      break;
    }
  }
  const int fsync_rc = fsync(fd);
  const int fsync_err = errno;
  const int close_rc = close(fd);
  // The error shows at write (page cache full of dirty pages, rare), fsync or close.
  EXPECT_TRUE(write_err == ENOSPC || (fsync_rc != 0 && fsync_err == ENOSPC) || close_rc != 0)
      << "write " << write_err << " fsync " << fsync_rc << "/" << fsync_err << " close "
      << close_rc;
  EXPECT_TRUE(ReadFile(Path("first")) == first) << "fsynced file damaged";
  EXPECT_EQ(unlink(Path("big").c_str()), 0) << strerror(errno);
  WaitForSsdRoom(16 * kMiB);
  EXPECT_EQ(WriteAndSync(Path("small"), RandomBytes(kMiB, 4), &written), 0);
  CrashDaemon();  // everything fsynced survives kill -9
  Mount({"--writeback_cache"});
  EXPECT_TRUE(ReadFile(Path("first")) == first) << "fsynced file lost";
  EXPECT_TRUE(ReadFile(Path("small")) == RandomBytes(kMiB, 4)) << "fsynced file lost";
}

// The other volume full in turn: a data-only volume fills and the write moves
// to the metadata volume's class, which has room.
class FullDataVolumeTest : public TierfsFixture {
 protected:
  // The daemon's data path: a write that meets a full volume moves its file
  // on (a passthrough write gets ENOSPC from the kernel instead).
  std::vector<std::string> FixtureMountArgs() const override { return {"--passthrough=off"}; }

 protected:
  void PrepareVolumes() override { MountScratch(hdd_, "64m"); }
};

TEST_F(FullDataVolumeTest, WriteMovesOnToTheNextClassAndCompletes) {
  AssignPolicy(kHddThenSsdPolicy);
  const std::string data = RandomBytes(100 * kMiB, 9);
  size_t written = 0;
  ASSERT_EQ(WriteAndSync(Path("big"), data, &written), 0) << "after " << written << " bytes";
  EXPECT_EQ(ClassOf("big"), "ssd");
  EXPECT_TRUE(ReadFile(Path("big")) == data) << "contents differ";
  CommandResult r = Tool("fsppadm", {"status", mnt_});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  Remount();
  EXPECT_TRUE(ReadFile(Path("big")) == data) << "contents differ";
}

}  // namespace
}  // namespace tierfs::testing
