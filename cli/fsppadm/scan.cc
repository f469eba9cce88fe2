// fsppadm enforce | analyze | query: build the scan request from the options and
// path operands, stream progress, print the report (docs/commands.md "fsppadm",
// docs/policies.md "Which files a scan sees").
#include "cli/fsppadm/scan.h"

#include <algorithm>
#include <cmath>

#include "cli/common/exit_codes.h"
#include "cli/fsppadm/policy_file.h"
#include "cli/fsppadm/scan_report.h"
#include "cli/common/json_fields.h"
#include "cli/common/progress_line.h"
#include "cli/common/units.h"

namespace tierfs::cli::fsppadm {
namespace {

using nlohmann::json;

constexpr char kScanOptionsUsage[] =
    "  -C            only files with I/O or namespace activity in the policy's longest PERIOD\n"
    "                (default: every file)\n"
    "  -T CLASS      only files now on volumes of CLASS (repeatable; default: all classes)\n"
    "  -F POLICY.xml use this policy instead of the assigned one\n"
    "  -P            tab-separated output: file, summary, class and note records\n"
    "  --json        the daemon's result as one JSON document\n"
    "  -r REPORT     write the report to the file REPORT (standard output gets the summary)\n"
    "  -a            add access and modification times to each file row\n"
    "  -s BYTES      stop after moving this much data: bytes, or with a suffix K, M, G, T\n"
    "                (powers of 1024; default: no limit)\n"
    "  -n FILES      stop after moving or deleting this many files (default: no limit)\n"
    "  -t HOURS      stop after running this many hours, decimals allowed (default: no limit)\n"
    "  -p IO_NICE    1..100: files relocated at once: 1 at 1, 16 at 50 (default), 32 at 100\n"
    "  --no-wait     exit at once if another enforce runs on the mount (default: wait)\n";

// After the common options, unlike other commands' text.
constexpr char kScanNotes[] =
    "The first PATH names the file system; every PATH must be in it. A directory is\n"
    "swept recursively. Exit status: 0 ok, 1 some files failed, 2 usage or policy\n"
    "error, 3 the daemon could not be reached.\n";

std::string ScanUsage(const std::string& mode, const char* what) {
  return "usage: fsppadm " + mode +
         " [-C] [-T CLASS]... [-F POLICY.xml] [-P | --json] [-r REPORT [-a]]\n"
         "       [-s BYTES] [-n FILES] [-t HOURS] [-p IO_NICE] [--no-wait] PATH...\n" +
         what + kScanOptionsUsage + kCommonOptionsUsage + kScanNotes;
}

std::string EnforceUsage() {
  return ScanUsage("enforce",
                   "Evaluates the policy over the named paths and relocates (or deletes) files.\n");
}

std::string AnalyzeUsage() {
  return ScanUsage("analyze",
                   "Plans like enforce and reports the space each class would have; moves "
                   "nothing.\n");
}

std::string QueryUsage() {
  return ScanUsage("query",
                   "Lists every named file with the rule and statement that govern it, the\n"
                   "temperatures its rule measures, and what enforce would do; moves nothing.\n");
}

Status OnScanOption(ScanOptions* o, const OptionSpec& spec, const char* value) {
  switch (spec.short_name) {
    case 'C':
      o->active_only = true;
      return Status::Ok();
    case 'T':
      if (*value == '\0') return Status::Invalid("-T: empty class name");
      o->classes.push_back(value);
      return Status::Ok();
    case 'F':
      o->policy_file = value;
      return Status::Ok();
    case 'P':
      o->parsable = true;
      return Status::Ok();
    case 'r':
      o->report_file = value;
      return Status::Ok();
    case 'a':
      o->report_times = true;
      return Status::Ok();
    case 's':
      return TakeOptionValue(spec, ParseBytes(value), &o->limit_bytes);
    case 'n':
      return TakeOptionValue(spec, ParseCount(value), &o->limit_files);
    case 't':
      return TakeOptionValue(spec, ParseHours(value), &o->limit_hours);
    case 'p': {
      // Any failure reads the same: "1e300", "-5" and "101" are all outside 1..100.
      Result<uint64_t> nice = ParseCount(value);
      if (!nice.ok() || *nice < 1 || *nice > 100) {
        return Status::Invalid("-p: IO_NICE must be 1..100, got " + std::string(value));
      }
      o->io_nice = static_cast<int>(*nice);
      return Status::Ok();
    }
    default:
      break;
  }
  if (std::string(spec.long_name) == "json") {
    o->json = true;
  } else {  // --no-wait
    o->no_wait = true;
  }
  return Status::Ok();
}

}  // namespace

Result<ScanOptions> ParseScanOptions(const std::vector<std::string>& args) {
  ScanOptions o;
  o.mode = args.empty() ? "" : args[0];
  Result<std::vector<std::string>> operands = ParseSubcommandOptions(
      args,
      {{nullptr, 'C', false, ""},
       {nullptr, 'T', true, "CLASS"},
       {nullptr, 'F', true, "POLICY.xml"},
       {nullptr, 'P', false, ""},
       {"json", 0, false, ""},
       {nullptr, 'r', true, "REPORT"},
       {nullptr, 'a', false, ""},
       {nullptr, 's', true, "BYTES"},
       {nullptr, 'n', true, "FILES"},
       {nullptr, 't', true, "HOURS"},
       {nullptr, 'p', true, "IO_NICE"},
       {"no-wait", 0, false, ""}},
      &o.flags, [&o](const OptionSpec& spec, const char* value) {
        return OnScanOption(&o, spec, value);
      });
  if (!operands.ok()) return operands.status();
  if (o.flags.help || o.flags.version) return o;
  TIERFS_RETURN_IF_ERROR(
      ExpectOperands(!operands->empty(), "at least one PATH (the first names the mount)"));
  if (o.parsable && o.json) return Status::Invalid("-P and --json exclude each other");
  if (o.report_times && o.json) return Status::Invalid("-a has no effect with --json");
  o.paths = std::move(*operands);
  return o;
}

int RunScan(const ScanOptions& args, const CliEnv& env) {
  const char* mode = args.mode.c_str();

  json policy_xml = nullptr;
  if (!args.policy_file.empty()) {
    std::optional<std::string> xml = LoadPolicyFile(env, args.policy_file, nullptr);
    if (!xml) return kExitUsage;
    policy_xml = std::move(*xml);
  }

  // The first path names the file system; the others must be in it.
  int exit_code = kExitOk;
  std::optional<MountConnection> target = ConnectToMount(env, kTool, args.paths[0], &exit_code);
  if (!target) return exit_code;
  json paths = json::array();
  paths.push_back(target->where.mount_path);
  for (size_t i = 1; i < args.paths.size(); ++i) {
    int code = kExitOk;
    Result<LocatedPath> where = LocatePath(env, args.paths[i], &code);
    if (!where.ok()) {
      // The daemon is there; a second path elsewhere is a usage error.
      PrintError(env, kTool, where.status().message());
      return kExitUsage;
    }
    if (where->mount.mount_point != target->where.mount.mount_point) {
      PrintError(env, kTool,
                 args.paths[i] + " is not in the file system of " + args.paths[0] + " (" +
                     target->where.mount.mount_point + "); run one " + mode + " per mount");
      return kExitUsage;
    }
    paths.push_back(where->mount_path);
  }
  // A sweep of "/" alongside subtrees is the whole file system.
  if (std::find(paths.begin(), paths.end(), json("/")) != paths.end()) paths = json::array({"/"});

  json request = {{"op", "scan"},
                  {"mode", mode},
                  {"active_only", args.active_only},
                  {"classes", args.classes},
                  {"paths", paths},
                  {"policy_xml", policy_xml},
                  // "seconds" per control_protocol.md; "hours" as the daemon reads it.
                  {"limits",
                   {{"bytes", args.limit_bytes},
                    {"files", args.limit_files},
                    {"seconds", static_cast<uint64_t>(std::llround(args.limit_hours * 3600))},
                    {"hours", args.limit_hours}}}};
  if (args.io_nice > 0) request["io_nice"] = args.io_nice;
  if (args.no_wait) request["no_wait"] = true;

  std::optional<json> result;
  {
    ProgressLine progress(*env.err, env.err_is_terminal, mode);
    result = CallOrReport(env, *target, request, &exit_code,
                          [&progress](const json& p) { progress.Update(p); });
  }
  if (!result) return exit_code;

  ScanReportOptions options;
  options.mount_point = target->where.mount.mount_point;
  options.parsable = args.parsable;
  options.times = args.report_times;
  std::string report = args.json ? JsonDump(*result, 2) + "\n" : FormatScanReport(*result, options);
  if (!args.report_file.empty()) {
    Status st = WriteTextFile(args.report_file, report);
    if (!st.ok()) {
      PrintError(env, kTool, st.message());
      exit_code = std::max(exit_code, kExitFailed);
    }
    if (!args.json) *env.out << FormatScanSummary(*result, options);
  } else {
    *env.out << report;
  }
  env.out->flush();
  if (ScanHadErrors(*result)) exit_code = std::max(exit_code, kExitFailed);
  return exit_code;
}

constexpr auto kParseScan = ParseToInvocation<ScanOptions, ParseScanOptions, RunScan>;

const Subcommand kEnforceCommand = {"enforce", EnforceUsage, kParseScan};
const Subcommand kAnalyzeCommand = {"analyze", AnalyzeUsage, kParseScan};
const Subcommand kQueryCommand = {"query", QueryUsage, kParseScan};

}  // namespace tierfs::cli::fsppadm
