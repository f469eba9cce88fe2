// VolumesTable: the one text rendering of the daemon's volume list (the
// "volumes" control request), shared by `fsppadm status` and `fsvoladm list`.
// Pure; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace tierfs::cli {

// A table with one row per volume: Volume, Class, Media, Role, State, Size, Used,
// Free, Files, Path. Sizes in powers of 1024 (HumanBytes), "-" where the daemon
// gave no number (an offline volume). `volumes_result` is the answer of
// {"op":"volumes"}: {"volumes":[...]}. Role shows "metadata" for a volume that
// may hold metadata (metadataok), "data" for a dataonly one.
std::string VolumesTable(const nlohmann::json& volumes_result);

// "metadata" for role "metadataok", "data" for "dataonly", else the role as is.
std::string RoleName(const std::string& role);

}  // namespace tierfs::cli
