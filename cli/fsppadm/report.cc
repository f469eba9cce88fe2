#include "cli/fsppadm/report.h"

#include "cli/common/exit_codes.h"
#include "cli/common/json_fields.h"
#include "cli/fsppadm/tier_report.h"
#include "cli/fsppadm/tier_report_html.h"
#include "cli/common/units.h"

namespace tierfs::cli::fsppadm {
namespace {

constexpr char kReportUsage[] =
    "usage: fsppadm report [--html FILE | --json] [--depth N] [--hours H] MOUNT\n"
    "Shows, per directory, how many bytes and files sit on each placement class and\n"
    "how hot they are (bytes read and written in the last H hours, and IOTEMP: those\n"
    "bytes per hour per byte held), then the same per class and per volume with\n"
    "capacity, used and free space. Default: text tables.\n"
    "  --html FILE   write a self-contained HTML page with a chart instead (\"-\":\n"
    "                standard output)\n"
    "  --json        the same data as one JSON document\n"
    "  --depth N     one row per directory N components below the mount point:\n"
    "                deeper files count in their ancestor there, files higher up in\n"
    "                their own directory (default 2, 0..1000; 0: one row, \"/\")\n"
    "  --hours H     the heat window in hours, decimals allowed (default 24, at most\n"
    "                8784)\n";

std::string ReportUsage() { return std::string(kReportUsage) + kCommonOptionsUsage; }

Status OnReportOption(ReportOptions* o, const OptionSpec& spec, const char* value) {
  const std::string name = spec.long_name;
  if (name == "json") {
    o->json = true;
  } else if (name == "html") {
    if (*value == '\0') return Status::Invalid("--html: empty file name");
    o->html = value;
  } else if (name == "depth") {
    Result<uint64_t> depth = ParseCount(value);
    if (!depth.ok() || *depth > 1000) {
      return Status::Invalid("--depth: N must be 0 to 1000, got \"" + std::string(value) + "\"");
    }
    o->depth = static_cast<int64_t>(*depth);
  } else {  // --hours
    Result<double> hours = ParseHours(value);
    if (!hours.ok() || !(*hours > 0) || *hours > 8784) {
      return Status::Invalid("--hours: H must be more than 0 and at most 8784, got \"" +
                             std::string(value) + "\"");
    }
    o->hours = *hours;
  }
  return Status::Ok();
}

}  // namespace

Result<ReportOptions> ParseReportOptions(const std::vector<std::string>& args) {
  ReportOptions o;
  Result<std::vector<std::string>> operands = ParseSubcommandOptions(
      args,
      {{"json", 0, false, ""},
       {"html", 0, true, "FILE"},
       {"depth", 0, true, "N"},
       {"hours", 0, true, "H"}},
      &o.flags,
      [&o](const OptionSpec& spec, const char* value) { return OnReportOption(&o, spec, value); });
  if (!operands.ok()) return operands.status();
  if (o.flags.help || o.flags.version) return o;
  TIERFS_RETURN_IF_ERROR(ExpectOperands(operands->size() == 1, "one MOUNT"));
  if (o.json && !o.html.empty()) return Status::Invalid("--html and --json exclude each other");
  o.mount = operands->front();
  return o;
}

int RunReport(const ReportOptions& options, const CliEnv& env) {
  int exit_code = kExitOk;
  std::optional<MountConnection> target = ConnectToMount(env, kTool, options.mount, &exit_code);
  if (!target) return exit_code;
  std::optional<nlohmann::json> reply = CallOrReport(
      env, *target,
      nlohmann::json{{"op", "tier_summary"}, {"depth", options.depth}, {"hours", options.hours}},
      &exit_code);
  if (!reply) return exit_code;
  const std::string& mount_point = target->where.mount.mount_point;
  if (options.json) {
    (*reply)["mount_point"] = mount_point;
    *env.out << JsonDump(*reply, 2) << "\n";
    return exit_code;
  }
  const TierReport report = TierReportFromJson(*reply, mount_point);
  if (options.html.empty()) {
    *env.out << TierReportText(report);
  } else if (options.html == "-") {
    *env.out << TierReportHtml(report);
  } else if (Status st = WriteTextFile(options.html, TierReportHtml(report)); !st.ok()) {
    PrintError(env, kTool, st.message());
    return kExitFailed;
  }
  return exit_code;
}

const Subcommand kReportCommand = {"report", ReportUsage,
                                   ParseToInvocation<ReportOptions, ParseReportOptions, RunReport>};

}  // namespace tierfs::cli::fsppadm
