#include "cli/mkdstfs/mkdstfs_plan.h"

#include <cctype>

#include "fs/volume/volume_label.h"

namespace tierfs::cli {
namespace {

bool IsMediaType(std::string_view s) { return s == "ssd" || s == "hdd" || s == "mixed"; }

Status CheckName(std::string_view name, const char* what) { return CheckSimpleName(name, what); }

// The kind of storage a volume is, for choosing the metadata volume: an explicit
// media-type class wins over detection (the administrator knows better, e.g. a
// RAID controller that hides SSDs behind a rotational flag).
std::string Kind(const VolumeProbe& p) {
  return IsMediaType(p.spec.placement_class) ? p.spec.placement_class : p.media_type;
}

}  // namespace

Status CheckClassName(std::string_view name) { return CheckName(name, "class name"); }
Status CheckFsName(std::string_view name) { return CheckName(name, "file system name"); }

Result<VolumeSpec> ParseVolumeSpec(std::string_view operand) {
  VolumeSpec spec;
  size_t colon = operand.rfind(':');
  if (colon != std::string_view::npos && operand.find('/', colon) == std::string_view::npos) {
    spec.dir = operand.substr(0, colon);
    spec.placement_class = operand.substr(colon + 1);
    if (!spec.placement_class.empty()) {
      Status st = CheckClassName(spec.placement_class);
      if (!st.ok()) return Status::Invalid(std::string(operand) + ": " + st.message());
    }
  } else {
    spec.dir = operand;
  }
  if (spec.dir.empty()) return Status::Invalid("\"" + std::string(operand) + "\": empty directory");
  return spec;
}

Result<meta::Volume> PlanVolume(const VolumeProbe& p) {
  if (p.media_type.empty() && p.spec.placement_class.empty()) {
    return Status::Invalid("cannot detect the media type of " + p.spec.dir +
                           (p.detect_error.empty() ? "" : " (" + p.detect_error + ")") +
                           "; give its class as " + p.spec.dir + ":CLASS, e.g. " + p.spec.dir +
                           ":ssd or " + p.spec.dir + ":hdd");
  }
  meta::Volume v;
  v.path = p.spec.dir;
  if (!p.media_type.empty()) {
    v.media_type = p.media_type;
    v.media_type_source = "detected";
  } else {
    v.media_type = IsMediaType(p.spec.placement_class) ? p.spec.placement_class : "unknown";
    v.media_type_source = "configured";
  }
  v.placement_class = p.spec.placement_class.empty() ? p.media_type : p.spec.placement_class;
  v.role = "dataonly";
  v.state = "online";
  return v;
}

std::vector<std::string> DefaultCreateClasses(const std::vector<meta::Volume>& volumes) {
  std::vector<std::string> classes;
  if (volumes.empty()) return classes;
  for (const meta::Volume& v : volumes) {
    if (v.placement_class == "hdd") {
      classes.push_back("hdd");
      break;
    }
  }
  const std::string& metadata_class = volumes.front().placement_class;
  if (metadata_class != "hdd") classes.push_back(metadata_class);
  return classes;
}

Result<MkdstfsPlan> PlanVolumes(const std::vector<VolumeProbe>& probes, bool force) {
  if (probes.empty()) return Status::Invalid("at least one DIR is needed");
  MkdstfsPlan plan;
  for (size_t i = 0; i < probes.size(); ++i) {
    const VolumeProbe& p = probes[i];
    for (size_t j = 0; j < i; ++j) {
      if (!p.identity.empty() && p.identity == probes[j].identity) {
        return Status::Invalid(p.spec.dir + " is given twice (also as " + probes[j].spec.dir + ")");
      }
    }
    if (Result<meta::Volume> planned = PlanVolume(p); !planned.ok()) return planned.status();
    if (!p.media_type.empty() && IsMediaType(p.spec.placement_class) &&
        p.spec.placement_class != p.media_type) {
      plan.warnings.push_back(p.spec.dir + ": class " + p.spec.placement_class +
                              " given, but its media type is detected as " + p.media_type);
    }
    for (size_t j = 0; j < i; ++j) {
      if (p.device != 0 && p.device == probes[j].device) {
        plan.warnings.push_back(p.spec.dir + " and " + probes[j].spec.dir +
                                " are on the same device: moving files between them gains nothing");
      }
    }
  }

  size_t meta_index = probes.size();
  for (const char* wanted : {"ssd", "mixed"}) {
    for (size_t i = 0; i < probes.size() && meta_index == probes.size(); ++i) {
      if (Kind(probes[i]) == wanted) meta_index = i;
    }
  }
  if (meta_index == probes.size()) {
    if (!force) {
      return Status::Invalid(
          "no ssd or mixed volume: the metadata volume should be on solid-state storage. Mark "
          "one as DIR:ssd if it is, or use -f to put the metadata on " +
          probes[0].spec.dir);
    }
    meta_index = 0;
    plan.warnings.push_back("no ssd or mixed volume: the metadata goes on " + probes[0].spec.dir +
                            " (-f)");
  }

  std::vector<size_t> order = {meta_index};
  for (size_t i = 0; i < probes.size(); ++i) {
    if (i != meta_index) order.push_back(i);
  }
  for (size_t k = 0; k < order.size(); ++k) {
    const VolumeProbe& p = probes[order[k]];
    Result<meta::Volume> planned = PlanVolume(p);
    if (!planned.ok()) return planned.status();
    meta::Volume v = std::move(*planned);
    v.id = static_cast<uint32_t>(k + 1);
    v.name = "vol" + std::to_string(k + 1);
    if (k == 0 && Kind(p) == "ssd" && p.spec.placement_class.empty()) {
      v.placement_class = "ssdmetadata";
    }
    v.role = k == 0 ? "metadataok" : "dataonly";
    plan.volumes.push_back(std::move(v));
  }
  // "All files on hdd, the SSD metadata volume only when hdd is full."
  plan.default_create_classes = DefaultCreateClasses(plan.volumes);
  return plan;
}

}  // namespace tierfs::cli
