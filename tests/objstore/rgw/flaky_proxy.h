// FlakyProxy: a TCP proxy on a loopback port in front of the real gateway, for
// the failures a single-node gateway will not produce on demand (503 SlowDown,
// 500 InternalError, a connection cut before the reply, a clock skew, bytes
// damaged on the way, a lying ETag). It answers the next N connections (or
// those of a span of time) itself, with the chosen failure, and closes them, or
// for the damaging faults passes them through with one change; every other
// connection it passes through to the gateway byte for byte, so all the answers
// that are not failures are the real store's.
//
// Thread-safe; its threads end with it (the destructor closes every socket and
// joins them).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tierfs::testing {

class FlakyProxy {
 public:
  enum class Fault {
    kSlowDown503,
    kInternalError500,
    kCloseBeforeReply,
    // 403 RequestTimeTooSkewed, its Date set_skew_seconds() from now.
    kSkewed403,
    // Passed through, the first reply's ETag changed in one hex digit and an
    // "x-amz-server-side-encryption: AES256" header added (a store that lies,
    // or a reply damaged on the way).
    kRewriteEtag,
    // 403 InvalidAccessKeyId: the store refuses the keys.
    kKeysRefused403,
  };

  // Listens on a free loopback port and forwards to 127.0.0.1:`target_port`.
  explicit FlakyProxy(int target_port);
  // The same in front of `endpoint` ("http://127.0.0.1:PORT", a cluster's).
  static std::unique_ptr<FlakyProxy> InFrontOf(const std::string& endpoint) {
    return std::make_unique<FlakyProxy>(std::atoi(endpoint.c_str() + endpoint.rfind(':') + 1));
  }
  ~FlakyProxy();
  FlakyProxy(const FlakyProxy&) = delete;
  FlakyProxy& operator=(const FlakyProxy&) = delete;

  // "http://127.0.0.1:PORT": give it to a client in place of the gateway's.
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // The next `connections` connections get `fault` (after their request's
  // headers are read) instead of the gateway.
  void FailNext(int connections, Fault fault);
  // The next `puts` PUT requests (on any connection, a retry on the same one
  // included) reach the gateway with one bit of their body's first byte
  // flipped: a body damaged on the way, which the store's Content-MD5 check
  // refuses.
  void DamageNextPutBodies(int puts) { puts_to_damage_ = puts; }
  int damaged() const { return damaged_; }
  // Every connection accepted in the next `seconds` gets `fault`; the
  // connections open now are cut (a request in flight on one fails as a
  // reset connection does), so that every request of the span meets it.
  void FailFor(double seconds, Fault fault);
  // Replies (gateway to client) of all connections together at no more than
  // `bytes_per_second` (0: as fast as they come): a slow link.
  void LimitReplyRate(double bytes_per_second) { reply_rate_ = bytes_per_second; }
  // The next connection whose replies pass `bytes` bytes is cut there, once
  // (a link that drops in the middle of a large GET).
  void CutNextReplyAfter(uint64_t bytes) { cut_after_ = bytes; }
  int cut() const { return cut_; }
  // Reply bytes passed through so far (all connections).
  uint64_t reply_bytes() const { return reply_bytes_; }
  // The Date of kSkewed403's replies: this many seconds from now.
  void set_skew_seconds(int64_t seconds) { skew_seconds_ = seconds; }
  // A Retry-After of this many seconds on kSlowDown503's replies (< 0: none).
  void set_retry_after(int seconds) { retry_after_ = seconds; }
  // Connections accepted so far, and how many of them got a fault.
  int accepted() const { return accepted_; }
  int failed() const { return failed_; }

 private:
  void AcceptLoop();
  void Serve(int client);
  void Fail(int client, Fault fault);
  // Passes `client` through to the gateway, damaging PUT bodies while
  // puts_to_damage_ says so, and rewriting the first reply when `rewrite_etag`.
  void Forward(int client, bool rewrite_etag);

  int target_port_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> accepted_{0}, failed_{0};
  std::atomic<int64_t> skew_seconds_{3600};
  std::atomic<int> retry_after_{-1};
  std::atomic<int> puts_to_damage_{0}, damaged_{0};
  std::atomic<double> reply_rate_{0};
  std::atomic<uint64_t> cut_after_{0}, reply_bytes_{0};
  std::atomic<int> cut_{0};
  // When the rate limit lets the next reply byte go (LimitReplyRate).
  std::mutex pace_mu_;
  std::chrono::steady_clock::time_point paced_until_;  // guarded by pace_mu_
  // Waits until `n` more reply bytes may go at the limited rate.
  void Pace(size_t n);
  std::mutex mu_;
  int fail_next_ = 0;         // guarded by mu_
  std::chrono::steady_clock::time_point fail_until_;  // guarded by mu_
  Fault fault_ = Fault::kSlowDown503;  // guarded by mu_
  std::vector<int> open_fds_;          // guarded by mu_: shut down at the end
  std::vector<std::thread> threads_;   // guarded by mu_
  std::thread acceptor_;
};

}  // namespace tierfs::testing
