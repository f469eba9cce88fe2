// Tolerant readers for members of the daemon's JSON answers.
//
// Reports must not die on a missing or oddly typed member (an older daemon, a
// field added later): each reader returns `fallback` unless the member exists
// with a usable type, and never throws. Thread-safe (pure functions).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace tierfs::cli {

// obj[key] when it is a string; numbers are printed; anything else -> fallback.
std::string JsonString(const nlohmann::json& obj, const char* key,
                       const std::string& fallback = "");
// obj[key] when it is a number (truncated toward zero); else fallback.
int64_t JsonInt(const nlohmann::json& obj, const char* key, int64_t fallback = 0);
// obj[key] when it is a non-negative number; else fallback.
uint64_t JsonUint(const nlohmann::json& obj, const char* key, uint64_t fallback = 0);
double JsonDouble(const nlohmann::json& obj, const char* key, double fallback = 0);
bool JsonBool(const nlohmann::json& obj, const char* key, bool fallback = false);
bool JsonHasNumber(const nlohmann::json& obj, const char* key);
// obj[key] when it is an array / object; else a (static) empty one.
const nlohmann::json& JsonArray(const nlohmann::json& obj, const char* key);
const nlohmann::json& JsonObject(const nlohmann::json& obj, const char* key);

// j.dump() that never throws: invalid UTF-8 is replaced. indent < 0: one line.
std::string JsonDump(const nlohmann::json& j, int indent = -1);

}  // namespace tierfs::cli
