// PassthroughIoCounter against the running kernel: real BPF programs, a real
// FUSE mount answered with passthrough opens (passthrough_fuse_server.h), and
// exact byte and op counts. Skipped, saying why, when not root, without kernel
// BTF, or in a build without BPF.
#include "fs/bpf/passthrough_io_counter.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/unique_fd.h"
#include "tests/bpf/passthrough_fuse_server.h"

namespace tierfs {
namespace {

namespace fs = std::filesystem;

// Why the counter cannot run here, or "" when it can (asked once).
std::string WhyNotHere() {
  static const std::string why = [] () -> std::string {
    if (geteuid() != 0) return "needs root (BPF tracing programs and mount(2))";
    if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) return "the kernel has no BTF";
    auto probe = PassthroughIoCounter::Start(0);
    if (!probe.ok() && probe.status().message().find("built without BPF") != std::string::npos) {
      return probe.status().message();
    }
    return "";
  }();
  return why;
}

#define SKIP_UNLESS_COUNTER_CAN_RUN()                  \
  do {                                                 \
    std::string why = WhyNotHere();                    \
    if (!why.empty()) GTEST_SKIP() << why;             \
  } while (0)

dev_t DevOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_dev;
}

TEST(PassthroughIoCounterTest, StartsAndDrainsNothingForAMountWithoutIo) {
  SKIP_UNLESS_COUNTER_CAN_RUN();
  auto counter = PassthroughIoCounter::Start(DevOf("/"));
  ASSERT_TRUE(counter.ok()) << counter.status().ToString();
  EXPECT_NE((*counter)->hook(), PassthroughIoHook::kAuto);
  std::cout << "[          ] hooked with " << PassthroughIoHookName((*counter)->hook()) << "\n";
  EXPECT_TRUE((*counter)->Drain().empty());
  EXPECT_TRUE((*counter)->Drain().empty());
  EXPECT_EQ((*counter)->dropped(), 0u);
}

// With CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN out of the effective set (in a
// forked child, so the test process keeps them), loading fails with EPERM and
// a message that names the capabilities.
TEST(PassthroughIoCounterTest, FailsWithEpermWithoutCapabilities) {
  SKIP_UNLESS_COUNTER_CAN_RUN();
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(pipe_fds[0]);
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    if (syscall(SYS_capget, &header, data) != 0) _exit(10);
    data[0].effective = 0;  // the permitted set stays: only the effective set is checked
    data[1].effective = 0;
    if (syscall(SYS_capset, &header, data) != 0) _exit(11);
    auto counter = PassthroughIoCounter::Start(0);
    std::string line = counter.ok() ? "started" : counter.status().ToString();
    (void)!write(pipe_fds[1], line.data(), line.size());
    _exit(counter.ok() ? 12 : counter.status().code() == EPERM ? 0 : 13);
  }
  close(pipe_fds[1]);
  std::string message;
  char chunk[512];
  ssize_t n;
  while ((n = read(pipe_fds[0], chunk, sizeof(chunk))) > 0) message.append(chunk, n);
  close(pipe_fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "child said: " << message;
  EXPECT_NE(message.find("CAP_BPF"), std::string::npos) << message;
  std::cout << "[          ] unprivileged Start: " << message << "\n";
}

// A FUSE mount whose file is opened with passthrough; each test runs once per
// hook kind.
class PassthroughMountTest : public ::testing::TestWithParam<PassthroughIoHook> {
 protected:
  void SetUp() override {
    SKIP_UNLESS_COUNTER_CAN_RUN();
    char tmpl[] = "/tmp/tierfs-bpf-test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    mount_point_ = dir_ + "/mnt";
    backing_ = dir_ + "/backing";
    ASSERT_EQ(mkdir(mount_point_.c_str(), 0755), 0);
    UniqueFd create(open(backing_.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644));
    ASSERT_GE(create.get(), 0);
    auto server = PassthroughFuseServer::Mount(mount_point_, backing_);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
    mount_dev_ = DevOf(mount_point_);  // answered by the server: INIT is done after this
    ASSERT_NE(mount_dev_, DevOf(dir_));
    file_ = mount_point_ + "/" + PassthroughFuseServer::kFileName;
  }
  void TearDown() override {
    server_.reset();  // unmounts
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // A counter on `dev` with this test's hook, or null with skipped_ set when
  // this kernel cannot have that hook: fexit refused to root (an LSM policy, as
  // on this project's test machines) or no kprobes (CONFIG_KPROBES off). The
  // other hooks' runs then prove the counting.
  std::unique_ptr<PassthroughIoCounter> StartCounter(
      dev_t dev, uint32_t max_nodeids = TIERFS_PASSTHROUGH_MAX_NODEIDS) {
    auto counter = PassthroughIoCounter::Start(dev, {.hook = GetParam(), .max_nodeids = max_nodeids});
    if (!counter.ok() && ((GetParam() == PassthroughIoHook::kFexit &&
                           counter.status().code() == EPERM) ||
                          (GetParam() == PassthroughIoHook::kKprobe &&
                           counter.status().code() == ENOSYS))) {
      skipped_ = "this kernel cannot have the hook: " + counter.status().ToString();
      return nullptr;
    }
    EXPECT_TRUE(counter.ok()) << counter.status().ToString();
    if (!counter.ok()) return nullptr;
    EXPECT_EQ((*counter)->hook(), GetParam());
    return std::move(*counter);
  }

  std::string skipped_;
  std::string dir_, mount_point_, backing_, file_;
  std::unique_ptr<PassthroughFuseServer> server_;
  dev_t mount_dev_ = 0;
};

// Every kind of passthrough call, with exact bytes and ops, on the right
// nodeid; a second counter on the backing file's device sees none of it.
TEST_P(PassthroughMountTest, CountsEveryPassthroughReadAndWriteExactly) {
  auto counter = StartCounter(mount_dev_);
  if (!skipped_.empty()) GTEST_SKIP() << skipped_;
  ASSERT_NE(counter, nullptr);
  auto elsewhere = StartCounter(DevOf(dir_));
  ASSERT_NE(elsewhere, nullptr);

  UniqueFd fd(open(file_.c_str(), O_RDWR | O_CLOEXEC));
  ASSERT_GE(fd.get(), 0) << strerror(errno);
  std::vector<char> block(4096, 'x');
  for (int i = 0; i < 3; i++) {  // write_iter: 3 ops, 12,288 bytes
    ASSERT_EQ(pwrite(fd.get(), block.data(), block.size(), i * 4096), 4096);
  }
  ASSERT_EQ(pread(fd.get(), block.data(), 4096, 0), 4096);     // read_iter: 4,096
  ASSERT_EQ(pread(fd.get(), block.data(), 100, 12000), 100);   // 100
  ASSERT_EQ(pread(fd.get(), block.data(), 100, 20000), 0);     // past EOF: an op of 0 bytes
  UniqueFd null(open("/dev/null", O_WRONLY | O_CLOEXEC));
  off_t offset = 0;
  ASSERT_EQ(sendfile(null.get(), fd.get(), &offset, 1000), 1000);  // splice_read: 1,000
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  ASSERT_EQ(write(pipe_fds[1], block.data(), 500), 500);
  loff_t out_offset = 12288;
  ASSERT_EQ(splice(pipe_fds[0], nullptr, fd.get(), &out_offset, 500, 0), 500);  // splice_write
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  fd.Close();

  EXPECT_EQ(server_->data_requests(), 0u) << "the daemon served I/O: passthrough was not in use";
  EXPECT_EQ(server_->passthrough_opens(), 1u);
  struct stat backing_st {};
  ASSERT_EQ(stat(backing_.c_str(), &backing_st), 0);
  EXPECT_EQ(backing_st.st_size, 12288 + 500);  // the writes reached the backing file

  auto counts = counter->Drain();
  ASSERT_EQ(counts.size(), 1u);
  EXPECT_EQ(counts[0].nodeid, PassthroughFuseServer::kFileNodeid);
  EXPECT_EQ(counts[0].write_ops, 4u);
  EXPECT_EQ(counts[0].write_bytes, 12288u + 500u);
  EXPECT_EQ(counts[0].read_ops, 4u);
  EXPECT_EQ(counts[0].read_bytes, 4096u + 100u + 0u + 1000u);
  EXPECT_TRUE(counter->Drain().empty()) << "a drained count came back";
  EXPECT_EQ(counter->dropped(), 0u);
  EXPECT_TRUE(elsewhere->Drain().empty()) << "the mount filter let another device's I/O in";
}

// Drains while a reader runs: the counts of all drains add up to exactly the
// reads made, none lost between two drains and none counted twice.
TEST_P(PassthroughMountTest, DrainsDuringIoLoseAndDoubleNothing) {
  auto counter = StartCounter(mount_dev_);
  if (!skipped_.empty()) GTEST_SKIP() << skipped_;
  ASSERT_NE(counter, nullptr);
  UniqueFd fd(open(file_.c_str(), O_RDWR | O_CLOEXEC));
  ASSERT_GE(fd.get(), 0) << strerror(errno);
  ASSERT_EQ(pwrite(fd.get(), "abcdefgh", 8, 0), 8);
  ASSERT_EQ(counter->Drain().size(), 1u);

  // Two readers (this machine's two cores) against one drainer.
  constexpr int kReaders = 2, kReadsEach = 10000, kReads = kReaders * kReadsEach;
  std::atomic<int> running{kReaders};
  std::vector<std::thread> readers;
  for (int r = 0; r < kReaders; r++) {
    readers.emplace_back([&] {
      char byte;
      for (int i = 0; i < kReadsEach; i++) (void)!pread(fd.get(), &byte, 1, i % 8);
      --running;
    });
  }
  uint64_t ops = 0, bytes = 0, drains = 0;
  auto add = [&](const std::vector<PassthroughIoCount>& counts) {
    for (const auto& c : counts) {
      EXPECT_EQ(c.nodeid, PassthroughFuseServer::kFileNodeid);
      ops += c.read_ops;
      bytes += c.read_bytes;
      EXPECT_EQ(c.write_ops, 0u);
    }
    ++drains;
  };
  while (running > 0) {
    add(counter->Drain());
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  for (auto& reader : readers) reader.join();
  add(counter->Drain());
  EXPECT_EQ(ops, static_cast<uint64_t>(kReads)) << "over " << drains << " drains";
  EXPECT_EQ(bytes, static_cast<uint64_t>(kReads));
  EXPECT_EQ(counter->dropped(), 0u);
  std::cout << "[          ] " << kReads << " reads counted exactly over " << drains
            << " drains\n";
}

// One thread pinned to each CPU this process may use, all counting at once on
// one file they share and on files of their own, while another thread drains:
// what every CPU counted adds up to exactly the calls made, on the right
// nodeids. Each thread reads and writes its own number of bytes, so a CPU's
// count lost or taken twice (by a drain that read a map still written on one
// CPU, or summed a CPU's copy twice) shows in the totals.
TEST_P(PassthroughMountTest, CountsExactlyFromEveryCpuWhileDraining) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
    if (CPU_ISSET(cpu, &allowed)) cpus.push_back(cpu);
  }
  if (cpus.size() < 2) GTEST_SKIP() << "one CPU: no counts across CPUs to add up";
  auto counter = StartCounter(mount_dev_);
  if (!skipped_.empty()) GTEST_SKIP() << skipped_;
  ASSERT_NE(counter, nullptr);
  std::string shared = mount_point_ + "/f0";
  {
    UniqueFd fd(open(shared.c_str(), O_RDWR | O_CLOEXEC));
    ASSERT_GE(fd.get(), 0) << strerror(errno);
    ASSERT_EQ(pwrite(fd.get(), std::string(64, 'a').data(), 64, 0), 64);
  }
  ASSERT_EQ(counter->Drain().size(), 1u);

  // Thread t: kCalls preads of Size(t) bytes of f0, and kCalls pwrites of
  // Size(t) bytes to its own file, f1 to f3 (all one backing file, at offset 0:
  // its 64 bytes stay and every read returns what it asked for).
  constexpr int kCalls = 5000;
  auto size = [](int t) { return static_cast<size_t>(t % 8 + 1); };
  auto own_nodeid = [](int t) {
    return PassthroughFuseServer::kFileNodeid + 1 + t % (PassthroughFuseServer::kFiles - 1);
  };
  const int threads = static_cast<int>(cpus.size());
  std::map<uint64_t, PassthroughIoCount> expected;
  for (int t = 0; t < threads; t++) {
    auto& read = expected[PassthroughFuseServer::kFileNodeid];
    read.read_ops += kCalls;
    read.read_bytes += kCalls * size(t);
    auto& written = expected[own_nodeid(t)];
    written.write_ops += kCalls;
    written.write_bytes += kCalls * size(t);
  }
  std::atomic<int> running{threads};
  std::atomic<bool> go{false};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; t++) {
    workers.emplace_back([&, t] {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpus[t], &one);
      EXPECT_EQ(sched_setaffinity(0, sizeof(one), &one), 0) << strerror(errno);
      EXPECT_EQ(sched_getcpu(), cpus[t]);
      UniqueFd in(open(shared.c_str(), O_RDONLY | O_CLOEXEC));
      std::string own_path = mount_point_ + "/f" + std::to_string(own_nodeid(t) - PassthroughFuseServer::kFileNodeid);
      UniqueFd out(open(own_path.c_str(), O_WRONLY | O_CLOEXEC));
      EXPECT_GE(in.get(), 0);
      EXPECT_GE(out.get(), 0);
      std::string buffer(size(t), 'b');
      while (!go) std::this_thread::yield();
      const auto want = static_cast<ssize_t>(buffer.size());
      for (int i = 0; i < kCalls && in.get() >= 0 && out.get() >= 0; i++) {
        ssize_t got_in = pread(in.get(), buffer.data(), buffer.size(), 0);
        ssize_t got_out = pwrite(out.get(), buffer.data(), buffer.size(), 0);
        if (got_in != want || got_out != want) {
          ADD_FAILURE() << "call " << i << ": pread " << got_in << ", pwrite " << got_out;
          break;
        }
      }
      --running;
    });
  }
  std::map<uint64_t, PassthroughIoCount> drained;
  uint64_t drains = 0;
  auto add = [&](const std::vector<PassthroughIoCount>& counts) {
    for (const auto& c : counts) {
      auto& total = drained[c.nodeid];
      total.read_ops += c.read_ops;
      total.read_bytes += c.read_bytes;
      total.write_ops += c.write_ops;
      total.write_bytes += c.write_bytes;
    }
    ++drains;
  };
  go = true;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (running > 0 && std::chrono::steady_clock::now() < deadline) {
    add(counter->Drain());
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  for (auto& worker : workers) worker.join();
  add(counter->Drain());

  EXPECT_EQ(server_->data_requests(), 0u) << "the daemon served I/O: passthrough was not in use";
  ASSERT_EQ(drained.size(), expected.size());
  for (const auto& [nodeid, want] : expected) {
    const PassthroughIoCount& got = drained[nodeid];
    EXPECT_EQ(got.read_ops, want.read_ops) << "nodeid " << nodeid << ", " << drains << " drains";
    EXPECT_EQ(got.read_bytes, want.read_bytes) << "nodeid " << nodeid;
    EXPECT_EQ(got.write_ops, want.write_ops) << "nodeid " << nodeid;
    EXPECT_EQ(got.write_bytes, want.write_bytes) << "nodeid " << nodeid;
  }
  EXPECT_GE(drains, 3u) << "no drain ran while the threads counted";
  EXPECT_EQ(counter->dropped(), 0u);
  std::cout << "[          ] " << threads << " CPUs, " << 2 * kCalls * threads
            << " calls counted exactly over " << drains << " drains\n";
}

// A map that holds two nodeids: the third file's calls are dropped and
// counted as such, the first two are counted in full.
TEST_P(PassthroughMountTest, CountsDroppedWhenTheMapIsFull) {
  auto counter = StartCounter(mount_dev_, /*max_nodeids=*/2);
  if (!skipped_.empty()) GTEST_SKIP() << skipped_;
  ASSERT_NE(counter, nullptr);
  for (int file = 0; file < 3; file++) {
    std::string path = mount_point_ + "/f" + std::to_string(file);
    UniqueFd fd(open(path.c_str(), O_RDWR | O_CLOEXEC));
    ASSERT_GE(fd.get(), 0) << path << ": " << strerror(errno);
    for (int i = 0; i < file + 1; i++) ASSERT_EQ(pwrite(fd.get(), "z", 1, i), 1);  // 1, 2, 3 calls
  }
  EXPECT_EQ(server_->data_requests(), 0u);
  auto counts = counter->Drain();
  ASSERT_EQ(counts.size(), 2u);
  std::sort(counts.begin(), counts.end(),
            [](const auto& a, const auto& b) { return a.nodeid < b.nodeid; });
  EXPECT_EQ(counts[0].nodeid, PassthroughFuseServer::kFileNodeid);
  EXPECT_EQ(counts[0].write_ops, 1u);
  EXPECT_EQ(counts[1].nodeid, PassthroughFuseServer::kFileNodeid + 1);
  EXPECT_EQ(counts[1].write_ops, 2u);
  EXPECT_EQ(counter->dropped(), 3u);
  // The next interval has room again.
  UniqueFd fd(open((mount_point_ + "/f2").c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_GE(fd.get(), 0);
  char byte;
  ASSERT_EQ(pread(fd.get(), &byte, 1, 0), 1);
  counts = counter->Drain();
  ASSERT_EQ(counts.size(), 1u);
  EXPECT_EQ(counts[0].nodeid, PassthroughFuseServer::kFileNodeid + 2);
  EXPECT_EQ(counts[0].read_ops, 1u);
}

INSTANTIATE_TEST_SUITE_P(Hooks, PassthroughMountTest,
                         ::testing::Values(PassthroughIoHook::kFexit, PassthroughIoHook::kKprobe,
                                           PassthroughIoHook::kSyscall),
                         [](const auto& info) { return PassthroughIoHookName(info.param); });

}  // namespace
}  // namespace tierfs
