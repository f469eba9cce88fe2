// What `tierfs check` and `tierfs backup` take as their operand: a mount point
// (or any path in a tierfs mount) or the metadata volume's directory, located as
// an unmounted file system (the daemon lock held) or a mounted one (reached
// through its daemon). Shared by cli/tierfs/check_command.cc and
// backup_command.cc. Not thread-safe (one run per process).
#pragma once

#include <optional>
#include <string>

#include "cli/common/cli_env.h"
#include "cli/common/control_client.h"
#include "common/status.h"
#include "fs/volume/daemon_lock.h"

namespace tierfs::cli {

// What an operand names.
struct Target {
  std::string shown;         // for messages: the metadata volume or the mount point
  std::string metadata_dir;  // absolute
  std::string mount_point;   // "" when unknown (unmounted, or reached by its socket)
  std::optional<DaemonLock> lock;  // set: unmounted, we hold the lock
};

// Resolves `operand`. For a metadata volume directory, takes the daemon lock in
// `mode`; if a daemon holds it, the target is the mounted file system (lock
// unset). On error returns the Status (naming the operand) and sets *exit_code:
// kCheckUsage (2) for an operand that does not resolve, kCheckError (8) when the
// lock cannot be taken, kExitUnreachable (3) when the path is in no tierfs.
Result<Target> LocateTarget(const CliEnv& env, const std::string& operand,
                            DaemonLock::Mode mode, int* exit_code);

// A client for the daemon of a mounted target.
ControlClient ClientFor(const Target& t);

}  // namespace tierfs::cli
