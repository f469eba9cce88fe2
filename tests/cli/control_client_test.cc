// The control channel end to end: ControlClient against a real ControlServer on a
// socket in a temporary directory.
#include "cli/common/control_client.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <stdexcept>
#include <thread>

#include "cli/common/exit_codes.h"
#include "fs/control/control_server.h"
#include "temp_dir.h"

namespace tierfs::cli {
namespace {

using nlohmann::json;
using tierfs::testing::TempDir;

Result<json> TestHandler(const json& request, const ControlPeer& peer, ControlReply& reply) {
  const std::string op = request["op"];
  if (op == "echo") return json{{"request", request}, {"uid", peer.uid}, {"pid", peer.pid}};
  if (op == "progress") {
    for (int i = 1; i <= 3; ++i) {
      if (!reply.Progress(json{{"phase", "move"}, {"done", i}, {"total", 3}})) {
        return Status::Io("client gone");
      }
    }
    return json{{"moved", 3}};
  }
  if (op == "fail") return Status::NoSpace("volume vol1 is full");
  if (op == "invalid") return Status::Invalid("line 3: <MIN>: bad flags");
  if (op == "throw") throw std::runtime_error("boom");
  if (op == "null") return json();
  return Status::Invalid("unknown op " + op);
}

class ControlClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    socket_ = dir_ / "control.sock";
    auto server = ControlServer::Start(socket_, getuid(), TestHandler);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
  }

  TempDir dir_;
  std::string socket_;
  std::unique_ptr<ControlServer> server_;
};

TEST_F(ControlClientTest, RoundTrip) {
  ControlClient client = ControlClient::ForSocket(socket_);
  Result<json> r = client.Call(json{{"op", "echo"}, {"path", "/a b/\xff"}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)["request"]["op"], "echo");
  EXPECT_EQ((*r)["uid"], getuid());
  EXPECT_EQ((*r)["pid"], getpid());
  EXPECT_FALSE(client.unreachable());
}

TEST_F(ControlClientTest, StreamsProgressBeforeTheResult) {
  ControlClient client = ControlClient::ForSocket(socket_);
  std::vector<json> progress;
  Result<json> r =
      client.Call(json{{"op", "progress"}}, [&progress](const json& p) { progress.push_back(p); });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)["moved"], 3);
  ASSERT_EQ(progress.size(), 3u);
  EXPECT_EQ(progress[2], (json{{"phase", "move"}, {"done", 3}, {"total", 3}}));
}

TEST_F(ControlClientTest, DaemonErrorsKeepTheirErrno) {
  ControlClient client = ControlClient::ForSocket(socket_);
  Result<json> r = client.Call(json{{"op", "fail"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ENOSPC);
  EXPECT_EQ(r.status().message(), "volume vol1 is full");
  EXPECT_FALSE(client.unreachable());
  EXPECT_EQ(client.ExitCodeFor(r.status()), kExitFailed);

  r = client.Call(json{{"op", "invalid"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), EINVAL);
  EXPECT_EQ(client.ExitCodeFor(r.status()), kExitUsage);
}

TEST_F(ControlClientTest, HandlerExceptionsBecomeEio) {
  ControlClient client = ControlClient::ForSocket(socket_);
  Result<json> r = client.Call(json{{"op", "throw"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), EIO);
  EXPECT_NE(r.status().message().find("boom"), std::string::npos);
  // The server survives it.
  EXPECT_TRUE(client.Call(json{{"op", "echo"}}).ok());
}

TEST_F(ControlClientTest, NullResultIsAnEmptyObject) {
  ControlClient client = ControlClient::ForSocket(socket_);
  Result<json> r = client.Call(json{{"op", "null"}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, json::object());
}

TEST_F(ControlClientTest, RequestWithoutOpIsRefused) {
  ControlClient client = ControlClient::ForSocket(socket_);
  Result<json> r = client.Call(json{{"verb", "ping"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), EINVAL);
  EXPECT_FALSE(client.unreachable());
}

TEST_F(ControlClientTest, StoppedDaemonIsUnreachable) {
  server_->Stop();
  ControlClient client(TierfsMount{"/mnt/tier", dir_.path(), socket_});
  Result<json> r = client.Call(json{{"op", "echo"}});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(client.unreachable());
  EXPECT_EQ(client.ExitCodeFor(r.status()), kExitUnreachable);
  EXPECT_NE(r.status().message().find("/mnt/tier"), std::string::npos) << r.status().message();
}

TEST_F(ControlClientTest, ManyConcurrentClients) {
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 16; ++i) {
    threads.emplace_back([&] {
      ControlClient client = ControlClient::ForSocket(socket_);
      for (int j = 0; j < 20; ++j) {
        if (client.Call(json{{"op", "progress"}}).ok()) ++ok;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 16 * 20);
}

TEST(ControlClientPaths, SocketPathLongerThanSunPath) {
  TempDir dir;
  std::string deep = dir.path();
  while (deep.size() < 150) {
    deep += "/a-rather-long-directory-name";
    ASSERT_EQ(mkdir(deep.c_str(), 0700), 0);
  }
  const std::string socket = deep + "/control.sock";
  auto server = ControlServer::Start(socket, getuid(), TestHandler);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  ControlClient client = ControlClient::ForSocket(socket);
  Result<json> r = client.Call(json{{"op", "echo"}});
  EXPECT_TRUE(r.ok()) << r.status().ToString();
}

}  // namespace
}  // namespace tierfs::cli
