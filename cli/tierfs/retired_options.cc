#include "cli/tierfs/retired_options.h"

#include <gflags/gflags.h>

#include <array>

// The flags keep the types they had, so every value an old mount line gave
// still parses: a switch stays a bool (`-o nosplice_writes` needs that), a
// number becomes a string (no range to fail). Their help text is never shown.
DEFINE_bool(splice_writes, false, "retired (cli/tierfs/retired_options.h)");
DEFINE_string(precreate_objects, "", "retired (cli/tierfs/retired_options.h)");

namespace tierfs::cli {
namespace {

struct RetiredOption {
  const char* name;
  const char* since;  // the first version in which it does nothing
  const char* why;    // what the administrator should know instead
};

constexpr std::array<RetiredOption, 2> kRetired = {{
    {"splice_writes", "0.2.0",
     "writes reach the daemon in memory, over io_uring or /dev/fuse; remove it from the "
     "mount options"},
    {"precreate_objects", "0.2.0",
     "creates still reuse the objects of deleted files; remove it from the mount options"},
}};

}  // namespace

bool IsRetiredOption(std::string_view name) {
  for (const RetiredOption& option : kRetired) {
    if (name == option.name) return true;
  }
  return false;
}

std::vector<std::string> RetiredOptionWarnings() {
  std::vector<std::string> warnings;
  for (const RetiredOption& option : kRetired) {
    gflags::CommandLineFlagInfo info;
    // is_default: never set on the command line nor through -o.
    if (!gflags::GetCommandLineFlagInfo(option.name, &info) || info.is_default) continue;
    warnings.push_back(std::string("option ") + option.name +
                       " no longer has an effect (since tierfs " + option.since + "): " +
                       option.why);
  }
  return warnings;
}

}  // namespace tierfs::cli
