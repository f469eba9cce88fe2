// The daemon's side of `tierfs check` and `tierfs backup` on a mounted file system:
// the "check" and "backup" control ops (fs/control/control_protocol.md), dispatched by
// ControlHandlers.
//
// Why the check of a mounted file system runs inside the daemon: the daemon opens
// the database with locking_mode=EXCLUSIVE, so no other process can read it while
// it is mounted (a second connection gets SQLITE_BUSY), and copying the file from
// outside would race with its writes. The daemon runs the check on its own
// connection, read-only (fs/check/fsck.h, live mode): SELECTs only, objects are stat()ed
// and never opened, every finding is verified again against the daemon's current
// view of the inode (in-memory size of open files), and the integrity check runs on
// an online backup copy in the daemon's $TMPDIR so the file system is not stalled.
// Repairs are never run live: they need the file system unmounted.
//
// Thread-safe: called on control-connection threads; FileSystem is thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "fs/control/control_server.h"
#include "fs/core/file_system.h"

namespace tierfs {

// {"op":"check"} -> the CheckReport as JSON (fs/check/fsck.h); progress lines
// {"phase":"database"|"objects"|"namespace","done":N,"total":N}. EBUSY for
// {"repair": true}: repairs run only on an unmounted file system.
Result<nlohmann::json> HandleCheckOp(FileSystem& fs, const nlohmann::json& request,
                                     ControlReply& reply);

// {"op":"backup","dest":"/abs/file"} (dest optional: DefaultBackupPath) ->
// {"path":..., "bytes":N, "pages":N, "seconds":S}; progress lines
// {"phase":"backup","done":pages,"total":pages}. EINVAL for a refused destination.
Result<nlohmann::json> HandleBackupOp(FileSystem& fs, const nlohmann::json& request,
                                      ControlReply& reply);

}  // namespace tierfs
