// Adding volumes to a mounted tierfs: the code `fsvoladm add` and `mkdstfs` on
// an existing file system share (docs/commands.md "mkdstfs" and "fsvoladm": on an
// existing file system, mkdstfs adds volumes). The caller probes each DIR[:CLASS]
// operand with ProbeVolumes (cli/mkdstfs/mkdstfs.h), which checks the directory and
// detects its media type; this plans the row with PlanVolume (the same class
// rules as a new file system) and asks the daemon to label the directory and add
// it (the "volume_add" control request, fs/tiering/volume_admin.h). Not
// thread-safe (one client).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "cli/common/control_client.h"
#include "cli/mkdstfs/mkdstfs_plan.h"
#include "common/status.h"

namespace tierfs::cli {

// Adds the probed directory to the file system `client` reaches, printing the
// step as a command line on `verbose` when it is not null. Returns the daemon's
// answer: {"volume": {id, name, path, class, media_type, media_type_source,
// role}, "warnings": [...]}. Errors: PlanVolume's EINVAL (no media type and no
// class), else the daemon's (see VolumeAdmin::Add) or a transport error
// (client.unreachable()).
Result<nlohmann::json> AddVolumeOnline(ControlClient& client, const VolumeProbe& probe,
                                       std::ostream* verbose);

// "added vol3 /srv/hdd2 (class hdd, media hdd)": one line, no newline.
std::string AddedVolumeLine(const nlohmann::json& answer);

}  // namespace tierfs::cli
