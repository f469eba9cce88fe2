// fsppadm: finds the command (cli/fsppadm/command_line.h) and runs it; each
// command's options, usage and work are in cli/fsppadm/<command>.cc.
#include "cli/fsppadm/fsppadm.h"

#include "cli/fsppadm/command_line.h"
#include "cli/common/tool_support.h"

namespace tierfs::cli {

int FsppadmMain(const std::vector<std::string>& args, const CliEnv& env) {
  using fsppadm::kTool;
  return RunToolBody(env, kTool, [&] {
    Result<fsppadm::CommandLine> parsed = fsppadm::ParseCommandLine(args);
    Result<fsppadm::CommonFlags> flags =
        parsed.ok() ? Result<fsppadm::CommonFlags>(parsed->invocation.flags) : parsed.status();
    if (std::optional<int> ended = AnswerParseVersionHelp(
            flags, env, kTool, [&] { return fsppadm::Usage(parsed->command); })) {
      return *ended;
    }
    return parsed->invocation.run(env);
  });
}

}  // namespace tierfs::cli
