#include "common/clock.h"

#include <ctime>

namespace tierfs {

int64_t SystemClock::NowNanos() const {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * kNanosPerSecond + ts.tv_nsec;
}

const SystemClock& SystemClock::Get() {
  static const SystemClock* clock = new SystemClock();
  return *clock;
}

}  // namespace tierfs
