// Clock: the one seam through which tierfs reads the time.
//
// Temperatures, ages, FCL timestamps and iostat buckets all come from a Clock,
// so tests drive hours of activity with a FakeClock in milliseconds.
// SystemClock and FakeClock are thread-safe.
#pragma once

#include <atomic>
#include <cstdint>

namespace tierfs {

constexpr int64_t kNanosPerSecond = 1'000'000'000;
constexpr int64_t kSecondsPerHour = 3600;

class Clock {
 public:
  virtual ~Clock() = default;
  // Wall-clock time in nanoseconds since the Unix epoch (CLOCK_REALTIME).
  virtual int64_t NowNanos() const = 0;
  int64_t NowSeconds() const { return NowNanos() / kNanosPerSecond; }
};

// The real time of the machine.
class SystemClock final : public Clock {
 public:
  int64_t NowNanos() const override;
  // A process-wide instance; never destroyed.
  static const SystemClock& Get();
};

// A clock that moves only when told: for tests and the simulated workloads.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(int64_t start_nanos) : now_(start_nanos) {}
  int64_t NowNanos() const override { return now_.load(); }
  void Set(int64_t nanos) { now_.store(nanos); }
  void AdvanceSeconds(int64_t seconds) { now_.fetch_add(seconds * kNanosPerSecond); }

 private:
  std::atomic<int64_t> now_;
};

}  // namespace tierfs
