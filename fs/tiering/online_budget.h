// OnlineBudget: the rate limit of online relocations, a token bucket in bytes
// (docs/policies.md "Online promotion", the policy's OnlineBudget).
//
// Tokens accrue at `rate` bytes per second up to one second's worth (the
// burst). Reserve(n) takes n bytes and says how long the caller must wait
// before copying them: nothing while tokens last, else the time the bucket
// needs to pay the debt back. A move larger than the burst is allowed (the
// bucket goes into debt) so a file is never refused for its size; the debt
// delays the moves after it, so over any stretch of time the bytes copied stay
// within rate x time + one burst.
//
// Not thread-safe: one worker reserves (fs/tiering/online_promoter.h).
#pragma once

#include <algorithm>
#include <cstdint>

namespace tierfs {

class OnlineBudget {
 public:
  // `rate`: bytes per second, > 0. The bucket starts full.
  explicit OnlineBudget(double rate = 1) { SetRate(rate); tokens_ = rate_; }

  // Changes the rate (a new policy); keeps the tokens, capped at the new burst.
  void SetRate(double rate) {
    rate_ = rate > 0 ? rate : 1;
    tokens_ = std::min(tokens_, rate_);
  }
  double rate() const { return rate_; }

  // Takes `bytes` at time `now_s` (seconds on any monotonic clock, never going
  // back) and returns the seconds to wait before copying them (0 when the
  // bucket had them).
  double Reserve(uint64_t bytes, double now_s) {
    Refill(now_s);
    tokens_ -= static_cast<double>(bytes);
    return tokens_ >= 0 ? 0 : -tokens_ / rate_;
  }

 private:
  void Refill(double now_s) {
    if (last_s_ >= 0 && now_s > last_s_) tokens_ = std::min(rate_, tokens_ + (now_s - last_s_) * rate_);
    if (now_s > last_s_) last_s_ = now_s;
  }

  double rate_ = 1;
  double tokens_ = 0;
  double last_s_ = -1;
};

}  // namespace tierfs
