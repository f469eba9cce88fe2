#include "cli/fsppadm/print.h"

#include "cli/common/exit_codes.h"
#include "cli/common/json_fields.h"

namespace tierfs::cli::fsppadm {
namespace {

constexpr char kPrintUsage[] =
    "usage: fsppadm print MOUNT\n"
    "Prints the XML of the policy assigned to MOUNT.\n";

std::string PrintUsage() { return std::string(kPrintUsage) + kCommonOptionsUsage; }

}  // namespace

Result<PrintOptions> ParsePrintOptions(const std::vector<std::string>& args) {
  PrintOptions o;
  Result<std::vector<std::string>> operands = ParseSubcommandOptions(args, {}, &o.flags, nullptr);
  if (!operands.ok()) return operands.status();
  if (o.flags.help || o.flags.version) return o;
  TIERFS_RETURN_IF_ERROR(ExpectOperands(operands->size() == 1, "one MOUNT"));
  o.mount = operands->front();
  return o;
}

int RunPrint(const PrintOptions& options, const CliEnv& env) {
  int exit_code = kExitOk;
  std::optional<MountConnection> target = ConnectToMount(env, kTool, options.mount, &exit_code);
  if (!target) return exit_code;
  std::optional<nlohmann::json> result =
      CallOrReport(env, *target, nlohmann::json{{"op", "get_policy"}}, &exit_code);
  if (!result) return exit_code;
  if (!result->contains("policy") || !(*result)["policy"].is_object()) {
    PrintError(env, kTool, "no policy is assigned to " + target->where.mount.mount_point);
    return kExitFailed;
  }
  std::string xml = JsonString((*result)["policy"], "xml");
  *env.out << xml;
  if (!xml.empty() && xml.back() != '\n') *env.out << "\n";
  return kExitOk;
}

const Subcommand kPrintCommand = {"print", PrintUsage,
                                  ParseToInvocation<PrintOptions, ParsePrintOptions, RunPrint>};

}  // namespace tierfs::cli::fsppadm
