// fsppadm heatbucket MOUNT SECONDS: changes the length of a mounted file
// system's iostat buckets, its heat resolution (tierfs extension;
// docs/policies.md "Temperatures"; control op heat_bucket).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/fsppadm/subcommand.h"

namespace tierfs::cli::fsppadm {

struct HeatBucketOptions {
  CommonFlags flags;
  std::string mount;
  int64_t seconds = 0;  // the new bucket length, 1..86400
};

// Parses args = {"heatbucket", MOUNT, SECONDS}. EINVAL: "expected MOUNT
// SECONDS", "SECONDS must be 1 to 86400, got \"...\"", or an unknown option.
Result<HeatBucketOptions> ParseHeatBucketOptions(const std::vector<std::string>& args);

// Prints the old and new length. Returns the exit status; the daemon's refusal
// (a PERIOD of the assigned policy shorter than SECONDS) is kExitFailed.
int RunHeatBucket(const HeatBucketOptions& options, const CliEnv& env);

extern const Subcommand kHeatBucketCommand;

}  // namespace tierfs::cli::fsppadm
