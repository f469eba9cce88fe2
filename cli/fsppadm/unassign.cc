#include "cli/fsppadm/unassign.h"

#include "cli/common/exit_codes.h"

namespace tierfs::cli::fsppadm {
namespace {

constexpr char kUnassignUsage[] =
    "usage: fsppadm unassign MOUNT...\n"
    "Removes the active policy; new files then go to the volume with the most free "
    "space.\n";

std::string UnassignUsage() { return std::string(kUnassignUsage) + kCommonOptionsUsage; }

}  // namespace

Result<UnassignOptions> ParseUnassignOptions(const std::vector<std::string>& args) {
  UnassignOptions o;
  Result<std::vector<std::string>> operands = ParseSubcommandOptions(args, {}, &o.flags, nullptr);
  if (!operands.ok()) return operands.status();
  if (o.flags.help || o.flags.version) return o;
  TIERFS_RETURN_IF_ERROR(ExpectOperands(!operands->empty(), "MOUNT..."));
  o.mounts = std::move(*operands);
  return o;
}

int RunUnassign(const UnassignOptions& options, const CliEnv& env) {
  int exit_code = kExitOk;
  for (const std::string& mount : options.mounts) {
    std::optional<MountConnection> target = ConnectToMount(env, kTool, mount, &exit_code);
    if (target) CallOrReport(env, *target, nlohmann::json{{"op", "unassign"}}, &exit_code);
  }
  return exit_code;
}

const Subcommand kUnassignCommand = {
    "unassign", UnassignUsage,
    ParseToInvocation<UnassignOptions, ParseUnassignOptions, RunUnassign>};

}  // namespace tierfs::cli::fsppadm
