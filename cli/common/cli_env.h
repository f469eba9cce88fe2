// CliEnv: what a tool's main function talks to (streams, the mount table, the
// terminal), gathered in one struct so tests can run a whole tool in-process
// against string streams and a fake mount table.
//
// Not thread-safe: one CliEnv per running tool.
#pragma once

#include <ostream>
#include <string>

namespace tierfs::cli {

struct CliEnv {
  std::ostream* out = nullptr;                          // reports and listings
  std::ostream* err = nullptr;                          // diagnostics and progress
  std::string mountinfo_path = "/proc/self/mountinfo";  // where mounts are found
  bool err_is_terminal = false;                         // show a progress line on `err`
};

// std::cout, std::cerr, /proc/self/mountinfo, isatty(2).
CliEnv DefaultCliEnv();

}  // namespace tierfs::cli
