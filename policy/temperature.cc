#include "policy/temperature.h"

#include <algorithm>

namespace tierfs::policy {

double IoTemp(double bytes, double period_hours, uint64_t size) {
  if (period_hours <= 0) return 0;
  return bytes / (period_hours * static_cast<double>(std::max(size, kMinTemperatureSize)));
}

double AccessTemp(double calls, double period_hours) {
  if (period_hours <= 0) return 0;
  return calls / period_hours;
}

double AverageIoTemp(double bytes_sum, double average_period_hours, double size_sum) {
  if (average_period_hours <= 0 || size_sum <= 0) return 0;
  return bytes_sum / (average_period_hours * size_sum);
}

double AverageAccessTemp(double calls_sum, double average_period_hours, uint64_t active_files) {
  if (average_period_hours <= 0 || active_files == 0) return 0;
  return calls_sum / (average_period_hours * static_cast<double>(active_files));
}

double CountOfType(TempType type, const IoCounters& io) {
  switch (type) {
    case TempType::kNrBytes:
      return io.rbytes;
    case TempType::kNwBytes:
      return io.wbytes;
    case TempType::kNrwBytes:
      return io.rbytes + io.wbytes;
    case TempType::kNReads:
      return io.rops;
    case TempType::kNWrites:
      return io.wops;
    case TempType::kNrws:
      return io.rops + io.wops;
    case TempType::kNone:
      break;
  }
  return 0;
}

bool IsByteType(TempType type) {
  return type == TempType::kNrBytes || type == TempType::kNwBytes ||
         type == TempType::kNrwBytes;
}

double FileTemperature(const Criterion& c, const IoCounters& window, uint64_t size) {
  double count = CountOfType(c.type, window);
  return c.kind == CriterionKind::kIoTemp ? IoTemp(count, c.period_hours, size)
                                          : AccessTemp(count, c.period_hours);
}

double AverageTemperature(TempType type, const ActivityTotals& totals,
                          double average_period_hours) {
  double count = CountOfType(type, totals.io);
  return IsByteType(type) ? AverageIoTemp(count, average_period_hours, totals.size_sum)
                          : AverageAccessTemp(count, average_period_hours, totals.active_files);
}

}  // namespace tierfs::policy
