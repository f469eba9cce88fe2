// Command-line syntax of fsppadm (VxFS syntax, docs/commands.md "fsppadm"):
//
//   fsppadm assign   [-f] MOUNT... POLICY.xml
//   fsppadm unassign MOUNT...
//   fsppadm list     [--json] [MOUNT...]
//   fsppadm print    MOUNT
//   fsppadm validate [-f] [MOUNT...] POLICY.xml
//   fsppadm enforce|analyze|query [-C] [-T CLASS]... [-F POLICY.xml] [-P | --json]
//                    [-r REPORT [-a]] [-s BYTES] [-n FILES] [-t HOURS] [-p IO_NICE]
//                    [--no-wait] PATH...
//   fsppadm status   [-n COUNT] [--json] MOUNT
//   fsppadm heatbucket MOUNT SECONDS
//   fsppadm advise   [--json] [--interval DURATION] [--class CLASS] [--periods F,...]
//                    [--thresholds F,...] [--limits P,...] [-n COUNT] [--show RANK]
//                    [-o FILE] MOUNT [POLICY.xml]
//   fsppadm report   [--html FILE | --json] [--depth N] [--hours H] MOUNT
//   fsppadm help [COMMAND] | --help | COMMAND --help | --version | COMMAND --version
//
// Parsing only: no I/O. Not thread-safe (getopt_long, see option_parser.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace tierfs::cli {

enum class FsppadmCommand {
  kNone,  // `fsppadm --help` / `fsppadm help`: the overview
  kAssign,
  kUnassign,
  kList,
  kPrint,
  kValidate,
  kEnforce,
  kAnalyze,
  kQuery,
  kStatus,
  kTag,  // fsppadm tag add|remove|list ... (docs/policies.md "SELECT: which files")
  kHeatBucket,  // fsppadm heatbucket MOUNT SECONDS (tierfs extension, issue 10)
  kAdvise,      // fsppadm advise MOUNT [POLICY.xml] (tierfs extension, issue 10)
  kReport,      // fsppadm report MOUNT: bytes and heat per directory and class (issue 9)
  kSchedule,    // fsppadm schedule MOUNT: scheduled enforcement (issue 9, cli/scan_schedule.h)
};

struct FsppadmArgs {
  FsppadmCommand command = FsppadmCommand::kNone;
  bool help = false;     // print the usage of `command` (the overview for kNone) and exit 0
  bool version = false;  // --version: print "fsppadm (tierfs) VERSION" and exit 0

  bool force = false;       // assign/validate -f: a class without volumes only warns
  std::string policy_file;  // assign/validate POLICY.xml operand; scan -F
  std::vector<std::string>
      mounts;  // mount operands (assign, unassign, list, print, validate, status)

  // enforce, analyze, query
  bool active_only = false;          // -C
  std::vector<std::string> classes;  // -T, in order given
  bool parsable = false;             // -P
  bool json = false;                 // --json (also list, status)
  std::string report_file;           // -r
  bool report_times = false;         // -a
  uint64_t limit_bytes = 0;          // -s (0 = no limit)
  uint64_t limit_files = 0;          // -n (0 = no limit)
  double limit_hours = 0;            // -t (0 = no limit)
  int io_nice = 0;                   // -p 1..100 (0 = not given: the daemon's default)
  bool no_wait = false;              // --no-wait
  std::vector<std::string> paths;    // PATH operands

  uint64_t status_count = 10;  // status -n
  int64_t heat_bucket_seconds = 0;  // heatbucket SECONDS, 1..86400

  // advise (docs/policies.md "Advisor"); policy_file = the optional POLICY.xml,
  // json = --json, mounts = {MOUNT}.
  int64_t advise_interval_s = 0;     // --interval, seconds (0 = the policy's shortest PERIOD)
  std::string advise_class = "ssd";  // --class: the fast class
  std::vector<double> advise_periods = {0.5, 1, 2};     // --periods: PERIOD factors (> 0)
  std::vector<double> advise_thresholds = {0.5, 1, 2};  // --thresholds: MIN/MAX factors (> 0)
  std::vector<double> advise_limits = {80, 90, 100};    // --limits: percents (0, 100]
  uint64_t advise_rows = 10;         // -n: variants listed (0 = all)
  uint64_t advise_show = 1;          // --show: the rank whose policy text is printed (>= 1)
  std::string advise_output;         // -o: also write that policy text to this file

  // report (docs/admin.md "A picture of the tiers"); json = --json, mounts = {MOUNT}.
  std::string report_html;     // --html FILE: write the HTML page there ("-" = stdout)
  int64_t report_depth = 2;    // --depth: directory components to aggregate at, 0..1000
  double report_hours = 24;    // --hours: the heat window, > 0 and at most 8784

  // schedule (docs/admin.md "Schedules"); mounts = {MOUNT}. Neither --hourly-active
  // nor --daily-full: both.
  bool schedule_active = false;  // --hourly-active
  bool schedule_full = false;    // --daily-full
  bool schedule_remove = false;  // --remove
  bool schedule_list = false;    // --list

  // tag: the action ("add", "remove", "list"), the TAG word (add/remove), and the
  // files, which are in `paths`.
  std::string tag_action;
  std::string tag;
};

// Parses `args` = {"fsppadm", COMMAND, ...}. Errors (EINVAL; the tool exits 2)
// name the offending command, option or operand: "unknown command \"foo\"",
// "enforce: unknown option -x", "enforce: option -T needs a value (CLASS)",
// "assign: expected MOUNT... POLICY.xml".
Result<FsppadmArgs> ParseFsppadmArgs(const std::vector<std::string>& args);

// The overview (kNone) or one command's usage, ending in a newline.
std::string FsppadmUsage(FsppadmCommand command);

// "enforce", "assign"...; "" for kNone.
const char* FsppadmCommandName(FsppadmCommand command);

}  // namespace tierfs::cli
