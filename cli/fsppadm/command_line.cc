#include "cli/fsppadm/command_line.h"

#include "cli/fsppadm/advise.h"
#include "cli/fsppadm/policy_file.h"
#include "cli/fsppadm/heatbucket.h"
#include "cli/fsppadm/list.h"
#include "cli/fsppadm/print.h"
#include "cli/fsppadm/report.h"
#include "cli/fsppadm/scan.h"
#include "cli/fsppadm/schedule.h"
#include "cli/fsppadm/status.h"
#include "cli/fsppadm/tag.h"
#include "cli/fsppadm/unassign.h"

namespace tierfs::cli::fsppadm {
namespace {

constexpr char kOverview[] =
    "usage: fsppadm COMMAND [OPTIONS] [OPERANDS]\n"
    "Placement policy administration for tierfs file systems.\n"
    "\n"
    "  assign [-f] MOUNT... POLICY.xml       make POLICY.xml the active policy\n"
    "  unassign MOUNT...                     remove the active policy\n"
    "  list [--json] [MOUNT...]              show the assigned policies\n"
    "  print MOUNT                           print the active policy's XML\n"
    "  validate [-f] [MOUNT...] POLICY.xml   check a policy (against mounts if named)\n"
    "  enforce [OPTIONS] PATH...             relocate files as the policy says\n"
    "  analyze [OPTIONS] PATH...             report what enforce would do to each class\n"
    "  query [OPTIONS] PATH...               report the policy's decision for each file\n"
    "  status [-n COUNT] [--json] MOUNT      policy, volumes, recent scans and moves\n"
    "  tag add|remove TAG FILE...           tag files for <TAG> selects (list FILE...)\n"
    "  heatbucket MOUNT SECONDS              set the heat bucket (restarts the counts)\n"
    "  report [--html FILE|--json] MOUNT     bytes and heat per directory and class\n"
    "  schedule [OPTIONS] MOUNT              run enforce hourly/daily (systemd or cron)\n"
    "  advise [OPTIONS] MOUNT [POLICY.xml]   replay the recorded I/O against the policy\n"
    "                                        and variants; the best, with its text\n"
    "\n"
    "\n"
    "  -h, --help, help [COMMAND]            this text, or COMMAND's\n"
    "  --version                             print the version and exit\n"
    "\n"
    "`fsppadm COMMAND --help` describes a command. Exit status: 0 ok, 1 some files\n"
    "failed, 2 usage or validation error, 3 the daemon could not be reached.\n";

}  // namespace

const std::vector<const Subcommand*>& AllSubcommands() {
  static const std::vector<const Subcommand*> all = {
      &kAssignCommand,  &kUnassignCommand, &kListCommand,       &kPrintCommand,
      &kValidateCommand, &kEnforceCommand, &kAnalyzeCommand,    &kQueryCommand,
      &kStatusCommand,  &kTagCommand,      &kHeatBucketCommand, &kReportCommand,
      &kScheduleCommand, &kAdviseCommand};
  return all;
}

const Subcommand* FindSubcommand(std::string_view name) {
  for (const Subcommand* command : AllSubcommands()) {
    if (name == command->name) return command;
  }
  return nullptr;
}

std::string Usage(const Subcommand* command) {
  if (command == nullptr) return kOverview;
  return command->usage();
}

Result<CommandLine> ParseCommandLine(const std::vector<std::string>& args) {
  CommandLine line;
  if (args.size() < 2) return Status::Invalid("no command given (see fsppadm --help)");
  const std::string& word = args[1];
  if (word == "--help" || word == "-h" || word == "help") {
    line.invocation.flags.help = true;
    if (word == "help" && args.size() > 2) {
      line.command = FindSubcommand(args[2]);
      if (line.command == nullptr) return Status::Invalid("unknown command \"" + args[2] + "\"");
    }
    return line;
  }
  if (word == "--version") {
    line.invocation.flags.version = true;
    return line;
  }
  line.command = FindSubcommand(word);
  if (line.command == nullptr) {
    if (!word.empty() && word[0] == '-') {
      return Status::Invalid("the command comes first, before options such as " + word +
                             " (see fsppadm --help)");
    }
    return Status::Invalid("unknown command \"" + word + "\" (see fsppadm --help)");
  }
  Result<Invocation> invocation =
      line.command->parse(std::vector<std::string>(args.begin() + 1, args.end()));
  if (!invocation.ok()) {
    return Status::Invalid(std::string(line.command->name) + ": " + invocation.status().message());
  }
  line.invocation = std::move(*invocation);
  return line;
}

}  // namespace tierfs::cli::fsppadm
