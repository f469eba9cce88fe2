// The daemon only hands over the history (control op io_history,
// fs/control/control_protocol.md); the replay runs here, in policy/advisor.h, so a long
// replay costs the daemon nothing.
#include "cli/fsppadm/advise.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>

#include "cli/common/exit_codes.h"
#include "cli/fsppadm/policy_file.h"
#include "cli/common/json_fields.h"
#include "cli/fsppadm/policy_validation.h"
#include "cli/common/text_table.h"
#include "cli/common/units.h"
#include "common/owner_names.h"
#include "policy/advisor.h"
#include "policy/loader.h"

namespace tierfs::cli::fsppadm {
namespace {

using nlohmann::json;

constexpr char kAdviseUsage[] =
    "usage: fsppadm advise [--json] [--interval DURATION] [--class CLASS] [--periods F,...]\n"
    "                      [--thresholds F,...] [--limits P,...] [-n COUNT] [--show RANK]\n"
    "                      [-o FILE] MOUNT [POLICY.xml]\n"
    "Replays the I/O MOUNT has recorded (its heat buckets) against the assigned policy\n"
    "(or POLICY.xml) and against variants of it, enforcing at every interval as\n"
    "`fsppadm enforce` would, moving nothing. Lists, best first, the share of read and\n"
    "written bytes the CLASS files would have served over the recorded window and the\n"
    "bytes each variant would have moved, then prints the policy text of the best (or\n"
    "of --show RANK) for `fsppadm assign`. Needs at least 2 intervals of history\n"
    "(exit 1 otherwise).\n"
    "  --interval DURATION  time between simulated enforces: seconds, or with a suffix\n"
    "                s, m, h, d (\"90s\", \"15m\", \"6h\"); a multiple of the heat bucket\n"
    "                (default: the policy's shortest PERIOD, rounded up to whole buckets)\n"
    "  --class CLASS the fast class whose served share is measured and whose limit the\n"
    "                variants change (default ssd)\n"
    "  --periods F,...     factors applied to every IOTEMP/ACCESSTEMP PERIOD (default\n"
    "                0.5,1,2)\n"
    "  --thresholds F,...  factors applied to every IOTEMP/ACCESSTEMP MIN and MAX\n"
    "                (default 0.5,1,2)\n"
    "  --limits P,...      CLASS limits to try, percent of its capacity, besides the\n"
    "                policy's own (default 80,90,100)\n"
    "  -n COUNT      variants to list (default 10; 0 = all)\n"
    "  --show RANK   print the policy text of this rank instead of the best (1)\n"
    "  -o FILE       also write that policy text to FILE\n"
    "  --json        one JSON document (every variant with its policy text)\n";

std::string AdviseUsage() { return std::string(kAdviseUsage) + kCommonOptionsUsage; }

// A comma-separated list of decimal numbers, each > 0 and at most `max`
// ("0.5,1,2"). EINVAL naming the option and the bad item.
Status ParseNumberList(const std::string& option, const char* value, double max,
                       std::vector<double>* out) {
  out->clear();
  std::string text = value;
  size_t start = 0;
  for (;;) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos
                                                                     : comma - start);
    // ParseHours accepts exactly the plain decimals wanted here ("0.5", "2").
    Result<double> number = ParseHours(item);
    if (!number.ok() || !(*number > 0) || *number > max) {
      const std::string at_most =
          max < 1e9 ? " and at most " + std::to_string(static_cast<long long>(max)) : "";
      return Status::Invalid(option + ": expected numbers greater than 0" + at_most +
                             " separated by commas, got \"" + item + "\"");
    }
    out->push_back(*number);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return Status::Ok();
}

Status OnAdviseOption(AdviseOptions* o, const OptionSpec& spec, const char* value) {
  if (spec.short_name == 'n') return TakeOptionValue(spec, ParseCount(value), &o->rows);
  if (spec.short_name == 'o') {
    if (*value == '\0') return Status::Invalid("-o: empty file name");
    o->output = value;
    return Status::Ok();
  }
  const std::string name = spec.long_name;
  if (name == "json") {
    o->json = true;
  } else if (name == "interval") {
    return TakeOptionValue(spec, ParseDuration(value), &o->interval_s);
  } else if (name == "class") {
    if (*value == '\0') return Status::Invalid("--class: empty class name");
    o->fast_class = value;
  } else if (name == "periods") {
    return ParseNumberList("--periods", value, 1e12, &o->period_factors);
  } else if (name == "thresholds") {
    return ParseNumberList("--thresholds", value, 1e12, &o->threshold_factors);
  } else if (name == "limits") {
    return ParseNumberList("--limits", value, 100, &o->limits);
  } else {  // --show
    Result<uint64_t> rank = ParseCount(value);
    if (!rank.ok() || *rank < 1) {
      return Status::Invalid("--show: RANK must be 1 or more, got " + std::string(value));
    }
    o->show = *rank;
  }
  return Status::Ok();
}

std::string Percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", share * 100);
  return buf;
}

std::string Duration(int64_t s) {
  if (s % 86400 == 0) return std::to_string(s / 86400) + " d";
  if (s % 3600 == 0) return std::to_string(s / 3600) + " h";
  if (s % 60 == 0) return std::to_string(s / 60) + " min";
  return std::to_string(s) + " s";
}

bool UsesTags(const policy::PlacementPolicy& p) {
  for (const policy::Rule& rule : p.rules) {
    for (const policy::Select& select : rule.selects) {
      if (!select.tags.empty()) return true;
    }
  }
  return false;
}

// The daemon's io_history reply as the replay's input. EINVAL for a malformed reply.
Result<policy::IoHistory> HistoryFromJson(const json& reply, bool owner_names) {
  policy::IoHistory h;
  h.bucket_seconds = JsonInt(reply, "bucket_seconds");
  h.now_s = JsonInt(reply, "now_s");
  if (h.bucket_seconds <= 0) return Status::Invalid("the daemon reported no heat bucket length");
  for (const json& v : JsonArray(reply, "volumes")) {
    policy::VolumeState s;
    s.id = static_cast<uint32_t>(JsonUint(v, "id"));
    s.name = JsonString(v, "name");
    for (const json& c : JsonArray(v, "classes")) {
      if (c.is_string()) s.classes.push_back(c.get<std::string>());
    }
    s.total_bytes = JsonUint(v, "total_bytes");
    s.free_bytes = JsonUint(v, "free_bytes");
    s.reserve_bytes = JsonUint(v, "reserve_bytes");
    s.accepts_data = JsonBool(v, "accepts_data", true);
    h.volumes.push_back(std::move(s));
  }
  OwnerNames names;
  for (const json& f : JsonArray(reply, "files")) {
    policy::HistoryFile file;
    policy::FileRecord& r = file.record;
    r.ino = JsonUint(f, "ino");
    r.path = JsonString(f, "path");
    r.uid = static_cast<uint32_t>(JsonUint(f, "uid"));
    r.gid = static_cast<uint32_t>(JsonUint(f, "gid"));
    if (owner_names) {
      r.user = names.User(r.uid);
      r.group = names.Group(r.gid);
    }
    r.size = JsonUint(f, "size");
    r.atime_s = JsonInt(f, "atime_s");
    r.mtime_s = JsonInt(f, "mtime_s");
    r.volume_id = static_cast<uint32_t>(JsonUint(f, "volume"));
    for (const json& t : JsonArray(f, "tags")) {
      if (t.is_string()) r.tags.push_back(t.get<std::string>());
    }
    for (const json& b : JsonArray(f, "buckets")) {
      if (!b.is_array() || b.size() != 5) return Status::Invalid("malformed bucket in io_history");
      policy::HistoryBucket bucket;
      bucket.start_s = b[0].get<int64_t>();
      bucket.io = {b[1].get<double>(), b[2].get<double>(), b[3].get<double>(), b[4].get<double>()};
      file.buckets.push_back(bucket);
    }
    std::sort(file.buckets.begin(), file.buckets.end(),
              [](const policy::HistoryBucket& a, const policy::HistoryBucket& b) {
                return a.start_s < b.start_s;
              });
    h.files.push_back(std::move(file));
  }
  for (const json& m : JsonArray(reply, "relocations")) {
    h.relocations.push_back({JsonUint(m, "ino"), JsonInt(m, "time_s"),
                             static_cast<uint32_t>(JsonUint(m, "from_volume")),
                             static_cast<uint32_t>(JsonUint(m, "to_volume"))});
  }
  return h;
}

json VariantJson(const policy::VariantOutcome& v, size_t rank) {
  json periods = json::array();
  for (const policy::ReplayPeriod& p : v.replay.periods) {
    periods.push_back({{"start_s", p.start_s},
                       {"io_bytes", p.io_bytes},
                       {"served_bytes", p.served_bytes},
                       {"served_share", p.io_bytes > 0 ? p.served_bytes / p.io_bytes : 0.0},
                       {"bytes_moved", p.bytes_moved},
                       {"files_moved", p.files_moved},
                       {"swaps", p.swaps},
                       {"fast_used_bytes", p.fast_used_bytes}});
  }
  return {{"rank", rank},
          {"label", v.label},
          {"name", v.name},
          {"as_written", v.as_written},
          {"period_factor", v.spec.period_factor},
          {"threshold_factor", v.spec.threshold_factor},
          {"class_limit", v.spec.fast_limit ? json(*v.spec.fast_limit) : json(nullptr)},
          {"served_share", v.replay.served_share},
          {"io_bytes", v.replay.io_bytes},
          {"served_bytes", v.replay.served_bytes},
          {"bytes_moved", v.replay.bytes_moved},
          {"files_moved", v.replay.files_moved},
          {"files_deleted", v.replay.files_deleted},
          {"swaps", v.replay.swaps},
          {"periods", periods},
          {"xml", v.xml}};
}

}  // namespace

Result<AdviseOptions> ParseAdviseOptions(const std::vector<std::string>& args) {
  AdviseOptions o;
  Result<std::vector<std::string>> operands = ParseSubcommandOptions(
      args,
      {{"json", 0, false, ""},
       {"interval", 0, true, "DURATION"},
       {"class", 0, true, "CLASS"},
       {"periods", 0, true, "F,..."},
       {"thresholds", 0, true, "F,..."},
       {"limits", 0, true, "P,..."},
       {nullptr, 'n', true, "COUNT"},
       {"show", 0, true, "RANK"},
       {nullptr, 'o', true, "FILE"}},
      &o.flags,
      [&o](const OptionSpec& spec, const char* value) { return OnAdviseOption(&o, spec, value); });
  if (!operands.ok()) return operands.status();
  if (o.flags.help || o.flags.version) return o;
  TIERFS_RETURN_IF_ERROR(
      ExpectOperands(operands->size() == 1 || operands->size() == 2, "MOUNT [POLICY.xml]"));
  o.mount = (*operands)[0];
  if (operands->size() == 2) o.policy_file = (*operands)[1];
  return o;
}

int RunAdvise(const AdviseOptions& args, const CliEnv& env) {
  int exit_code = kExitOk;
  std::optional<MountConnection> target = ConnectToMount(env, kTool, args.mount, &exit_code);
  if (!target) return exit_code;
  const std::string& mount = target->where.mount.mount_point;

  // The policy: the file named, else the assigned one.
  std::string xml, source;
  bool assigned = false;
  if (!args.policy_file.empty()) {
    std::optional<std::string> text = LoadPolicyFile(env, args.policy_file, nullptr);
    if (!text) return kExitUsage;
    xml = std::move(*text);
    source = args.policy_file;
  } else {
    std::optional<json> reply = CallOrReport(env, *target, json{{"op", "get_policy"}}, &exit_code);
    if (!reply) return exit_code;
    if (!reply->contains("policy") || !(*reply)["policy"].is_object()) {
      PrintError(env, kTool,
                 "no policy is assigned to " + mount + "; name a POLICY.xml to advise on");
      return kExitUsage;
    }
    xml = JsonString((*reply)["policy"], "xml");
    source = "the assigned policy";
    assigned = true;
  }
  policy::LoadResult loaded = policy::LoadPolicy(xml);
  if (!loaded.ok()) {  // an assigned policy always loads; a file was checked above
    PrintError(env, kTool, source + " does not load");
    return kExitUsage;
  }

  std::optional<json> reply = CallOrReport(
      env, *target, json{{"op", "io_history"}, {"tags", UsesTags(*loaded.policy)}}, &exit_code);
  if (!reply) return exit_code;
  Result<policy::IoHistory> history =
      HistoryFromJson(*reply, loaded.policy->SelectsByOwnerName());
  if (!history.ok()) {
    PrintError(env, kTool, mount + ": " + history.status().message());
    return kExitFailed;
  }

  policy::AdviseOptions options;
  options.period_factors = args.period_factors;
  options.threshold_factors = args.threshold_factors;
  options.limits = args.limits;
  options.fast_class = args.fast_class;
  options.interval_s = args.interval_s;
  if (options.interval_s > 0 && options.interval_s % history->bucket_seconds != 0) {
    PrintError(env, kTool,
               "--interval: " + Duration(options.interval_s) +
                   " is not a multiple of the heat bucket of " + mount + " (" +
                   std::to_string(history->bucket_seconds) + " s)");
    return kExitUsage;
  }
  if (std::find_if(history->volumes.begin(), history->volumes.end(),
                   [&](const policy::VolumeState& v) { return v.HasClass(options.fast_class); }) ==
      history->volumes.end()) {
    PrintError(env, kTool,
               "--class: no volume of " + mount + " carries class \"" + options.fast_class + "\"");
    return kExitUsage;
  }
  Result<policy::Advice> advice = policy::Advise(xml, *history, options);
  if (!advice.ok()) {
    PrintError(env, kTool, mount + ": " + advice.status().message());
    return advice.status().code() == policy::kAdviseTooShort ? kExitFailed : kExitUsage;
  }
  const policy::Advice& a = *advice;
  if (a.ranked.empty()) {
    PrintError(env, kTool, mount + ": no variant could be replayed");
    for (const std::string& s : a.skipped) *env.err << "  skipped: " << s << "\n";
    return kExitFailed;
  }
  if (args.show > a.ranked.size()) {
    PrintError(env, kTool, "--show: there are only " + std::to_string(a.ranked.size()) +
                               " variants, got rank " + std::to_string(args.show));
    return kExitUsage;
  }
  const size_t shown = static_cast<size_t>(args.show - 1);
  const policy::VariantOutcome& chosen = a.ranked[shown];
  if (!args.output.empty()) {
    Status st = WriteTextFile(args.output, chosen.xml);
    if (!st.ok()) {
      PrintError(env, kTool, "-o: " + st.message());
      return kExitFailed;
    }
  }

  const int scored = a.window.periods - 1;
  if (args.json) {
    json variants = json::array();
    for (size_t i = 0; i < a.ranked.size(); ++i) {
      variants.push_back(VariantJson(a.ranked[i], i + 1));
    }
    json out = {{"mount_point", mount},
                {"policy", loaded.policy->name},
                {"policy_source", assigned ? "assigned" : args.policy_file},
                {"class", options.fast_class},
                {"heat_bucket_seconds", a.bucket_seconds},
                {"interval_seconds", a.window.interval_s},
                {"window_start_s", a.window.start_s},
                {"window_end_s", a.window.end_s()},
                {"periods", a.window.periods},
                {"scored_periods", scored},
                {"class_room_bytes", a.oracles.fast_room_bytes},
                {"oracle_share", a.oracles.oracle},
                {"previous_period_oracle_share", a.oracles.prev_oracle},
                {"variants", variants},
                {"skipped", a.skipped},
                {"shown_rank", shown + 1}};
    *env.out << JsonDump(out, 2) << "\n";
    return kExitOk;
  }

  std::ostream& out = *env.out;
  out << PrintableField(mount) << ": " << a.window.periods << " intervals of "
      << Duration(a.window.interval_s) << " replayed (" << scored << " scored, the first is "
      << "history only), " << FormatLocalTime(a.window.start_s * 1'000'000'000LL) << " to "
      << FormatLocalTime(a.window.end_s() * 1'000'000'000LL) << "; heat bucket "
      << a.bucket_seconds << " s\n";
  out << "Policy " << PrintableField(loaded.policy->name) << " ("
      << (assigned ? std::string("assigned") : PrintableField(args.policy_file)) << "); class "
      << PrintableField(options.fast_class) << " holds up to "
      << HumanBytes(a.oracles.fast_room_bytes) << " of files.\n";
  out << "An oracle placement of that size would have served " << Percent(a.oracles.oracle)
      << " knowing each interval's I/O, " << Percent(a.oracles.prev_oracle)
      << " knowing only the previous interval's.\n\n";
  TextTable table({"Rank", "Served", "Moved", "Files", "Swaps", "Variant"});
  for (size_t c = 0; c < 5; ++c) table.AlignRight(c);
  const size_t rows = args.rows == 0 ? a.ranked.size()
                                            : std::min<size_t>(a.ranked.size(), args.rows);
  for (size_t i = 0; i < a.ranked.size(); ++i) {
    const policy::VariantOutcome& v = a.ranked[i];
    // The rows asked for, and always the policy as written and the one shown.
    if (i >= rows && !v.as_written && i != shown) continue;
    table.AddRow({std::to_string(i + 1), Percent(v.replay.served_share),
                  HumanBytes(v.replay.bytes_moved), std::to_string(v.replay.files_moved),
                  std::to_string(v.replay.swaps),
                  v.label + (v.as_written ? (assigned ? " (assigned)" : " (given)") : "")});
  }
  out << table.Render();
  if (rows < a.ranked.size()) {
    out << "(" << a.ranked.size() << " variants; -n 0 lists all)\n";
  }
  for (const std::string& s : a.skipped) out << "skipped: " << PrintableField(s) << "\n";
  out << "\nPolicy text of rank " << shown + 1 << " (" << PrintableField(chosen.label) << "), "
      << (args.output.empty()
              ? "to assign it save it (-o FILE) and run: fsppadm assign " + mount + " FILE"
              : "written to " + args.output + "; assign it with: fsppadm assign " + mount +
                    " " + args.output)
      << "\n";
  out << chosen.xml;
  if (!chosen.xml.empty() && chosen.xml.back() != '\n') out << "\n";
  return kExitOk;
}

const Subcommand kAdviseCommand = {"advise", AdviseUsage,
                                   ParseToInvocation<AdviseOptions, ParseAdviseOptions, RunAdvise>};

}  // namespace tierfs::cli::fsppadm
