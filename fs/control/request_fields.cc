#include "fs/control/request_fields.h"

#include <cmath>
#include <cstdio>

namespace tierfs {
namespace {

using nlohmann::json;

std::string FieldName(std::string_view context, std::string_view key) {
  std::string name(context);
  if (!name.empty()) name += '.';
  name += key;
  return name;
}

// The member, or null when absent (so that absent and null read alike).
const json* Member(const json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

// A value as messages quote it; long texts are cut.
std::string Quote(const json& value) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

}  // namespace

Result<int64_t> RequestInt(const json& object, std::string_view key, int64_t min, int64_t max,
                           int64_t fallback, std::string_view context) {
  const json* v = Member(object, key);
  if (v == nullptr) return fallback;
  auto bad = [&] {
    return Status::Invalid(FieldName(context, key) + " must be an integer from " +
                           std::to_string(min) + " to " + std::to_string(max) + ", got " +
                           Quote(*v));
  };
  if (v->is_number_unsigned()) {
    const uint64_t u = v->get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) return bad();
    const int64_t i = static_cast<int64_t>(u);
    if (i < min || i > max) return bad();
    return i;
  }
  if (v->is_number_integer()) {
    const int64_t i = v->get<int64_t>();
    if (i < min || i > max) return bad();
    return i;
  }
  if (v->is_number_float()) {
    const double d = v->get<double>();
    // 2^63 is the first double past INT64_MAX; every double below it converts.
    if (!std::isfinite(d) || d != std::trunc(d) || d < -9223372036854775808.0 ||
        d >= 9223372036854775808.0) {
      return bad();
    }
    const int64_t i = static_cast<int64_t>(d);
    if (i < min || i > max) return bad();
    return i;
  }
  return bad();
}

Result<double> RequestDouble(const json& object, std::string_view key, double min, double max,
                             double fallback, std::string_view context) {
  const json* v = Member(object, key);
  if (v == nullptr) return fallback;
  if (v->is_number()) {
    const double d = v->get<double>();
    if (std::isfinite(d) && d >= min && d <= max) return d;
  }
  char range[96];
  std::snprintf(range, sizeof range, " must be a number from %g to %g, got ", min, max);
  return Status::Invalid(FieldName(context, key) + range + Quote(*v));
}

Result<bool> RequestBool(const json& object, std::string_view key, bool fallback,
                         std::string_view context) {
  const json* v = Member(object, key);
  if (v == nullptr) return fallback;
  if (v->is_boolean()) return v->get<bool>();
  return Status::Invalid(FieldName(context, key) + " must be true or false, got " + Quote(*v));
}

Result<std::string> RequestString(const json& object, std::string_view key,
                                  const std::string& fallback, std::string_view context) {
  const json* v = Member(object, key);
  if (v == nullptr) return fallback;
  if (v->is_string()) return v->get<std::string>();
  return Status::Invalid(FieldName(context, key) + " must be a string, got " + Quote(*v));
}

}  // namespace tierfs
