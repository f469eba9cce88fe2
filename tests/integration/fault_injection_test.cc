// Faults injected at chosen volume I/O calls through the VolumeIo seam
// (TIERFS_FAULTS, fs/volume/fault_injecting_volume_io.h): ENOSPC, EIO, short writes and
// a stop at every step of writes, fsyncs and relocations. Also a write racing a
// relocation (defect 4) and the errno of a failed copy (defect 7). And
// stat, statfs and readdir failing (EIO) in `tierfs check`, in the crash recovery
// of a mount, and in live operations.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

constexpr size_t kMiB = 1 << 20;

std::string Policy(const std::string& create, const std::string& relocate_to) {
  std::string xml = R"(<?xml version="1.0"?>
<PLACEMENT_POLICY Version="5.1" Name="p">
  <RULE Flags="data" Name="all"><SELECT><PATTERN>*</PATTERN></SELECT>
    <CREATE><ON>)" + create + R"(</ON></CREATE>)";
  if (!relocate_to.empty()) {
    xml += "<RELOCATE><TO><DESTINATION><CLASS>" + relocate_to +
           "</CLASS></DESTINATION></TO></RELOCATE>";
  }
  return xml + "</RULE>\n</PLACEMENT_POLICY>\n";
}
const std::string kSsdThenHdd = Policy(
    "<DESTINATION><CLASS>ssd</CLASS></DESTINATION><DESTINATION><CLASS>hdd</CLASS></DESTINATION>",
    "");

class FaultInjectionTest : public TierfsFixture {
 protected:
  // The daemon's data path: fault plans on the daemon's volume I/O (TIERFS_FAULTS), which
  // passthrough
  // I/O never passes, and ENOSPC moves and relocations of open files.
  std::vector<std::string> FixtureMountArgs() const override { return {"--passthrough=off"}; }

 protected:
  // Mounts again with `spec` in the daemon's TIERFS_FAULTS (and `args`).
  void MountWithFaults(const std::string& spec, const std::vector<std::string>& args = {}) {
    Unmount();
    setenv("TIERFS_FAULTS", spec.c_str(), 1);
    Mount(args);
    unsetenv("TIERFS_FAULTS");
  }
  // Runs the tierfs binary as Mount() does, with `spec` in TIERFS_FAULTS, and
  // returns how it went (a mount may fail here).
  CommandResult TryMountWithFaults(const std::string& spec) {
    setenv("TIERFS_FAULTS", spec.c_str(), 1);
    CommandResult r = RunCommand({testing::Tool("tierfs"), ssd_, mnt_}, 60);
    unsetenv("TIERFS_FAULTS");
    mounted_ = r.exit_code == 0;
    return r;
  }
  // `tierfs check ARGS` with `spec` in TIERFS_FAULTS.
  CommandResult CheckWithFaults(const std::string& spec, std::vector<std::string> args) {
    setenv("TIERFS_FAULTS", spec.c_str(), 1);
    args.insert(args.begin(), "check");
    CommandResult r = Tool("tierfs", args);
    unsetenv("TIERFS_FAULTS");
    return r;
  }
  // Contents of every object on both volumes: what the user stored.
  std::map<std::string, std::string> Volumes() {
    std::map<std::string, std::string> out;
    for (const std::string& v : {ssd_, hdd_}) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(v + "/.tierfs/objects")) {
        if (!e.is_regular_file()) continue;
        out[e.path().string()] = ReadFile(e.path().string());
      }
    }
    return out;
  }
  // Files "s" on the ssd and "h" on the hdd, fsynced.
  void FilesOnBothVolumes() {
    AssignPolicy(Policy("<DESTINATION><CLASS>ssd</CLASS></DESTINATION>", ""));
    WriteFileSynced(Path("s"), "on the ssd");
    AssignPolicy(Policy("<DESTINATION><CLASS>hdd</CLASS></DESTINATION>", ""));
    WriteFileSynced(Path("h"), "on the hdd");
    FsyncDir(mnt_);
    ASSERT_EQ(ClassOf("s"), "ssd");
    ASSERT_EQ(ClassOf("h"), "hdd");
  }
  size_t Objects(const std::string& volume) {
    size_t n = 0;
    for (auto& e : std::filesystem::recursive_directory_iterator(volume + "/.tierfs")) {
      const std::string p = e.path().string();
      if (e.is_regular_file() && (p.starts_with(volume + "/.tierfs/objects/") ||
                                  p.starts_with(volume + "/.tierfs/tmp/"))) {
        n++;
      }
    }
    return n;
  }
};

TEST_F(FaultInjectionTest, EnospcOnTheSsdMovesTheWriteToHdd) {
  AssignPolicy(kSsdThenHdd);
  MountWithFaults("write:/ssd/@1+=ENOSPC");
  const std::string data = RandomBytes(3 * kMiB, 1);
  WriteFile(Path("f"), data);
  EXPECT_EQ(ClassOf("f"), "hdd");
  EXPECT_TRUE(ReadFile(Path("f")) == data) << "contents differ";
  Remount();
  EXPECT_TRUE(ReadFile(Path("f")) == data) << "contents differ";
  EXPECT_EQ(Objects(ssd_), 0u) << "the first object stays behind on the ssd";
}

TEST_F(FaultInjectionTest, ShortWritesAreCompleted) {
  MountWithFaults("write@1+=short");
  const std::string data = RandomBytes(kMiB + 12345, 2);
  WriteFile(Path("f"), data);
  EXPECT_TRUE(ReadFile(Path("f")) == data) << "contents differ";
}

// A volume whose file system refuses an O_DIRECT write (EINVAL): the write and
// the file's later ones go through the page cache, none lost or repeated.
TEST_F(FaultInjectionTest, AVolumeRefusingODirectGetsWritesThroughThePageCache) {
  // The first write call is the file's first WRITE: a MiB of whole pages, direct.
  MountWithFaults("write@1=EINVAL");
  const std::string data = RandomBytes(3 * kMiB + 4321, 7);
  WriteFile(Path("f"), data);
  EXPECT_TRUE(ReadFile(Path("f")) == data) << "contents differ";
  Remount();
  EXPECT_TRUE(ReadFile(Path("f")) == data) << "contents differ";
}

TEST_F(FaultInjectionTest, FsyncErrorReachesTheApplication) {
  MountWithFaults("fsync:/.tierfs/objects/@1=EIO");
  int fd = open(Path("f").c_str(), O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "x", 1), 1);
  errno = 0;
  EXPECT_EQ(fsync(fd), -1);
  EXPECT_EQ(errno, EIO);
  EXPECT_EQ(fsync(fd), 0);  // only the first one failed
  close(fd);
}

TEST_F(FaultInjectionTest, FailedCopyLeavesTheFileWholeAndIsRetried) {
  AssignPolicy(Policy("<DESTINATION><CLASS>ssd</CLASS></DESTINATION>", "hdd"));
  const std::string data = RandomBytes(2 * kMiB, 3);
  WriteFile(Path("f"), data);
  // Every copy step toward hdd fails: copy_file_range and the pread/pwrite fallback.
  MountWithFaults("copy:/hdd/@1+=EIO,write:/hdd/@1+=EIO");
  CommandResult r = Tool("fsppadm", {"enforce", mnt_});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("Input/output error"), std::string::npos) << r.output;
  EXPECT_EQ(ClassOf("f"), "ssd");
  EXPECT_TRUE(ReadFile(Path("f")) == data) << "contents differ";
  EXPECT_EQ(Objects(hdd_), 0u) << "the failed copy was left behind";
  Remount();
  r = Tool("fsppadm", {"enforce", mnt_});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(ClassOf("f"), "hdd");
  EXPECT_TRUE(ReadFile(Path("f")) == data) << "contents differ";
}

TEST_F(FaultInjectionTest, EnospcDuringACopyIsReportedAsNospace) {
  AssignPolicy(Policy("<DESTINATION><CLASS>ssd</CLASS></DESTINATION>", "hdd"));
  const std::string data = RandomBytes(kMiB, 4);
  WriteFile(Path("f"), data);
  // copy_file_range cannot cross the volumes (EXDEV), and the fallback's writes
  // meet a full disk: the report must say so ("nospace", which like a full
  // volume seen by the plan is no error: the next enforce retries), not
  // "Invalid cross-device link"; the daemon's log has the volume's words.
  MountWithFaults("copy@1+=EXDEV,write:/hdd/@1+=ENOSPC");
  CommandResult r = Tool("fsppadm", {"enforce", mnt_});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("nospace"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("error 0, gone 0, nospace 1"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("cross-device"), std::string::npos) << r.output;
  EXPECT_NE(DaemonLog().find("No space left on device"), std::string::npos);
  EXPECT_EQ(ClassOf("f"), "ssd");
  EXPECT_TRUE(ReadFile(Path("f")) == data) << "contents differ";
}

TEST_F(FaultInjectionTest, StopAtEachRelocationStepLeavesTheFileWholeAtOneLocation) {
  AssignPolicy(Policy("<DESTINATION><CLASS>ssd</CLASS></DESTINATION>", "hdd"));
  const std::string data = RandomBytes(kMiB, 5);
  WriteFile(Path("f"), data);
  // The relocation's steps in order: create the copy (open in tmp/), copy, fsync it,
  // rename it into objects/, dup2 (no open handle here: skipped), unlink the source.
  for (const std::string spec :
       {"open:/hdd/.tierfs/tmp@1=stop", "copy:/hdd/@1=stop", "fsync:/hdd/.tierfs/tmp@1=stop",
        "rename:/hdd/.tierfs/objects@1=stop", "unlink:/ssd/.tierfs/objects@1=stop"}) {
    SCOPED_TRACE(spec);
    MountWithFaults(spec);
    Tool("fsppadm", {"enforce", mnt_});  // the daemon dies in the middle
    Unmount();
    Mount();
    EXPECT_TRUE(ReadFile(Path("f")) == data) << "contents differ";
    EXPECT_EQ(Objects(ssd_) + Objects(hdd_), 1u) << "exactly one object after the next mount";
    if (ClassOf("f") == "hdd") {
      // Moved before the stop: move it back for the next step.
      AssignPolicy(Policy("<DESTINATION><CLASS>ssd</CLASS></DESTINATION>", "ssd"));
      ASSERT_EQ(Tool("fsppadm", {"enforce", mnt_}).exit_code, 0);
      AssignPolicy(Policy("<DESTINATION><CLASS>ssd</CLASS></DESTINATION>", "hdd"));
    }
  }
}

// A writer doing 4 KiB pwrites while enforce moves its 64 MiB file: every move is
// "moved" or "busy" (retried later), never an error, and no write is lost.
TEST_F(FaultInjectionTest, WritesDuringARelocationMakeItBusyNeverAnError) {
  AssignPolicy(Policy("<DESTINATION><CLASS>ssd</CLASS></DESTINATION>", "hdd"));
  std::string model = RandomBytes(64 * kMiB, 6);
  WriteFile(Path("f"), model);
  int fd = open(Path("f").c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  std::atomic<bool> stop{false};
  std::atomic<int> write_errors{0};
  std::thread writer([&] {
    std::mt19937 rng(7);
    while (!stop.load()) {
      const off_t block = static_cast<off_t>(rng() % (64 * kMiB / 4096));
      char buf[4096];
      for (char& c : buf) c = static_cast<char>(rng());
      if (pwrite(fd, buf, sizeof buf, block * 4096) != sizeof buf) write_errors++;
      std::memcpy(model.data() + block * 4096, buf, sizeof buf);
    }
  });
  for (int round = 0; round < 3; ++round) {
    const std::string to = round % 2 == 0 ? "hdd" : "ssd";
    AssignPolicy(Policy("<DESTINATION><CLASS>ssd</CLASS></DESTINATION>", to));
    CommandResult r = Tool("fsppadm", {"enforce", mnt_});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("error 0,"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("error:"), std::string::npos) << r.output;
  }
  stop = true;
  writer.join();
  // Quiet now: the move goes through, with every write in the moved copy.
  AssignPolicy(Policy("<DESTINATION><CLASS>ssd</CLASS></DESTINATION>", "hdd"));
  CommandResult r = Tool("fsppadm", {"enforce", mnt_});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(ClassOf("f"), "hdd");
  close(fd);
  EXPECT_EQ(write_errors.load(), 0);
  EXPECT_TRUE(ReadFile(Path("f")) == model) << "a write was lost across the moves";
  Remount();
  EXPECT_TRUE(ReadFile(Path("f")) == model) << "a write was lost across the moves";
}

constexpr int kCheckError = 8;  // `tierfs check`: the check could not run (over everything)

// An unmounted `tierfs check --repair` whose listings or stats of the hdd's
// objects fail: it says which directory it could not read and why, exits 8,
// and changes nothing on either volume; without the fault, all is clean.
TEST_F(FaultInjectionTest, CheckReportsAnUnreadableVolumeAndRepairsNothing) {
  FilesOnBothVolumes();
  Unmount();
  const auto before = Volumes();
  for (const std::string spec : {"readdir:/hdd/.tierfs/objects/@1+=EIO",
                                 "readdir:/hdd/.tierfs/objects@1+=EIO",
                                 "stat:/hdd/.tierfs/objects/@1+=EIO"}) {
    SCOPED_TRACE(spec);
    CommandResult r = CheckWithFaults(spec, {"--repair", ssd_});
    EXPECT_EQ(r.exit_code, kCheckError) << r.output;
    EXPECT_NE(r.output.find("error unreadable: volume vol2"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(hdd_ + "/.tierfs/objects"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("Input/output error"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("-> repaired"), std::string::npos) << r.output;
    EXPECT_TRUE(Volumes() == before) << "the check changed the volumes";
  }
  CommandResult clean = Tool("tierfs", {"check", ssd_});
  EXPECT_EQ(clean.exit_code, 0) << clean.output;
  Mount();
  EXPECT_EQ(ReadFile(Path("s")), "on the ssd");
  EXPECT_EQ(ReadFile(Path("h")), "on the hdd");
}

// The same through a mounted file system: its daemon's own reads fail, and the
// live check says so (exit 8) while every file stays readable.
TEST_F(FaultInjectionTest, LiveCheckReportsAnUnreadableVolume) {
  FilesOnBothVolumes();
  MountWithFaults("readdir:/hdd/.tierfs/objects/@1+=EIO");
  CommandResult r = Tool("tierfs", {"check", mnt_});
  EXPECT_EQ(r.exit_code, kCheckError) << r.output;
  EXPECT_NE(r.output.find("error unreadable: volume vol2"), std::string::npos) << r.output;
  EXPECT_EQ(ReadFile(Path("s")), "on the ssd");
  EXPECT_EQ(ReadFile(Path("h")), "on the hdd");
}

// After a crash, the mount's recovery stats every object to trim what was never
// acknowledged. When the hdd cannot stat one, the mount fails naming the volume
// and the error, having changed nothing; the next mount recovers and serves every
// file whole.
TEST_F(FaultInjectionTest, CrashRecoveryThatCannotStatAnObjectRefusesTheMount) {
  FilesOnBothVolumes();
  CrashDaemon();
  const auto before = Volumes();
  CommandResult r = TryMountWithFaults("stat:/hdd/.tierfs/objects/@1+=EIO");
  ASSERT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("crash recovery: volume vol2"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Input/output error"), std::string::npos) << r.output;
  EXPECT_TRUE(Volumes() == before) << "the failed recovery changed the volumes";
  Mount();
  EXPECT_EQ(ReadFile(Path("s")), "on the ssd");
  EXPECT_EQ(ReadFile(Path("h")), "on the hdd");
}

// When it cannot list an objects directory, the recovery's orphan walk goes on
// (what it would remove is garbage, never a file's bytes): the mount succeeds, the
// daemon's log names the directory, the orphan there stays for `tierfs check`,
// and every file is whole.
TEST_F(FaultInjectionTest, CrashRecoveryThatCannotListObjectsMountsAndKeepsThem) {
  FilesOnBothVolumes();
  CrashDaemon();
  const std::string orphan_dir = hdd_ + "/.tierfs/objects/3f";  // 999999 % 256 = 0x3f
  std::filesystem::create_directories(orphan_dir);
  WriteFile(orphan_dir + "/999999.1", "no inode has me");
  CommandResult r = TryMountWithFaults("readdir:/hdd/.tierfs/objects/@1+=EIO");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(ReadFile(Path("s")), "on the ssd");
  EXPECT_EQ(ReadFile(Path("h")), "on the hdd");
  EXPECT_TRUE(std::filesystem::exists(orphan_dir + "/999999.1")) << "removed unseen";
  const std::string log = ReadFile(ssd_ + "/.tierfs/tierfs.log");
  EXPECT_NE(log.find("crash recovery: volume vol2: cannot read " + hdd_ + "/.tierfs/objects/"),
            std::string::npos)
      << log;
}

// statfs(2) of the mount while the hdd cannot say its size: EIO, not a number
// that leaves the hdd out; reads and writes go on, and an enforce that would move
// a file to that hdd leaves it whole.
TEST_F(FaultInjectionTest, StatfsOfAVolumeFailingIsEioAndNothingElseBreaks) {
  AssignPolicy(Policy("<DESTINATION><CLASS>ssd</CLASS></DESTINATION>", ""));
  const std::string data = RandomBytes(kMiB, 9);
  WriteFile(Path("f"), data);
  MountWithFaults("statfs:/hdd@1+=EIO");
  struct statvfs st;
  errno = 0;
  EXPECT_EQ(statvfs(mnt_.c_str(), &st), -1);
  EXPECT_EQ(errno, EIO);
  WriteFile(Path("g"), "written meanwhile");
  EXPECT_EQ(ReadFile(Path("g")), "written meanwhile");
  AssignPolicy(Policy("<DESTINATION><CLASS>ssd</CLASS></DESTINATION>", "hdd"));
  CommandResult r = Tool("fsppadm", {"enforce", mnt_});
  EXPECT_NE(r.exit_code, -1) << r.output;
  EXPECT_TRUE(ReadFile(Path("f")) == data) << "contents differ";
  Remount();
  EXPECT_EQ(statvfs(mnt_.c_str(), &st), 0);
  EXPECT_TRUE(ReadFile(Path("f")) == data) << "contents differ";
}

// The database volume (the seam reaches the metadata layer: docs/reliability.md
// "Testing by injecting faults").
// An I/O error growing the database's reserve at mount refuses the mount (the
// volume that holds the database fails its I/O: meta/space_reserve.h); nothing
// the user stored changes, and the next mount serves every file.
TEST_F(FaultInjectionTest, EioOnTheDatabaseReserveRefusesTheMount) {
  WriteFile(Path("kept"), "stored before");
  Unmount();
  ::unlink((ssd_ + "/.tierfs/meta.reserve").c_str());  // so the mount must grow it
  const auto before = Volumes();
  CommandResult r = TryMountWithFaults("fallocate:meta.reserve@1+=EIO");
  ASSERT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("grow reserve"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Input/output error"), std::string::npos) << r.output;
  EXPECT_TRUE(Volumes() == before) << "the refused mount changed the volumes";
  Mount();
  EXPECT_EQ(ReadFile(Path("kept")), "stored before");
}

// The database volume (the seam reaches the metadata layer: docs/reliability.md
// "Testing by injecting faults"). Creates files f0, f1... ("file fN" in each) in
// the mounted directory `mnt`, fsyncing each, until a create or an fsync fails
// (at most 1000): the names fsynced, and the errno of the failure (0: none).
std::pair<std::vector<std::string>, int> CreateSyncedFilesUntilRefused(const std::string& mnt) {
  std::vector<std::string> synced;
  for (int i = 0; i < 1000; ++i) {
    const std::string name = "f" + std::to_string(i);
    const int fd = open((mnt + "/" + name).c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) return {synced, errno};
    const std::string data = "file " + name;
    errno = 0;
    const bool wrote = write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size());
    const int rc = wrote ? fsync(fd) : -1;
    const int err = errno;
    close(fd);
    if (rc != 0) return {synced, err};
    synced.push_back(name);
  }
  return {synced, 0};
}

// The mount's own commits take a few dozen WAL writes at most; the creates
// reach the 150th within some dozens of files.
constexpr char kWalFullLater[] = "db-write:meta.db-wal@150+=ENOSPC";

// Whether a create of a new file in `mnt` is refused now (EIO or ENOSPC).
bool CreatesAreRefused(const std::string& mnt) {
  const int fd = open((mnt + "/after").c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd >= 0) {
    close(fd);
    return false;
  }
  return errno == EIO || errno == ENOSPC;
}

// A WAL that stops taking writes: the commit that meets it (after the
// database's reserve gave all it had) loses its group, which SQLite rolls
// back: the fsync that meets it, or the next change, fails (ENOSPC or EIO),
// and from then on every change is refused (the daemon's memory no longer
// matches the database), while the daemon stays up and serves every file
// fsynced before; a remount without the fault finds each of them whole.
TEST_F(FaultInjectionTest, EnospcOnTheWalFailsTheFsyncAndLosesNothingSynced) {
  MountWithFaults(kWalFullLater);
  auto [synced, refused] = CreateSyncedFilesUntilRefused(mnt_);
  EXPECT_TRUE(refused == ENOSPC || refused == EIO)
      << strerror(refused) << " after " << synced.size() << " files";
  ASSERT_FALSE(synced.empty()) << "the fault came before any file: raise N";
  EXPECT_NE(DaemonLog().find("released"), std::string::npos)
      << "the reserve gave nothing before the ENOSPC";
  EXPECT_TRUE(CreatesAreRefused(mnt_));
  EXPECT_NE(DaemonLog().find("refuses every change until it is mounted again"),
            std::string::npos)
      << DaemonLog();
  for (const std::string& name : synced) EXPECT_EQ(ReadFile(Path(name)), "file " + name);
  Unmount();
  Mount();
  for (const std::string& name : synced) EXPECT_EQ(ReadFile(Path(name)), "file " + name);
  WriteFile(Path("after"), "a new mount takes changes again");
}

// An I/O error shortening the reserve when the WAL is full is no room: the
// commit fails as above without any slice released, and nothing fsynced
// before is lost.
TEST_F(FaultInjectionTest, EioReleasingTheReserveIsNoRoom) {
  MountWithFaults(std::string(kWalFullLater) + ",truncate:meta.reserve@1+=EIO");
  auto [synced, refused] = CreateSyncedFilesUntilRefused(mnt_);
  EXPECT_TRUE(refused == ENOSPC || refused == EIO)
      << strerror(refused) << " after " << synced.size() << " files";
  EXPECT_TRUE(CreatesAreRefused(mnt_));
  ASSERT_FALSE(synced.empty()) << "the fault came before any file: raise N";
  EXPECT_EQ(DaemonLog().find("released"), std::string::npos) << "a slice was released";
  for (const std::string& name : synced) EXPECT_EQ(ReadFile(Path(name)), "file " + name);
  Unmount();
  Mount();
  for (const std::string& name : synced) EXPECT_EQ(ReadFile(Path(name)), "file " + name);
}

}  // namespace
}  // namespace tierfs::testing
