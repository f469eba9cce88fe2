#include "cli/fsppadm/policy_file.h"

#include <algorithm>

#include "cli/common/exit_codes.h"
#include "cli/fsppadm/subcommand.h"
#include "cli/common/json_fields.h"
#include "cli/fsppadm/policy_validation.h"

namespace tierfs::cli::fsppadm {
namespace {

using nlohmann::json;

// Prints the daemon's warnings (strings "line N: ...") for `file`.
void PrintWarnings(const CliEnv& env, const std::string& file, const json& result) {
  for (const json& w : JsonArray(result, "warnings")) {
    if (w.is_string()) *env.err << FormatDaemonDiagnostic(file, w.get<std::string>(), true) << "\n";
  }
}

// Prints a refused assign/validate: each line of the daemon's message is one diagnostic.
void PrintRefusal(const CliEnv& env, const std::string& file, const MountConnection& target,
                  const Status& status) {
  std::string text = status.message();
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    if (nl > start)
      *env.err << FormatDaemonDiagnostic(file, text.substr(start, nl - start), false) << "\n";
    start = nl + 1;
  }
  *env.err << "fsppadm: " << file << " was not accepted by " << target.where.mount.mount_point
           << "\n";
}

}  // namespace

Result<PolicyFileOptions> ParsePolicyFileOptions(const std::vector<std::string>& args,
                                                 size_t min_mounts, const std::string& syntax) {
  PolicyFileOptions o;
  Result<std::vector<std::string>> operands =
      ParseSubcommandOptions(args, {{"force", 'f', false, ""}}, &o.flags,
                             [&o](const OptionSpec&, const char*) {
                               o.force = true;
                               return Status::Ok();
                             });
  if (!operands.ok()) return operands.status();
  if (o.flags.help || o.flags.version) return o;
  TIERFS_RETURN_IF_ERROR(ExpectOperands(operands->size() > min_mounts, syntax));
  o.policy_file = operands->back();
  operands->pop_back();
  o.mounts = std::move(*operands);
  return o;
}

std::optional<std::string> LoadPolicyFile(const CliEnv& env, const std::string& file,
                                          std::string* policy_name) {
  Result<std::string> xml = ReadTextFile(file);
  if (!xml.ok()) {
    PrintError(env, kTool, "cannot read policy: " + xml.status().message());
    return std::nullopt;
  }
  if (!CheckPolicyFile(env, file, *xml, policy_name)) return std::nullopt;
  return std::move(*xml);
}

int SendPolicyToMounts(const CliEnv& env, PolicyRequest request, const std::string& policy_file,
                       const std::vector<std::string>& mounts, bool force) {
  std::string name;
  std::optional<std::string> xml = LoadPolicyFile(env, policy_file, &name);
  if (!xml) return kExitUsage;
  const bool validate = request == PolicyRequest::kValidate;
  if (validate && mounts.empty()) {
    *env.out << policy_file << ": valid (policy " << (name.empty() ? "without a Name" : name)
             << ")\n";
    return kExitOk;
  }
  int exit_code = kExitOk;
  for (const std::string& mount : mounts) {
    std::optional<MountConnection> target = ConnectToMount(env, kTool, mount, &exit_code);
    if (!target) continue;
    Result<json> result = target->client.Call(
        json{{"op", validate ? "validate" : "assign"}, {"xml", *xml}, {"force", force}});
    if (!result.ok()) {
      if (!target->client.unreachable() && result.status().code() == EINVAL) {
        PrintRefusal(env, policy_file, *target, result.status());
      } else {
        PrintError(env, kTool, CallErrorMessage(target->client, result.status()));
      }
      exit_code = std::max(exit_code, target->client.ExitCodeFor(result.status()));
      continue;
    }
    PrintWarnings(env, policy_file, *result);
    if (validate) {
      *env.out << policy_file << ": valid for " << target->where.mount.mount_point << "\n";
    }
  }
  env.err->flush();
  return exit_code;
}

}  // namespace tierfs::cli::fsppadm
