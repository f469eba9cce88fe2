#include "cli/fsppadm/scan_report.h"

#include <map>

#include <cmath>
#include <cstdio>
#include <optional>
#include <vector>

#include "cli/common/json_fields.h"
#include "cli/common/text_table.h"
#include "cli/common/units.h"

namespace tierfs::cli {
namespace {

using nlohmann::json;

std::string OrDash(const std::string& s) { return s.empty() ? "-" : s; }

bool IsEnforce(const json& result) { return JsonString(result, "mode") == "enforce"; }

std::string RowPath(const json& row, const ScanReportOptions& options) {
  std::string path = JsonString(row, "path");
  if (options.mount_point.empty() || path.empty()) return path;
  if (path == "/") return options.mount_point;
  return options.mount_point == "/" ? path : options.mount_point + path;
}

std::string SweepPath(const std::string& path, const ScanReportOptions& options) {
  if (options.mount_point.empty()) return path;
  if (path.empty() || path == "/") return options.mount_point;
  return options.mount_point == "/" ? path : options.mount_point + path;
}

// The new class and volume of a row: the destination for a move, "-" for a
// delete, the current place for a file that stays.
void Destination(const json& row, std::string* to_class, std::string* to_volume) {
  std::string action = JsonString(row, "action");
  *to_class = JsonString(row, "to_class");
  *to_volume = JsonString(row, "to_volume");
  if (action == "delete") {
    *to_class = "-";
    *to_volume = "-";
    return;
  }
  if (to_class->empty()) {  // stays where it is
    *to_class = JsonString(row, "from_class");
    *to_volume = JsonString(row, "from_volume");
  }
  // A move without a volume (no space, not planned yet): the volume stays empty ("-").
}

std::string Outcome(const json& row) {
  std::string outcome = JsonString(row, "outcome");
  return outcome.empty() ? JsonString(row, "action") : outcome;
}

// "daemon" or "daemon+kernel:syscall": who counted the scan's heat.
std::string HeatCountedBy(const json& heat) {
  std::string out;
  for (const json& who : JsonArray(heat, "counted_by")) {
    if (!who.is_string()) continue;
    if (!out.empty()) out += "+";
    out += who.get<std::string>();
  }
  const std::string hook = JsonString(heat, "kernel_hook");
  return hook.empty() ? out : out + ":" + hook;
}

// "counted (by the daemon; passthrough I/O by the kernel, syscall hook, 0 calls
// uncounted)": the Heat line of a scan's text report.
std::string HeatText(const json& heat) {
  std::string out = OrDash(JsonString(heat, "method")) + " (by the daemon";
  const std::string hook = JsonString(heat, "kernel_hook");
  if (!hook.empty()) {
    out += "; passthrough I/O by the kernel, " + PrintableField(hook) + " hook, " +
           std::to_string(JsonUint(heat, "uncounted_calls")) + " calls uncounted";
  }
  return out + ")";
}

// A temperature means something only with its kind (the statement used none otherwise).
bool HasTemperature(const json& row) {
  return JsonHasNumber(row, "temperature") && !JsonString(row, "temperature_kind").empty();
}

// query rows also carry every temperature the governing rule measures
// ("temperatures"); a row whose deciding statement measured none shows those.
const json& RuleTemperatures(const json& row) {
  static const json kNone = json::array();
  if (HasTemperature(row)) return kNone;
  return JsonArray(row, "temperatures");
}

std::string Joined(const json& temperatures, bool value, bool parsable) {
  std::string out;
  for (const json& t : temperatures) {
    if (!out.empty()) out += ",";
    if (!value) {
      out += JsonString(t, "kind") + " (" + JsonString(t, "statement") + ")";
    } else if (parsable) {
      out += JsonHasNumber(t, "value") ? JsonDump(t["value"]) : "";
    } else {
      out += FormatTemperature(JsonDouble(t, "value"));
    }
  }
  return out;
}

std::string Temperature(const json& row) {
  if (HasTemperature(row)) return FormatTemperature(JsonDouble(row, "temperature"));
  return Joined(RuleTemperatures(row), true, false);
}

std::string TemperatureKind(const json& row) {
  if (HasTemperature(row)) return JsonString(row, "temperature_kind");
  return Joined(RuleTemperatures(row), false, false);
}

// Files and bytes a scan moved (enforce) or plans to move (analyze, query: the
// rows whose outcome is "planned", deletions apart).
void MovedTotals(const json& result, uint64_t* files, uint64_t* bytes) {
  const json& summary = JsonObject(result, "summary");
  *files = JsonUint(summary, "files_moved");
  *bytes = JsonUint(summary, "bytes_moved");
  if (IsEnforce(result)) return;
  uint64_t planned_files = 0, planned_bytes = 0;
  for (const json& row : JsonArray(result, "rows")) {
    if (JsonString(row, "outcome") != "planned" || JsonString(row, "action") == "delete") continue;
    ++planned_files;
    planned_bytes += JsonUint(row, "bytes");
  }
  if (planned_files > *files) {
    *files = planned_files;
    *bytes = planned_bytes;
  }
}

// Files a scan deleted (enforce: the daemon's count, nullopt from a daemon that
// does not send one) or plans to delete (analyze, query).
std::optional<uint64_t> DeletedTotal(const json& result) {
  const json& summary = JsonObject(result, "summary");
  if (IsEnforce(result)) {
    if (!JsonHasNumber(summary, "files_deleted")) return std::nullopt;
    return JsonUint(summary, "files_deleted");
  }
  uint64_t planned = 0;
  for (const json& row : JsonArray(result, "rows")) {
    planned += JsonString(row, "outcome") == "planned" && JsonString(row, "action") == "delete";
  }
  return planned;
}

// obj[key] in KiB, or "-" when absent (a class on an object store has no size).
std::string KiB(const json& obj, const char* key) {
  return JsonHasNumber(obj, key) ? std::to_string(JsonUint(obj, key) / 1024) : "-";
}

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", s);
  return buf;
}

std::string SecondsOfNs(const json& row, const char* key) {
  return JsonHasNumber(row, key) ? std::to_string(JsonInt(row, key) / 1'000'000'000) : "";
}

}  // namespace

std::string FormatTemperature(double value) {
  if (value == 0 || !std::isfinite(value)) return value == 0 ? "0" : "-";
  char buf[32];
  if (std::fabs(value) >= 0.01) {
    std::snprintf(buf, sizeof buf, "%.2f", value);
  } else {
    std::snprintf(buf, sizeof buf, "%.2e", value);
  }
  return buf;
}

std::string FormatScanRows(const json& result, const ScanReportOptions& options) {
  const json& rows = JsonArray(result, "rows");
  if (options.parsable) {
    std::string out;
    for (const json& row : rows) {
      std::string to_class, to_volume;
      Destination(row, &to_class, &to_volume);
      std::vector<std::string> f = {"file",
                                    JsonString(row, "from_class"),
                                    JsonString(row, "from_volume"),
                                    to_class,
                                    to_volume,
                                    JsonString(row, "rule"),
                                    JsonString(row, "statement"),
                                    HasTemperature(row)
                                        ? JsonDump(row["temperature"])
                                        : Joined(RuleTemperatures(row), true, true),
                                    TemperatureKind(row),
                                    std::to_string(JsonUint(row, "bytes")),
                                    Outcome(row)};
      if (options.times) {
        f.push_back(SecondsOfNs(row, "atime_ns"));
        f.push_back(SecondsOfNs(row, "mtime_ns"));
      }
      f.push_back(RowPath(row, options));
      out += TsvLine(f);
    }
    return out;
  }
  if (rows.empty()) return "No files selected.\n";
  std::vector<std::string> header = {"Current Class", "Current Volume", "New Class", "New Volume",
                                     "Rule",          "Statement",      "Temp",      "Temp Type",
                                     "Size",          "Outcome"};
  if (options.times) {
    header.push_back("Access Time");
    header.push_back("Modify Time");
  }
  header.push_back("File");
  TextTable table(header);
  table.AlignRight(6);  // Temp
  table.AlignRight(8);  // Size
  for (const json& row : rows) {
    std::string to_class, to_volume;
    Destination(row, &to_class, &to_volume);
    std::vector<std::string> cells = {OrDash(JsonString(row, "from_class")),
                                      OrDash(JsonString(row, "from_volume")),
                                      OrDash(to_class),
                                      OrDash(to_volume),
                                      OrDash(PrintableField(JsonString(row, "rule"))),
                                      OrDash(JsonString(row, "statement")),
                                      OrDash(Temperature(row)),
                                      OrDash(TemperatureKind(row)),
                                      std::to_string(JsonUint(row, "bytes")),
                                      OrDash(PrintableField(Outcome(row)))};
    if (options.times) {
      cells.push_back(FormatLocalTime(JsonInt(row, "atime_ns")));
      cells.push_back(FormatLocalTime(JsonInt(row, "mtime_ns")));
    }
    cells.push_back(PrintableField(RowPath(row, options)));
    table.AddRow(std::move(cells));
  }
  // Object volumes the rows name, with their s3:// URL.
  std::map<std::string, std::string> stores;
  for (const json& row : rows) {
    for (auto [volume, url] : {std::pair{"from_volume", "from_url"}, {"to_volume", "to_url"}}) {
      if (!JsonString(row, url).empty()) stores[JsonString(row, volume)] = JsonString(row, url);
    }
  }
  std::string legend;
  for (const auto& [volume, url] : stores) {
    legend += "Object volume " + volume + ": " + PrintableField(url) + "\n";
  }
  return table.Render() + legend;
}

std::string FormatScanSummary(const json& result, const ScanReportOptions& options) {
  const json& summary = JsonObject(result, "summary");
  const json& skipped = JsonObject(summary, "files_skipped");
  const bool enforce = IsEnforce(result);
  std::vector<std::string> sweep;
  for (const json& p : JsonArray(summary, "sweep_paths")) {
    if (p.is_string()) sweep.push_back(SweepPath(p.get<std::string>(), options));
  }
  if (sweep.empty()) sweep.push_back(SweepPath("/", options));

  std::string out;
  if (options.parsable) {
    out += TsvLine({"summary", "policy", JsonString(result, "policy")});
    out += TsvLine({"summary", "mode", JsonString(result, "mode")});
    for (const std::string& p : sweep) out += TsvLine({"summary", "sweep_path", p});
    out +=
        TsvLine({"summary", "files_scanned", std::to_string(JsonUint(summary, "files_scanned"))});
    uint64_t files = 0, bytes = 0;
    MovedTotals(result, &files, &bytes);
    out += TsvLine({"summary", enforce ? "files_moved" : "files_to_move", std::to_string(files)});
    out += TsvLine({"summary", enforce ? "bytes_moved" : "bytes_to_move", std::to_string(bytes)});
    if (std::optional<uint64_t> deleted = DeletedTotal(result)) {
      out += TsvLine(
          {"summary", enforce ? "files_deleted" : "files_to_delete", std::to_string(*deleted)});
    }
    for (auto it = skipped.begin(); it != skipped.end(); ++it) {
      out += TsvLine(
          {"summary", "skipped_" + it.key(), std::to_string(JsonUint(skipped, it.key().c_str()))});
    }
    out += TsvLine({"summary", "seconds",
                    JsonHasNumber(result, "seconds") ? JsonDump(result["seconds"]) : "0"});
    for (const json& c : JsonArray(result, "classes")) {
      out += TsvLine({"class", JsonString(c, "class"), std::to_string(JsonUint(c, "size_bytes")),
                      std::to_string(JsonUint(c, "free_before")),
                      std::to_string(JsonUint(c, "free_after"))});
    }
    if (result.contains("heat")) {
      const json& heat = result["heat"];
      out += TsvLine({"heat", JsonString(heat, "method"), HeatCountedBy(heat),
                      std::to_string(JsonUint(heat, "uncounted_calls"))});
    }
    for (const json& n : JsonArray(result, "notes")) {
      if (n.is_string()) out += TsvLine({"note", n.get<std::string>()});
    }
    if (result.contains("online_queued")) {
      out += TsvLine({"summary", "online_queued",
                      std::to_string(JsonArray(result, "online_queued").size())});
    }
    return out;
  }

  auto line = [&out](const std::string& label, const std::string& value) {
    std::string padded = label;
    padded.resize(15, ' ');
    out += padded + ": " + value + "\n";
  };
  std::string policy = JsonString(result, "policy");
  std::string mode = JsonString(result, "mode");
  line("Policy", OrDash(policy) + (mode.empty() ? "" : " (" + mode + ")"));
  if (JsonHasNumber(result, "started_ns")) {
    line("Started", FormatLocalTime(JsonInt(result, "started_ns")));
  }
  for (const std::string& p : sweep) line("Sweep path", PrintableField(p));
  line("Files scanned", std::to_string(JsonUint(summary, "files_scanned")));
  uint64_t files = 0, bytes = 0;
  MovedTotals(result, &files, &bytes);
  line(enforce ? "Files moved" : "Files to move", std::to_string(files));
  line(enforce ? "Bytes moved" : "Bytes to move",
       std::to_string(bytes) + (bytes >= 1024 ? " (" + HumanBytes(bytes) + ")" : ""));
  if (std::optional<uint64_t> deleted = DeletedTotal(result)) {
    line(enforce ? "Files deleted" : "To delete", std::to_string(*deleted));
  }
  std::string skipped_text;
  for (auto it = skipped.begin(); it != skipped.end(); ++it) {
    if (!skipped_text.empty()) skipped_text += ", ";
    skipped_text += it.key() + " " + std::to_string(JsonUint(skipped, it.key().c_str()));
  }
  line("Files skipped", skipped_text.empty() ? "none" : skipped_text);
  line("Time", Seconds(JsonDouble(result, "seconds")) + " s");
  if (result.contains("heat")) line("Heat", HeatText(result["heat"]));
  if (result.contains("online_queued")) {
    // Online promotion's queue (docs/policies.md "Online promotion"): moves
    // the daemon makes by itself, hottest first.
    const json& queued = JsonArray(result, "online_queued");
    std::string text = std::to_string(queued.size()) + " files";
    size_t shown = 0;
    for (const json& q : queued) {
      if (++shown > 5) {
        text += ", ...";
        break;
      }
      const std::string path = JsonString(q, "path");
      text += (shown == 1 ? ": " : ", ") +
              (path.empty() ? "ino " + std::to_string(JsonUint(q, "ino"))
                            : PrintableField(RowPath(q, options)));
    }
    line("Online queue", text);
  }
  for (const json& n : JsonArray(result, "notes")) {
    if (n.is_string()) out += "Note: " + PrintableField(n.get<std::string>()) + "\n";
  }
  const json& classes = JsonArray(result, "classes");
  if (!classes.empty()) {
    TextTable table({"Class", "Size (KB)", "Free Before (KB)", "Free After (KB)"});
    table.AlignRight(1);
    table.AlignRight(2);
    table.AlignRight(3);
    for (const json& c : classes) {
      table.AddRow({OrDash(JsonString(c, "class")), KiB(c, "size_bytes"), KiB(c, "free_before"),
                    KiB(c, "free_after")});
    }
    out += "\n" + table.Render();
  }
  return out;
}

std::string FormatScanReport(const json& result, const ScanReportOptions& options) {
  std::string rows = FormatScanRows(result, options);
  std::string summary = FormatScanSummary(result, options);
  if (options.parsable) return rows + summary;
  return rows + "\n" + summary;
}

bool ScanHadErrors(const json& result) {
  if (JsonUint(JsonObject(JsonObject(result, "summary"), "files_skipped"), "error") > 0)
    return true;
  for (const json& row : JsonArray(result, "rows")) {
    if (JsonString(row, "outcome").rfind("error", 0) == 0) return true;
  }
  return false;
}

}  // namespace tierfs::cli
