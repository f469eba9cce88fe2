#include "cli/common/volume_table.h"

#include "cli/common/json_fields.h"
#include "cli/common/text_table.h"
#include "cli/common/units.h"

namespace tierfs::cli {

using nlohmann::json;

std::string RoleName(const std::string& role) {
  if (role == "metadataok") return "metadata";
  if (role == "dataonly") return "data";
  return role;
}

std::string VolumesTable(const json& volumes_result) {
  TextTable t({"Volume", "Class", "Media", "Role", "State", "Size", "Used", "Free", "Files",
               "Path"});
  for (int c : {5, 6, 7, 8}) t.AlignRight(static_cast<size_t>(c));
  auto bytes = [](const json& v, const char* key) {
    return JsonHasNumber(v, key) ? HumanBytes(JsonUint(v, key)) : std::string("-");
  };
  for (const json& v : JsonArray(volumes_result, "volumes")) {
    std::string media = JsonString(v, "media_type", "-");
    if (JsonString(v, "media_type_source") == "configured") media += " (set)";
    t.AddRow({JsonString(v, "name", "-"), JsonString(v, "class", "-"), media,
              RoleName(JsonString(v, "role", "-")), JsonString(v, "state", "-"),
              bytes(v, "total_bytes"), bytes(v, "used_bytes"), bytes(v, "free_bytes"),
              JsonHasNumber(v, "files") ? std::to_string(JsonUint(v, "files")) : "-",
              PrintableField(JsonString(v, "path")) +
                  (JsonString(v, "endpoint").empty()
                       ? ""
                       : " at " + PrintableField(JsonString(v, "endpoint")))});
  }
  return t.Render();
}

}  // namespace tierfs::cli
