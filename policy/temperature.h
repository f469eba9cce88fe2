// Temperatures: the arithmetic of IOTEMP, ACCESSTEMP and their file-system
// averages (docs/policies.md "Temperatures").
//
// All functions are pure and thread-safe. Temperatures are per hour:
// IOTEMP is bytes per hour per byte of file, ACCESSTEMP calls per hour. A
// non-positive period or denominator yields 0 rather than a division by zero.
#pragma once

#include <cstdint>

#include "policy/file_record.h"
#include "policy/policy.h"

namespace tierfs::policy {

// Files smaller than this count as this big in IOTEMP (bytes), so a tiny
// file read once is not "hot" (docs/policies.md "Temperatures").
constexpr uint64_t kMinTemperatureSize = 4096;

// IOTEMP = bytes / (period_hours * max(size, 4096)); `bytes` moved in the
// last `period_hours`, `size` in bytes at scan time.
double IoTemp(double bytes, double period_hours, uint64_t size);

// ACCESSTEMP = calls / period_hours (not divided by size).
double AccessTemp(double calls, double period_hours);

// File-system IOTEMP average over the last `average_period_hours` (ratio of
// sums): bytes_sum / (average_period_hours * size_sum), where both sums run
// over the active files and size_sum already applies the 4096 floor.
double AverageIoTemp(double bytes_sum, double average_period_hours, double size_sum);

// File-system ACCESSTEMP average: calls_sum / (average_period_hours *
// active_files).
double AverageAccessTemp(double calls_sum, double average_period_hours, uint64_t active_files);

// The quantity a Type counts in `io`: nrbytes rbytes, nwbytes wbytes,
// nrwbytes both; nreads rops, nwrites wops, nrws both; 0 for kNone.
double CountOfType(TempType type, const IoCounters& io);

// True for the byte-counting types (IOTEMP), false for call counts.
bool IsByteType(TempType type);

// The temperature criterion `c` measures for a file with I/O `window` over
// c.period_hours and `size` bytes (IOTEMP or ACCESSTEMP by c.kind).
double FileTemperature(const Criterion& c, const IoCounters& window, uint64_t size);

// The file-system average of `type` over `average_period_hours` from
// `totals` (AverageIoTemp or AverageAccessTemp by the type's kind).
double AverageTemperature(TempType type, const ActivityTotals& totals,
                          double average_period_hours);

}  // namespace tierfs::policy
