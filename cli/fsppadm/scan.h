// fsppadm enforce | analyze | query: one policy scan over the named paths of a
// mount (control op scan; docs/commands.md "fsppadm", docs/policies.md "Which
// files a scan sees"). The three take the same options and differ only in what
// the daemon does with the plan: enforce relocates, analyze reports the space
// per class, query reports each file's rule; analyze and query move nothing.
//
//   fsppadm enforce|analyze|query [-C] [-T CLASS]... [-F POLICY.xml] [-P | --json]
//                    [-r REPORT [-a]] [-s BYTES] [-n FILES] [-t HOURS] [-p IO_NICE]
//                    [--no-wait] PATH...
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/fsppadm/subcommand.h"

namespace tierfs::cli::fsppadm {

struct ScanOptions {
  CommonFlags flags;
  std::string mode;                  // "enforce", "analyze" or "query": the command's name
  bool active_only = false;          // -C: only files with recent I/O or namespace activity
  std::vector<std::string> classes;  // -T, in the order given (empty: every class)
  std::string policy_file;           // -F: instead of the assigned policy ("" = assigned)
  bool parsable = false;             // -P: tab-separated records
  bool json = false;                 // --json: the daemon's result
  std::string report_file;           // -r: the report goes there, the summary to stdout
  bool report_times = false;         // -a: atime and mtime in each file row
  uint64_t limit_bytes = 0;          // -s, bytes (0 = no limit)
  uint64_t limit_files = 0;          // -n (0 = no limit)
  double limit_hours = 0;            // -t (0 = no limit)
  int io_nice = 0;                   // -p 1..100 (0 = not given: the daemon's default)
  bool no_wait = false;              // --no-wait: refuse rather than wait for a running enforce
  std::vector<std::string> paths;    // at least one; the first names the mount
};

// Parses args = {"enforce" | "analyze" | "query", ...}. EINVAL naming the
// option ("-s: not a size: ...", "-p: IO_NICE must be 1..100, got 101"), "-P and
// --json exclude each other", "-a has no effect with --json", or "expected at
// least one PATH (the first names the mount)".
Result<ScanOptions> ParseScanOptions(const std::vector<std::string>& args);

// Runs the scan, streaming progress to env.err, and prints the report. Returns
// kExitOk, kExitFailed (some files failed, or -r could not be written),
// kExitUsage (bad policy file, paths in two mounts) or kExitUnreachable.
int RunScan(const ScanOptions& options, const CliEnv& env);

extern const Subcommand kEnforceCommand;
extern const Subcommand kAnalyzeCommand;
extern const Subcommand kQueryCommand;

}  // namespace tierfs::cli::fsppadm
