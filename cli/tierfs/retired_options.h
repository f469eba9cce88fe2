// Options of `tierfs` (the daemon) that no longer do anything.
//
// An /etc/fstab line or a unit written for an older tierfs may still carry one
// (`-o splice_writes`, `--precreate_objects=512`), and a mount at boot must not
// fail over an option whose only job is gone. So each retired option stays
// defined: it is accepted with any value it used to take (as `--name=VALUE`,
// `-o name=VALUE`, `-o name` or `-o noname` for a former switch), changes
// nothing, is left out of `tierfs --help`, and the daemon logs one warning for
// it (docs/admin.md, "Versions").
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tierfs::cli {

// Whether `name` (without dashes: "splice_writes") is a retired option.
bool IsRetiredOption(std::string_view name);

// One warning per retired option that the command line or -o set (gflags has
// parsed argv and the -o list has been applied), in the form
//   "option splice_writes no longer has an effect (since tierfs 0.2.0): ..."
// Empty when none was given.
std::vector<std::string> RetiredOptionWarnings();

}  // namespace tierfs::cli
