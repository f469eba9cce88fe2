// The "io_history" control op (fs/control/control_protocol.md): the recorded I/O
// history that `fsppadm advise` replays (policy/replay.h), read from the
// metadata database after the in-memory counters are flushed: every regular
// file with a name (path-name order) and its iostat buckets, the volumes'
// capacity and free space, and the completed relocations.
//
// Internal to fs/control/control_handlers.cc. Thread-safe: it only reads (the
// database iterations are not snapshots, see meta/metadata.h).
#pragma once

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "fs/core/file_system.h"

namespace tierfs {

// Builds the op's reply. `with_tags`: also read each file's tags attribute
// (policies with <TAG> selects need them; one lookup per file). Errors of
// the database (EIO...) as they come.
Result<nlohmann::json> IoHistoryJson(FileSystem& fs, bool with_tags);

}  // namespace tierfs
