// kill -9 of the daemon again and again while files move to and from an
// object volume: each round appends to files (each append fsynced:
// only acknowledged bytes are promised) while `fsppadm enforce` runs in a loop,
// moving every file to the store's class or back to hdd (the policy alternates
// by round; an append to a file on the store recalls it first), and the daemon
// dies at a random moment: by kill -9 after a bounded random delay, by kill -9
// once a recall's copy is seen arriving, or at a fault point of an upload or a
// recall ("stop", as StoreCrashTest). After each, the file system is mounted
// again and:
//  - no file is lost or corrupt: every file holds its fsynced bytes, and an
//    append the kill interrupted is there wholly, partly or not at all (bytes
//    beyond read as what was written or zeros), never anything else;
//  - every file is whole at exactly one place: the bucket holds one object per
//    file on the store's class, the local volumes one per other file;
//  - `tierfs check --repair` (unmounted) leaves no orphan object and no
//    multipart upload in progress in the bucket, no leftover local object or
//    tmp/ copy, and a `tierfs check` that finds nothing.
// StoreCrashLoopTest.Short runs in the default suite; .Long (more rounds) only
// with TIERFS_LONG_TESTS=1. Every wait is bounded; only this test's daemon
// is killed, by its pid.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tests/store/object_volume_fixture.h"

namespace tierfs::testing {
namespace {

constexpr size_t kFiles = 6;

// One file as the workload knows it.
struct ModelFile {
  std::string name;
  std::string durable;      // its bytes as of its last fsync that returned
  std::string pending;      // an append in progress (the kill may cut it)
  bool in_flight = false;   // the kill came during that append or its fsync
};

class StoreCrashLoopTest : public ObjectVolumeTest {
 protected:
  // Appends `data` to the file and fsyncs it: true when both returned (the
  // bytes are promised), false when a call failed (the daemon is gone).
  bool Append(ModelFile& f, const std::string& data) {
    f.pending = data;
    f.in_flight = true;
    int fd = open(Path(f.name).c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) return false;
    const bool ok = write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size()) &&
                    fsync(fd) == 0;
    close(fd);
    if (!ok) return false;
    f.durable += data;
    f.pending.clear();
    f.in_flight = false;
    return true;
  }

  // The workload of a round: appends of 1 KiB-256 KiB to random files until
  // `stop` or the daemon is gone.
  void Work(std::mt19937& rng, const std::atomic<bool>& stop) {
    while (!stop.load()) {
      ModelFile& f = files_[rng() % files_.size()];
      if (!Append(f, RandomBytes(1024 + rng() % (256 * 1024), rng()))) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 40));
    }
  }

  // Checks one file after the crash and the next mount; the model is then
  // what the file holds (fsynced, so that the next round builds on it).
  void Verify(ModelFile& f) {
    SCOPED_TRACE(f.name);
    const std::string c = ReadFileDirect(Path(f.name));
    const size_t d = f.durable.size();
    if (!f.in_flight) {
      EXPECT_EQ(Difference(c, f.durable), "") << "class " << ClassOf(f.name);
    } else {
      // The interrupted append: any prefix of it (or zeros where the size
      // got ahead of its bytes), after every fsynced byte.
      EXPECT_GE(c.size(), d) << "fsynced bytes were lost (size)";
      EXPECT_LE(c.size(), d + f.pending.size()) << "bytes beyond anything written";
      EXPECT_EQ(Difference(c.substr(0, d), f.durable), "") << "fsynced bytes are wrong";
      for (size_t i = d; i < c.size(); ++i) {
        if (c[i] != f.pending[i - d] && c[i] != '\0') {
          ADD_FAILURE() << "byte " << i << " was never written there";
          break;
        }
      }
    }
    f.durable = c;
    f.pending.clear();
    f.in_flight = false;
    int fd = open(Path(f.name).c_str(), O_RDONLY | O_CLOEXEC);
    EXPECT_TRUE(fd >= 0 && fsync(fd) == 0) << strerror(errno);
    if (fd >= 0) close(fd);
  }

  // Every file at exactly one place: as many objects in the bucket as files on
  // the store's class, as many local objects as the other files. Returns the
  // number on the store.
  size_t CheckPlaces() {
    size_t on_store = 0;
    for (const ModelFile& f : files_) {
      const std::string cls = ClassOf(f.name);
      EXPECT_TRUE(cls == "cloud" || cls == "hdd" || cls == "ssd") << f.name << ": " << cls;
      on_store += cls == "cloud" ? 1 : 0;
    }
    EXPECT_EQ(Keys().size(), on_store) << "objects in the bucket";
    EXPECT_EQ(LocalObjects(hdd_) + LocalObjects(ssd_), files_.size() - on_store)
        << "objects on the local volumes";
    return on_store;
  }

  // Unmounted: `tierfs check --repair`, then a `tierfs check` that finds
  // nothing, and nothing left behind; mounted again, with TIERFS_FAULTS set
  // to `faults` for that mount when not empty.
  void RepairAndMount(const std::string& faults) {
    Unmount();
    CommandResult repair = Tool("tierfs", {"check", "--repair", ssd_}, 120);
    EXPECT_TRUE(repair.exit_code == 0 || repair.exit_code == 1) << repair.output;
    if (repair.exit_code == 1) ++repairs_;
    CommandResult check = Tool("tierfs", {"check", ssd_}, 120);
    EXPECT_EQ(check.exit_code, 0) << check.output;
    EXPECT_EQ(Uploads(), 0u) << "a multipart upload in progress after the repair";
    EXPECT_EQ(TmpLeftovers(hdd_), "");
    EXPECT_EQ(TmpLeftovers(ssd_), "");
    if (!faults.empty()) setenv("TIERFS_FAULTS", faults.c_str(), 1);
    Mount();
    unsetenv("TIERFS_FAULTS");
  }

  // Whether hdd's tmp/ holds a recall's copy (named INO.GEN.PID.N).
  bool RecallUnderWay() {
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator(hdd_ + "/.tierfs/tmp", ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (!name.empty() && std::isdigit(static_cast<unsigned char>(name[0]))) return true;
    }
    return false;
  }

  void Run(int rounds, uint32_t seed) {
    ASSERT_NO_FATAL_FAILURE(AddStore());
    std::mt19937 rng(seed);
    // Files of 1-6 MiB, enough that an upload or a recall takes a while, and
    // one of 72 MiB, above the 64 MiB multipart threshold: a kill in the
    // middle of its upload leaves a multipart upload for the repair.
    for (size_t i = 0; i < kFiles; ++i) {
      ModelFile f;
      f.name = "f" + std::to_string(i);
      const size_t size = i == 0 ? 72 * kMiB : kMiB + rng() % (5 * kMiB);
      WriteFileSynced(Path(f.name), RandomBytes(size, rng()));
      f.durable = ReadFile(Path(f.name));
      files_.push_back(std::move(f));
    }
    // How each round's daemon dies: a kill after a random delay, a kill once a
    // recall is under way, or a fault point's stop (the mount before the round
    // asks for it), in turn.
    std::string next_faults;
    const auto start = Clock::now();
    for (int round = 0; round < rounds; ++round) {
      SCOPED_TRACE("round " + std::to_string(round));
      const int how = round % 3;  // 0: random delay, 1: mid-recall, 2: fault point
      const std::string faults = next_faults;
      ASSERT_NO_FATAL_FAILURE(AssignPolicy(ToClassPolicy(round % 2 == 0 ? "cloud" : "hdd")));
      std::atomic<bool> stop{false};
      std::atomic<int> enforces{0};
      std::thread enforcer([&] {
        for (int i = 0; i < 200 && !stop.load(); ++i) {
          const int code = Tool("fsppadm", {"enforce", mnt_}, 60).exit_code;
          if (code != 0 && code != 1) break;  // the daemon is gone
          ++enforces;
        }
      });
      std::mt19937 work_rng(rng());
      std::thread worker([&] { Work(work_rng, stop); });
      const pid_t pid = DaemonPid();
      ASSERT_GT(pid, 0);
      bool killed = false;
      if (!faults.empty()) {
        // The point stops the daemon itself; a kill when it was not reached
        // within DaemonGone's 10 s.
        killed = !DaemonGone();
      } else if (how == 1) {
        const auto wait_start = Clock::now();
        while (SecondsSince(wait_start) < 5 && !RecallUnderWay()) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 30));
        killed = true;
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(30 + rng() % 1200));
        killed = true;
      }
      if (killed) kill(pid, SIGKILL);  // the daemon this fixture started, by its pid
      stop = true;
      worker.join();
      enforcer.join();
      ASSERT_TRUE(DaemonGone());
      Unmount();  // detaches the dead mount
      Mount();
      for (ModelFile& f : files_) Verify(f);
      const size_t on_store = CheckPlaces();
      std::cout << "[ round " << round << " ] " << (faults.empty() ? "" : faults + (killed ? " (not reached) " : " "))
                << (how == 1 ? "mid-recall " : "") << enforces.load() << " enforces, "
                << on_store << " of " << kFiles << " files on the store\n";
      if (HasFailure()) return;
      // The next round that dies at a fault point asks for it at this mount:
      // one its moves reach (uploads in a round to the store, recalls in a
      // round back; appends recall in both), at the first to third time.
      next_faults.clear();
      if ((round + 1) % 3 == 2) {
        const bool to_store = (round + 1) % 2 == 0;
        const char* point = (round + 1) % 4 == 2 ? "relocate-after-commit"
                            : to_store               ? "upload-after-put"
                                                     : "recall-after-copy";
        next_faults = "point:" + std::string(point) + "@" + std::to_string(1 + rng() % 3) + "=stop";
      }
      RepairAndMount(next_faults);
      CheckPlaces();
      if (HasFailure()) return;
    }
    std::cout << "[ measured ] " << rounds << " rounds in " << SecondsSince(start) << " s, "
              << repairs_ << " repairs that changed something\n";
  }

  std::vector<ModelFile> files_;
  int repairs_ = 0;
};

TEST_F(StoreCrashLoopTest, Short) { Run(15, 1); }

TEST_F(StoreCrashLoopTest, Long) {
  const char* long_tests = std::getenv("TIERFS_LONG_TESTS");
  if (long_tests == nullptr || std::string(long_tests) != "1") {
    GTEST_SKIP() << "150 rounds: set TIERFS_LONG_TESTS=1 to run";
  }
  Run(150, 2);
}

}  // namespace
}  // namespace tierfs::testing
