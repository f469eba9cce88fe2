// Formatting of the scan result of `fsppadm enforce|analyze|query` (the "scan"
// answer of fs/control/control_protocol.md) as docs/commands.md "fsppadm" describes it:
//
//   - one row per decided file: current class and volume, new class and volume,
//     rule, statement, temperature and its kind, size, outcome, (with -a: access
//     and modification times), path;
//   - the summary: policy, sweep paths, files scanned, files moved (enforce) or
//     to move (analyze, query: the rows planned), bytes likewise, files skipped
//     by reason, time, notes;
//   - the per-class table: size, free before, free after (KB in text, bytes in -P).
//
// The text form aligns columns; the parsable form (-P) prints one record per
// line, tab-separated, whose first field says what it is: "file", "summary",
// "class" or "note". Missing or mistyped members print as "-"; nothing throws.
// Pure functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace tierfs::cli {

struct ScanReportOptions {
  std::string mount_point;  // prefix for the rows' mount-relative paths ("" = print them as sent)
  bool parsable = false;    // -P: tab-separated records
  bool times = false;       // -a: add access and modification times to each row
};

// The file rows (with a header line in text form). Text form with no rows:
// "No files selected.\n".
std::string FormatScanRows(const nlohmann::json& result, const ScanReportOptions& options);
// Summary, notes and the per-class table.
std::string FormatScanSummary(const nlohmann::json& result, const ScanReportOptions& options);
// Rows, a blank line (text form), then the summary.
std::string FormatScanReport(const nlohmann::json& result, const ScanReportOptions& options);

// True when a file failed for an error during enforcement (an "error..." outcome or
// a non-zero files_skipped.error): the tool then exits with status 1.
bool ScanHadErrors(const nlohmann::json& result);

// A temperature as the report prints it: "0", "3.20", "1.23e-03".
std::string FormatTemperature(double value);

}  // namespace tierfs::cli
