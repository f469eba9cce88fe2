#include "policy/value_parse.h"

#include <charconv>
#include <vector>

namespace tierfs::policy {

std::string Trim(std::string_view text) {
  const char* ws = " \t\r\n";
  size_t b = text.find_first_not_of(ws);
  if (b == std::string_view::npos) return "";
  return std::string(text.substr(b, text.find_last_not_of(ws) - b + 1));
}

std::optional<double> ParseDecimal(std::string_view text) {
  int digits = 0;
  int dots = 0;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      ++digits;
    } else if (c == '.') {
      ++dots;
    } else {
      return std::nullopt;
    }
  }
  if (digits == 0 || dots > 1) return std::nullopt;
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<uint32_t> ParseId(std::string_view text) {
  if (text.empty() || text.size() > 10) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  if (value > UINT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(value);
}

std::optional<double> SizeUnitBytes(std::string_view units) {
  if (units == "bytes") return 1.0;
  if (units == "KB") return 1024.0;
  if (units == "MB") return 1024.0 * 1024;
  if (units == "GB") return 1024.0 * 1024 * 1024;
  return std::nullopt;
}

std::optional<double> TimeUnitHours(std::string_view units) {
  if (units == "hours") return 1.0;
  if (units == "days") return 24.0;
  return std::nullopt;
}

bool IsSupportedVersion(std::string_view version) {
  if (version.size() < 3 || version.substr(0, 2) != "5.") return false;
  for (char c : version.substr(2)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::optional<std::string> NormalizeDirectory(std::string_view text, std::string* error) {
  std::vector<std::string_view> parts;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t slash = text.find('/', pos);
    if (slash == std::string_view::npos) slash = text.size();
    std::string_view part = text.substr(pos, slash - pos);
    if (part == "..") {
      *error = "a DIRECTORY may not contain \"..\", got \"" + std::string(text) + "\"";
      return std::nullopt;
    }
    if (!part.empty() && part != ".") parts.push_back(part);
    pos = slash + 1;
  }
  std::string out;
  for (std::string_view p : parts) {
    if (!out.empty()) out += '/';
    out += p;
  }
  return out;
}

}  // namespace tierfs::policy
