// Internal to fsppadm: one function per command family, sharing the parsed
// arguments and a helper that reaches the daemon of a mount. Not thread-safe.
#pragma once

#include <optional>
#include <string>

#include "cli/cli_env.h"
#include "cli/control_client.h"
#include "cli/fsppadm_args.h"
#include "cli/tool_support.h"

namespace tierfs::cli::fsppadm {

constexpr char kTool[] = "fsppadm";

// A path operand located, with a client for its daemon. On failure prints the
// error and sets *exit_code; returns nullopt.
struct Target {
  LocatedPath where;
  ControlClient client;
};
std::optional<Target> Connect(const CliEnv& env, const std::string& operand, int* exit_code);

// Calls `request` on `target`; on failure prints "fsppadm: MOUNT: message" and
// raises *exit_code to the call's exit status.
std::optional<nlohmann::json> CallOrReport(const CliEnv& env, Target& target,
                                           const nlohmann::json& request, int* exit_code,
                                           const ProgressCallback& progress = nullptr);

int RunAssign(const FsppadmArgs& args, const CliEnv& env);
int RunSchedule(const FsppadmArgs& args, const CliEnv& env);
int RunUnassign(const FsppadmArgs& args, const CliEnv& env);
int RunList(const FsppadmArgs& args, const CliEnv& env);
int RunPrint(const FsppadmArgs& args, const CliEnv& env);
int RunValidate(const FsppadmArgs& args, const CliEnv& env);
int RunScan(const FsppadmArgs& args, const CliEnv& env);    // fsppadm_scan.cc
int RunStatus(const FsppadmArgs& args, const CliEnv& env);  // fsppadm_status.cc
int RunTag(const FsppadmArgs& args, const CliEnv& env);     // fsppadm_tag.cc
int RunHeatBucket(const FsppadmArgs& args, const CliEnv& env);  // fsppadm_heat.cc
int RunAdvise(const FsppadmArgs& args, const CliEnv& env);      // fsppadm_advise.cc
int RunTierReport(const FsppadmArgs& args, const CliEnv& env);  // fsppadm_tier_report.cc

}  // namespace tierfs::cli::fsppadm
