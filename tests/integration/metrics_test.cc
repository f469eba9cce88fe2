// The daemon's Prometheus metrics ("Metrics"; fs/metrics/metrics_exporter.h):
// the HTTP endpoint and the node_exporter textfile, read back with the
// prometheus_client package's parser (tests/integration/metrics_check.py), and
// the values the test can predict: bytes written and read per volume and class,
// files per volume, a relocation per direction, a scan, FUSE request counts and
// cumulative latency buckets.
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "tests/integration/test_policies.h"
#include "tests/integration/tierfs_fixture.h"
#include "tests/support/metric_samples.h"

namespace tierfs::testing {
namespace {

constexpr size_t kMiB = 1 << 20;

// A loopback TCP socket bound to a free port (listening when `listen_too`);
// returns the socket and sets *port. The caller closes it.
int BoundLoopbackSocket(bool listen_too, int* port) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  *port = -1;
  if (bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      (!listen_too || listen(s, 1) == 0) &&
      getsockname(s, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    *port = ntohs(addr.sin_port);
  }
  return s;
}

// A TCP port nobody listens on now (bound, then released).
int FreePort() {
  int port;
  close(BoundLoopbackSocket(false, &port));
  return port;
}

class MetricsTest : public TierfsFixture {
 protected:
  // The daemon's data path: exact per-class byte counts of what the daemon served, and no-open's
  // OPEN counts (no-open is off with passthrough).
  std::vector<std::string> FixtureMountArgs() const override { return {"--passthrough=off"}; }

 protected:
  void SetUp() override {
    TierfsFixture::SetUp();
    if (HasFatalFailure()) return;
    port_ = FreePort();
    ASSERT_GT(port_, 0);
    textfile_ = root_ + "/tierfs.prom";
    Unmount();
    Mount({"--metrics_listen", "127.0.0.1:" + std::to_string(port_), "--metrics_textfile",
           textfile_});
  }

  std::map<std::string, double> Samples(const std::string& source) {
    return ReadMetricSamples(source);
  }
  std::map<std::string, double> Scrape() {
    return Samples("http://127.0.0.1:" + std::to_string(port_) + "/metrics");
  }
  // The value of `name` with `labels` on this mount (MetricValue), or -1.
  double Value(const std::map<std::string, double>& samples, const std::string& name,
               const std::string& labels) const {
    return MetricValue(samples, mnt_, name, labels);
  }

  int port_ = -1;
  std::string textfile_;
};

TEST_F(MetricsTest, EndpointCountsBytesPerClassRelocationsScansAndRequests) {
  AssignPolicy(kPinHotPolicy);  // every file lands on hdd; *.hot moves to ssd at enforce
  const std::string data = RandomBytes(kMiB, 7);
  WriteFile(Path("a.hot"), data);
  WriteFile(Path("b"), RandomBytes(4096, 8));
  {
    // Written back and on the volume (the writeback cache holds it until then).
    int fd = open(Path("a.hot").c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(fsync(fd), 0);
    close(fd);
  }
  auto before = Scrape();
  EXPECT_EQ(Value(before, "tierfs_volume_files", R"(class="hdd",volume="vol2")"), 2);
  EXPECT_EQ(Value(before, "tierfs_volume_file_bytes", R"(class="hdd",volume="vol2")"),
            double(kMiB + 4096));
  EXPECT_EQ(Value(before, "tierfs_class_written_bytes_total", R"(class="hdd")"),
            double(kMiB + 4096));
  EXPECT_EQ(Value(before, "tierfs_class_written_bytes_total", R"(class="ssd")"), 0);
  EXPECT_EQ(Value(before, "tierfs_volume_state", R"(class="hdd",state="online",volume="vol2")"),
            1);
  EXPECT_EQ(Value(before, "tierfs_volume_state", R"(class="hdd",state="offline",volume="vol2")"),
            0);
  EXPECT_GT(Value(before, "tierfs_volume_capacity_bytes", R"(class="ssd",volume="vol1")"), 0);
  // Two files made: in no-open mode the first CREATE meets ENOSYS and the
  // kernel makes both with MKNOD.
  EXPECT_EQ(Value(before, "tierfs_fuse_requests_total", R"(op="create")"), 1);
  EXPECT_EQ(Value(before, "tierfs_fuse_requests_total", R"(op="mknod")"), 2);
  EXPECT_EQ(Value(before, "tierfs_fuse_request_duration_seconds_count", R"(op="mknod")"), 2);
  EXPECT_GE(Value(before, "tierfs_fcl_records", ""), 2);

  CommandResult enforce = Tool("fsppadm", {"enforce", mnt_});
  ASSERT_EQ(enforce.exit_code, 0) << enforce.output;
  ASSERT_EQ(ClassOf("a.hot"), "ssd");
  // A read that reaches the volume (O_DIRECT: not the page cache).
  void* buf = nullptr;
  ASSERT_EQ(posix_memalign(&buf, 4096, kMiB), 0);
  std::unique_ptr<void, decltype(&free)> owned(buf, &free);
  int fd = open(Path("a.hot").c_str(), O_RDONLY | O_DIRECT);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(read(fd, buf, kMiB), ssize_t(kMiB));
  close(fd);
  EXPECT_EQ(std::memcmp(buf, data.data(), kMiB), 0);

  auto after = Scrape();
  EXPECT_EQ(Value(after, "tierfs_relocations_total",
                  R"(from_class="hdd",outcome="moved",to_class="ssd")"),
            1);
  EXPECT_EQ(Value(after, "tierfs_relocated_bytes_total", R"(from_class="hdd",to_class="ssd")"),
            double(kMiB));
  EXPECT_EQ(Value(after, "tierfs_scans_total", R"(kind="enforce")"), 1);
  EXPECT_EQ(Value(after, "tierfs_scan_failures_total", R"(kind="enforce")"), 0);
  EXPECT_GE(Value(after, "tierfs_scan_last_duration_seconds", R"(kind="enforce")"), 0);
  EXPECT_EQ(Value(after, "tierfs_class_read_bytes_total", R"(class="ssd")"), double(kMiB));
  EXPECT_EQ(Value(after, "tierfs_volume_files", R"(class="ssd",volume="vol1")"), 1);
}

// A file closed and flushed costs the daemon only its lookup count, but
// for the --cached_inodes most recently used; an open one keeps its entry
// (InodeTable: idle and active inodes).
TEST_F(MetricsTest, ClosedFilesKeepNoEntryInTheDaemonButTheMostRecentlyUsed) {
  constexpr int kFiles = 200;
  constexpr int kCached = 50;
  Unmount();
  port_ = FreePort();
  // No-open mode keeps a handle, and the entry with it, for the most recently
  // used files: as few as possible here.
  Mount({"--metrics_listen", "127.0.0.1:" + std::to_string(port_), "--cached_inodes",
         std::to_string(kCached), "--cached_opens", "1"});
  for (int i = 0; i < kFiles; ++i) WriteFile(Path("f" + std::to_string(i)), "some bytes");
  std::vector<int> open_fds;
  for (int i = 0; i < 5; ++i) {
    open_fds.push_back(open(Path("f" + std::to_string(i)).c_str(), O_RDONLY));
    ASSERT_GE(open_fds.back(), 0);
  }
  auto samples = Scrape();
  for (int fd : open_fds) close(fd);
  EXPECT_GE(Value(samples, "tierfs_inodes_looked_up", ""), kFiles);
  const double active = Value(samples, "tierfs_inodes_active", "");
  EXPECT_GE(active, kCached);
  EXPECT_LE(active, kCached + 10);  // the open files and the directories being used
  EXPECT_LE(Value(samples, "tierfs_kernel_open_files", ""), 1);
  for (int i = 0; i < kFiles; ++i) {
    EXPECT_EQ(ReadFile(Path("f" + std::to_string(i))), "some bytes") << i;
  }
}

// Without FUSE_HANDLE_KILLPRIV_V2 (which libfuse 3.14 cannot ask for; the custom
// I/O of fs/fuse/uring_transport.h does) the kernel asks for security.capability, a
// GETXATTR request, before every write(2), even one the page cache absorbs. With
// it, only until a write finds neither setuid/setgid nor a capability.
TEST_F(MetricsTest, RewritesOfAFileAskForItsCapabilityAtMostOnce) {
  for (bool io_uring : {true, false}) {
    SCOPED_TRACE(io_uring ? "--io_uring" : "--io_uring=false");
    Unmount();
    port_ = FreePort();
    Mount({"--metrics_listen", "127.0.0.1:" + std::to_string(port_),
           io_uring ? "--io_uring=true" : "--io_uring=false"});
    const std::string name = io_uring ? "f1" : "f2";
    WriteFile(Path(name), RandomBytes(kMiB, 9));
    auto getxattrs = [&] {
      return std::max(0.0, Value(Scrape(), "tierfs_fuse_requests_total", R"(op="getxattr")"));
    };
    const double before = getxattrs();
    constexpr int kWrites = 64;
    const std::string block(4096, 'w');
    int fd = open(Path(name).c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    for (int i = 0; i < kWrites; ++i) {
      ASSERT_EQ(pwrite(fd, block.data(), block.size(), off_t(i) * 2 * 4096),
                ssize_t(block.size()));
    }
    ASSERT_EQ(fsync(fd), 0);
    close(fd);
    EXPECT_LE(getxattrs() - before, 1) << "GETXATTR requests for " << kWrites << " writes";
  }
}

// A database's log: overwrites in place, each made durable with fdatasync. The
// allocation does not change, so no fsync after the first makes the kernel
// refresh the file's attributes (a GETATTR at the next write, and the GETXATTR
// of security.capability that each refresh brings back).
TEST_F(MetricsTest, FsyncsOfOverwritesRefreshNoAttributes) {
  WriteFileSynced(Path("log"), RandomBytes(kMiB, 4));
  auto requests = [&](const char* op) {
    return std::max(0.0, Value(Scrape(), "tierfs_fuse_requests_total",
                               std::string("op=\"") + op + "\""));
  };
  const double getattrs = requests("getattr"), getxattrs = requests("getxattr");
  const double fsyncs = requests("fsync");
  constexpr int kCommits = 40;
  const std::string record(8192, 'r');
  int fd = open(Path("log").c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  for (int i = 0; i < kCommits; ++i) {
    ASSERT_EQ(pwrite(fd, record.data(), record.size(), off_t(i) * 8192),
              ssize_t(record.size()));
    ASSERT_EQ(fdatasync(fd), 0);
  }
  close(fd);
  EXPECT_GE(requests("fsync") - fsyncs, kCommits);
  EXPECT_LE(requests("getattr") - getattrs, 2) << "GETATTRs for " << kCommits << " commits";
  EXPECT_LE(requests("getxattr") - getxattrs, 2) << "GETXATTRs for " << kCommits << " commits";
}

// FUSE no-open (the default): after the first OPEN, answered ENOSYS, opening,
// reading and closing files costs no OPEN and no RELEASE, warm reads no request
// at all; with --no_open=false every open(2) is an OPEN.
TEST_F(MetricsTest, NoOpenSendsNoOpenAfterTheFirst) {
  constexpr int kFiles = 20;
  constexpr int kRounds = 3;
  auto requests = [&](const char* op) {
    return std::max(0.0, Value(Scrape(), "tierfs_fuse_requests_total",
                               std::string("op=\"") + op + "\""));
  };
  auto open_read_close = [&] {
    for (int round = 0; round < kRounds; ++round) {
      for (int i = 0; i < kFiles; ++i) {
        EXPECT_EQ(ReadFile(Path("f" + std::to_string(i))), "bytes " + std::to_string(i));
      }
    }
  };
  for (int i = 0; i < kFiles; ++i) {
    WriteFile(Path("f" + std::to_string(i)), "bytes " + std::to_string(i));
  }
  double opens = requests("open"), releases = requests("release"), reads = requests("read");
  open_read_close();
  EXPECT_LE(requests("open") - opens, 1);
  EXPECT_EQ(requests("release") - releases, 0);
  EXPECT_EQ(requests("read") - reads, 0) << "every page was cached by its write";
  EXPECT_EQ(Value(Scrape(), "tierfs_kernel_open_files", ""), kFiles)
      << "each created file keeps its handle for the next requests";

  Unmount();
  Mount({"--metrics_listen", "127.0.0.1:" + std::to_string(port_), "--no_open=false"});
  opens = requests("open");
  releases = requests("release");
  open_read_close();
  EXPECT_GE(requests("open") - opens, kFiles * kRounds);
}

// In no-open mode the daemon learns of no close: an unlinked file stays
// readable while open, and its object goes once the kernel forgets the inode
// (right after the last close of an unlinked file).
TEST_F(MetricsTest, NoOpenReclaimsAnUnlinkedFileAfterItsLastClose) {
  const std::string data = RandomBytes(64 * 1024, 3);
  WriteFileSynced(Path("doomed"), data);
  auto objects = [&] {  // object files on both volumes
    size_t n = 0;
    for (const std::string& vol : {ssd_, hdd_}) {
      const std::string dir = vol + "/.tierfs/objects";
      if (!std::filesystem::exists(dir)) continue;
      for (auto& e : std::filesystem::recursive_directory_iterator(dir)) n += e.is_regular_file();
    }
    return n;
  };
  const size_t with_it = objects();
  ASSERT_GE(with_it, 1u);
  int fd = open(Path("doomed").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(unlink(Path("doomed").c_str()), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(objects(), with_it) << "the object of an open file stays";
  std::string back(data.size(), '\0');
  EXPECT_EQ(pread(fd, back.data(), back.size(), 0), ssize_t(data.size()));
  EXPECT_EQ(back, data);
  close(fd);
  size_t now = with_it;
  for (int i = 0; i < 100 && (now = objects()) >= with_it; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(now, with_it - 1) << "the unlinked file's object was reclaimed";
}

TEST_F(MetricsTest, TextfileHoldsTheSameMetricsAfterUnmount) {
  WriteFile(Path("f"), "data");
  Unmount();  // the exporter writes the file a last time
  auto samples = Samples(textfile_);
  EXPECT_EQ(Value(samples, "tierfs_volume_files", R"(class="hdd",volume="vol2")"), 1);
  EXPECT_GE(Value(samples, "tierfs_fuse_requests_total", R"(op="create")"), 1);
  for (const auto& entry : std::filesystem::directory_iterator(root_)) {
    EXPECT_EQ(entry.path().string().find(".prom.tmp"), std::string::npos) << entry.path();
  }
}

TEST_F(MetricsTest, BadOptionsAreRefusedNamingTheOption) {
  Unmount();
  CommandResult r = Tool("tierfs", {"--metrics_listen", "localhost", ssd_, mnt_});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("--metrics_listen"), std::string::npos) << r.output;
  r = Tool("tierfs", {"--metrics_textfile", "relative.prom", ssd_, mnt_});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("--metrics_textfile"), std::string::npos) << r.output;
  // A port already taken: the mount fails and says which address.
  int port;
  int s = BoundLoopbackSocket(true, &port);
  ASSERT_GT(port, 0);
  const std::string taken = "127.0.0.1:" + std::to_string(port);
  r = Tool("tierfs", {"--metrics_listen", taken, ssd_, mnt_});
  close(s);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find(taken), std::string::npos) << r.output;
}

}  // namespace
}  // namespace tierfs::testing
