// fsppadm report: bytes and heat per directory and placement class, as text,
// JSON or an HTML page (docs/admin.md "A picture of the tiers"). The daemon
// aggregates (control op tier_summary, fs/control/tier_summary.h); this side formats.
#include "cli/exit_codes.h"
#include "cli/fsppadm_commands.h"
#include "cli/json_fields.h"
#include "cli/tier_report.h"
#include "cli/tier_report_html.h"

namespace tierfs::cli::fsppadm {

int RunTierReport(const FsppadmArgs& args, const CliEnv& env) {
  int exit_code = kExitOk;
  std::optional<Target> target = Connect(env, args.mounts[0], &exit_code);
  if (!target) return exit_code;
  std::optional<nlohmann::json> reply = CallOrReport(
      env, *target,
      nlohmann::json{
          {"op", "tier_summary"}, {"depth", args.report_depth}, {"hours", args.report_hours}},
      &exit_code);
  if (!reply) return exit_code;
  const std::string& mount_point = target->where.mount.mount_point;
  if (args.json) {
    (*reply)["mount_point"] = mount_point;
    *env.out << JsonDump(*reply, 2) << "\n";
    return exit_code;
  }
  const TierReport report = TierReportFromJson(*reply, mount_point);
  if (args.report_html.empty()) {
    *env.out << TierReportText(report);
  } else if (args.report_html == "-") {
    *env.out << TierReportHtml(report);
  } else if (Status st = WriteTextFile(args.report_html, TierReportHtml(report)); !st.ok()) {
    PrintError(env, kTool, st.message());
    return kExitFailed;
  }
  return exit_code;
}

}  // namespace tierfs::cli::fsppadm
