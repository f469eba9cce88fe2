// ControlServer over a real socket in a temporary directory, driven by a raw
// client (so that malformed input can be sent).
#include "fs/control/control_server.h"

#include <ftw.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

namespace tierfs {
namespace {

using nlohmann::json;

// Sends `text` and reads everything until EOF.
std::string Exchange(const std::string& socket_path, const std::string& text) {
  Result<int> fd = ConnectControlSocket(socket_path);
  if (!fd.ok()) return "connect: " + fd.status().message();
  size_t off = 0;
  while (off < text.size()) {
    ssize_t n = send(*fd, text.data() + off, text.size() - off, MSG_NOSIGNAL);
    if (n <= 0) break;
    off += static_cast<size_t>(n);
  }
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = recv(*fd, buf, sizeof buf, 0)) > 0) out.append(buf, static_cast<size_t>(n));
  close(*fd);
  return out;
}

json LastLine(const std::string& text) {
  std::string t = text;
  if (!t.empty() && t.back() == '\n') t.pop_back();
  return json::parse(t.substr(t.find_last_of('\n') + 1), nullptr, false);
}

class ControlServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tierfs-ctl-test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    socket_ = dir_ + "/control.sock";
  }
  void TearDown() override {
    server_.reset();
    nftw(
        dir_.c_str(), [](const char* p, const struct stat*, int, FTW*) { return remove(p); }, 16,
        FTW_DEPTH | FTW_PHYS);
  }
  void Start(uid_t owner = getuid()) {
    auto server = ControlServer::Start(
        socket_, owner,
        [this](const json& request, const ControlPeer& peer, ControlReply& reply) -> Result<json> {
          ++calls_;
          if (request["op"] == "progress") {
            reply.Progress(json{{"done", 1}});
            reply.Progress(json{{"done", 2}});
            return json{{"ok", "yes"}};
          }
          if (request["op"] == "wait") {
            // Runs until the client or the server goes away.
            while (reply.Progress(json{{"tick", 1}})) {
              std::this_thread::sleep_for(std::chrono::milliseconds(5));
            }
            return json::object();
          }
          if (request["op"] == "bad_utf8") return json{{"name", "caf\xe9"}};
          return json{{"op", request["op"]}, {"uid", peer.uid}};
        });
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
  }

  std::string dir_, socket_;
  std::unique_ptr<ControlServer> server_;
  std::atomic<int> calls_{0};
};

TEST_F(ControlServerTest, AnswersOneRequestPerConnection) {
  Start();
  std::string out = Exchange(socket_, "{\"op\":\"ping\"}\n");
  EXPECT_EQ(
      out, "{\"ok\":true,\"result\":{\"op\":\"ping\",\"uid\":" + std::to_string(getuid()) + "}}\n");
}

TEST_F(ControlServerTest, ProgressLinesThenTheFinalLine) {
  Start();
  std::string out = Exchange(socket_, "{\"op\":\"progress\"}\n");
  EXPECT_EQ(out,
            "{\"progress\":{\"done\":1}}\n{\"progress\":{\"done\":2}}\n"
            "{\"ok\":true,\"result\":{\"ok\":\"yes\"}}\n");
}

TEST_F(ControlServerTest, MalformedRequestsAreEinval) {
  Start();
  for (const char* bad : {"{not json\n", "[1,2]\n", "{\"op\":5}\n", "{}\n", "\n"}) {
    json answer = LastLine(Exchange(socket_, bad));
    EXPECT_EQ(answer["ok"], false) << bad;
    EXPECT_EQ(answer["errno"], EINVAL) << bad;
    EXPECT_TRUE(answer["error"].is_string());
  }
  EXPECT_EQ(calls_.load(), 0);
  // One request per connection: bytes after the first newline are refused
  // (control_server_limits_test.cc has the details).
  EXPECT_EQ(LastLine(Exchange(socket_, "{\"op\":\"a\"}\n{\"op\":\"b\"}\n"))["errno"], EINVAL);
}

TEST_F(ControlServerTest, InvalidUtf8InAnswersIsReplacedNotFatal) {
  Start();
  json answer = LastLine(Exchange(socket_, "{\"op\":\"bad_utf8\"}\n"));
  EXPECT_EQ(answer["ok"], true);
  EXPECT_TRUE(answer["result"]["name"].is_string());
}

TEST_F(ControlServerTest, SocketIsPrivate) {
  Start();
  struct stat st;
  ASSERT_EQ(lstat(socket_.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // No temporary socket is left next to it.
  EXPECT_EQ(system(("test $(ls -A '" + dir_ + "' | wc -l) -eq 1").c_str()), 0);
}

TEST_F(ControlServerTest, StopUnblocksAcceptAndIdleClientsAndRemovesTheSocket) {
  Start();
  // A client that connects and never sends anything.
  Result<int> idle = ConnectControlSocket(socket_);
  ASSERT_TRUE(idle.ok());
  // A handler that streams until told to stop.
  std::thread busy([this] { Exchange(socket_, "{\"op\":\"wait\"}\n"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto start = std::chrono::steady_clock::now();
  server_->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  busy.join();
  char c;
  EXPECT_EQ(recv(*idle, &c, 1, 0), 0);  // EOF, not a hang
  close(*idle);
  struct stat st;
  EXPECT_NE(lstat(socket_.c_str(), &st), 0);
  server_->Stop();  // idempotent
}

TEST_F(ControlServerTest, StaleSocketIsReplacedLiveOneIsNot) {
  // A socket file nobody listens on (a crashed daemon's).
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", socket_.c_str());
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  close(fd);
  Start();
  EXPECT_EQ(LastLine(Exchange(socket_, "{\"op\":\"x\"}\n"))["ok"], true);

  auto second = ControlServer::Start(
      socket_, getuid(),
      [](const json&, const ControlPeer&, ControlReply&) { return Result<json>(json::object()); });
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), EADDRINUSE);
}

TEST_F(ControlServerTest, RefusesToReplaceAFileThatIsNotASocket) {
  std::FILE* f = std::fopen(socket_.c_str(), "w");
  std::fclose(f);
  auto server = ControlServer::Start(
      socket_, getuid(),
      [](const json&, const ControlPeer&, ControlReply&) { return Result<json>(json::object()); });
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().code(), EEXIST);
}

TEST(ControlPeer, OnlyRootOrTheOwner) {
  EXPECT_TRUE(ControlPeerAllowed(ControlPeer{1, 0, 0}, 1000));
  EXPECT_TRUE(ControlPeerAllowed(ControlPeer{1, 1000, 1000}, 1000));
  EXPECT_FALSE(ControlPeerAllowed(ControlPeer{1, 1001, 1000}, 1000));
  EXPECT_FALSE(ControlPeerAllowed(ControlPeer{1, 65534, 65534}, 0));
}

// The whole path: a client of another uid that gets past the socket's file
// permissions is still refused, with EACCES, by the SO_PEERCRED check.
TEST_F(ControlServerTest, OtherUsersGetEacces) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to run a client as another uid";
  Start(/*owner=*/4321);
  ASSERT_EQ(chmod(socket_.c_str(), 0666), 0);  // let the test's stranger connect
  ASSERT_EQ(chmod(dir_.c_str(), 0755), 0);
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(pipefd[0]);
    if (setgid(5678) != 0 || setuid(5678) != 0) _exit(2);
    std::string out = Exchange(socket_, "{\"op\":\"ping\"}\n");
    ssize_t ignored = write(pipefd[1], out.data(), out.size());
    (void)ignored;
    _exit(0);
  }
  close(pipefd[1]);
  std::string out;
  char buf[512];
  ssize_t n;
  while ((n = read(pipefd[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  close(pipefd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  json answer = LastLine(out);
  EXPECT_EQ(answer["ok"], false) << out;
  EXPECT_EQ(answer["errno"], EACCES) << out;
  EXPECT_NE(answer["error"].get<std::string>().find("uid 5678"), std::string::npos);
  EXPECT_EQ(calls_.load(), 0);
  // Root and the owner are admitted.
  EXPECT_EQ(LastLine(Exchange(socket_, "{\"op\":\"ping\"}\n"))["ok"], true);
}

}  // namespace
}  // namespace tierfs
