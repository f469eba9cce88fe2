// fsppadm validate [-f] [MOUNT...] POLICY.xml: checks a policy file, alone or
// against the classes of each mount's volumes (control op validate); assigns
// nothing. Options and the sending are shared with assign
// (cli/fsppadm/policy_file.h).
#include "cli/fsppadm/policy_file.h"

namespace tierfs::cli::fsppadm {
namespace {

constexpr char kValidateUsage[] =
    "usage: fsppadm validate [-f] [MOUNT...] POLICY.xml\n"
    "Checks POLICY.xml. Alone: syntax and semantics, locally. With mounts: also\n"
    "against the classes of each mount's volumes (nothing is assigned).\n"
    "Diagnostics read FILE:LINE: <ELEMENT>: message.\n"
    "  -f, --force   a class no volume carries is a warning, not an error (default:\n"
    "                an error)\n";

std::string ValidateUsage() { return std::string(kValidateUsage) + kCommonOptionsUsage; }

// Prints "POLICY.xml: valid ..." per success.
int RunValidate(const PolicyFileOptions& options, const CliEnv& env) {
  return SendPolicyToMounts(env, PolicyRequest::kValidate, options.policy_file, options.mounts,
                            options.force);
}

}  // namespace

Result<PolicyFileOptions> ParseValidateOptions(const std::vector<std::string>& args) {
  return ParsePolicyFileOptions(args, 0, "[MOUNT...] POLICY.xml");
}

const Subcommand kValidateCommand = {
    "validate", ValidateUsage,
    ParseToInvocation<PolicyFileOptions, ParseValidateOptions, RunValidate>};

}  // namespace tierfs::cli::fsppadm
