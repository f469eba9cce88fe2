// fsmap: which volume and placement class hold each named file.
//
//   fsmap [-H] [--json] FILE...
//
// Each FILE is stat(2)ed (its st_ino is the tierfs inode number) and the
// daemons of the mounts holding them are asked (op "fsmap"). Output columns:
// VOLUME CLASS SIZE FILE; -H prints sizes as 1.5K, 20M...; a directory or other
// non-regular file shows volume "-". --json prints {"files":[...]} with the
// daemon's fields plus "file" (the operand). Files on several mounts are fine.
// Not thread-safe (getopt_long state).
#pragma once

#include <string>
#include <vector>

#include "cli/common/cli_env.h"

namespace tierfs::cli {

std::string FsmapUsage();

// Runs fsmap; exit status 0 ok, 1 some file could not be mapped, 2 usage error,
// 3 a file is not on tierfs or its daemon is unreachable.
int FsmapMain(const std::vector<std::string>& args, const CliEnv& env);

}  // namespace tierfs::cli
