// fsppadm: dispatch and the policy commands (assign, unassign, list, print,
// validate). Scans are in fsppadm_scan.cc, status in fsppadm_status.cc.
#include "cli/fsppadm.h"

#include <algorithm>
#include <exception>

#include "cli/exit_codes.h"
#include "cli/fsppadm_commands.h"
#include "cli/json_fields.h"
#include "cli/policy_check.h"
#include "cli/text_table.h"
#include "cli/units.h"
#include "cli/version.h"

namespace tierfs::cli {
namespace fsppadm {

using nlohmann::json;

std::optional<Target> Connect(const CliEnv& env, const std::string& operand, int* exit_code) {
  int code = kExitOk;
  Result<LocatedPath> where = LocatePath(env, operand, &code);
  if (!where.ok()) {
    PrintError(env, kTool, where.status().message());
    *exit_code = std::max(*exit_code, code);
    return std::nullopt;
  }
  ControlClient client(where->mount);
  return Target{std::move(*where), std::move(client)};
}

std::optional<json> CallOrReport(const CliEnv& env, Target& target, const json& request,
                                 int* exit_code, const ProgressCallback& progress) {
  Result<json> result = target.client.Call(request, progress);
  if (!result.ok()) {
    std::string message = result.status().message();
    if (!target.client.unreachable()) message = target.where.mount.mount_point + ": " + message;
    PrintError(env, kTool, message);
    *exit_code = std::max(*exit_code, target.client.ExitCodeFor(result.status()));
    return std::nullopt;
  }
  return std::move(*result);
}

namespace {

// Prints the daemon's warnings (strings "line N: ...") for `file`.
void PrintWarnings(const CliEnv& env, const std::string& file, const json& result) {
  for (const json& w : JsonArray(result, "warnings")) {
    if (w.is_string()) *env.err << FormatDaemonDiagnostic(file, w.get<std::string>(), true) << "\n";
  }
}

// Prints a refused assign/validate: each line of the daemon's message is one diagnostic.
void PrintRefusal(const CliEnv& env, const std::string& file, const Target& target,
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

// Reads and checks the policy file; prints diagnostics. nullopt on error.
std::optional<std::string> LoadPolicyFile(const CliEnv& env, const std::string& file,
                                          std::string* name) {
  Result<std::string> xml = ReadTextFile(file);
  if (!xml.ok()) {
    PrintError(env, kTool, "cannot read policy: " + xml.status().message());
    return std::nullopt;
  }
  if (!CheckPolicyFile(env, file, *xml, name)) return std::nullopt;
  return std::move(*xml);
}

// assign and validate against mounts share everything but the op.
int SendPolicy(const FsppadmArgs& args, const CliEnv& env, const char* op) {
  std::string name;
  std::optional<std::string> xml = LoadPolicyFile(env, args.policy_file, &name);
  if (!xml) return kExitUsage;
  const bool validate = std::string(op) == "validate";
  if (validate && args.mounts.empty()) {
    *env.out << args.policy_file << ": valid (policy " << (name.empty() ? "without a Name" : name)
             << ")\n";
    return kExitOk;
  }
  int exit_code = kExitOk;
  for (const std::string& mount : args.mounts) {
    std::optional<Target> target = Connect(env, mount, &exit_code);
    if (!target) continue;
    Result<json> result =
        target->client.Call(json{{"op", op}, {"xml", *xml}, {"force", args.force}});
    if (!result.ok()) {
      if (!target->client.unreachable() && result.status().code() == EINVAL) {
        PrintRefusal(env, args.policy_file, *target, result.status());
      } else {
        PrintError(env, kTool,
                   (target->client.unreachable() ? "" : target->where.mount.mount_point + ": ") +
                       result.status().message());
      }
      exit_code = std::max(exit_code, target->client.ExitCodeFor(result.status()));
      continue;
    }
    PrintWarnings(env, args.policy_file, *result);
    if (validate) {
      *env.out << args.policy_file << ": valid for " << target->where.mount.mount_point << "\n";
    }
  }
  env.err->flush();
  return exit_code;
}

}  // namespace

int RunAssign(const FsppadmArgs& args, const CliEnv& env) {
  return SendPolicy(args, env, "assign");
}

int RunValidate(const FsppadmArgs& args, const CliEnv& env) {
  return SendPolicy(args, env, "validate");
}

int RunUnassign(const FsppadmArgs& args, const CliEnv& env) {
  int exit_code = kExitOk;
  for (const std::string& mount : args.mounts) {
    std::optional<Target> target = Connect(env, mount, &exit_code);
    if (target) CallOrReport(env, *target, json{{"op", "unassign"}}, &exit_code);
  }
  return exit_code;
}

int RunList(const FsppadmArgs& args, const CliEnv& env) {
  int exit_code = kExitOk;
  std::vector<std::string> mounts = args.mounts;
  if (mounts.empty()) {
    Result<std::vector<MountEntry>> table = ReadMountInfo(env.mountinfo_path);
    if (!table.ok()) {
      PrintError(env, kTool, table.status().message());
      return kExitUnreachable;
    }
    for (const TierfsMount& m : TierfsMounts(*table)) mounts.push_back(m.mount_point);
  }
  TextTable table({"Mount Point", "Policy", "Assigned"});
  json listing = json::array();
  for (const std::string& mount : mounts) {
    std::optional<Target> target = Connect(env, mount, &exit_code);
    if (!target) continue;
    std::optional<json> result = CallOrReport(env, *target, json{{"op", "get_policy"}}, &exit_code);
    if (!result) continue;
    const json& policy = JsonObject(*result, "policy");
    bool assigned = result->contains("policy") && (*result)["policy"].is_object();
    table.AddRow({PrintableField(target->where.mount.mount_point),
                  assigned ? PrintableField(JsonString(policy, "name", "(unnamed)")) : "-",
                  assigned ? FormatLocalTime(JsonInt(policy, "assigned_ns")) : "-"});
    json entry = {{"mount_point", target->where.mount.mount_point}, {"policy", nullptr}};
    if (assigned) {
      entry["policy"] = {{"name", JsonString(policy, "name")},
                         {"assigned_ns", JsonInt(policy, "assigned_ns")}};
    }
    listing.push_back(std::move(entry));
  }
  if (args.json) {
    *env.out << JsonDump(json{{"mounts", listing}}, 2) << "\n";
  } else if (table.rows() > 0) {
    *env.out << table.Render();
  } else if (mounts.empty()) {
    *env.out << "No tierfs file system is mounted.\n";
  }
  return exit_code;
}

int RunPrint(const FsppadmArgs& args, const CliEnv& env) {
  int exit_code = kExitOk;
  std::optional<Target> target = Connect(env, args.mounts[0], &exit_code);
  if (!target) return exit_code;
  std::optional<json> result = CallOrReport(env, *target, json{{"op", "get_policy"}}, &exit_code);
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

}  // namespace fsppadm

int FsppadmMain(const std::vector<std::string>& args, const CliEnv& env) {
  using fsppadm::kTool;
  try {
    Result<FsppadmArgs> parsed = ParseFsppadmArgs(args);
    if (std::optional<int> ended = AnswerParseVersionHelp(
            parsed, env, kTool, [&] { return FsppadmUsage(parsed->command); })) {
      return *ended;
    }
    const FsppadmArgs& a = *parsed;
    int code = kExitOk;
    switch (a.command) {
      case FsppadmCommand::kAssign:
        code = fsppadm::RunAssign(a, env);
        break;
      case FsppadmCommand::kUnassign:
        code = fsppadm::RunUnassign(a, env);
        break;
      case FsppadmCommand::kList:
        code = fsppadm::RunList(a, env);
        break;
      case FsppadmCommand::kPrint:
        code = fsppadm::RunPrint(a, env);
        break;
      case FsppadmCommand::kValidate:
        code = fsppadm::RunValidate(a, env);
        break;
      case FsppadmCommand::kEnforce:
      case FsppadmCommand::kAnalyze:
      case FsppadmCommand::kQuery:
        code = fsppadm::RunScan(a, env);
        break;
      case FsppadmCommand::kStatus:
        code = fsppadm::RunStatus(a, env);
        break;
      case FsppadmCommand::kTag:
        code = fsppadm::RunTag(a, env);
        break;
      case FsppadmCommand::kHeatBucket:
        code = fsppadm::RunHeatBucket(a, env);
        break;
      case FsppadmCommand::kAdvise:
        code = fsppadm::RunAdvise(a, env);
        break;
      case FsppadmCommand::kReport:
        code = fsppadm::RunTierReport(a, env);
        break;
      case FsppadmCommand::kSchedule:
        code = fsppadm::RunSchedule(a, env);
        break;
      case FsppadmCommand::kNone:
        *env.out << FsppadmUsage(a.command);
        break;
    }
    env.out->flush();
    return code;
  } catch (const std::exception& e) {  // nothing escapes main: report and fail
    PrintError(env, kTool, std::string("internal error: ") + e.what());
    return kExitFailed;
  }
}

}  // namespace tierfs::cli
