// kill -9 while files grow and move: many files of 1 KiB to some MiB,
// a writer that appends (60%) or overwrites, fsyncs after every operation and
// counts an operation as acknowledged only once its fsync returned, and at the
// same time `fsppadm enforce` moving every file to the other class, both ways in
// turn. The daemon is killed 0 to 300 ms into each round; after the remount every
// file must hold exactly its acknowledged bytes (the one operation the kill
// interrupted may be there in part), `tierfs check` must find nothing, and an
// extend must read zeros.
//
// AppendCrashLoopTest.Short runs in the default suite; AppendCrashLoopTest.Long
// (1,000 kills, writes of 1 byte to 1 MiB so that the O_DIRECT path is hit too)
// only with TIERFS_LONG_TESTS=1 in the environment.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/test_policies.h"
#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

struct Shape {
  size_t files;
  size_t max_file_bytes;   // initial sizes are log-uniform from 1 KiB to this
  size_t max_write_bytes;  // each operation writes log-uniform 1 byte to this
  int rounds;
};

// One file as the writer knows it.
struct TrackedFile {
  std::string name;
  int fd = -1;
  std::string acked;  // contents as of the last operation whose fsync returned
  // The operation the kill may have interrupted: its bytes may be there in part.
  bool in_flight = false;
  size_t pending_offset = 0;
  std::string pending;
};

size_t LogUniform(std::mt19937& rng, size_t lo, size_t hi) {
  std::uniform_real_distribution<double> d(std::log(double(lo)), std::log(double(hi) + 1));
  return std::min(hi, std::max(lo, static_cast<size_t>(std::exp(d(rng)))));
}

class AppendCrashLoopTest : public TierfsFixture {
 protected:
  void TearDown() override {
    for (TrackedFile& f : files_) {
      if (f.fd >= 0) close(f.fd);
    }
    TierfsFixture::TearDown();
  }

  void Run(const Shape& shape, uint32_t seed) {
    std::mt19937 rng(seed);
    files_.resize(shape.files);
    for (size_t i = 0; i < shape.files; ++i) {
      files_[i].name = "f" + std::to_string(i);
      files_[i].acked = RandomBytes(LogUniform(rng, 1024, shape.max_file_bytes), rng());
      WriteFileSynced(Path(files_[i].name), files_[i].acked);
      if (HasFatalFailure()) return;
    }
    for (int round = 0; round < shape.rounds; ++round) {
      SCOPED_TRACE("round " + std::to_string(round));
      AssignPolicy(MoveEverythingPolicy("ssd", round % 2 == 0 ? "hdd" : "ssd"));
      for (TrackedFile& f : files_) {
        f.fd = open(Path(f.name).c_str(), O_RDWR | O_CLOEXEC);
        ASSERT_GE(f.fd, 0) << f.name << ": " << strerror(errno);
      }
      std::atomic<bool> stop{false};
      std::thread enforcer([&] {
        while (!stop.load()) {
          if (Tool("fsppadm", {"enforce", mnt_}, 60).exit_code != 0) break;
        }
      });
      std::mt19937 writer_rng(rng());
      std::thread writer([&] { Write(writer_rng, shape.max_write_bytes, stop); });
      std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 301));
      const pid_t pid = DaemonPid();
      ASSERT_GT(pid, 0);
      kill(pid, SIGKILL);  // the daemon this fixture started
      stop = true;
      writer.join();
      enforcer.join();
      for (int i = 0; i < 400 && kill(pid, 0) == 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      for (TrackedFile& f : files_) {
        close(f.fd);  // on the dead mount
        f.fd = -1;
      }
      Unmount();
      Mount();
      CommandResult check = Tool("tierfs", {"check", mnt_});
      EXPECT_EQ(check.exit_code, 0) << check.output;
      for (TrackedFile& f : files_) Verify(f);
      ExtendReadsZeros(files_[rng() % files_.size()]);
      if (HasFatalFailure() || HasFailure()) return;
    }
  }

  // Appends or overwrites with an fsync after each operation, until an operation
  // fails (the daemon is gone) or `stop`.
  void Write(std::mt19937& rng, size_t max_write_bytes, const std::atomic<bool>& stop) {
    while (!stop.load()) {
      TrackedFile& f = files_[rng() % files_.size()];
      const bool append = rng() % 10 < 6 || f.acked.empty();
      f.pending_offset = append ? f.acked.size() : rng() % f.acked.size();
      f.pending = RandomBytes(LogUniform(rng, 1, max_write_bytes), rng());
      f.in_flight = true;
      if (pwrite(f.fd, f.pending.data(), f.pending.size(), static_cast<off_t>(f.pending_offset)) !=
              static_cast<ssize_t>(f.pending.size()) ||
          fsync(f.fd) != 0) {
        return;
      }
      if (f.acked.size() < f.pending_offset + f.pending.size()) {
        f.acked.resize(f.pending_offset + f.pending.size(), '\0');
      }
      f.acked.replace(f.pending_offset, f.pending.size(), f.pending);
      f.in_flight = false;
    }
  }

  // Checks one file after the remount and leaves the model equal to what it holds.
  void Verify(TrackedFile& f) {
    const std::string got = ReadFile(Path(f.name));
    const size_t pending_end = f.in_flight ? f.pending_offset + f.pending.size() : 0;
    const size_t max_size = std::max(f.acked.size(), pending_end);
    EXPECT_GE(got.size(), f.acked.size()) << f.name << ": acknowledged bytes lost (size)";
    EXPECT_LE(got.size(), max_size) << f.name << ": bytes beyond anything written";
    for (size_t i = 0; i < got.size(); ++i) {
      const char old = i < f.acked.size() ? f.acked[i] : '\0';
      const bool pending = f.in_flight && i >= f.pending_offset && i < pending_end;
      if (got[i] == old || (pending && got[i] == f.pending[i - f.pending_offset])) continue;
      ADD_FAILURE() << "CORRUPT " << f.name << " size " << got.size() << " want "
                    << f.acked.size() << " first-diff " << i << " class " << ClassOf(f.name)
                    << (pending ? " (inside the interrupted write)" : "") << "\ndaemon log:\n"
                    << ReadFile(ssd_ + "/.tierfs/tierfs.log");
      break;
    }
    f.acked = got;
    f.in_flight = false;
  }

  // A truncate up shows zeros, never bytes a crash left past the recorded size.
  void ExtendReadsZeros(TrackedFile& f) {
    const size_t size = f.acked.size();
    ASSERT_EQ(truncate(Path(f.name).c_str(), static_cast<off_t>(size + 4096)), 0);
    const std::string extended = ReadFile(Path(f.name));
    ASSERT_EQ(extended.size(), size + 4096);
    EXPECT_EQ(extended.compare(size, 4096, std::string(4096, '\0')), 0)
        << f.name << ": unacknowledged bytes came back past " << size;
    f.acked = extended;
  }

  std::vector<TrackedFile> files_;
};

TEST_F(AppendCrashLoopTest, Short) {
  Run({.files = 40, .max_file_bytes = 1 << 20, .max_write_bytes = 256 << 10, .rounds = 10}, 31);
}

TEST_F(AppendCrashLoopTest, Long) {
  const char* long_tests = std::getenv("TIERFS_LONG_TESTS");
  if (long_tests == nullptr || std::string(long_tests) != "1") {
    GTEST_SKIP() << "1,000 kills: set TIERFS_LONG_TESTS=1 to run";
  }
  Run({.files = 100, .max_file_bytes = 4 << 20, .max_write_bytes = 1 << 20, .rounds = 1000}, 32);
}

}  // namespace
}  // namespace tierfs::testing
