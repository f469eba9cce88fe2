// Faults of the store while files move or are read through the mount,
// against the real gateway of this binary's Ceph cluster,
// each driven by the real commands:
//  - the gateway killed in the middle of a multipart upload by `fsppadm
//    enforce`: enforce ends within a bound reporting the file not moved, the
//    file reads whole from its local class, the next enforce (gateway back)
//    moves it, and `tierfs check --repair` leaves no upload in progress and no
//    orphan;
//  - the gateway killed in the middle of a recall, by enforce and by a write:
//    the file stays whole on the store, nothing is left in the local volume's
//    tmp/, an open for writing (which recalls the file first) fails with EIO
//    within a bound, and writes work once the gateway is back;
//  - the gateway killed in the middle of a sequential read of a file on the
//    store: read(2) fails with EIO within a bound, the mount stays usable, and
//    the file reads whole once the gateway is back;
//  - a bucket quota smaller than the files to move: those that fit move, the
//    others stay whole locally reported "nospace" (not an error), and nothing
//    is left orphaned.
// Every wait is bounded; the fixture starts the gateway again and unmounts.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/integration/test_policies.h"
#include "tests/store/object_volume_fixture.h"

namespace tierfs::testing {
namespace {

// The size of the files whose transfer is cut: large enough that a transfer
// over loopback takes well over a second (multipart for an upload: above the
// 64 MiB threshold), so that the test sees it under way and stops the gateway
// before it ends.
constexpr size_t kLargeBytes = 320 * kMiB;

class StoreFaultTest : public ObjectVolumeTest {
 protected:
  // The daemon's data path: the cut recalls below are timed against the
  // no-open mode's requests (a write reaching the daemon, the recall at the
  // fsync), and a local file open by passthrough is busy for the relocator.
  std::vector<std::string> FixtureMountArgs() const override { return {"--passthrough=off"}; }
  // The outcome enforce's --json result gives the file at `path` (relative to
  // the mount), "" when no row names it.
  static std::string OutcomeOf(const nlohmann::json& result, const std::string& path) {
    if (!result.is_object() || !result.contains("rows")) return "";
    for (const auto& row : result["rows"]) {
      if (row.value("path", "") == "/" + path) return row.value("outcome", "");
    }
    return "";
  }

  // fsppadm enforce --json on a thread, timed; Wait() joins it.
  struct Background {
    std::thread thread;
    CommandResult result;
    double seconds = 0;
    std::atomic<bool> done{false};
    void Wait() {
      if (thread.joinable()) thread.join();
    }
  };
  void StartEnforce(Background* bg) {
    bg->thread = std::thread([this, bg] {
      const auto start = Clock::now();
      bg->result = Tool("fsppadm", {"enforce", "--json", mnt_}, 240);
      bg->seconds = SecondsSince(start);
      bg->done = true;
    });
  }

  // Polls (every millisecond, at most `seconds`) until `ready` holds or `done` is set;
  // whether `ready` held.
  template <typename Ready>
  static bool PollUntil(Ready ready, const std::atomic<bool>& done, double seconds) {
    const auto start = Clock::now();
    while (SecondsSince(start) < seconds && !done.load()) {
      if (ready()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return ready();
  }

  // Whether a local volume's .tierfs/tmp holds a recall's copy (named
  // INO.GEN.PID.N, VolumeSet::TmpPath; created just before its GET), not
  // only recycled objects ("free.N").
  static bool RecallCopyInTmp(const std::string& volume) {
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator(volume + "/.tierfs/tmp", ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (!name.empty() && std::isdigit(static_cast<unsigned char>(name[0]))) return true;
    }
    return false;
  }

  // A child process that opens `path` for appending, writes 4 bytes and
  // fsyncs, and reports on a pipe which call failed ("" when none did, else
  // "open|write|fsync ERRNO"). Only this test's child is ever waited for.
  struct WriterChild {
    pid_t pid = -1;
    int pipe_fd = -1;
    std::string report;
    bool finished = false;
    // Whether the child has reported (non-blocking).
    bool Finished() {
      if (finished) return true;
      pollfd p{pipe_fd, POLLIN, 0};
      if (poll(&p, 1, 0) > 0) {
        char buf[64];
        ssize_t n;
        while ((n = read(pipe_fd, buf, sizeof buf)) > 0) report.append(buf, static_cast<size_t>(n));
        finished = true;
      }
      return finished;
    }
    // Waits (bounded by `seconds`, then SIGKILL) for the child; its report.
    std::string Wait(int seconds) {
      const auto start = Clock::now();
      while (!Finished() && SecondsSince(start) < seconds) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      if (!finished) {
        ADD_FAILURE() << "the writer did not finish within " << seconds << " s";
        kill(pid, SIGKILL);  // our own child, by its pid
      }
      int status = 0;
      waitpid(pid, &status, 0);
      close(pipe_fd);
      return report;
    }
  };
  static WriterChild StartWriter(const std::string& path) {
    WriterChild w;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return w;
    w.pid = fork();
    if (w.pid == 0) {
      const char* failed = nullptr;
      int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
      if (fd < 0) {
        failed = "open";
      } else if (write(fd, "tail", 4) != 4) {
        failed = "write";
      } else if (fsync(fd) != 0) {
        failed = "fsync";
      }
      char line[64] = "";
      int len = failed == nullptr ? 0 : snprintf(line, sizeof line, "%s %d", failed, errno);
      if (fd >= 0) close(fd);
      // The pipe's end is the report: a close with nothing written is "".
      if (len > 0 && write(fds[1], line, static_cast<size_t>(len)) < 0) _exit(2);
      _exit(0);
    }
    close(fds[1]);
    w.pipe_fd = fds[0];
    return w;
  }

  // The gateway stopped at once (frozen first, so that no more byte moves
  // between the moment the caller chose and the kill), then killed.
  void CutGateway() {
    gateway_down_ = true;
    const auto start = Clock::now();
    ASSERT_TRUE(cluster_->FreezeGateway().ok());
    const double frozen = SecondsSince(start);
    ASSERT_TRUE(cluster_->StopGateway(/*kill=*/true).ok());
    std::cout << "[ measured ] gateway frozen in " << frozen << " s, killed in "
              << SecondsSince(start) << " s\n";
  }
  // The gateway started again, and the store seen online by the daemon.
  void RestoreGateway() {
    ASSERT_TRUE(cluster_->StartGateway().ok());
    gateway_down_ = false;
    const double online = WaitForState("online", 20);
    std::cout << "[ measured ] store online " << online << " s after the gateway's start\n";
  }

  // `tierfs check --repair` of the unmounted file system (a repair of uploads
  // is offline only), then `tierfs check`, which must find nothing; mounts
  // again. The exit code of the repair is returned (0: nothing to do, 1:
  // repaired).
  int RepairOffline() {
    Unmount();
    CommandResult repair = Tool("tierfs", {"check", "--repair", ssd_}, 120);
    EXPECT_TRUE(repair.exit_code == 0 || repair.exit_code == 1) << repair.output;
    CommandResult again = Tool("tierfs", {"check", ssd_}, 120);
    EXPECT_EQ(again.exit_code, 0) << again.output;
    Mount();
    return repair.exit_code;
  }
};

TEST_F(StoreFaultTest, GatewayKilledMidUploadLeavesTheFileWholeLocally) {
  ASSERT_NO_FATAL_FAILURE(AddStore());
  const std::string data = RandomBytes(kLargeBytes, 51);
  WriteFileSynced(Path("big"), data);
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(ToClassPolicy("cloud")));
  Background enforce;
  StartEnforce(&enforce);
  // Under way: the multipart upload has begun (its parts follow one another).
  const bool uploading = PollUntil([&] { return Uploads() > 0; }, enforce.done, 60);
  const auto cut = Clock::now();
  if (uploading) CutGateway();
  enforce.Wait();
  ASSERT_TRUE(uploading) << "no multipart upload was seen: " << enforce.result.output;
  const double after_cut = SecondsSince(cut);
  std::cout << "[ measured ] enforce ended " << after_cut << " s after the gateway's kill ("
            << enforce.seconds << " s in all)\n";
  // Bounded: the transfer client's retries of a refused connection take about
  // a second; far below its 300 s bound on a call.
  EXPECT_LT(after_cut, 30.0);
  // Reported not moved: exit 1, the file's row an error naming the store.
  EXPECT_EQ(enforce.result.exit_code, 1) << enforce.result.output;
  nlohmann::json result = nlohmann::json::parse(enforce.result.output, nullptr, false);
  const std::string outcome = OutcomeOf(result, "big");
  EXPECT_EQ(outcome.rfind("error: ", 0), 0u) << enforce.result.output;
  EXPECT_EQ(result["summary"].value("files_moved", 1), 0) << enforce.result.output;
  // Whole at its local place, with the gateway still down.
  EXPECT_EQ(ClassOf("big"), "hdd");
  EXPECT_EQ(LocalObjects(hdd_), 1u);
  EXPECT_EQ(Difference(ReadFileDirect(Path("big")), data), "");

  ASSERT_NO_FATAL_FAILURE(RestoreGateway());
  ASSERT_NO_FATAL_FAILURE(Enforce());
  EXPECT_EQ(ClassOf("big"), "cloud");
  EXPECT_EQ(LocalObjects(hdd_), 0u);
  // The upload the kill cut short could not be aborted (no gateway): it is
  // still in the bucket until `tierfs check --repair` aborts it.
  std::cout << "[ measured ] uploads in progress before the repair: " << Uploads() << "\n";
  RepairOffline();
  EXPECT_EQ(Uploads(), 0u);
  EXPECT_EQ(Keys().size(), 1u) << "the file's object, and no orphan";
  EXPECT_EQ(ClassOf("big"), "cloud");
  EXPECT_EQ(Difference(ReadFileDirect(Path("big")), data), "");
}

TEST_F(StoreFaultTest, GatewayKilledMidRecallLeavesTheFileWholeOnTheStore) {
  ASSERT_NO_FATAL_FAILURE(AddStore());
  const std::string data = RandomBytes(kLargeBytes, 52);
  const std::string small = RandomBytes(2 * kMiB + 5, 53);
  WriteFile(Path("big"), data);
  WriteFile(Path("small"), small);
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(ToClassPolicy("cloud")));
  ASSERT_NO_FATAL_FAILURE(Enforce());
  ASSERT_EQ(ClassOf("big"), "cloud");
  ASSERT_EQ(ClassOf("small"), "cloud");
  ASSERT_EQ(LocalObjects(hdd_), 0u);

  // A recall by enforce, cut once its copy is in hdd's tmp/ (its GET under way).
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(ToClassPolicy("hdd")));
  {
    Background enforce;
    StartEnforce(&enforce);
    const bool arriving = PollUntil([&] { return RecallCopyInTmp(hdd_); }, enforce.done, 60);
    const auto cut = Clock::now();
    if (arriving) CutGateway();
    enforce.Wait();
    ASSERT_TRUE(arriving) << "no recall was seen under way: " << enforce.result.output;
    const double after_cut = SecondsSince(cut);
    std::cout << "[ measured ] enforce (recall) ended " << after_cut
              << " s after the gateway's kill\n";
    EXPECT_LT(after_cut, 30.0);
    EXPECT_EQ(enforce.result.exit_code, 1) << enforce.result.output;
    nlohmann::json result = nlohmann::json::parse(enforce.result.output, nullptr, false);
    EXPECT_EQ(OutcomeOf(result, "big").rfind("error: ", 0), 0u) << enforce.result.output;
    EXPECT_EQ(ClassOf("big"), "cloud");
    EXPECT_EQ(TmpLeftovers(hdd_), "") << "the cut copy is left in tmp/";
    EXPECT_EQ(LocalObjects(hdd_), ClassOf("small") == "hdd" ? 1u : 0u);
  }
  ASSERT_NO_FATAL_FAILURE(RestoreGateway());
  if (ClassOf("small") == "hdd") {
    // Recalled before the cut (workers run in parallel): back to the store, so
    // that the write below has a file to recall.
    ASSERT_NO_FATAL_FAILURE(AssignPolicy(ToClassPolicy("cloud")));
    ASSERT_NO_FATAL_FAILURE(Enforce());
    ASSERT_EQ(ClassOf("small"), "cloud");
  }

  // A write recalls its file first (RecallForWrite): cut that recall. In the
  // default no-open mode the kernel sends no OPEN, and with the writeback
  // cache write(2) lands in the page cache: the daemon sees the write, and
  // the recall runs, at the fsync, which is where the error must come back.
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(kHotBackPolicy));
  {
    // The writer is a child process, not a thread: while a thread of this
    // process waited in a FUSE call, fork() here (CutGateway runs the cluster's
    // script) was measured to take a second, and the recall ended before the cut.
    WriterChild writer = StartWriter(Path("big"));
    ASSERT_GT(writer.pid, 0);
    std::atomic<bool> done{false};
    const bool arriving = PollUntil(
        [&] {
          if (writer.Finished()) done = true;
          return RecallCopyInTmp(hdd_);
        },
        done, 60);
    const auto cut = Clock::now();
    if (arriving) CutGateway();
    const std::string outcome = writer.Wait(60);  // "", or "CALL ERRNO"
    const std::string failed = outcome.substr(0, outcome.find(' '));
    const int err = outcome.empty() ? 0 : std::atoi(outcome.c_str() + failed.size());
    ASSERT_TRUE(arriving) << "the write's recall was not seen under way ("
                          << (failed.empty() ? "open, write and fsync succeeded" : failed + " failed")
                          << ")";
    const double after_cut = SecondsSince(cut);
    std::cout << "[ measured ] " << (failed.empty() ? "open, write and fsync" : failed) << " ended "
              << after_cut << " s after the gateway's kill: " << strerror(err) << "\n";
    EXPECT_FALSE(failed.empty()) << "the write was acknowledged durable with the store dead";
    EXPECT_EQ(err, EIO);
    EXPECT_LT(after_cut, 30.0);
    EXPECT_EQ(ClassOf("big"), "cloud");
    EXPECT_EQ(TmpLeftovers(hdd_), "") << "the cut copy is left in tmp/";
    EXPECT_EQ(LocalObjects(hdd_), 0u);
  }

  // Back: both files whole. After the failed writeback the kernel's page
  // cache still holds the 4 bytes (and its size counts them), as on any Linux
  // file system after a writeback error, until the cache is dropped: so the
  // file is read after a remount. Should the kernel send the page again (at
  // the unmount's flush, the store back), the recall works and the write
  // lands: "big" is either as it was, on the store, or with the 4 bytes, on
  // hdd; never anything else, and never at both places.
  ASSERT_NO_FATAL_FAILURE(RestoreGateway());
  Remount();
  const std::string big = ReadFileDirect(Path("big"));
  if (big.size() == data.size()) {
    EXPECT_EQ(Difference(big, data), "");
  } else {
    EXPECT_EQ(Difference(big, data + "tail"), "");
  }
  const bool big_recalled = big.size() != data.size();
  EXPECT_EQ(ClassOf("big"), big_recalled ? "hdd" : "cloud");
  EXPECT_EQ(Keys().size(), big_recalled ? 1u : 2u);
  std::cout << "[ measured ] after the gateway's return the failed write "
            << (big_recalled ? "landed (the kernel sent its page again)" : "is not in the file")
            << "\n";
  EXPECT_EQ(Difference(ReadFileDirect(Path("small")), small), "");
  {
    int fd = open(Path("small").c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    ASSERT_GE(fd, 0) << strerror(errno);
    EXPECT_EQ(write(fd, "tail", 4), 4) << strerror(errno);
    EXPECT_EQ(close(fd), 0);
  }
  EXPECT_EQ(ClassOf("small"), "hdd");
  EXPECT_EQ(Difference(ReadFileDirect(Path("small")), small + "tail"), "");
  // Read since the last enforce: IOTEMP brings "big" back too (if still on the store).
  ASSERT_NO_FATAL_FAILURE(Enforce());
  EXPECT_EQ(ClassOf("big"), "hdd");
  EXPECT_EQ(Difference(ReadFileDirect(Path("big")), big), "");
  EXPECT_EQ(Keys().size(), 0u);
  EXPECT_EQ(TmpLeftovers(hdd_), "");
  CommandResult check = Tool("tierfs", {"check", mnt_}, 120);
  EXPECT_EQ(check.exit_code, 0) << check.output;
}

TEST_F(StoreFaultTest, GatewayKilledMidReadFailsBoundedAndTheMountStaysUsable) {
  ASSERT_NO_FATAL_FAILURE(AddStore());
  const std::string data = RandomBytes(kLargeBytes, 54);
  WriteFile(Path("big"), data);
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(ToClassPolicy("cloud")));
  ASSERT_NO_FATAL_FAILURE(Enforce());
  ASSERT_EQ(ClassOf("big"), "cloud");
  // Files on the local classes, written after the enforce.
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(kAllOnSsdPolicy));
  const std::string local = RandomBytes(3 * kMiB, 55);
  WriteFile(Path("local"), local);
  ASSERT_EQ(ClassOf("local"), "ssd");
  Remount();  // no cache of "big" anywhere

  int fd = open(Path("big").c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  ASSERT_GE(fd, 0) << strerror(errno);
  void* aligned = nullptr;
  ASSERT_EQ(posix_memalign(&aligned, 4096, kMiB), 0);
  char* buf = static_cast<char*>(aligned);
  // The first 32 MiB read (and checked), then the gateway killed mid-file.
  size_t offset = 0;
  for (; offset < 32 * kMiB; offset += kMiB) {
    ASSERT_EQ(read(fd, buf, kMiB), static_cast<ssize_t>(kMiB)) << strerror(errno);
    ASSERT_EQ(std::memcmp(buf, data.data() + offset, kMiB), 0) << "at " << offset;
  }
  ASSERT_NO_FATAL_FAILURE(CutGateway());
  // The reads go on: what the readahead window holds still reads, then one
  // fails with EIO, each within the quick client's bound.
  const auto cut = Clock::now();
  int err = 0;
  double slowest = 0;
  while (offset < data.size()) {
    const auto start = Clock::now();
    ssize_t n = read(fd, buf, kMiB);
    slowest = std::max(slowest, SecondsSince(start));
    if (n < 0) {
      err = errno;
      break;
    }
    ASSERT_GT(n, 0) << "end of file at " << offset;
    ASSERT_EQ(std::memcmp(buf, data.data() + offset, static_cast<size_t>(n)), 0)
        << "wrong bytes at " << offset;
    offset += static_cast<size_t>(n);
  }
  const double failed_after = SecondsSince(cut);
  std::cout << "[ measured ] read failed " << failed_after << " s after the gateway's kill, at "
            << offset / kMiB << " MiB; slowest read " << slowest << " s\n";
  EXPECT_EQ(err, EIO) << "read " << offset << " of " << data.size() << " bytes";
  EXPECT_LT(offset, data.size()) << "the whole file read with the gateway dead";
  EXPECT_LT(slowest, 10.0);
  EXPECT_LT(failed_after, 20.0);

  // The mount is usable: metadata, listings and local files answer at once.
  const auto meta_start = Clock::now();
  struct stat st;
  ASSERT_EQ(stat(Path("big").c_str(), &st), 0);
  EXPECT_EQ(static_cast<size_t>(st.st_size), data.size());
  size_t listed = 0;
  std::error_code ec;
  for (auto& e : std::filesystem::directory_iterator(mnt_, ec)) {
    listed += e.path().filename() == "big" || e.path().filename() == "local" ? 1 : 0;
  }
  EXPECT_EQ(listed, 2u);
  EXPECT_EQ(Difference(ReadFileDirect(Path("local")), local), "");
  WriteFile(Path("fresh"), "written while the store is down");
  EXPECT_EQ(ReadFile(Path("fresh")), "written while the store is down");
  const double meta_seconds = SecondsSince(meta_start);
  std::cout << "[ measured ] stat, ls, a local read and a create with the gateway dead: "
            << meta_seconds << " s\n";
  EXPECT_LT(meta_seconds, 5.0);

  ASSERT_NO_FATAL_FAILURE(RestoreGateway());
  // The same descriptor reads on where it failed, and the file reads whole.
  ssize_t n = pread(fd, buf, kMiB, static_cast<off_t>(offset));
  EXPECT_GT(n, 0) << strerror(errno);
  if (n > 0) {
    EXPECT_EQ(std::memcmp(buf, data.data() + offset, static_cast<size_t>(n)), 0);
  }
  free(aligned);
  close(fd);
  EXPECT_EQ(Difference(ReadFileDirect(Path("big")), data), "");
  EXPECT_EQ(ClassOf("big"), "cloud");
}

TEST_F(StoreFaultTest, AFullBucketMovesWhatFitsAndReportsTheRestNospace) {
  ASSERT_NO_FATAL_FAILURE(AddStore());
  // Five files of 4 MiB (one PUT each) for a bucket that takes 10 MiB.
  constexpr size_t kFiles = 5, kSize = 4 * kMiB;
  ASSERT_TRUE(cluster_->SetBucketQuota(bucket_, 10 * kMiB).ok());
  // The gateway learns the quota from the cluster: a PUT over it must be
  // refused before the test goes on (bounded).
  {
    const std::string probe_path = root_ + "/probe";
    WriteFile(probe_path, std::string(11 * kMiB, 'p'));
    int fd = open(probe_path.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    bool refused = false;
    const auto start = Clock::now();
    while (!refused && SecondsSince(start) < 30) {
      auto put = s3_->PutObject(bucket_, "probe", fd, 0, 11 * kMiB, {});
      refused = !put.ok() && put.status().code() == ENOSPC;
      if (put.ok()) {
        s3_->DeleteObject(bucket_, "probe");
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
      }
    }
    close(fd);
    ASSERT_TRUE(refused) << "the gateway did not apply the bucket's quota within 30 s";
  }
  std::vector<std::string> data;
  for (size_t i = 0; i < kFiles; ++i) {
    data.push_back(RandomBytes(kSize, 60 + static_cast<uint32_t>(i)));
    WriteFile(Path("f" + std::to_string(i)), data.back());
  }
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(ToClassPolicy("cloud")));
  // One move at a time (-p 1): the gateway checks a PUT against the bucket's
  // usage when it begins, so uploads in parallel may all pass a quota
  // together (measured: 5 of 5 with 16 workers); one after the other, what
  // fits is exactly what the quota allows.
  CommandResult r = Tool("fsppadm", {"enforce", "-p", "1", "--json", mnt_}, 180);
  nlohmann::json result = nlohmann::json::parse(r.output, nullptr, false);
  ASSERT_TRUE(result.is_object()) << r.output;
  size_t moved = 0, nospace = 0;
  for (size_t i = 0; i < kFiles; ++i) {
    const std::string name = "f" + std::to_string(i);
    const std::string outcome = OutcomeOf(result, name);
    if (outcome == "moved") {
      ++moved;
      EXPECT_EQ(ClassOf(name), "cloud") << name;
    } else {
      ++nospace;
      // What a storage admin expects of a full store: "nospace", as a full
      // class reports, not an error.
      EXPECT_EQ(outcome, "nospace") << name << ": " << r.output;
      EXPECT_EQ(ClassOf(name), "hdd") << name;
    }
    EXPECT_EQ(Difference(ReadFileDirect(Path(name)), data[i]), "") << name;
  }
  std::cout << "[ measured ] bucket of 10 MiB: " << moved << " of " << kFiles
            << " files of 4 MiB moved, " << nospace << " nospace\n";
  EXPECT_GE(moved, 1u);
  EXPECT_LE(moved * kSize, 10 * kMiB);
  EXPECT_GE(nospace, 1u);
  // "nospace" is no error: the next enforce retries (exit 0, as for a full class).
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(result["summary"]["files_skipped"].value("nospace", 0u), nospace) << r.output;
  EXPECT_EQ(result["summary"]["files_skipped"].value("error", 1u), 0u) << r.output;
  // The store holds what moved and nothing else, after a repair too.
  EXPECT_EQ(Keys().size(), moved);
  EXPECT_EQ(Uploads(), 0u);
  EXPECT_EQ(LocalObjects(hdd_), kFiles - moved);
  RepairOffline();
  EXPECT_EQ(Keys().size(), moved);
  EXPECT_EQ(Uploads(), 0u);
  for (size_t i = 0; i < kFiles; ++i) {
    EXPECT_EQ(Difference(ReadFileDirect(Path("f" + std::to_string(i))), data[i]), "") << i;
  }
}

}  // namespace
}  // namespace tierfs::testing
