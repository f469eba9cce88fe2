#include "tests/support/ceph_cluster.h"

#include "tests/support/free_port.h"
#include "tests/support/run_command.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace tierfs::testing {
namespace {

// RunCommand, its output appended to *output: the exit code, -1 when it was
// killed at the deadline or could not start.
int RunCommandTo(const std::vector<std::string>& argv, int timeout_seconds,
                 std::string* output) {
  CommandResult r = RunCommand(argv, timeout_seconds);
  output->append(r.output);
  return r.exit_code;
}

using Clock = std::chrono::steady_clock;

std::string Script() { return std::string(TIERFS_SOURCE_DIR) + "/tests/ceph/ceph_cluster.sh"; }

// A loopback port that is free now, and its successor too (the monitor's).
// Ephemeral ports lie above 32768, outside the OSD's 6800-7300.
int FreePortPair() {
  for (int tries = 0; tries < 50; ++tries) {
    const int port = FreeLoopbackPort();
    if (port == 0 || port >= 65534) continue;
    if (BindLoopback(port + 1)) return port;
  }
  return 0;
}

std::string Field(const std::string& output, const std::string& name) {
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, name.size() + 1, name + "=") == 0) return line.substr(name.size() + 1);
  }
  return "";
}

std::unique_ptr<CephCluster> g_cluster;
std::string g_start_error = "the Ceph environment was not set up (CephEnvironment not registered)";

}  // namespace

Result<std::unique_ptr<CephCluster>> CephCluster::Start(uint64_t memstore_bytes, bool tls) {
  const char* tmp = getenv("TMPDIR");
  std::string dir_template = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
                             "/tierfs-ceph-XXXXXX";
  if (mkdtemp(dir_template.data()) == nullptr) {
    return Status::FromErrno("mkdtemp " + dir_template);
  }
  std::unique_ptr<CephCluster> cluster(new CephCluster());
  cluster->dir_ = dir_template;
  setenv("CEPH_MEMSTORE_BYTES", std::to_string(memstore_bytes).c_str(), 1);
  std::string output;
  auto start = Clock::now();
  int rc = -1;
  // A port found free may be taken before the daemon binds it (tests of other
  // binaries run alongside): then once more, on other ports.
  for (int attempt = 0; attempt < 2; ++attempt) {
    int port = FreePortPair();
    if (port == 0) return Status::Io("no free pair of loopback ports");
    output.clear();
    // The script bounds its own wait at 60 s; the margin covers its cleanup.
    std::vector<std::string> args = {"/bin/bash", Script(), "start", cluster->dir_,
                                     std::to_string(port), "--owner", std::to_string(getpid())};
    if (tls) {
      // Another free port, neither of the pair's (the kernel may hand out a
      // port again once its socket is closed).
      int tls_port = 0;
      for (int tries = 0; tries < 20 && (tls_port == 0 || tls_port == port ||
                                         tls_port == port + 1); ++tries) {
        tls_port = FreePortPair();
      }
      if (tls_port == 0 || tls_port == port || tls_port == port + 1) {
        return Status::Io("no free loopback port for HTTPS");
      }
      args.push_back("--tls");
      args.push_back(std::to_string(tls_port));
    }
    rc = RunCommandTo(args, 90, &output);
    if (rc == 0) break;
    // Whatever was left (a script killed at its deadline) goes by its pids;
    // the stop removes the directory, so it is made again for a retry.
    std::string ignored;
    RunCommandTo({"/bin/bash", Script(), "stop", cluster->dir_}, 60, &ignored);
    if (output.find("Address already in use") == std::string::npos) break;
    mkdir(cluster->dir_.c_str(), 0700);
  }
  cluster->start_seconds_ = std::chrono::duration<double>(Clock::now() - start).count();
  if (rc != 0) {
    int code = rc == 3 ? ENOENT : EIO;
    return Status::Error(code, "the Ceph cluster did not start (ceph_cluster.sh exit " +
                                   std::to_string(rc) + " after " +
                                   std::to_string(cluster->start_seconds_) + " s):\n" + output);
  }
  cluster->running_ = true;
  cluster->endpoint_ = Field(output, "endpoint");
  cluster->access_key_ = Field(output, "access_key");
  cluster->secret_key_ = Field(output, "secret_key");
  cluster->https_endpoint_ = Field(output, "https_endpoint");
  cluster->ca_file_ = Field(output, "ca_file");
  if (tls && (cluster->https_endpoint_.empty() || cluster->ca_file_.empty())) {
    return Status::Io("ceph_cluster.sh printed no https_endpoint and ca_file:\n" + output);
  }
  if (cluster->endpoint_.empty() || cluster->access_key_.empty() ||
      cluster->secret_key_.empty()) {
    return Status::Io("ceph_cluster.sh printed no endpoint and keys:\n" + output);
  }
  return cluster;
}

CephCluster::~CephCluster() {
  if (running_) {
    Status st = Stop();
    if (!st.ok()) std::fprintf(stderr, "CephCluster: %s\n", st.message().c_str());
  }
}

Status CephCluster::Run(const std::vector<std::string>& args, int timeout_seconds,
                        std::string* output) {
  std::vector<std::string> argv = {"/bin/bash", Script()};
  argv.insert(argv.end(), args.begin(), args.end());
  int rc = RunCommandTo(argv, timeout_seconds, output);
  if (rc != 0) {
    return Status::Io("ceph_cluster.sh " + args[0] + " exit " + std::to_string(rc) + ":\n" +
                      *output);
  }
  return Status::Ok();
}

Status CephCluster::Stop() {
  std::string output;
  // SIGTERM, 10 s, SIGKILL, per daemon: three daemons fit well within 60 s.
  Status st = Run({"stop", dir_}, 60, &output);
  running_ = false;
  return st;
}

Status CephCluster::StopGateway(bool kill) {
  std::string output;
  std::vector<std::string> args = {"stop-rgw", dir_};
  if (kill) args.push_back("--kill");
  return Run(args, 30, &output);
}

Status CephCluster::StartGateway() {
  std::string output;
  return Run({"start-rgw", dir_}, 90, &output);
}

Status CephCluster::FreezeGateway() {
  std::string output;
  return Run({"freeze-rgw", dir_}, 10, &output);
}

Status CephCluster::ThawGateway() {
  std::string output;
  return Run({"thaw-rgw", dir_}, 10, &output);
}

Status CephCluster::SetBucketQuota(const std::string& bucket, uint64_t bytes) {
  std::string output;
  return Run({"quota", dir_, bucket, std::to_string(bytes)}, 70, &output);
}

uint64_t CephCluster::ResidentBytes() const {
  uint64_t total = 0;
  for (const char* name : {"mon", "osd", "rgw"}) {
    std::ifstream pid_file(dir_ + "/pids/" + name + ".pid");
    long pid = 0;
    if (!(pid_file >> pid) || pid <= 0) continue;
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.compare(0, 6, "VmRSS:") == 0) total += std::strtoull(line.c_str() + 6, nullptr, 10) * 1024;
    }
  }
  return total;
}

void CephEnvironment::SetUp() {
  // The long tests move objects larger than the default memstore holds.
  const char* bytes = getenv("TIERFS_TEST_CEPH_MEMSTORE_BYTES");
  const uint64_t memstore_bytes =
      bytes != nullptr && *bytes != '\0' ? std::strtoull(bytes, nullptr, 10) : 2ull << 30;
  Result<std::unique_ptr<CephCluster>> cluster = CephCluster::Start(memstore_bytes, tls_);
  if (!cluster.ok()) {
    g_start_error = cluster.status().message();
    // Not FAIL(): GoogleTest skips every test after a fatal failure here, and a
    // skipped test reads as fine. Each test fails instead, with this reason.
    ADD_FAILURE() << g_start_error;
    return;
  }
  g_cluster = std::move(*cluster);
  std::printf("[ ceph     ] cluster at %s started in %.2f s, daemons' resident memory %.0f MiB\n",
              g_cluster->endpoint().c_str(), g_cluster->start_seconds(),
              g_cluster->ResidentBytes() / 1048576.0);
}

void CephEnvironment::TearDown() {
  if (g_cluster == nullptr) return;
  std::printf("[ ceph     ] daemons' resident memory at the end %.0f MiB\n",
              g_cluster->ResidentBytes() / 1048576.0);
  auto start = Clock::now();
  Status st = g_cluster->Stop();
  std::printf("[ ceph     ] stopped in %.2f s\n",
              std::chrono::duration<double>(Clock::now() - start).count());
  g_cluster.reset();
  EXPECT_TRUE(st.ok()) << st.message();
}

CephCluster* CephEnvironment::Cluster(std::string* why) {
  if (g_cluster == nullptr) *why = g_start_error;
  return g_cluster.get();
}

}  // namespace tierfs::testing
