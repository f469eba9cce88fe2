// RunCommand: a program run to its end or its deadline, for tests (the mounted
// file system's fixture, the Ceph cluster's). Only the child it started is
// ever signalled.
#pragma once

#include <string>
#include <vector>

namespace tierfs::testing {

struct CommandResult {
  int exit_code = -1;   // -1 when killed at the deadline
  std::string output;   // stdout and stderr, interleaved
};

// Runs argv[0] (a path) with a deadline; stdin is /dev/null.
CommandResult RunCommand(const std::vector<std::string>& argv, int timeout_seconds = 120);

}  // namespace tierfs::testing
