#include "cli/fsvoladm/fsvoladm.h"


#include "cli/common/control_client.h"
#include "cli/common/exit_codes.h"
#include "cli/common/json_fields.h"
#include "cli/mkdstfs/mkdstfs.h"
#include "cli/common/object_volume_add.h"
#include "cli/common/option_parser.h"
#include "cli/common/progress_line.h"
#include "cli/common/text_table.h"
#include "cli/common/tool_support.h"
#include "cli/common/units.h"
#include "cli/version.h"
#include "cli/common/volume_add.h"
#include "cli/common/volume_table.h"

namespace tierfs::cli {
namespace {

using nlohmann::json;

constexpr char kTool[] = "fsvoladm";

void PrintWarnings(const CliEnv& env, const json& result) {
  for (const json& w : JsonArray(result, "warnings")) {
    if (w.is_string()) {
      PrintError(env, kTool, "warning: the assigned policy, " + w.get<std::string>());
    }
  }
}

int RunList(const FsvoladmArgs& a, const CliEnv& env, ControlClient& client) {
  int code = kExitOk;
  std::optional<json> volumes = CallOrReport(env, kTool, client, json{{"op", "volumes"}}, &code);
  if (!volumes) return code;
  if (a.json) {
    *env.out << JsonDump(*volumes, 2) << "\n";
  } else {
    *env.out << VolumesTable(*volumes);
  }
  return code;
}

ObjectStoreOptions StoreOptions(const FsvoladmArgs& a) {
  return ObjectStoreOptions{a.endpoint, a.credentials, a.region, a.addressing, a.ca_file};
}

int RunAdd(const FsvoladmArgs& a, const CliEnv& env, ControlClient& client) {
  std::vector<std::string> dirs;
  std::vector<meta::Volume> stores;  // s3:// operands
  for (const std::string& operand : a.operands) {
    if (!IsObjectVolumeOperand(operand)) {
      dirs.push_back(operand);
      continue;
    }
    Result<meta::Volume> row = ParseObjectVolumeOperand(operand, StoreOptions(a));
    if (!row.ok()) {
      PrintError(env, kTool, row.status().message());
      return kExitUsage;
    }
    stores.push_back(*row);
  }
  if (stores.empty() && StoreOptions(a).any()) {
    PrintError(env, kTool,
               "--endpoint, --credentials, --region, --addressing and --ca-file are for "
               "s3://BUCKET/PREFIX:CLASS volumes");
    return kExitUsage;
  }
  Result<std::vector<VolumeProbe>> probes = ProbeVolumes(dirs);
  if (!probes.ok()) {
    PrintError(env, kTool, probes.status().message());
    return kExitUsage;
  }
  // Every directory is checked before the first is added.
  for (const VolumeProbe& p : *probes) {
    if (Result<meta::Volume> row = PlanVolume(p); !row.ok()) {
      PrintError(env, kTool, row.status().message());
      return kExitUsage;
    }
  }
  int code = kExitOk;
  json added = json::array();
  for (const meta::Volume& row : stores) {
    Result<json> result = AddObjectVolumeOnline(client, row, a.verbose ? env.out : nullptr);
    if (!result.ok()) {
      PrintError(env, kTool,
                 (client.unreachable() ? "" : client.mount().mount_point + ": ") + row.path +
                     ": " + result.status().message());
      return std::max(code, client.ExitCodeFor(result.status()));
    }
    PrintWarnings(env, *result);
    if (!a.json) *env.out << AddedVolumeLine(*result) << "\n";
    added.push_back(JsonObject(*result, "volume"));
  }
  for (const VolumeProbe& p : *probes) {
    Result<json> result = AddVolumeOnline(client, p, a.verbose ? env.out : nullptr);
    if (!result.ok()) {
      PrintError(env, kTool,
                 (client.unreachable() ? "" : client.mount().mount_point + ": ") + p.spec.dir +
                     ": " + result.status().message());
      code = std::max(code, client.ExitCodeFor(result.status()));
      break;
    }
    PrintWarnings(env, *result);
    if (!a.json) *env.out << AddedVolumeLine(*result) << "\n";
    added.push_back(JsonObject(*result, "volume"));
  }
  if (a.json) *env.out << JsonDump(json{{"added", added}}, 2) << "\n";
  return code;
}

int RunRemove(const FsvoladmArgs& a, const CliEnv& env, ControlClient& client) {
  int code = kExitOk;
  const std::string& volume = a.operands[0];
  std::optional<json> result;
  {
    ProgressLine line(*env.err, env.err_is_terminal, "remove " + volume);
    result = CallOrReport(env, kTool, client, json{{"op", "volume_remove"}, {"volume", volume}},
                          &code, [&line](const json& progress) { line.Update(progress); });
  }
  if (!result) return code;
  PrintWarnings(env, *result);
  const std::string label_warning = JsonString(*result, "label_warning");
  if (!label_warning.empty()) PrintError(env, kTool, "warning: " + label_warning);
  if (a.json) {
    *env.out << JsonDump(*result, 2) << "\n";
    return code;
  }
  const json& v = JsonObject(*result, "volume");
  const uint64_t outside = JsonUint(*result, "outside_create_classes");
  *env.out << "removed " << JsonString(v, "name", volume) << " "
           << PrintableField(JsonString(v, "path")) << ": moved "
           << JsonUint(*result, "files_moved") << " files ("
           << HumanBytes(JsonUint(*result, "bytes_moved")) << ") to the other volumes";
  if (outside > 0) {
    *env.out << "; " << outside
             << " of them outside their CREATE classes (no room there): `fsppadm enforce` "
                "moves them when it can";
  }
  *env.out << "\n";
  return code;
}

int RunSetClass(const FsvoladmArgs& a, const CliEnv& env, ControlClient& client) {
  int code = kExitOk;
  std::optional<json> result = CallOrReport(
      env, kTool, client,
      json{{"op", "volume_setclass"}, {"volume", a.operands[0]}, {"class", a.operands[1]}}, &code);
  if (!result) return code;
  PrintWarnings(env, *result);
  if (a.json) {
    *env.out << JsonDump(*result, 2) << "\n";
  } else {
    const json& v = JsonObject(*result, "volume");
    *env.out << JsonString(v, "name", a.operands[0]) << ": class "
             << JsonString(*result, "old_class", "?") << " -> " << JsonString(v, "class", "?")
             << "\n";
  }
  return code;
}

}  // namespace

std::string FsvoladmUsage() {
  return "usage: fsvoladm list [--json] MOUNT\n"
         "       fsvoladm add [-v] [--json] MOUNT DIR[:CLASS]...\n"
         "       fsvoladm add [-v] [--json] --endpoint URL --credentials FILE\n"
         "                    [--region REGION] [--addressing path|virtual] [--ca-file FILE]\n"
         "                    MOUNT s3://BUCKET/PREFIX:CLASS...\n"
         "       fsvoladm remove [--json] MOUNT VOLUME\n"
         "       fsvoladm setclass [--json] MOUNT VOLUME CLASS\n"
         "The volumes of a mounted tierfs file system; every change is made online.\n"
         "  list       per volume: name, class, media type, role (metadata or data),\n"
         "             size, used, free (powers of 1024), files, state (online, full,\n"
         "             offline, draining)\n"
         "  add        label each DIR and add it as a data volume of class CLASS (default:\n"
         "             its detected media type, ssd, hdd or mixed); new files and\n"
         "             relocations may use it at once\n"
         "             An s3://BUCKET/PREFIX:CLASS operand adds an object volume: a\n"
         "             bucket (which must exist) on the S3 store at --endpoint\n"
         "             (http[s]://HOST[:PORT]), reached with the keys in --credentials\n"
         "             FILE (access_key = ..., secret_key = ...; mode 0600 or 0400, read\n"
         "             by the daemon, never stored; an optional session_token = ...\n"
         "             for temporary keys). --region: the bucket's (default us-east-1;\n"
         "             a wrong one is refused, naming the right one). --addressing:\n"
         "             path (ENDPOINT/BUCKET/KEY, the default) or virtual\n"
         "             (BUCKET.HOST/KEY). --ca-file: PEM CA certificates that an https\n"
         "             endpoint's certificate must verify against (default: the\n"
         "             system's). Files go there by relocation only\n"
         "  remove     move every file off VOLUME (its name, e.g. vol3, its directory, or\n"
         "             its id) to the volumes its policy's CREATE rule allows (else to any\n"
         "             with room), files staying open and in use; then forget VOLUME and\n"
         "             mark its label retired. Refuses the metadata volume, and refuses\n"
         "             (changing nothing) when the other volumes lack room, saying how much\n"
         "  setclass   give VOLUME the placement class CLASS ([A-Za-z0-9_.-], 1-64)\n"
         "  MOUNT      the mount point, or any path inside the file system\n"
         "  -v, --verbose  add: print each step as a command line\n"
         "  --json     the daemon's answer as one JSON document (default: text)\n"
         "  -h, --help this text\n"
         "  --version  print the version and exit\n"
         "Exit status: 0 ok, 1 the daemon refused or the change failed (for remove: the\n"
         "volume stays and every file is readable), 2 usage error, 3 daemon unreachable.\n";
}

Result<FsvoladmArgs> ParseFsvoladmArgs(const std::vector<std::string>& args) {
  FsvoladmArgs a;
  Result<ActionWord> word =
      ParseActionWord(args, "fsvoladm", {"list", "add", "remove", "setclass"});
  if (!word.ok()) return word.status();
  a.action = word->action;
  a.help = word->kind == ActionWord::kHelp;
  a.version = word->kind == ActionWord::kVersion;
  if (word->kind != ActionWord::kAction) return a;
  std::vector<OptionSpec> specs = {
      {"help", 'h', false, ""}, {"json", 0, false, ""}, {"version", 0, false, ""}};
  if (a.action == "add") {
    specs.push_back({"verbose", 'v', false, ""});
    specs.push_back({"endpoint", 0, true, "URL"});
    specs.push_back({"credentials", 0, true, "FILE"});
    specs.push_back({"region", 0, true, "REGION"});
    specs.push_back({"addressing", 0, true, "path|virtual"});
    specs.push_back({"ca-file", 0, true, "FILE"});
  }
  std::vector<std::string> rest(args.begin() + 1, args.end());
  Result<std::vector<std::string>> operands =
      ParseOptions(rest, specs, [&a](const OptionSpec& spec, const char* value) -> Status {
        const std::string name = spec.long_name != nullptr ? spec.long_name : "";
        if (name == "endpoint" || name == "credentials" || name == "region" ||
            name == "addressing" || name == "ca-file") {
          if (value == nullptr || *value == '\0') {
            return Status::Invalid("--" + name + " needs a value");
          }
          std::string* target = name == "endpoint"      ? &a.endpoint
                                : name == "credentials" ? &a.credentials
                                : name == "region"      ? &a.region
                                : name == "addressing"  ? &a.addressing
                                                        : &a.ca_file;
          *target = value;
        } else if (spec.short_name == 'h') {
          a.help = true;
        } else if (spec.short_name == 'v') {
          a.verbose = true;
        } else if (std::string(spec.long_name) == "version") {
          a.version = true;
        } else {
          a.json = true;
        }
        return Status::Ok();
      });
  if (!operands.ok()) return Status::Invalid(a.action + ": " + operands.status().message());
  if (a.help || a.version) return a;
  if (operands->empty()) return Status::Invalid(a.action + ": expected MOUNT");
  a.mount = (*operands)[0];
  a.operands.assign(operands->begin() + 1, operands->end());
  const size_t n = a.operands.size();
  if (a.action == "list" && n != 0) return Status::Invalid("list: expected only MOUNT");
  if (a.action == "add" && n == 0) return Status::Invalid("add: expected MOUNT DIR[:CLASS]...");
  if (a.action == "remove" && n != 1) return Status::Invalid("remove: expected MOUNT VOLUME");
  if (a.action == "setclass") {
    if (n != 2) return Status::Invalid("setclass: expected MOUNT VOLUME CLASS");
    Status st = CheckClassName(a.operands[1]);
    if (!st.ok()) return Status::Invalid("setclass: " + st.message());
  }
  return a;
}

namespace {

int FsvoladmBody(const std::vector<std::string>& args, const CliEnv& env) {
  Result<FsvoladmArgs> parsed = ParseFsvoladmArgs(args);
  if (std::optional<int> ended = AnswerParseVersionHelp(parsed, env, kTool, FsvoladmUsage)) {
    return *ended;
  }
  const FsvoladmArgs& a = *parsed;
  int code = kExitOk;
  std::optional<MountConnection> daemon = ConnectToMount(env, kTool, a.mount, &code);
  if (!daemon) return code;
  if (a.action == "list") return RunList(a, env, daemon->client);
  if (a.action == "add") return RunAdd(a, env, daemon->client);
  if (a.action == "remove") return RunRemove(a, env, daemon->client);
  return RunSetClass(a, env, daemon->client);
}

}  // namespace

int FsvoladmMain(const std::vector<std::string>& args, const CliEnv& env) {
  return RunToolBody(env, kTool, [&] { return FsvoladmBody(args, env); });
}

}  // namespace tierfs::cli
