#include "cli/fsmap/fsmap.h"

#include <sys/stat.h>

#include <algorithm>
#include <map>

#include "cli/common/control_client.h"
#include "cli/common/exit_codes.h"
#include "cli/common/json_fields.h"
#include "cli/common/option_parser.h"
#include "cli/common/text_table.h"
#include "cli/common/tool_support.h"
#include "cli/common/units.h"

namespace tierfs::cli {
namespace {

using nlohmann::json;

constexpr char kTool[] = "fsmap";

struct FileQuery {
  std::string operand;
  uint64_t ino = 0;
  json answer;  // the daemon's entry, null until answered
};

}  // namespace

std::string FsmapUsage() {
  return "usage: fsmap [-H] [--json] FILE...\n"
         "Shows the volume and placement class that hold each FILE of a tierfs file system\n"
         "(for a file on an object volume, also its object's s3:// URL).\n"
         "  -H, --human-readable  sizes in K, M, G (powers of 1024; default: bytes)\n"
         "  --json                one JSON document (default: a table)\n"
         "  -h, --help            this text\n"
         "  --version             print the version and exit\n"
         "Exit status: 0 ok, 1 some file could not be mapped, 2 usage error,\n"
         "3 a file is not on tierfs or its daemon could not be reached.\n";
}

namespace {

// fsmap's command line: options, then the FILE operands.
struct FsmapArgs {
  bool help = false;
  bool version = false;
  bool human = false;    // -H: sizes in K, M, G
  bool as_json = false;  // --json
  std::vector<std::string> files;
};

Result<FsmapArgs> ParseFsmapArgs(const std::vector<std::string>& args) {
  FsmapArgs a;
  std::vector<OptionSpec> specs = {{"help", 'h', false, ""},
                                   {"human-readable", 'H', false, ""},
                                   {"json", 0, false, ""},
                                   {"version", 0, false, ""}};
  Result<std::vector<std::string>> operands =
      ParseOptions(args, specs, [&a](const OptionSpec& spec, const char*) {
        if (spec.short_name == 'h')
          a.help = true;
        else if (spec.short_name == 'H')
          a.human = true;
        else if (std::string(spec.long_name) == "version")
          a.version = true;
        else
          a.as_json = true;
        return Status::Ok();
      });
  if (!operands.ok()) return operands.status();
  a.files = std::move(*operands);
  return a;
}

int FsmapBody(const std::vector<std::string>& args, const CliEnv& env) {
  Result<FsmapArgs> parsed = ParseFsmapArgs(args);
  if (std::optional<int> ended = AnswerParseVersionHelp(parsed, env, kTool, FsmapUsage)) {
    return *ended;
  }
  const bool human = parsed->human, as_json = parsed->as_json;
  if (parsed->files.empty()) {
    PrintError(env, kTool, "expected FILE... (see fsmap --help)");
    return kExitUsage;
  }

  int exit_code = kExitOk;
  std::vector<FileQuery> files;
  // Operands grouped by mount point, keeping each mount's details.
  std::map<std::string, std::pair<TierfsMount, std::vector<size_t>>> by_mount;
  for (const std::string& operand : parsed->files) {
    int code = kExitOk;
    Result<LocatedPath> where = LocatePath(env, operand, &code);
    if (!where.ok()) {
      PrintError(env, kTool, where.status().message());
      exit_code = std::max(exit_code, code);
      continue;
    }
    struct stat st;
    if (stat(where->host_path.c_str(), &st) != 0) {
      int err = errno;
      PrintError(env, kTool, Status::FromErrno(err, operand).message());
      // ENOTCONN: the mount's daemon is gone.
      bool gone = err == ENOTCONN || err == ECONNABORTED;
      exit_code = std::max(exit_code, gone ? kExitUnreachable : kExitFailed);
      continue;
    }
    files.push_back(FileQuery{operand, static_cast<uint64_t>(st.st_ino), nullptr});
    auto& group = by_mount[where->mount.mount_point];
    group.first = where->mount;
    group.second.push_back(files.size() - 1);
  }

  for (auto& [mount_point, group] : by_mount) {
    json inos = json::array();
    for (size_t i : group.second) inos.push_back(files[i].ino);
    ControlClient client(group.first);
    std::optional<json> result =
        CallOrReport(env, kTool, client, json{{"op", "fsmap"}, {"inos", inos}}, &exit_code);
    if (!result) continue;
    std::map<uint64_t, const json*> by_ino;
    for (const json& f : JsonArray(*result, "files")) by_ino[JsonUint(f, "ino")] = &f;
    for (size_t i : group.second) {
      auto it = by_ino.find(files[i].ino);
      if (it == by_ino.end()) {
        PrintError(env, kTool,
                   files[i].operand + ": the daemon does not know inode " +
                       std::to_string(files[i].ino));
        exit_code = std::max(exit_code, kExitFailed);
        continue;
      }
      files[i].answer = *it->second;
    }
  }

  if (as_json) {
    json out = json::array();
    for (const FileQuery& f : files) {
      if (f.answer.is_null()) continue;
      json entry = f.answer;
      entry["file"] = f.operand;
      out.push_back(std::move(entry));
    }
    *env.out << JsonDump(json{{"files", out}}, 2) << "\n";
  } else {
    TextTable table({"VOLUME", "CLASS", "SIZE", "FILE"});
    table.AlignRight(2);
    for (const FileQuery& f : files) {
      if (f.answer.is_null()) continue;
      std::string volume = JsonString(f.answer, "volume");
      // A file on an object volume: its object's s3:// URL too.
      const std::string url = JsonString(f.answer, "url");
      if (!url.empty()) volume += " " + PrintableField(url);
      uint64_t size = JsonUint(f.answer, "size");
      table.AddRow({volume.empty() ? "-" : volume, JsonString(f.answer, "class", "-"),
                    human ? HumanBytes(size) : std::to_string(size), PrintableField(f.operand)});
    }
    if (table.rows() > 0) *env.out << table.Render();
  }
  return exit_code;
}

}  // namespace

int FsmapMain(const std::vector<std::string>& args, const CliEnv& env) {
  return RunToolBody(env, kTool, [&] { return FsmapBody(args, env); });
}

}  // namespace tierfs::cli
