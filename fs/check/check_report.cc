// CheckReport and its JSON codec (fs/check/fsck.h): what `tierfs check` prints,
// and what the daemon's live check sends back over the control socket.
#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "fs/check/fsck.h"

namespace tierfs {
namespace {

using nlohmann::json;

FindingSeverity SeverityFromName(const std::string& name) {
  if (name == "error") return FindingSeverity::kError;
  if (name == "leftover") return FindingSeverity::kLeftover;
  if (name == "note") return FindingSeverity::kNote;
  return FindingSeverity::kDamage;
}

}  // namespace

const char* FindingSeverityName(FindingSeverity severity) {
  switch (severity) {
    case FindingSeverity::kDamage: return "damage";
    case FindingSeverity::kLeftover: return "leftover";
    case FindingSeverity::kNote: return "note";
    case FindingSeverity::kError: return "error";
  }
  return "damage";
}

size_t CheckReport::UnrepairedDamage() const {
  return static_cast<size_t>(std::count_if(findings.begin(), findings.end(), [](const auto& f) {
    return f.severity == FindingSeverity::kDamage && !f.repaired;
  }));
}

size_t CheckReport::Errors() const {
  return static_cast<size_t>(std::count_if(findings.begin(), findings.end(), [](const auto& f) {
    return f.severity == FindingSeverity::kError;
  }));
}

size_t CheckReport::Repaired() const {
  return static_cast<size_t>(
      std::count_if(findings.begin(), findings.end(), [](const auto& f) { return f.repaired; }));
}

json CheckReport::ToJson() const {
  json out = json::array();
  for (const CheckFinding& f : findings) {
    out.push_back({{"kind", f.kind},
                   {"severity", FindingSeverityName(f.severity)},
                   {"message", f.message},
                   {"repaired", f.repaired},
                   {"repair", f.repair},
                   {"data_loss", f.data_loss}});
  }
  return json{{"findings", out}, {"volumes", volumes}, {"files", files},
              {"objects", objects}, {"live", live}, {"repair", repair}};
}

Result<CheckReport> CheckReport::FromJson(const json& j) {
  if (!j.is_object() || !j.contains("findings") || !j["findings"].is_array()) {
    return Status::Invalid("check report without findings");
  }
  try {
    CheckReport r;
    for (const json& f : j["findings"]) {
      CheckFinding finding;
      finding.kind = f.at("kind").get<std::string>();
      finding.severity = SeverityFromName(f.at("severity").get<std::string>());
      finding.message = f.at("message").get<std::string>();
      finding.repaired = f.value("repaired", false);
      finding.repair = f.value("repair", "");
      finding.data_loss = f.value("data_loss", false);
      r.findings.push_back(std::move(finding));
    }
    r.volumes = j.value("volumes", uint64_t{0});
    r.files = j.value("files", uint64_t{0});
    r.objects = j.value("objects", uint64_t{0});
    r.live = j.value("live", false);
    r.repair = j.value("repair", false);
    return r;
  } catch (const json::exception& e) {
    return Status::Invalid(std::string("malformed check report: ") + e.what());
  }
}

}  // namespace tierfs
