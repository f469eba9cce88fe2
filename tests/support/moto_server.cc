#include "tests/support/moto_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/support/free_port.h"

namespace tierfs::testing {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kStartSeconds = 30;
constexpr double kStopSeconds = 5;

bool Executable(const std::string& path) {
  return !path.empty() && access(path.c_str(), X_OK) == 0;
}


// Whether an HTTP request to the port gets any reply line.
bool Answers(int port) {
  int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  bool ok = false;
  if (connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    timeval tv{2, 0};
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    const char req[] = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    char buf[16];
    ok = write(s, req, sizeof req - 1) == static_cast<ssize_t>(sizeof req - 1) &&
         read(s, buf, 5) == 5 && std::string(buf, 5) == "HTTP/";
  }
  close(s);
  return ok;
}

std::string Tail(const std::string& path) {
  std::ifstream in(path);
  std::stringstream all;
  all << in.rdbuf();
  std::string s = all.str();
  return s.size() > 3000 ? s.substr(s.size() - 3000) : s;
}

}  // namespace

std::string MotoServer::FindBinary() {
  if (const char* p = getenv("TIERFS_MOTO_SERVER"); p != nullptr && Executable(p)) return p;
  if (const char* v = getenv("TIERFS_TEST_VENV"); v != nullptr && *v != '\0') {
    std::string p = std::string(v) + "/bin/moto_server";
    if (Executable(p)) return p;
  }
  const char* home = getenv("HOME");
  std::string p = std::string(home != nullptr ? home : "/root") +
                  "/.cache/tierfs-test-venv/bin/moto_server";
  return Executable(p) ? p : "";
}

Result<std::unique_ptr<MotoServer>> MotoServer::Start() {
  const std::string binary = FindBinary();
  if (binary.empty()) {
    return Status::NotFound(
        "moto_server not found ($TIERFS_MOTO_SERVER, $TIERFS_TEST_VENV/bin, "
        "~/.cache/tierfs-test-venv/bin): run scripts/test-venv.sh");
  }
  const char* tmp = getenv("TMPDIR");
  std::string dir = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
                    "/tierfs-moto-XXXXXX";
  if (mkdtemp(dir.data()) == nullptr) return Status::FromErrno("mkdtemp " + dir);
  std::unique_ptr<MotoServer> server(new MotoServer());
  server->dir_ = dir;
  server->port_ = FreeLoopbackPort();
  if (server->port_ == 0) return Status::Io("no free loopback port for moto");
  const std::string log = dir + "/moto.log";
  const std::string port = std::to_string(server->port_);
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) return Status::FromErrno("fork");
  if (pid == 0) {
    // The server goes with the test binary, however that ends.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, 0);
    // Its own process group: a Ctrl-C of the run reaches the test binary,
    // whose Stop (or death) ends the server.
    setpgid(0, 0);
    // No colours in the log, and no AWS settings of the caller's.
    setenv("NO_COLOR", "1", 1);
    unsetenv("AWS_PROFILE");
    execl(binary.c_str(), binary.c_str(), "-H", "127.0.0.1", "-p", port.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  server->pid_ = pid;
  const auto deadline = Clock::now() + std::chrono::duration<double>(kStartSeconds);
  while (!Answers(server->port_)) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      server->pid_ = -1;
      return Status::Io("moto_server exited at start:\n" + Tail(log));
    }
    if (Clock::now() >= deadline) {
      return Status::Io("moto_server did not answer on port " + port + " within 30 s:\n" +
                        Tail(log));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return server;
}

MotoServer::~MotoServer() {
  Status st = Stop();
  if (!st.ok()) std::fprintf(stderr, "MotoServer: %s\n", st.message().c_str());
}

Status MotoServer::Stop() {
  Status result;
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    const auto deadline = Clock::now() + std::chrono::duration<double>(kStopSeconds);
    int status = 0;
    pid_t got = 0;
    while ((got = waitpid(pid_, &status, WNOHANG)) == 0 && Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (got == 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      result = Status::Io("moto_server (pid " + std::to_string(pid_) +
                          ") ignored SIGTERM for 5 s: killed");
    }
    pid_ = -1;
  }
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    dir_.clear();
  }
  return result;
}

std::string MotoServer::Log() const {
  std::ifstream in(dir_ + "/moto.log");
  std::stringstream all;
  all << in.rdbuf();
  return all.str();
}

}  // namespace tierfs::testing
