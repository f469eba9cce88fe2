// fsppadm assign [-f] MOUNT... POLICY.xml: validates POLICY.xml and makes it the
// active placement policy of each mount (control op assign). Options and the
// sending are shared with validate (cli/fsppadm/policy_file.h).
#include "cli/fsppadm/policy_file.h"

namespace tierfs::cli::fsppadm {
namespace {

constexpr char kAssignUsage[] =
    "usage: fsppadm assign [-f] MOUNT... POLICY.xml\n"
    "Validates POLICY.xml and makes it the active placement policy of each mount.\n"
    "  -f, --force   accept a policy naming a class no volume carries (warning only;\n"
    "                default: refuse it)\n";

std::string AssignUsage() { return std::string(kAssignUsage) + kCommonOptionsUsage; }

int RunAssign(const PolicyFileOptions& options, const CliEnv& env) {
  return SendPolicyToMounts(env, PolicyRequest::kAssign, options.policy_file, options.mounts,
                            options.force);
}

}  // namespace

Result<PolicyFileOptions> ParseAssignOptions(const std::vector<std::string>& args) {
  return ParsePolicyFileOptions(args, 1, "MOUNT... POLICY.xml");
}

const Subcommand kAssignCommand = {
    "assign", AssignUsage, ParseToInvocation<PolicyFileOptions, ParseAssignOptions, RunAssign>};

}  // namespace tierfs::cli::fsppadm
