// Sizes and times as the tools print and accept them.
//
// Pure functions; thread-safe except where noted (local time reads the TZ
// environment through localtime_r/mktime).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace tierfs::cli {

// "512", "1.5K", "20M", "3.2G", "1.0T" (powers of 1024, one decimal below 10).
std::string HumanBytes(uint64_t bytes);

// The largest size or count an argument may give: INT64_MAX, what the daemon
// and its SQLite integers hold (a larger one would wrap negative on the way).
inline constexpr uint64_t kMaxArgumentValue = 9223372036854775807ULL;
// The largest number of hours an argument may give (about 114 years): -t HOURS
// travels as seconds, and the daemon takes at most 3.6e9 of them.
inline constexpr double kMaxHours = 1'000'000;

// Parses a byte count: digits with an optional suffix k|K|m|M|g|G|t|T (powers of
// 1024; "KB", "KiB" also accepted), 0..kMaxArgumentValue. EINVAL naming `text`
// otherwise: "not a size" (a sign, an exponent, junk) or "size out of range".
Result<uint64_t> ParseBytes(std::string_view text);
// Parses a decimal integer 0..kMaxArgumentValue (no sign, no suffix, no exponent).
// EINVAL naming `text`: "not a count" or "count out of range".
Result<uint64_t> ParseCount(std::string_view text);
// Parses a decimal number of hours 0..kMaxHours ("1", "0.5"; no sign or exponent).
// EINVAL naming `text`.
Result<double> ParseHours(std::string_view text);

// Parses a duration in whole seconds: a decimal number with an optional unit
// suffix s (seconds, the default), m (minutes), h (hours) or d (days), e.g.
// "90", "90s", "15m", "1.5h", "1d"; more than 0 and at most 100 years after
// rounding to the second. EINVAL naming `text` otherwise.
Result<int64_t> ParseDuration(std::string_view text);

// Local time "2026-11-22T10:00:00" for nanoseconds since the epoch; "-" for 0.
std::string FormatLocalTime(int64_t time_ns);

// A time argument, in nanoseconds since the epoch:
//   - epoch seconds: "1763805600" or "1763805600.5";
//   - ISO 8601 in local time: "2026-11-22T10:00:00", "2026-11-22 10:00", "2026-11-22"
//     (seconds, minutes, and the time part are optional; fractions of a second allowed);
//   - the same followed by "Z" (UTC) or "+HH:MM" / "-HH:MM" / "+HHMM" (that offset).
// EINVAL naming `text` otherwise.
Result<int64_t> ParseTimeArg(std::string_view text);

}  // namespace tierfs::cli
