#include "cli/common/json_fields.h"

#include <cmath>

namespace tierfs::cli {
namespace {

using nlohmann::json;

const json* Member(const json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

}  // namespace

std::string JsonString(const json& obj, const char* key, const std::string& fallback) {
  const json* m = Member(obj, key);
  if (m == nullptr) return fallback;
  if (m->is_string()) return m->get_ref<const std::string&>();
  if (m->is_number_integer()) return std::to_string(m->get<int64_t>());
  if (m->is_number_unsigned()) return std::to_string(m->get<uint64_t>());
  if (m->is_number_float()) return JsonDump(*m);
  return fallback;
}

int64_t JsonInt(const json& obj, const char* key, int64_t fallback) {
  const json* m = Member(obj, key);
  if (m == nullptr || !m->is_number()) return fallback;
  if (m->is_number_float()) {
    double d = m->get<double>();
    return std::isfinite(d) ? static_cast<int64_t>(d) : fallback;
  }
  if (m->is_number_unsigned()) return static_cast<int64_t>(m->get<uint64_t>());
  return m->get<int64_t>();
}

uint64_t JsonUint(const json& obj, const char* key, uint64_t fallback) {
  const json* m = Member(obj, key);
  if (m == nullptr || !m->is_number()) return fallback;
  if (m->is_number_unsigned()) return m->get<uint64_t>();
  if (m->is_number_integer()) {
    int64_t v = m->get<int64_t>();
    return v < 0 ? fallback : static_cast<uint64_t>(v);
  }
  double d = m->get<double>();
  return std::isfinite(d) && d >= 0 ? static_cast<uint64_t>(d) : fallback;
}

double JsonDouble(const json& obj, const char* key, double fallback) {
  const json* m = Member(obj, key);
  if (m == nullptr || !m->is_number()) return fallback;
  return m->get<double>();
}

bool JsonBool(const json& obj, const char* key, bool fallback) {
  const json* m = Member(obj, key);
  if (m == nullptr || !m->is_boolean()) return fallback;
  return m->get<bool>();
}

bool JsonHasNumber(const json& obj, const char* key) {
  const json* m = Member(obj, key);
  return m != nullptr && m->is_number();
}

const json& JsonArray(const json& obj, const char* key) {
  static const json* const kEmpty = new json(json::array());
  const json* m = Member(obj, key);
  return m != nullptr && m->is_array() ? *m : *kEmpty;
}

const json& JsonObject(const json& obj, const char* key) {
  static const json* const kEmpty = new json(json::object());
  const json* m = Member(obj, key);
  return m != nullptr && m->is_object() ? *m : *kEmpty;
}

std::string JsonDump(const json& j, int indent) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

}  // namespace tierfs::cli
