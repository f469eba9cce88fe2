#include "cli/fsppadm/tier_report.h"

#include <algorithm>
#include <cstdio>

#include "cli/fsppadm/scan_report.h"
#include "cli/common/json_fields.h"
#include "cli/common/text_table.h"
#include "cli/common/units.h"

namespace tierfs::cli {
namespace {

using nlohmann::json;

TierTally TallyFrom(const json& j) {
  return {JsonUint(j, "files"), JsonUint(j, "bytes"), JsonUint(j, "rbytes"),
          JsonUint(j, "wbytes"), JsonDouble(j, "iotemp")};
}

TierSpace SpaceFrom(const json& j, const char* name_key) {
  TierSpace s;
  s.name = JsonString(j, name_key);
  if (std::string(name_key) == "name") {
    s.cls = JsonString(j, "class");
    s.state = JsonString(j, "state");
  }
  s.tally = TallyFrom(j);
  s.space_known = JsonHasNumber(j, "total_bytes");
  s.total_bytes = JsonUint(j, "total_bytes");
  s.used_bytes = JsonUint(j, "used_bytes");
  s.free_bytes = JsonUint(j, "free_bytes");
  return s;
}

std::string Hours(double h) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", h);
  return buf;
}

// A capacity, used or free figure of `s`: "-" when not known.
std::string SpaceCell(const TierSpace& s, uint64_t bytes) {
  return s.space_known ? HumanBytes(bytes) : "-";
}

std::string SpaceTable(const std::vector<TierSpace>& rows, bool volumes) {
  std::vector<std::string> header = {volumes ? "Volume" : "Class"};
  if (volumes) header.insert(header.end(), {"Class", "State"});
  header.insert(header.end(),
                {"Files", "Bytes", "Capacity", "Used", "Free", "Read", "Written", "IOTEMP"});
  TextTable t(header);
  for (size_t c = volumes ? 3 : 1; c < header.size(); c++) t.AlignRight(c);
  for (const TierSpace& s : rows) {
    std::vector<std::string> row = {PrintableField(s.name)};
    if (volumes) row.insert(row.end(), {PrintableField(s.cls), PrintableField(s.state)});
    row.insert(row.end(), {std::to_string(s.tally.files), HumanBytes(s.tally.bytes),
                           SpaceCell(s, s.total_bytes), SpaceCell(s, s.used_bytes),
                           SpaceCell(s, s.free_bytes), HumanBytes(s.tally.rbytes),
                           HumanBytes(s.tally.wbytes), FormatTemperature(s.tally.iotemp)});
    t.AddRow(std::move(row));
  }
  return t.Render();
}

}  // namespace

TierReport TierReportFromJson(const json& answer, const std::string& mount_point) {
  TierReport r;
  r.mount_point = mount_point;
  r.now_s = JsonInt(answer, "now_s");
  r.hours = JsonDouble(answer, "hours");
  r.depth = JsonInt(answer, "depth");
  for (const json& d : JsonArray(answer, "directories")) {
    TierDirectory dir;
    dir.path = JsonString(d, "path");
    dir.all = TallyFrom(d);
    for (const auto& [cls, t] : JsonObject(d, "classes").items()) dir.by_class[cls] = TallyFrom(t);
    r.directories.push_back(std::move(dir));
  }
  for (const json& c : JsonArray(answer, "classes")) r.classes.push_back(SpaceFrom(c, "class"));
  for (const json& v : JsonArray(answer, "volumes")) r.volumes.push_back(SpaceFrom(v, "name"));
  r.totals = TallyFrom(JsonObject(answer, "totals"));
  return r;
}

std::vector<std::string> TierReportClassNames(const TierReport& report) {
  std::vector<std::string> names;
  auto add = [&names](const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  for (const TierSpace& c : report.classes) add(c.name);
  for (const TierDirectory& d : report.directories) {
    for (const auto& [cls, tally] : d.by_class) add(cls);
  }
  return names;
}

std::string TierReportText(const TierReport& report) {
  const std::vector<std::string> classes = TierReportClassNames(report);
  std::string out = PrintableField(report.mount_point) + ": " +
                    std::to_string(report.totals.files) + " files, " +
                    HumanBytes(report.totals.bytes) + ", at " +
                    FormatLocalTime(report.now_s * 1'000'000'000) + "; heat over the last " +
                    Hours(report.hours) + " h; directories to depth " +
                    std::to_string(report.depth) + "\n\n";

  std::vector<std::string> header = {"Files", "Bytes"};
  for (const std::string& cls : classes) header.push_back(PrintableField(cls));
  header.insert(header.end(), {"Read", "Written", "IOTEMP", "Directory"});
  TextTable dirs(header);
  for (size_t c = 0; c + 1 < header.size(); c++) dirs.AlignRight(c);
  for (const TierDirectory& d : report.directories) {
    std::vector<std::string> row = {std::to_string(d.all.files), HumanBytes(d.all.bytes)};
    for (const std::string& cls : classes) {
      auto it = d.by_class.find(cls);
      row.push_back(it == d.by_class.end() ? "-" : HumanBytes(it->second.bytes));
    }
    row.insert(row.end(), {HumanBytes(d.all.rbytes), HumanBytes(d.all.wbytes),
                           FormatTemperature(d.all.iotemp), PrintableField(d.path)});
    dirs.AddRow(std::move(row));
  }
  out += dirs.Render() + "\n" + SpaceTable(report.classes, false) + "\n" +
         SpaceTable(report.volumes, true);
  return out;
}

}  // namespace tierfs::cli
