// fsppadm report [--html FILE | --json] [--depth N] [--hours H] MOUNT: bytes
// and heat per directory and placement class, as text, JSON or an HTML page
// (docs/admin.md "A picture of the tiers"). The daemon aggregates (control op
// tier_summary, fs/control/tier_summary.h); cli/fsppadm/tier_report.h formats.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/fsppadm/subcommand.h"

namespace tierfs::cli::fsppadm {

struct ReportOptions {
  CommonFlags flags;
  bool json = false;  // --json: the same data as one JSON document
  std::string html;   // --html FILE: write the HTML page there ("-" = stdout; "" = text)
  int64_t depth = 2;  // --depth: directory components to aggregate at, 0..1000
  double hours = 24;  // --hours: the heat window, > 0 and at most 8784
  std::string mount;
};

// Parses args = {"report", ...}. EINVAL naming the option ("--depth: N must be
// 0 to 1000, got ...", "--hours: ...", "--html: empty file name"), "--html and
// --json exclude each other", or "expected one MOUNT".
Result<ReportOptions> ParseReportOptions(const std::vector<std::string>& args);

// Returns the exit status; kExitFailed when the HTML file cannot be written.
int RunReport(const ReportOptions& options, const CliEnv& env);

extern const Subcommand kReportCommand;

}  // namespace tierfs::cli::fsppadm
