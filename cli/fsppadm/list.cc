#include "cli/fsppadm/list.h"

#include "cli/common/exit_codes.h"
#include "cli/common/json_fields.h"
#include "cli/common/text_table.h"
#include "cli/common/units.h"

namespace tierfs::cli::fsppadm {
namespace {

using nlohmann::json;

constexpr char kListUsage[] =
    "usage: fsppadm list [--json] [MOUNT...]\n"
    "Shows the policy assigned to each mount (every tierfs mount when none is named).\n"
    "  --json        one JSON document (default: a table)\n";

std::string ListUsage() { return std::string(kListUsage) + kCommonOptionsUsage; }

}  // namespace

Result<ListOptions> ParseListOptions(const std::vector<std::string>& args) {
  ListOptions o;
  Result<std::vector<std::string>> operands =
      ParseSubcommandOptions(args, {{"json", 0, false, ""}}, &o.flags,
                             [&o](const OptionSpec&, const char*) {
                               o.json = true;
                               return Status::Ok();
                             });
  if (!operands.ok()) return operands.status();
  o.mounts = std::move(*operands);
  return o;
}

int RunList(const ListOptions& options, const CliEnv& env) {
  int exit_code = kExitOk;
  std::vector<std::string> mounts = options.mounts;
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
    std::optional<MountConnection> target = ConnectToMount(env, kTool, mount, &exit_code);
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
  if (options.json) {
    *env.out << JsonDump(json{{"mounts", listing}}, 2) << "\n";
  } else if (table.rows() > 0) {
    *env.out << table.Render();
  } else if (mounts.empty()) {
    *env.out << "No tierfs file system is mounted.\n";
  }
  return exit_code;
}

const Subcommand kListCommand = {"list", ListUsage,
                                 ParseToInvocation<ListOptions, ParseListOptions, RunList>};

}  // namespace tierfs::cli::fsppadm
