// fsppadm enforce | analyze | query: build the scan request from the options and
// path operands, stream progress, print the report (docs/commands.md "fsppadm",
// docs/policies.md "Which files a scan sees").
#include <algorithm>
#include <cmath>

#include "cli/exit_codes.h"
#include "cli/fsppadm_commands.h"
#include "cli/fsppadm_report.h"
#include "cli/json_fields.h"
#include "cli/policy_check.h"
#include "cli/progress_line.h"

namespace tierfs::cli::fsppadm {

using nlohmann::json;

int RunScan(const FsppadmArgs& args, const CliEnv& env) {
  const char* mode = FsppadmCommandName(args.command);

  json policy_xml = nullptr;
  if (!args.policy_file.empty()) {
    Result<std::string> xml = ReadTextFile(args.policy_file);
    if (!xml.ok()) {
      PrintError(env, kTool, "cannot read policy: " + xml.status().message());
      return kExitUsage;
    }
    if (!CheckPolicyFile(env, args.policy_file, *xml, nullptr)) return kExitUsage;
    policy_xml = std::move(*xml);
  }

  // The first path names the file system; the others must be in it.
  int exit_code = kExitOk;
  std::optional<Target> target = Connect(env, args.paths[0], &exit_code);
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

}  // namespace tierfs::cli::fsppadm
