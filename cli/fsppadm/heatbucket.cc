// The daemon refuses a length that a PERIOD of the assigned policy is shorter
// than; otherwise it restarts the counts with the new length
// (fs/control/control_protocol.md).
#include "cli/fsppadm/heatbucket.h"

#include "cli/common/exit_codes.h"
#include "cli/common/json_fields.h"
#include "cli/common/text_table.h"
#include "cli/common/units.h"

namespace tierfs::cli::fsppadm {
namespace {

constexpr char kHeatBucketUsage[] =
    "usage: fsppadm heatbucket MOUNT SECONDS\n"
    "Sets the length of the buckets MOUNT counts I/O in (its heat resolution) to\n"
    "SECONDS, 1 to 86400. The I/O counted so far is discarded: temperatures start\n"
    "again from zero (FCL records are kept). Refused, changing nothing, when a\n"
    "PERIOD of the assigned policy would be shorter than SECONDS.\n";

std::string HeatBucketUsage() { return std::string(kHeatBucketUsage) + kCommonOptionsUsage; }

}  // namespace

Result<HeatBucketOptions> ParseHeatBucketOptions(const std::vector<std::string>& args) {
  HeatBucketOptions o;
  Result<std::vector<std::string>> operands = ParseSubcommandOptions(args, {}, &o.flags, nullptr);
  if (!operands.ok()) return operands.status();
  if (o.flags.help || o.flags.version) return o;
  TIERFS_RETURN_IF_ERROR(ExpectOperands(operands->size() == 2, "MOUNT SECONDS"));
  const std::string& text = (*operands)[1];
  Result<uint64_t> seconds = ParseCount(text);
  if (!seconds.ok() || *seconds < 1 || *seconds > 86400) {
    return Status::Invalid("SECONDS must be 1 to 86400, got \"" + text + "\"");
  }
  o.seconds = static_cast<int64_t>(*seconds);
  o.mount = (*operands)[0];
  return o;
}

int RunHeatBucket(const HeatBucketOptions& options, const CliEnv& env) {
  int exit_code = kExitOk;
  std::optional<MountConnection> target = ConnectToMount(env, kTool, options.mount, &exit_code);
  if (!target) return exit_code;
  std::optional<nlohmann::json> reply = CallOrReport(
      env, *target, nlohmann::json{{"op", "heat_bucket"}, {"seconds", options.seconds}},
      &exit_code);
  if (!reply) return exit_code;
  *env.out << PrintableField(target->where.mount.mount_point) << ": heat bucket "
           << JsonInt(*reply, "old_seconds") << " s -> " << JsonInt(*reply, "seconds")
           << " s; I/O counts restarted (temperatures start again from zero)\n";
  return exit_code;
}

const Subcommand kHeatBucketCommand = {
    "heatbucket", HeatBucketUsage,
    ParseToInvocation<HeatBucketOptions, ParseHeatBucketOptions, RunHeatBucket>};

}  // namespace tierfs::cli::fsppadm
