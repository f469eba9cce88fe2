#include "cli/common/volume_add.h"

#include "cli/common/json_fields.h"
#include "cli/common/text_table.h"

namespace tierfs::cli {

using nlohmann::json;

Result<json> AddVolumeOnline(ControlClient& client, const VolumeProbe& probe,
                             std::ostream* verbose) {
  Result<meta::Volume> row = PlanVolume(probe);
  if (!row.ok()) return row.status();
  if (verbose != nullptr) {
    *verbose << "fsvoladm add " << client.mount().mount_point << " " << row->path << ":"
             << row->placement_class << "    # media " << row->media_type << " ("
             << row->media_type_source << ")\n"
             << std::flush;
  }
  return client.Call(json{{"op", "volume_add"},
                          {"path", row->path},
                          {"class", row->placement_class},
                          {"media_type", row->media_type},
                          {"media_type_source", row->media_type_source}});
}

std::string AddedVolumeLine(const json& answer) {
  const json& v = JsonObject(answer, "volume");
  return "added " + JsonString(v, "name", "?") + " " + PrintableField(JsonString(v, "path")) +
         " (class " + JsonString(v, "class", "?") + ", media " + JsonString(v, "media_type", "?") +
         ")";
}

}  // namespace tierfs::cli
