// ControlServer's limits (fs/control/control_server.h): idle clients time out, the number
// of connections is bounded, a long request is not cut off, and a request line
// followed by anything is refused. Raw clients over a real socket; every read is
// bounded by poll(2) so that a missing timeout fails the test instead of hanging it.
#include <ftw.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "fs/control/control_server.h"

namespace tierfs {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// Reads until EOF or `timeout_ms`; *eof says which.
std::string ReadAll(int fd, int timeout_ms, bool* eof) {
  std::string out;
  *eof = false;
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return out;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char buf[4096];
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) {
      *eof = true;
      return out;
    }
    out.append(buf, static_cast<size_t>(n));
  }
}

void SendText(int fd, const std::string& text) {
  ASSERT_EQ(send(fd, text.data(), text.size(), MSG_NOSIGNAL), static_cast<ssize_t>(text.size()));
}

json LastLine(std::string text) {
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return json::parse(text.substr(text.find_last_of('\n') + 1), nullptr, false);
}

class ControlServerLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tierfs-ctl-limits.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    socket_ = dir_ + "/control.sock";
  }
  void TearDown() override {
    for (int fd : fds_) close(fd);
    server_.reset();
    nftw(
        dir_.c_str(), [](const char* p, const struct stat*, int, FTW*) { return remove(p); }, 16,
        FTW_DEPTH | FTW_PHYS);
  }
  void Start(const ControlServerLimits& limits) {
    auto server = ControlServer::Start(
        socket_, getuid(),
        [this](const json& request, const ControlPeer&, ControlReply& reply) -> Result<json> {
          ++calls_;
          if (request["op"] == "slow") {
            // Longer than the request timeout, streaming progress meanwhile.
            for (int i = 0; i < 10; ++i) {
              if (!reply.Progress(json{{"done", i}})) break;
              std::this_thread::sleep_for(std::chrono::milliseconds(100));
            }
            return json{{"finished", true}};
          }
          return json{{"op", request["op"]}};
        },
        limits);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
  }
  int Connect() {
    Result<int> fd = ConnectControlSocket(socket_);
    EXPECT_TRUE(fd.ok()) << fd.status().ToString();
    if (!fd.ok()) return -1;
    fds_.push_back(*fd);
    return *fd;
  }
  // One request on a new connection; the answer's last line.
  json Ask(const std::string& text, int timeout_ms = 5000) {
    int fd = Connect();
    if (fd < 0) return json();
    SendText(fd, text);
    bool eof = false;
    std::string out = ReadAll(fd, timeout_ms, &eof);
    EXPECT_TRUE(eof) << "no end of answer within " << timeout_ms << " ms: " << out;
    return LastLine(out);
  }

  std::string dir_, socket_;
  std::unique_ptr<ControlServer> server_;
  std::vector<int> fds_;
  std::atomic<int> calls_{0};
};

TEST_F(ControlServerLimitsTest, IdleClientIsAnsweredEtimedoutAndClosed) {
  Start(ControlServerLimits{4, 300});
  int fd = Connect();
  ASSERT_GE(fd, 0);
  SendText(fd, "{\"op\":");  // half a request, then nothing
  const auto start = Clock::now();
  bool eof = false;
  std::string out = ReadAll(fd, 5000, &eof);
  EXPECT_TRUE(eof) << "the idle connection was not closed";
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(3));
  json answer = LastLine(out);
  EXPECT_EQ(answer["errno"], ETIMEDOUT) << out;
  EXPECT_NE(answer.value("error", "").find("0.3 s"), std::string::npos) << out;
  EXPECT_EQ(calls_.load(), 0);
}

TEST_F(ControlServerLimitsTest, DefaultsAreTheDocumentedOnes) {
  ControlServerLimits limits;
  EXPECT_EQ(limits.max_connections, kMaxControlConnections);
  EXPECT_EQ(limits.request_timeout_ms, kControlRequestTimeoutSeconds * 1000);
  EXPECT_EQ(limits.queue_wait_ms, kControlQueueWaitMs);
  EXPECT_EQ(ControlServer::Start(socket_, getuid(), [](const json&, const ControlPeer&,
                                                        ControlReply&) -> Result<json> {
              return json::object();
            }, ControlServerLimits{0, 1000}).status().code(),
            EINVAL);
}

TEST_F(ControlServerLimitsTest, ConnectionsBeyondTheMaximumWaitThenAreRefused) {
  Start(ControlServerLimits{2, 60'000, 200});
  // Two idle clients hold both places.
  ASSERT_GE(Connect(), 0);
  ASSERT_GE(Connect(), 0);
  const auto start = Clock::now();
  json refused = Ask("{\"op\":\"ping\"}\n", 5000);
  EXPECT_EQ(refused["errno"], EAGAIN) << refused.dump();
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(190));
  EXPECT_EQ(calls_.load(), 0);

  // A place that frees while a client waits is its.
  std::thread leave([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    shutdown(fds_[0], SHUT_RDWR);  // the idle client goes away
  });
  json answer = Ask("{\"op\":\"ping\"}\n");
  leave.join();
  EXPECT_EQ(answer["result"]["op"], "ping") << answer.dump();
}

// A local user who may use the control socket (the uid that mounted) can hold
// every place with idle clients only up to its share: the last places are root's,
// so root's `fsppadm` always gets in. The user's clients run in a child
// process with that uid; its extra clients are refused at once.
TEST_F(ControlServerLimitsTest, IdleClientsOfTheOwnerNeverKeepRootOut) {
  if (getuid() != 0) GTEST_SKIP() << "needs root, to run a client as another uid";
  constexpr uid_t kOwner = 65534;  // nobody: the user who mounted
  ASSERT_EQ(chmod(dir_.c_str(), 0755), 0);
  ControlServerLimits limits{6, 60'000, 200};
  limits.root_reserved = 2;
  auto server = ControlServer::Start(
      socket_, kOwner,
      [](const json& request, const ControlPeer& peer, ControlReply&) -> Result<json> {
        return json{{"op", request["op"]}, {"uid", peer.uid}};
      },
      limits);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  int report[2];
  ASSERT_EQ(pipe(report), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The owner's client: ten idle connections; counts those refused at once.
    alarm(30);  // bounded, whatever the parent does
    if (setgid(kOwner) != 0 || setuid(kOwner) != 0) _exit(2);
    std::vector<int> held;
    for (int i = 0; i < 10; ++i) {
      Result<int> fd = ConnectControlSocket(socket_);
      if (!fd.ok()) _exit(3);
      held.push_back(*fd);
    }
    int refused = 0;
    for (int fd : held) {
      bool eof = false;
      const std::string answer = ReadAll(fd, 300, &eof);
      if (eof && LastLine(answer)["errno"] == EAGAIN) refused++;
    }
    const char n = static_cast<char>(refused);
    (void)!write(report[1], &n, 1);
    pause();  // holds the admitted ones until the parent ends this process
    _exit(0);
  }
  close(report[1]);
  char refused = -1;
  pollfd p{report[0], POLLIN, 0};
  ASSERT_EQ(poll(&p, 1, 10'000), 1) << "the owner's client never reported";
  ASSERT_EQ(read(report[0], &refused, 1), 1);
  close(report[0]);
  EXPECT_EQ(refused, 6) << "4 of the 6 places are the owner's, 2 root's";
  // Root gets in twice at once, while the owner's four idle clients stay.
  const int a = Connect(), b = Connect();
  SendText(a, "{\"op\":\"ping\"}\n");
  SendText(b, "{\"op\":\"ping\"}\n");
  for (int fd : {a, b}) {
    bool eof = false;
    json answer = LastLine(ReadAll(fd, 5000, &eof));
    EXPECT_EQ(answer["result"]["uid"], 0) << answer.dump();
  }
  kill(child, SIGKILL);  // the child this test started
  int status = 0;
  waitpid(child, &status, 0);
}

TEST_F(ControlServerLimitsTest, ManyClientsCallingInTurnAreNeverRefused) {
  Start(ControlServerLimits{4, 60'000});
  std::vector<std::thread> clients;
  std::atomic<int> ok{0};
  for (int i = 0; i < 4; ++i) {
    clients.emplace_back([&] {
      for (int j = 0; j < 50; ++j) {
        Result<int> fd = ConnectControlSocket(socket_);
        if (!fd.ok()) continue;
        const std::string request = "{\"op\":\"ping\"}\n";
        (void)!send(*fd, request.data(), request.size(), MSG_NOSIGNAL);
        // Reads the answer line only, then calls again (as ControlClient does).
        std::string got;
        char c;
        while (recv(*fd, &c, 1, 0) == 1 && c != '\n') got += c;
        if (json::parse(got, nullptr, false).value("ok", false)) ++ok;
        close(*fd);
      }
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(ok.load(), 200);
}

TEST_F(ControlServerLimitsTest, LongRequestIsNotCutOff) {
  Start(ControlServerLimits{4, 200});
  int fd = Connect();
  ASSERT_GE(fd, 0);
  SendText(fd, "{\"op\":\"slow\"}\n");
  bool eof = false;
  std::string out = ReadAll(fd, 10'000, &eof);
  EXPECT_TRUE(eof);
  EXPECT_EQ(LastLine(out)["result"]["finished"], true) << out;
  EXPECT_NE(out.find("{\"progress\":{\"done\":9}}"), std::string::npos) << out;
}

TEST_F(ControlServerLimitsTest, TrailingGarbageIsRefused) {
  Start(ControlServerLimits{});
  // On the request's line.
  for (const char* text : {"{\"op\":\"ping\"} garbage\n", "{\"op\":\"ping\"}{\"op\":\"x\"}\n",
                           "{\"op\":\"ping\"}]\n"}) {
    json answer = Ask(text);
    EXPECT_EQ(answer["errno"], EINVAL) << text;
    EXPECT_NE(answer.value("error", "").find("trailing data after the JSON request"),
              std::string::npos)
        << text << " -> " << answer.dump();
  }
  // After the request's newline.
  for (const char* text : {"{\"op\":\"ping\"}\ngarbage", "{\"op\":\"ping\"}\n\n",
                           "{\"op\":\"ping\"}\n{\"op\":\"ping\"}\n"}) {
    json answer = Ask(text);
    EXPECT_EQ(answer["errno"], EINVAL) << text;
    EXPECT_NE(answer.value("error", "").find("after the request's newline"), std::string::npos)
        << answer.dump();
  }
  EXPECT_EQ(calls_.load(), 0);
  // Whitespace inside the line is JSON's business and fine.
  EXPECT_EQ(Ask("  {\"op\":\"ping\"}  \r\n")["result"]["op"], "ping");
}

}  // namespace
}  // namespace tierfs
