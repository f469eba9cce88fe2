#include "fs/control/tier_summary.h"

#include <algorithm>
#include <map>
#include <set>

#include "fs/control/request_fields.h"
#include "fs/tiering/scan_records.h"
#include "policy/temperature.h"

namespace tierfs {
namespace {

using nlohmann::json;

// The class a file's bytes count on when its volume is gone from the list.
constexpr char kNoClass[] = "-";

// Bytes, files and I/O of some set of files.
struct Tally {
  uint64_t files = 0;
  uint64_t bytes = 0;
  double size_for_temp = 0;  // sum of max(size, 4096), the IOTEMP denominator
  double rbytes = 0;         // read in the window
  double wbytes = 0;         // written in the window

  void Add(const policy::FileRecord& f) {
    files++;
    bytes += f.size;
    size_for_temp += static_cast<double>(std::max(f.size, policy::kMinTemperatureSize));
    if (!f.windows.empty()) {
      rbytes += f.windows.front().rbytes;
      wbytes += f.windows.front().wbytes;
    }
  }
  // IOTEMP of the set as one file: bytes moved per hour per byte held.
  double IoTemp(double hours) const {
    return policy::AverageIoTemp(rbytes + wbytes, hours, size_for_temp);
  }
  json Json(double hours) const {
    return {{"files", files},
            {"bytes", bytes},
            {"rbytes", static_cast<uint64_t>(rbytes)},
            {"wbytes", static_cast<uint64_t>(wbytes)},
            {"iotemp", IoTemp(hours)}};
  }
};

struct DirectoryTally {
  Tally all;
  std::map<std::string, Tally> by_class;
};

// A policy whose only use is to make GatherScanInputs count I/O over one
// window of `hours`: one data rule with one IOTEMP criterion of that PERIOD.
policy::PlacementPolicy WindowProbe(double hours) {
  policy::Criterion heat;
  heat.kind = policy::CriterionKind::kIoTemp;
  heat.type = policy::TempType::kNrwBytes;
  heat.period_hours = hours;
  policy::Statement statement;
  statement.criteria.push_back(heat);
  policy::Rule rule;
  rule.statements.push_back(statement);
  policy::PlacementPolicy probe;
  probe.rules.push_back(rule);
  return probe;
}

}  // namespace

std::string SummaryDirectory(const std::string& path, int64_t depth) {
  std::string out;
  size_t pos = 0;
  int64_t taken = 0;
  const size_t last_slash = path.rfind('/');
  while (taken < depth && pos < last_slash) {
    size_t next = path.find('/', pos + 1);
    if (next == std::string::npos || next > last_slash) next = last_slash;
    if (next > pos + 1) {  // skip empty components ("//")
      out += path.substr(pos, next - pos);
      taken++;
    }
    pos = next;
  }
  return out.empty() ? "/" : out;
}

Result<TierSummaryRequest> ParseTierSummaryRequest(const json& request) {
  TierSummaryRequest out;
  auto depth = RequestInt(request, "depth", 0, 1000, out.depth);
  if (!depth.ok()) return depth.status();
  auto hours = RequestDouble(request, "hours", 0, 8784, out.hours);
  if (!hours.ok()) return hours.status();
  if (!(*hours > 0)) return Status::Invalid("hours must be more than 0, got 0");
  out.depth = *depth;
  out.hours = *hours;
  return out;
}

Result<json> TierSummaryJson(FileSystem& fs, const json& request) {
  auto parsed = ParseTierSummaryRequest(request);
  if (!parsed.ok()) return parsed.status();
  const int64_t depth = parsed->depth;
  const double hours = parsed->hours;

  // What is counted in memory is heat too.
  TIERFS_RETURN_IF_ERROR(fs.FlushAll());
  const int64_t now_s = fs.clock().NowSeconds();
  auto inputs = GatherScanInputs(fs, WindowProbe(hours), ScanSelection{}, now_s);
  if (!inputs.ok()) return inputs.status();

  // Class order: as the volumes come (the metadata volume, usually ssd, first).
  const std::vector<meta::Volume>& volume_list = fs.volumes().volumes();
  std::vector<std::string> class_order;
  for (const meta::Volume& v : volume_list) {
    if (std::find(class_order.begin(), class_order.end(), v.placement_class) == class_order.end())
      class_order.push_back(v.placement_class);
  }

  std::map<std::string, DirectoryTally> directories;  // byte order of the paths
  std::map<uint32_t, Tally> by_volume;
  std::map<std::string, Tally> by_class;
  Tally total;
  for (const policy::FileRecord& f : inputs->files) {
    const meta::Volume* volume = fs.volumes().Find(f.volume_id);
    const std::string cls = volume != nullptr ? volume->placement_class : kNoClass;
    if (volume == nullptr &&
        std::find(class_order.begin(), class_order.end(), cls) == class_order.end()) {
      class_order.push_back(cls);
    }
    DirectoryTally& dir = directories[SummaryDirectory(f.path, depth)];
    dir.all.Add(f);
    dir.by_class[cls].Add(f);
    by_volume[f.volume_id].Add(f);
    by_class[cls].Add(f);
    total.Add(f);
  }

  json dirs = json::array();
  for (const auto& [path, tally] : directories) {
    json entry = tally.all.Json(hours);
    entry["path"] = path;
    json classes = json::object();
    for (const auto& [cls, t] : tally.by_class) {
      classes[cls] = {{"files", t.files}, {"bytes", t.bytes}};
    }
    entry["classes"] = std::move(classes);
    dirs.push_back(std::move(entry));
  }

  std::vector<policy::VolumeState> space = fs.volumes().Space(/*fresh=*/true);
  std::map<std::string, std::pair<uint64_t, uint64_t>> class_space;  // total, free
  std::set<std::string> store_classes;  // classes with an object volume
  json volumes = json::array();
  for (const meta::Volume& v : volume_list) {
    json entry = by_volume[v.id].Json(hours);
    entry.update({{"id", v.id},
                  {"name", v.name},
                  {"class", v.placement_class},
                  {"state", v.state != "online" ? v.state
                                                : std::string(VolumeHealthName(
                                                      fs.volumes().Health(v.id)))}});
    if (meta::IsObjectVolume(v)) {
      // A store's capacity is unknown: no size, used or free is shown for it,
      // nor for its class.
      store_classes.insert(v.placement_class);
      volumes.push_back(std::move(entry));
      continue;
    }
    entry.update({{"total_bytes", 0}, {"free_bytes", 0}, {"used_bytes", 0}});
    for (const policy::VolumeState& s : space) {
      if (s.id != v.id) continue;
      entry["total_bytes"] = s.total_bytes;
      entry["free_bytes"] = s.free_bytes;
      entry["used_bytes"] = s.total_bytes - std::min(s.total_bytes, s.free_bytes);
      class_space[v.placement_class].first += s.total_bytes;
      class_space[v.placement_class].second += s.free_bytes;
    }
    volumes.push_back(std::move(entry));
  }

  json classes = json::array();
  for (const std::string& cls : class_order) {
    json entry = by_class[cls].Json(hours);
    entry["class"] = cls;
    if (store_classes.count(cls) == 0) {
      const auto [capacity, free] = class_space[cls];
      entry.update({{"total_bytes", capacity},
                    {"free_bytes", free},
                    {"used_bytes", capacity - std::min(capacity, free)}});
    }
    classes.push_back(std::move(entry));
  }

  return json{{"now_s", now_s},       {"hours", hours},      {"depth", depth},
              {"directories", dirs},  {"classes", classes},   {"volumes", volumes},
              {"totals", total.Json(hours)}};
}

}  // namespace tierfs
