// Strict readers for the members of a control request (fs/control/control_protocol.md).
//
// The daemon's side of "a member of the wrong type is EINVAL": each reader returns
// the member's value when it has the right type and lies in range, the fallback
// when the member is absent or null, and otherwise an EINVAL Status naming the
// field, e.g. `io_nice must be an integer from 1 to 100, got 1e+300` or
// `limits.bytes must be an integer from 0 to 9223372036854775807, got -1`.
// They never throw (nlohmann's value() and get<>() throw on a wrong type, and
// convert out-of-range numbers with undefined behaviour: 1e300 -> INT_MIN).
//
// Thread-safe: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/status.h"

namespace tierfs {

// object[key] as an integer in [min, max]. JSON integers and floats with an
// integral value (1e2) are accepted; fractions, strings, booleans are not.
// `context` prefixes the field's name in messages ("limits" -> "limits.bytes").
Result<int64_t> RequestInt(const nlohmann::json& object, std::string_view key, int64_t min,
                           int64_t max, int64_t fallback, std::string_view context = "");
// object[key] as a finite number in [min, max].
Result<double> RequestDouble(const nlohmann::json& object, std::string_view key, double min,
                             double max, double fallback, std::string_view context = "");
// object[key] as a boolean.
Result<bool> RequestBool(const nlohmann::json& object, std::string_view key, bool fallback,
                         std::string_view context = "");
// object[key] as a string.
Result<std::string> RequestString(const nlohmann::json& object, std::string_view key,
                                  const std::string& fallback, std::string_view context = "");

}  // namespace tierfs
