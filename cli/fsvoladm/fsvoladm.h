// fsvoladm: the volumes of a mounted tierfs file system (docs/commands.md
// "fsvoladm", after VxFS fsvoladm; fs/tiering/volume_admin.h does the work in the
// daemon):
//
//   fsvoladm list [--json] MOUNT
//   fsvoladm add [-v] [--json] [--endpoint URL --credentials FILE [--region REGION]
//                [--addressing path|virtual] [--ca-file FILE]] MOUNT DIR[:CLASS]...
//                (a DIR may be s3://BUCKET/PREFIX:CLASS, an object volume)
//   fsvoladm remove [--json] MOUNT VOLUME
//   fsvoladm setclass [--json] MOUNT VOLUME CLASS
//   fsvoladm --help | --version
//
// list shows each volume's name, class, media type, role (metadata or data),
// size, used, free, files and state (online, full, offline, draining). add
// labels each DIR and adds it, online, as a data volume of class CLASS (default:
// its detected media type). remove moves every file off VOLUME (a name such as
// vol3, its directory, or its id) to the other volumes by the assigned policy's
// CREATE classes, while the files stay in use, showing progress on a terminal,
// then forgets it and marks its label retired. setclass changes a volume's
// placement class. MOUNT is the mount point or any path inside it.
// Not thread-safe (getopt_long state).
#pragma once

#include <string>
#include <vector>

#include "cli/common/cli_env.h"
#include "common/status.h"

namespace tierfs::cli {

struct FsvoladmArgs {
  std::string action;  // list | add | remove | setclass
  bool help = false;
  bool version = false;
  bool json = false;
  bool verbose = false;               // add -v
  std::string endpoint;               // add --endpoint, for s3:// operands
  std::string credentials;            // add --credentials, for s3:// operands
  std::string region;                 // add --region, for s3:// operands
  std::string addressing;             // add --addressing path|virtual, for s3:// operands
  std::string ca_file;                // add --ca-file, for s3:// operands
  std::string mount;
  std::vector<std::string> operands;  // after MOUNT: DIR[:CLASS]... | VOLUME | VOLUME CLASS
};

// Parses {"fsvoladm", ACTION, ...}. EINVAL naming the bad action, option or
// operand count (a CLASS is checked here too).
Result<FsvoladmArgs> ParseFsvoladmArgs(const std::vector<std::string>& args);
std::string FsvoladmUsage();

// Runs fsvoladm; returns the exit status (cli/common/exit_codes.h): 0 ok, 1 the daemon
// refused or the change failed (nothing changed, or for remove: the volume
// stays and every file is readable), 2 usage error, 3 daemon unreachable.
int FsvoladmMain(const std::vector<std::string>& args, const CliEnv& env);

}  // namespace tierfs::cli
