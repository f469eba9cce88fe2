// TierfsFixture: a real tierfs mounted in a temporary directory for one test.
//
// SetUp makes <tmp>/ssd, <tmp>/hdd and <tmp>/mnt, runs the real `mkdstfs` with
// explicit classes (one disk looks alike to discovery), and so mounts the file
// system with mkdstfs's default policy (with CommonMountArgs() set, mkdstfs
// only creates it and Mount() mounts it with them, like every later mount).
// TearDown always unmounts (fusermount3 -u, bounded retries, lazy unmount as the
// last resort), waits for the daemon to finish, and removes the directory.
// Every wait is bounded; only processes the fixture started are ever signalled.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "tests/support/run_command.h"

namespace tierfs::testing {

// The options every mount of this run gets before a test's own: the words of
// $TIERFS_TEST_MOUNT_ARGS (split at spaces; none when unset or empty).
// tests/CMakeLists.txt runs suites again with "--passthrough=rw" this way.
std::vector<std::string> CommonMountArgs();

// Path of a built tool, e.g. Tool("fsppadm").
std::string Tool(const std::string& name);

// Reads a whole file; fails the test (and returns "") on error.
std::string ReadFile(const std::string& path);
// Reads a whole file with O_DIRECT, in reads of up to 1 MiB that each reach the
// daemon (not the page cache): what the daemon counts as read, or serves over a
// transport under test. Fails the test on error (returns what was read).
std::string ReadFileDirect(const std::string& path);
// Writes a whole file (O_CREAT|O_TRUNC); fails the test on error.
void WriteFile(const std::string& path, const std::string& data);
// Writes a whole file and fsyncs it before the close: its bytes and size survive
// a kill -9 of the daemon. Fails the test on error.
void WriteFileSynced(const std::string& path, const std::string& data);
// fsync(2) of a directory: on tierfs an fsyncdir, which commits every namespace
// change acknowledged so far (group commit, docs/design.md), so they survive a
// kill -9 of the daemon. Not the sizes of files closed just before it: the
// kernel sends RELEASE, which writes a closed file's size back, after close(2)
// returns, and it may reach the daemon after the fsyncdir (POSIX promises a
// file's data only at an fsync of the file). Fails the test on error.
void FsyncDir(const std::string& path);
// Drops the clean page cache of every regular file under `dir` (its objects,
// when `dir` is a volume) with POSIX_FADV_DONTNEED, so that the next read of
// them reaches the device: heat counts only bytes that reach a volume, and
// the page-cache counter of passthrough opens sees only those. Written bytes
// must have been synced first (dirty pages stay). Fails the test on error.
void DropPageCacheUnder(const std::string& dir);
// "" when `got` equals `want`, else "size G want W first-diff D": a mismatch of
// large binary contents said in one line.
std::string Difference(const std::string& got, const std::string& want);
// Deterministic pseudo-random bytes.
std::string RandomBytes(size_t n, uint32_t seed);

class TierfsFixture : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Unmounts and waits for the daemon to exit (bounded). Safe to call twice.
  // Fails the test when the mount had passthrough and the daemon's log says it
  // turned it off meanwhile (a backing file the kernel refused).
  void Unmount();
  // Mounts the existing file system (again) with the tierfs binary: the options
  // of CommonMountArgs(), then `extra_args`. When they ask for --passthrough=ro
  // or rw, waits (up to 5 s) for the daemon's log to say whether it took it and
  // sets passthrough_ (and passthrough_off_reason_); SetUp skips the test when
  // CommonMountArgs() ask for passthrough and the daemon left it off.
  void Mount(const std::vector<std::string>& extra_args = {});
  // The daemon's log (<ssd>/.tierfs/tierfs.log) as it is now; "" when absent.
  std::string DaemonLog() const;
  // Unmounts and mounts again with the options of the last Mount() (none after SetUp).
  void Remount() {
    Unmount();
    Mount(mount_args_);
  }
  // Called by SetUp once the directories exist, before mkdstfs: a test may mount
  // small file systems on ssd_ or hdd_ (MountScratch) to make them fill up or vanish.
  virtual void PrepareVolumes() {}
  // Options every mount of this fixture gets, after CommonMountArgs() and
  // before a Mount()'s own: {"--passthrough=off"} for tests that need the
  // daemon's data path (fault plans on volume I/O, exact counts of what the
  // daemon serves), since the default (auto) passes opens through where it can.
  // With any, SetUp creates the file system without mounting and Mount()s it.
  virtual std::vector<std::string> FixtureMountArgs() const { return {}; }
  // Extra options SetUp passes to mkdstfs before its operands ({"--heat-bucket", "60"}).
  virtual std::vector<std::string> MkdstfsOptions() const { return {}; }
  // Mounts a tmpfs of `size` ("64m") on `dir`, or with `size` empty bind-mounts
  // `source` there; TearDown unmounts each (lazily if busy) after the file system.
  void MountScratch(const std::string& dir, const std::string& size,
                    const std::string& source = "");
  // The daemon's process id (from its lock file), or -1.
  pid_t DaemonPid() const;
  // kill -9 of this fixture's daemon (by its pid), waits (bounded) until it is
  // gone, and detaches the dead mount; Mount() serves the file system again.
  void CrashDaemon();
  // SIGTERM to this fixture's daemon (by its pid), as systemd stops it, and waits
  // (bounded) until it has finished its stop and exited; Mount() serves the file
  // system again.
  void StopDaemon();
  // Absolute path inside the mount.
  std::string Path(const std::string& relative) const { return mnt_ + "/" + relative; }
  // Runs a tool from the build with arguments.
  CommandResult Tool(const std::string& name, const std::vector<std::string>& args,
                     int timeout_seconds = 120);
  // Writes `xml` to a file and assigns it with fsppadm; asserts success.
  void AssignPolicy(const std::string& xml);
  // The class fsmap reports for a file in the mount ("ssd", "hdd"...).
  std::string ClassOf(const std::string& relative);
  // Runs fsppadm enforce (each run must exit 0) until file `relative` is in
  // class `cls`, at most `attempts` times with `pause_ms` between them (for a
  // RELEASE that trails close(2), heat the kernel counts within a second, a
  // mapping that keeps its file busy). Whether the file got there.
  bool EnforceUntilClass(const std::string& relative, const std::string& cls, int attempts,
                         int pause_ms = 100);

  std::string root_, ssd_, hdd_, mnt_;
  bool mounted_ = false;
  std::vector<std::string> mount_args_;  // of the last Mount(), for Remount()
  // Whether the last Mount() asked for passthrough and the daemon's INIT took it;
  // if it asked and the daemon left it off, the log line that says why.
  bool passthrough_ = false;
  std::string passthrough_off_reason_;
  size_t log_at_mount_ = 0;  // the daemon log's size before the last Mount()
  // Set by SetUp when CommonMountArgs() asked for passthrough and the daemon
  // took it: a later mount asking for it that leaves it off fails the test.
  bool require_passthrough_ = false;
  std::vector<std::string> scratch_mounts_;  // MountScratch's, unmounted in TearDown
};

}  // namespace tierfs::testing
