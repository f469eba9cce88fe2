// A policy file on its way to the daemons: read and checked locally, then sent
// to each mount, with the daemons' diagnostics printed as FILE:LINE: <ELEMENT>:
// message (cli/fsppadm/policy_validation.h). The two commands that do only that share their
// options here; each has its own usage and run in its own file:
//
//   fsppadm assign   [-f] MOUNT... POLICY.xml    (assign.cc: control op assign)
//   fsppadm validate [-f] [MOUNT...] POLICY.xml  (validate.cc: control op validate,
//                                                 or the file alone)
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/common/cli_env.h"
#include "cli/fsppadm/subcommand.h"

namespace tierfs::cli::fsppadm {

// The options of assign and validate, which take the same ones.
struct PolicyFileOptions {
  CommonFlags flags;
  bool force = false;               // -f, --force: a class no volume carries only warns
  std::vector<std::string> mounts;  // the operands before the last
  std::string policy_file;          // the last operand
};

// Parses args = {"assign" or "validate", [-f] MOUNT... POLICY.xml} with at
// least `min_mounts` mounts. EINVAL: an unknown option, or too few operands
// ("expected " + `syntax`).
Result<PolicyFileOptions> ParsePolicyFileOptions(const std::vector<std::string>& args,
                                                 size_t min_mounts, const std::string& syntax);

// args = {"assign", ...}: at least one mount ("expected MOUNT... POLICY.xml").
Result<PolicyFileOptions> ParseAssignOptions(const std::vector<std::string>& args);
// args = {"validate", ...}: any number of mounts ("expected [MOUNT...] POLICY.xml").
Result<PolicyFileOptions> ParseValidateOptions(const std::vector<std::string>& args);

extern const Subcommand kAssignCommand;    // assign.cc
extern const Subcommand kValidateCommand;  // validate.cc

// Reads `file` and checks its syntax and semantics, printing every diagnostic
// on env.err. Returns the XML, or nullopt (the caller exits kExitUsage) when the
// file cannot be read or has an error. *policy_name, when not null, gets the
// policy's Name ("" when it has none).
std::optional<std::string> LoadPolicyFile(const CliEnv& env, const std::string& file,
                                          std::string* policy_name);

// What SendPolicyToMounts asks of each daemon.
enum class PolicyRequest {
  kAssign,    // make it the active policy
  kValidate,  // check it against the mount's classes, assigning nothing
};

// Loads `policy_file` and sends it to each of `mounts` (`force`: a class no
// volume carries only warns). kValidate without mounts checks the file alone.
// Prints "FILE: valid ..." for each success of kValidate and a refusal's
// diagnostics. Returns the exit status (cli/common/exit_codes.h): kExitUsage for a bad
// file, else the worst of the mounts' (ControlClient::ExitCodeFor).
int SendPolicyToMounts(const CliEnv& env, PolicyRequest request, const std::string& policy_file,
                       const std::vector<std::string>& mounts, bool force);

}  // namespace tierfs::cli::fsppadm
