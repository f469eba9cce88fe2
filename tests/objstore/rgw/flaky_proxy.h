// FlakyProxy: a TCP proxy on a loopback port in front of the real gateway, for
// the failures a single-node gateway will not produce on demand (503 SlowDown,
// 500 InternalError, a connection cut before the reply). It answers the next N
// connections itself, with the chosen failure, and closes them; every other
// connection it passes through to the gateway byte for byte, so all the answers
// that are not failures are the real store's.
//
// Thread-safe; its threads end with it (the destructor closes every socket and
// joins them).
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tierfs::testing {

class FlakyProxy {
 public:
  enum class Fault { kSlowDown503, kInternalError500, kCloseBeforeReply };

  // Listens on a free loopback port and forwards to 127.0.0.1:`target_port`.
  explicit FlakyProxy(int target_port);
  ~FlakyProxy();
  FlakyProxy(const FlakyProxy&) = delete;
  FlakyProxy& operator=(const FlakyProxy&) = delete;

  // "http://127.0.0.1:PORT": give it to a client in place of the gateway's.
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // The next `connections` connections get `fault` (after their request's
  // headers are read) instead of the gateway.
  void FailNext(int connections, Fault fault);
  // Connections accepted so far, and how many of them got a fault.
  int accepted() const { return accepted_; }
  int failed() const { return failed_; }

 private:
  void AcceptLoop();
  void Serve(int client);
  void Fail(int client, Fault fault);

  int target_port_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> accepted_{0}, failed_{0};
  std::mutex mu_;
  int fail_next_ = 0;         // guarded by mu_
  Fault fault_ = Fault::kSlowDown503;  // guarded by mu_
  std::vector<int> open_fds_;          // guarded by mu_: shut down at the end
  std::vector<std::thread> threads_;   // guarded by mu_
  std::thread acceptor_;
};

}  // namespace tierfs::testing
