#include "cli/common/units.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace tierfs::cli {
namespace {

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// Parses "123" or "123.45" (no sign, no exponent) into *value.
bool ParseDecimal(std::string_view s, double* value) {
  size_t dot = s.find('.');
  std::string_view int_part = s.substr(0, dot);
  std::string_view frac_part = dot == std::string_view::npos ? "" : s.substr(dot + 1);
  if (int_part.empty() && frac_part.empty()) return false;
  if (!int_part.empty() && !AllDigits(int_part)) return false;
  if (dot != std::string_view::npos && !frac_part.empty() && !AllDigits(frac_part)) return false;
  if (dot != std::string_view::npos && frac_part.empty() && int_part.empty()) return false;
  double v = 0;
  for (char c : int_part) v = v * 10 + (c - '0');
  double scale = 0.1;
  for (char c : frac_part) {
    v += (c - '0') * scale;
    scale /= 10;
  }
  *value = v;
  return true;
}

bool IsLeap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int y, int m) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// Reads exactly `n` digits at *pos.
bool Digits(std::string_view s, size_t* pos, size_t n, int* out) {
  if (*pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[*pos + i];
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    v = v * 10 + (c - '0');
  }
  *pos += n;
  *out = v;
  return true;
}

Status BadTime(std::string_view text) {
  return Status::Invalid("not a time: \"" + std::string(text) +
                         "\" (use epoch seconds or ISO 8601 such as 2026-11-22T10:00:00)");
}

// Times travel as int64 nanoseconds since the epoch: 1677-09-21 .. 2262-04-11.
constexpr int64_t kMaxTimeSeconds = INT64_MAX / 1'000'000'000 - 1;

Status TimeOutOfRange(std::string_view text) {
  return Status::Invalid("time out of range: \"" + std::string(text) +
                         "\" (tierfs keeps times from 1970 to 2262)");
}

// Nanoseconds of a fraction's digits ("5" -> 500000000), exactly: digits past
// the ninth are dropped. False when there are no digits or a non-digit.
bool FractionNanos(std::string_view digits, int64_t* nanos) {
  if (digits.empty()) return false;
  int64_t scale = 100'000'000;
  *nanos = 0;
  for (char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    *nanos += (c - '0') * scale;
    scale /= 10;
  }
  return true;
}

}  // namespace

std::string HumanBytes(uint64_t bytes) {
  static const char kUnits[] = "KMGTPE";
  if (bytes < 1024) return std::to_string(bytes);
  double v = static_cast<double>(bytes);
  int unit = -1;
  while (v >= 1024 && unit < 5) {
    v /= 1024;
    ++unit;
  }
  char buf[32];
  if (v < 10) {
    std::snprintf(buf, sizeof buf, "%.1f%c", v, kUnits[unit]);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f%c", v, kUnits[unit]);
  }
  return buf;
}

Result<uint64_t> ParseBytes(std::string_view text) {
  auto bad = [text] {
    return Status::Invalid("not a size: \"" + std::string(text) +
                           "\" (bytes, or a number with K, M, G or T)");
  };
  std::string_view s = text;
  // Optional "B" (bytes) or "iB" after a unit letter: 10, 10K, 10KB, 10KiB, 512B.
  bool binary_suffix = false;
  if (s.size() > 2 && s.substr(s.size() - 2) == "iB") {
    s.remove_suffix(2);
    binary_suffix = true;
  } else if (s.size() > 1 && s.back() == 'B') {
    s.remove_suffix(1);
  }
  // K, M, G, T in either case: the powers of 1024, 2^10 to 2^40.
  constexpr std::string_view kUnitLetters = "KMGT";
  uint64_t mult = 1;
  if (!s.empty()) {
    const size_t unit = kUnitLetters.find(static_cast<char>(std::toupper(
        static_cast<unsigned char>(s.back()))));
    if (unit != std::string_view::npos) {
      mult = 1ULL << (10 * (unit + 1));
      s.remove_suffix(1);
    }
  }
  if (binary_suffix && mult == 1) return bad();
  auto out_of_range = [text] {
    return Status::Invalid("size out of range: \"" + std::string(text) + "\" (at most " +
                           std::to_string(kMaxArgumentValue) + " bytes)");
  };
  if (mult == 1 && AllDigits(s)) {
    uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size() || v > kMaxArgumentValue) {
      return out_of_range();
    }
    return v;
  }
  double v = 0;
  if (!ParseDecimal(s, &v)) return bad();
  double bytes = std::round(v * static_cast<double>(mult));
  // 2^63 is the first double past kMaxArgumentValue.
  if (!(bytes < 9223372036854775808.0)) return out_of_range();
  return static_cast<uint64_t>(bytes);
}

Result<uint64_t> ParseCount(std::string_view text) {
  if (!AllDigits(text)) return Status::Invalid("not a count: \"" + std::string(text) + "\"");
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || v > kMaxArgumentValue) {
    return Status::Invalid("count out of range: \"" + std::string(text) + "\" (at most " +
                           std::to_string(kMaxArgumentValue) + ")");
  }
  return v;
}

Result<double> ParseHours(std::string_view text) {
  double v = 0;
  if (!ParseDecimal(text, &v)) {
    return Status::Invalid("not a number of hours: \"" + std::string(text) + "\"");
  }
  if (!(v <= kMaxHours)) {
    return Status::Invalid("hours out of range: \"" + std::string(text) + "\" (at most " +
                           std::to_string(static_cast<int64_t>(kMaxHours)) + ")");
  }
  return v;
}

Result<int64_t> ParseDuration(std::string_view text) {
  std::string_view number = text;
  double unit = 1;
  if (!number.empty()) {
    switch (number.back()) {
      case 's': unit = 1; number.remove_suffix(1); break;
      case 'm': unit = 60; number.remove_suffix(1); break;
      case 'h': unit = 3600; number.remove_suffix(1); break;
      case 'd': unit = 86400; number.remove_suffix(1); break;
      default: break;
    }
  }
  double v = 0;
  if (!ParseDecimal(number, &v)) {
    return Status::Invalid("not a duration: \"" + std::string(text) +
                           "\" (seconds, or a number with s, m, h or d)");
  }
  const double seconds = std::round(v * unit);
  if (!(seconds >= 1) || seconds > 100.0 * 365 * 86400) {
    return Status::Invalid("duration out of range: \"" + std::string(text) +
                           "\" (1 second to 100 years)");
  }
  return static_cast<int64_t>(seconds);
}

std::string FormatLocalTime(int64_t time_ns) {
  if (time_ns == 0) return "-";
  // Floor division, so times before 1970 still print the right second.
  int64_t secs = time_ns / 1'000'000'000;
  if (time_ns % 1'000'000'000 < 0) --secs;
  time_t t = static_cast<time_t>(secs);
  tm local{};
  if (localtime_r(&t, &local) == nullptr) return std::to_string(secs);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &local);
  return buf;
}

Result<int64_t> ParseTimeArg(std::string_view text) {
  // Epoch seconds, with an optional fraction parsed exactly to the nanosecond
  // (a double would round "1795311343.631174498" by a few hundred nanoseconds).
  if (!text.empty() && text.find('-') == std::string_view::npos &&
      text.find(':') == std::string_view::npos) {
    double secs = 0;
    if (!ParseDecimal(text, &secs)) return BadTime(text);
    const size_t dot = text.find('.');
    const std::string_view whole_text = text.substr(0, dot);
    uint64_t whole = 0;
    if (!whole_text.empty()) {
      auto [end, ec] =
          std::from_chars(whole_text.data(), whole_text.data() + whole_text.size(), whole);
      if (ec != std::errc() || end != whole_text.data() + whole_text.size()) {
        return ec == std::errc::result_out_of_range ? TimeOutOfRange(text) : BadTime(text);
      }
    }
    if (whole > static_cast<uint64_t>(kMaxTimeSeconds)) return TimeOutOfRange(text);
    int64_t frac_ns = 0;
    if (dot != std::string_view::npos && dot + 1 < text.size() &&
        !FractionNanos(text.substr(dot + 1), &frac_ns)) {
      return BadTime(text);
    }
    return static_cast<int64_t>(whole) * 1'000'000'000 + frac_ns;
  }
  // ISO 8601.
  size_t pos = 0;
  int year, month, day, hour = 0, minute = 0, second = 0;
  int64_t frac_ns = 0;
  if (!Digits(text, &pos, 4, &year) || pos >= text.size() || text[pos++] != '-' ||
      !Digits(text, &pos, 2, &month) || pos >= text.size() || text[pos++] != '-' ||
      !Digits(text, &pos, 2, &day)) {
    return BadTime(text);
  }
  if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month)) return BadTime(text);
  if (pos < text.size() && (text[pos] == 'T' || text[pos] == ' ')) {
    ++pos;
    if (!Digits(text, &pos, 2, &hour) || pos >= text.size() || text[pos++] != ':' ||
        !Digits(text, &pos, 2, &minute)) {
      return BadTime(text);
    }
    if (pos < text.size() && text[pos] == ':') {
      ++pos;
      if (!Digits(text, &pos, 2, &second)) return BadTime(text);
      if (pos < text.size() && (text[pos] == '.' || text[pos] == ',')) {
        ++pos;
        int64_t scale = 100'000'000;
        size_t start = pos;
        while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
          frac_ns += (text[pos] - '0') * scale;
          scale /= 10;
          ++pos;
        }
        if (pos == start) return BadTime(text);
      }
    }
    if (hour > 23 || minute > 59 || second > 60) return BadTime(text);
  }
  bool utc = false;
  int offset_s = 0;
  if (pos < text.size()) {
    if (text[pos] == 'Z' || text[pos] == 'z') {
      utc = true;
      ++pos;
    } else if (text[pos] == '+' || text[pos] == '-') {
      int sign = text[pos] == '-' ? -1 : 1;
      ++pos;
      int oh, om = 0;
      if (!Digits(text, &pos, 2, &oh)) return BadTime(text);
      if (pos < text.size() && text[pos] == ':') ++pos;
      if (pos < text.size() && !Digits(text, &pos, 2, &om)) return BadTime(text);
      if (oh > 23 || om > 59) return BadTime(text);
      utc = true;
      offset_s = sign * (oh * 3600 + om * 60);
    }
  }
  if (pos != text.size()) return BadTime(text);
  tm t{};
  t.tm_year = year - 1900;
  t.tm_mon = month - 1;
  t.tm_mday = day;
  t.tm_hour = hour;
  t.tm_min = minute;
  t.tm_sec = second;
  t.tm_isdst = -1;
  time_t secs = utc ? timegm(&t) - offset_s : mktime(&t);
  if (secs < 0 || secs > kMaxTimeSeconds) return TimeOutOfRange(text);
  return static_cast<int64_t>(secs) * 1'000'000'000 + frac_ns;
}

}  // namespace tierfs::cli
