// fsppadm status: the assigned policy, the volumes with their space, and the
// latest scans and relocations recorded in the database.
#include "cli/fsppadm/status.h"

#include <algorithm>
#include <cstdio>

#include "cli/common/exit_codes.h"
#include "cli/common/json_fields.h"
#include "cli/common/text_table.h"
#include "cli/common/units.h"
#include "cli/common/volume_table.h"

namespace tierfs::cli::fsppadm {
namespace {

using nlohmann::json;

constexpr char kStatusUsage[] =
    "usage: fsppadm status [-n COUNT] [--json] MOUNT\n"
    "Shows the assigned policy, the volumes, and the latest scans and "
    "relocations.\n"
    "  -n COUNT      how many scans and relocations to show (default 10)\n"
    "  --json        one JSON document (default: tables)\n";

std::string StatusUsage() { return std::string(kStatusUsage) + kCommonOptionsUsage; }

std::string Fixed2(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string ScansTable(const json& status) {
  TextTable t(
      {"ID", "Started", "Kind", "Seconds", "Scanned", "Moved", "Bytes Moved", "Deleted", "Errors",
       "Options", "Result"});
  for (int c : {0, 3, 4, 5, 6, 7, 8}) t.AlignRight(static_cast<size_t>(c));
  for (const json& s : JsonArray(status, "scans")) {
    t.AddRow({std::to_string(JsonInt(s, "id")), FormatLocalTime(JsonInt(s, "started_ns")),
              JsonString(s, "kind", "-"), Fixed2(JsonDouble(s, "seconds")),
              std::to_string(JsonUint(s, "files_scanned")),
              std::to_string(JsonUint(s, "files_moved")),
              std::to_string(JsonUint(s, "bytes_moved")),
              std::to_string(JsonUint(s, "files_deleted")), std::to_string(JsonUint(s, "errors")),
              PrintableField(JsonString(s, "options")),
              JsonString(s, "failure").empty()
                  ? std::string("ok")
                  : "failed: " + PrintableField(JsonString(s, "failure"))});
  }
  return t.Render();
}

std::string RelocationsTable(const json& status, const std::string& mount_point) {
  TextTable t({"Time", "From", "To", "Bytes", "Seconds", "Outcome", "File"});
  t.AlignRight(3);
  t.AlignRight(4);
  for (const json& r : JsonArray(status, "relocations")) {
    std::string path = JsonString(r, "path");
    t.AddRow({FormatLocalTime(JsonInt(r, "time_ns")), JsonString(r, "from_volume", "-"),
              JsonString(r, "to_volume", "-"), std::to_string(JsonUint(r, "bytes")),
              Fixed2(JsonDouble(r, "seconds")), PrintableField(JsonString(r, "outcome", "-")),
              path.empty() ? "(ino " + std::to_string(JsonUint(r, "ino")) + ", no name)"
                           : PrintableField(HostPath(mount_point, path))});
  }
  return t.Render();
}

// "Passthrough : rw (--passthrough=auto; granted at INIT; heat counted by the
// pagecache hook)\n", or "" from a daemon that does not say.
std::string PassthroughLine(const json& status) {
  const json& pt = JsonObject(status, "passthrough");
  if (pt.empty() || JsonString(pt, "mode", "").empty()) return "";
  return "Passthrough : " + PrintableField(JsonString(pt, "mode", "")) + " (--passthrough=" +
         PrintableField(JsonString(pt, "requested", "")) + "; " +
         PrintableField(JsonString(pt, "why", "")) + ")\n";
}

// The "Online promotion" section: what the daemon's online path has done and
// what it has queued (fs/tiering/online_promoter.h); "" when the daemon
// reports none (an older daemon).
std::string OnlineSection(const json& status, const std::string& mount_point) {
  const json& o = JsonObject(status, "online");
  if (o.empty()) return "";
  if (!o.value("online", false)) return "\nOnline promotion: off (no RELOCATE with Online=\"yes\")\n";
  const json& skipped = JsonObject(o, "skipped");
  std::string out = "\nOnline promotion: on\n";
  out += "  Budget      : " + Fixed2(JsonDouble(o, "budget_bytes_per_s") / (1024 * 1024)) +
         " MiB/s; moved over the last 10 s: " +
         Fixed2(JsonDouble(o, "bytes_per_s") / (1024 * 1024)) + " MiB/s\n";
  out += "  Moved       : " + std::to_string(JsonUint(o, "promotions")) + " promotions, " +
         std::to_string(JsonUint(o, "demotions")) + " demotions (swap-outs), " +
         std::to_string(JsonUint(o, "bytes_moved")) + " bytes\n";
  out += "  Skipped     : " + std::to_string(JsonUint(skipped, "cold")) + " cold, " +
         std::to_string(JsonUint(skipped, "busy")) + " busy, " +
         std::to_string(JsonUint(skipped, "noroom")) + " no room, " +
         std::to_string(JsonUint(skipped, "queuefull")) + " queue full\n";
  out += "  Held        : " + std::to_string(JsonUint(o, "held")) +
         " files (moved in online, not moved out before their OnlineHold)\n";
  const json& queued = JsonArray(o, "queued");
  out += "  Queued      : " + std::to_string(queued.size()) + " files\n";
  if (!queued.empty()) {
    TextTable t({"Temperature", "Attempts", "File"});
    t.AlignRight(0);
    t.AlignRight(1);
    for (const json& q : queued) {
      const std::string path = JsonString(q, "path");
      t.AddRow({Fixed2(JsonDouble(q, "temperature")), std::to_string(JsonUint(q, "attempts")),
                path.empty() ? "(ino " + std::to_string(JsonUint(q, "ino")) + ")"
                             : PrintableField(HostPath(mount_point, path))});
    }
    out += t.Render();
  }
  return out;
}

}  // namespace

Result<StatusOptions> ParseStatusOptions(const std::vector<std::string>& args) {
  StatusOptions o;
  Result<std::vector<std::string>> operands = ParseSubcommandOptions(
      args, {{nullptr, 'n', true, "COUNT"}, {"json", 0, false, ""}}, &o.flags,
      [&o](const OptionSpec& spec, const char* value) {
        if (spec.short_name == 'n') return TakeOptionValue(spec, ParseCount(value), &o.count);
        o.json = true;
        return Status::Ok();
      });
  if (!operands.ok()) return operands.status();
  if (o.flags.help || o.flags.version) return o;
  TIERFS_RETURN_IF_ERROR(ExpectOperands(operands->size() == 1, "one MOUNT"));
  o.mount = operands->front();
  return o;
}

int RunStatus(const StatusOptions& args, const CliEnv& env) {
  int exit_code = kExitOk;
  std::optional<MountConnection> target = ConnectToMount(env, kTool, args.mount, &exit_code);
  if (!target) return exit_code;
  std::optional<json> policy = CallOrReport(env, *target, json{{"op", "get_policy"}}, &exit_code);
  if (!policy) return exit_code;
  std::optional<json> volumes = CallOrReport(env, *target, json{{"op", "volumes"}}, &exit_code);
  if (!volumes) return exit_code;
  std::optional<json> status =
      CallOrReport(env, *target, json{{"op", "status"}, {"limit", args.count}}, &exit_code);
  if (!status) return exit_code;

  const std::string& mount_point = target->where.mount.mount_point;
  if (args.json) {
    json out = {{"mount_point", mount_point},
                {"policy", policy->contains("policy") ? (*policy)["policy"] : json(nullptr)},
                {"volumes", JsonArray(*volumes, "volumes")},
                {"scans", JsonArray(*status, "scans")},
                {"relocations", JsonArray(*status, "relocations")}};
    if (JsonHasNumber(*status, "heat_bucket_seconds")) {
      out["heat_bucket_seconds"] = JsonInt(*status, "heat_bucket_seconds");
    }
    if (status->contains("passthrough")) out["passthrough"] = (*status)["passthrough"];
    if (status->contains("online")) out["online"] = (*status)["online"];
    *env.out << JsonDump(out, 2) << "\n";
    return exit_code;
  }
  std::string out = "Mount point : " + PrintableField(mount_point) + "\n";
  const json& p = JsonObject(*policy, "policy");
  out += "Policy      : " +
         (p.empty() ? std::string("none assigned")
                    : PrintableField(JsonString(p, "name", "(unnamed)")) + " (assigned " +
                          FormatLocalTime(JsonInt(p, "assigned_ns")) + ")") +
         "\n";
  if (JsonHasNumber(*status, "heat_bucket_seconds")) {
    out += "Heat bucket : " + std::to_string(JsonInt(*status, "heat_bucket_seconds")) + " s\n";
  }
  out += PassthroughLine(*status);
  out += "\n";
  out += VolumesTable(*volumes);
  out += "\nRecent scans:\n";
  out += JsonArray(*status, "scans").empty() ? "  none\n" : ScansTable(*status);
  out += "\nRecent relocations:\n";
  out += JsonArray(*status, "relocations").empty() ? "  none\n"
                                                   : RelocationsTable(*status, mount_point);
  out += OnlineSection(*status, mount_point);
  *env.out << out;
  return exit_code;
}

const Subcommand kStatusCommand = {"status", StatusUsage,
                                   ParseToInvocation<StatusOptions, ParseStatusOptions, RunStatus>};

}  // namespace tierfs::cli::fsppadm
