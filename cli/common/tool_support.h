// Helpers every administration tool shares: locating a path operand's tierfs
// mount and connecting to its daemon, reading an input file, printing
// "tool: message" errors, and the start and end of every tool's main.
// Thread-safe apart from the CliEnv streams they write to.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "cli/common/cli_env.h"
#include "cli/common/control_client.h"
#include "cli/common/exit_codes.h"
#include "cli/common/mount_table.h"
#include "cli/version.h"
#include "common/status.h"

namespace tierfs::cli {

// One path operand, located.
struct LocatedPath {
  std::string operand;     // as the user wrote it
  std::string host_path;   // absolute, resolved
  std::string mount_path;  // relative to the mount root: "/", "/dir/file"
  TierfsMount mount;
};

// Resolves `operand` and finds the tierfs mount holding it (env.mountinfo_path).
// On error returns a Status naming the operand and sets *exit_code: kExitUsage
// when the path does not resolve (ENOENT...), kExitUnreachable when it is not in
// a tierfs file system or the mount table cannot be read.
Result<LocatedPath> LocatePath(const CliEnv& env, const std::string& operand, int* exit_code);

// A path operand located, with a client for its daemon.
struct MountConnection {
  LocatedPath where;
  ControlClient client;
};

// LocatePath and a client for the mount's daemon (no I/O until its first
// call). On failure prints "<tool>: <message>", raises *exit_code to
// LocatePath's code (kExitUsage or kExitUnreachable) and returns nullopt.
std::optional<MountConnection> ConnectToMount(const CliEnv& env, std::string_view tool,
                                              const std::string& operand, int* exit_code);

// "MOUNT: message" for a failed call of `client`, or the message alone when the
// daemon could not be reached (ControlClient's message then names the socket).
std::string CallErrorMessage(const ControlClient& client, const Status& status);

// Calls `request` on `client`. On failure prints "<tool>: MOUNT: message"
// (CallErrorMessage), raises *exit_code to the call's exit status
// (ControlClient::ExitCodeFor) and returns nullopt.
std::optional<nlohmann::json> CallOrReport(const CliEnv& env, std::string_view tool,
                                           ControlClient& client, const nlohmann::json& request,
                                           int* exit_code,
                                           const ProgressCallback& progress = nullptr);

// Reads a whole (policy) file, at most 64 MiB. Errors: the errno naming `path`.
Result<std::string> ReadTextFile(const std::string& path);
// Writes `text` to `path` (created or truncated, mode 0644 before umask).
Status WriteTextFile(const std::string& path, const std::string& text);

// Prints "<tool>: <message>" and a newline on env.err.
void PrintError(const CliEnv& env, std::string_view tool, std::string_view message);

// The start every tool's main shares, once its arguments are parsed: a parse
// error is printed ("<tool>: <message><hint>") and ends the run with kExitUsage;
// --version prints VersionText(tool) and --help `usage`, each ending it with
// kExitOk. Returns the exit code when the run ends here, nullopt when the tool
// goes on with *parsed. `Args` has bool members `version` and `help`. A
// subcommand that names itself in errors ("tierfs check") gives its program
// ("tierfs") as `program`, the name --version prints.
template <typename Args>
std::optional<int> AnswerParseVersionHelp(const Result<Args>& parsed, const CliEnv& env,
                                          std::string_view tool,
                                          const std::function<std::string()>& usage,
                                          std::string_view hint = "",
                                          std::string_view program = "") {
  if (!parsed.ok()) {
    PrintError(env, tool, parsed.status().message() + std::string(hint));
    return kExitUsage;
  }
  if (parsed->version) {
    *env.out << VersionText(program.empty() ? tool : program);
    return kExitOk;
  }
  if (parsed->help) {
    *env.out << usage();
    return kExitOk;
  }
  return std::nullopt;
}

// The end every tool's main shares: runs `body` and returns its exit status
// with env.out flushed; an exception escaping it is printed as "<tool>:
// internal error: <what>" and ends the run with kExitFailed, so that nothing
// escapes main.
int RunToolBody(const CliEnv& env, std::string_view tool, const std::function<int()>& body);

}  // namespace tierfs::cli
