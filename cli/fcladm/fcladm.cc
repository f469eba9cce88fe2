#include "cli/fcladm/fcladm.h"

#include <algorithm>

#include "cli/common/control_client.h"
#include "cli/common/exit_codes.h"
#include "cli/common/json_fields.h"
#include "cli/common/option_parser.h"
#include "cli/common/text_table.h"
#include "cli/common/tool_support.h"
#include "cli/common/units.h"
#include "cli/version.h"

namespace tierfs::cli {
namespace {

using nlohmann::json;

constexpr char kTool[] = "fcladm";

std::string StateLine(const json& r) {
  std::string line = "FCL " + JsonString(r, "state", "?") + ": " +
                     std::to_string(JsonUint(r, "records")) + " records";
  if (JsonUint(r, "records") > 0) {
    line += ", seq " + std::to_string(JsonInt(r, "first_seq")) + ".." +
            std::to_string(JsonInt(r, "last_seq"));
  }
  return line + "\n";
}

std::string RecordsTable(const json& r) {
  const json& records = JsonArray(r, "records");
  if (records.empty()) return "No records.\n";
  TextTable t({"SEQ", "TIME", "EVENT", "INO", "NAME", "DETAIL"});
  t.AlignRight(0);
  t.AlignRight(3);
  for (const json& rec : records) {
    std::string name = JsonString(rec, "name");
    std::string detail = JsonString(rec, "detail");
    t.AddRow({std::to_string(JsonInt(rec, "seq")), FormatLocalTime(JsonInt(rec, "time_ns")),
              JsonString(rec, "event", "-"), std::to_string(JsonUint(rec, "ino")),
              name.empty() ? "-" : PrintableField(name),
              detail.empty() ? "-" : PrintableField(detail)});
  }
  return t.Render();
}

// Records asked for per request: the daemon never builds one huge answer for a
// long log.
constexpr uint64_t kPrintBatch = 10000;

// `fcladm print`: asks for the records batch by batch (each from the sequence
// number after the last one received) and returns them as one answer.
Result<json> PrintInBatches(ControlClient& client, const FcladmArgs& a) {
  json all = json::array();
  int64_t from_seq = a.from_seq;
  for (;;) {
    const uint64_t want =
        a.limit == 0 ? kPrintBatch : std::min<uint64_t>(kPrintBatch, a.limit - all.size());
    json request = {{"op", "fcl"},          {"action", "print"}, {"from_seq", from_seq},
                    {"from_time_ns", a.from_time_ns}, {"limit", want}};
    Result<json> batch = client.Call(request);
    if (!batch.ok()) return batch.status();
    const json& records = JsonArray(*batch, "records");
    for (const json& r : records) all.push_back(r);
    if (records.size() < want || records.empty()) break;
    if (a.limit != 0 && all.size() >= a.limit) break;
    from_seq = JsonInt(records.back(), "seq") + 1;
  }
  return json{{"records", std::move(all)}};
}

}  // namespace

std::string FcladmUsage() {
  return "usage: fcladm on|off|state|sync [--json] MOUNT\n"
         "       fcladm print [-s SEQ] [-t TIME] [-n COUNT] [--json] MOUNT\n"
         "The File Change Log of a tierfs file system.\n"
         "  on, off       start or stop recording namespace changes\n"
         "  state         show whether the log is on and how many records it holds\n"
         "  sync          write the daemon's in-memory I/O counters and inodes to the database\n"
         "  print         list records: SEQ TIME EVENT INO NAME DETAIL\n"
         "  -s SEQ        from sequence number SEQ (default: the oldest record)\n"
         "  -t TIME       from TIME: epoch seconds or ISO 8601 local time\n"
         "                (2026-11-22T10:00:00; append Z or +HH:MM for UTC or an offset;\n"
         "                default: the oldest record)\n"
         "  -n COUNT      at most COUNT records (default: all)\n"
         "  --json        the daemon's answer as one JSON document (default: a table)\n"
         "  -h, --help    this text\n"
         "  --version     print the version and exit\n"
         "Exit status: 0 ok, 1 the daemon refused, 2 usage error, 3 daemon unreachable.\n";
}

Result<FcladmArgs> ParseFcladmArgs(const std::vector<std::string>& args) {
  FcladmArgs a;
  Result<ActionWord> word =
      ParseActionWord(args, "fcladm", {"on", "off", "state", "sync", "print"});
  if (!word.ok()) return word.status();
  a.action = word->action;
  a.help = word->kind == ActionWord::kHelp;
  a.version = word->kind == ActionWord::kVersion;
  if (word->kind != ActionWord::kAction) return a;
  const bool print = a.action == "print";
  std::vector<OptionSpec> specs = {
      {"help", 'h', false, ""}, {"json", 0, false, ""}, {"version", 0, false, ""}};
  if (print) {
    specs.push_back({nullptr, 's', true, "SEQ"});
    specs.push_back({nullptr, 't', true, "TIME"});
    specs.push_back({nullptr, 'n', true, "COUNT"});
  }
  std::vector<std::string> rest(args.begin() + 1, args.end());
  Result<std::vector<std::string>> operands =
      ParseOptions(rest, specs, [&a](const OptionSpec& spec, const char* value) -> Status {
        switch (spec.short_name) {
          case 'h':
            a.help = true;
            return Status::Ok();
          case 's': {
            Result<uint64_t> seq = ParseCount(value);
            if (!seq.ok()) return Status::Invalid("-s: " + seq.status().message());
            a.from_seq = static_cast<int64_t>(*seq);
            return Status::Ok();
          }
          case 't': {
            Result<int64_t> t = ParseTimeArg(value);
            if (!t.ok()) return Status::Invalid("-t: " + t.status().message());
            a.from_time_ns = *t;
            return Status::Ok();
          }
          case 'n': {
            Result<uint64_t> n = ParseCount(value);
            if (!n.ok()) return Status::Invalid("-n: " + n.status().message());
            a.limit = *n;
            return Status::Ok();
          }
          default:
            if (std::string(spec.long_name) == "version") {
              a.version = true;
            } else {
              a.json = true;
            }
            return Status::Ok();
        }
      });
  if (!operands.ok()) return Status::Invalid(a.action + ": " + operands.status().message());
  if (a.help || a.version) return a;
  if (operands->size() != 1) return Status::Invalid(a.action + ": expected one MOUNT");
  a.mount = (*operands)[0];
  return a;
}

namespace {

int FcladmBody(const std::vector<std::string>& args, const CliEnv& env) {
  Result<FcladmArgs> parsed = ParseFcladmArgs(args);
  if (std::optional<int> ended = AnswerParseVersionHelp(parsed, env, kTool, FcladmUsage)) {
    return *ended;
  }
  const FcladmArgs& a = *parsed;
  int code = kExitOk;
  std::optional<MountConnection> daemon = ConnectToMount(env, kTool, a.mount, &code);
  if (!daemon) return code;
  json request = {{"op", "fcl"}, {"action", a.action}};
  if (a.action == "print") {
    request["from_seq"] = a.from_seq;
    request["from_time_ns"] = a.from_time_ns;
    request["limit"] = a.limit;
  }
  Result<json> result =
      a.action == "print" ? PrintInBatches(daemon->client, a) : daemon->client.Call(request);
  if (!result.ok()) {
    PrintError(env, kTool, CallErrorMessage(daemon->client, result.status()));
    return daemon->client.ExitCodeFor(result.status());
  }
  if (a.json) {
    *env.out << JsonDump(*result, 2) << "\n";
  } else if (a.action == "print") {
    *env.out << RecordsTable(*result);
  } else {
    *env.out << StateLine(*result);
  }
  return kExitOk;
}

}  // namespace

int FcladmMain(const std::vector<std::string>& args, const CliEnv& env) {
  return RunToolBody(env, kTool, [&] { return FcladmBody(args, env); });
}

}  // namespace tierfs::cli
