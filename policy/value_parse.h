// Parsing of the text and attribute values of policy elements.
//
// Pure functions used by the policy reader: numbers, ids, units and
// directory paths, each returning nullopt (or an error text) on bad input
// instead of guessing. Thread-safe (no state).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tierfs::policy {

// `text` without leading and trailing spaces, tabs and line breaks
// (docs/policies.md "The document": whitespace around values is tolerated).
std::string Trim(std::string_view text);

// A non-negative decimal number as policies write them: digits with at most
// one '.', e.g. "3", "1.5", ".5", "2." (no sign, exponent, hex, inf or nan).
// Returns nullopt for anything else.
std::optional<double> ParseDecimal(std::string_view text);

// A numeric user or group id: decimal digits, at most 4294967295.
std::optional<uint32_t> ParseId(std::string_view text);

// Bytes per unit for SIZE and BALANCE_SIZE Units (docs/policies.md "WHEN criteria"):
// bytes 1, KB 1024, MB 1024^2, GB 1024^3; nullopt for other names.
std::optional<double> SizeUnitBytes(std::string_view units);

// Hours per unit for ACCAGE, MODAGE and PERIOD Units: hours 1, days 24;
// nullopt for other names (docs/policies.md "WHEN criteria").
std::optional<double> TimeUnitHours(std::string_view units);

// The longest PERIOD and AveragePeriod the loader accepts: 100 years. Scans turn
// periods into int64 seconds before the scan start, and a size or period beyond
// these bounds would overflow that conversion (undefined behaviour, found by
// tests/fuzz); no I/O history is kept nearly that long anyway.
inline constexpr double kMaxPeriodHours = 100.0 * 365 * 24;
// The largest BALANCE_SIZE in bytes: it must fit in uint64_t (below 2^64).
inline constexpr double kMaxBalanceSizeBytes = 18446744073709549568.0;  // 2^64 - 2^11

// True for "5.0", "5.1" and later "5.<digits>" (docs/policies.md "The document").
bool IsSupportedVersion(std::string_view version);

// Normalises a DIRECTORY value (docs/policies.md "SELECT: which files"): relative to the mount
// root, a leading '/' tolerated, repeated and trailing '/' and "." parts
// dropped; "" or "/" is the root and yields "". Returns nullopt and sets
// *error for a ".." component.
std::optional<std::string> NormalizeDirectory(std::string_view text, std::string* error);

}  // namespace tierfs::policy
