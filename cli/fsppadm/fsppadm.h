// fsppadm: placement policy administration for tierfs (docs/commands.md "fsppadm").
// The syntax is in cli/fsppadm/command_line.h and each command's header in
// cli/fsppadm/; the scan report layout in cli/fsppadm/scan_report.h.
//
// FsppadmMain runs one command in-process, talking to the daemons of the named
// mounts over their control sockets; fsppadm_main.cc is a thin wrapper so that
// tests can run the whole tool against string streams. Not thread-safe
// (getopt_long state).
#pragma once

#include <string>
#include <vector>

#include "cli/common/cli_env.h"

namespace tierfs::cli {

// Runs `args` = {"fsppadm", COMMAND, ...}. Returns the exit status: 0 ok, 1 some
// files failed (or a daemon refused a request), 2 usage or validation error,
// 3 a daemon could not be reached (cli/common/exit_codes.h).
int FsppadmMain(const std::vector<std::string>& args, const CliEnv& env);

}  // namespace tierfs::cli
