#include "cli/fsppadm_args.h"

#include <cmath>
#include <cstring>

#include "cli/option_parser.h"
#include "cli/units.h"

namespace tierfs::cli {
namespace {

struct CommandInfo {
  FsppadmCommand command;
  const char* name;
  const char* usage;
};

// The options every command takes, last in each command's list.
constexpr char kCommonOptions[] =
    "  -h, --help    this text\n"
    "  --version     print the version and exit\n";

constexpr CommandInfo kCommands[] = {
    {FsppadmCommand::kAssign, "assign",
     "usage: fsppadm assign [-f] MOUNT... POLICY.xml\n"
     "Validates POLICY.xml and makes it the active placement policy of each mount.\n"
     "  -f, --force   accept a policy naming a class no volume carries (warning only;\n"
     "                default: refuse it)\n"},
    {FsppadmCommand::kUnassign, "unassign",
     "usage: fsppadm unassign MOUNT...\n"
     "Removes the active policy; new files then go to the volume with the most free space.\n"},
    {FsppadmCommand::kList, "list",
     "usage: fsppadm list [--json] [MOUNT...]\n"
     "Shows the policy assigned to each mount (every tierfs mount when none is named).\n"
     "  --json        one JSON document (default: a table)\n"},
    {FsppadmCommand::kPrint, "print",
     "usage: fsppadm print MOUNT\n"
     "Prints the XML of the policy assigned to MOUNT.\n"},
    {FsppadmCommand::kValidate, "validate",
     "usage: fsppadm validate [-f] [MOUNT...] POLICY.xml\n"
     "Checks POLICY.xml. Alone: syntax and semantics, locally. With mounts: also\n"
     "against the classes of each mount's volumes (nothing is assigned).\n"
     "Diagnostics read FILE:LINE: <ELEMENT>: message.\n"
     "  -f, --force   a class no volume carries is a warning, not an error (default:\n"
     "                an error)\n"},
    {FsppadmCommand::kEnforce, "enforce", nullptr},
    {FsppadmCommand::kAnalyze, "analyze", nullptr},
    {FsppadmCommand::kQuery, "query", nullptr},
    {FsppadmCommand::kStatus, "status",
     "usage: fsppadm status [-n COUNT] [--json] MOUNT\n"
     "Shows the assigned policy, the volumes, and the latest scans and relocations.\n"
     "  -n COUNT      how many scans and relocations to show (default 10)\n"
     "  --json        one JSON document (default: tables)\n"},
    {FsppadmCommand::kHeatBucket, "heatbucket",
     "usage: fsppadm heatbucket MOUNT SECONDS\n"
     "Sets the length of the buckets MOUNT counts I/O in (its heat resolution) to\n"
     "SECONDS, 1 to 86400. The I/O counted so far is discarded: temperatures start\n"
     "again from zero (FCL records are kept). Refused, changing nothing, when a\n"
     "PERIOD of the assigned policy would be shorter than SECONDS.\n"},
    {FsppadmCommand::kAdvise, "advise",
     "usage: fsppadm advise [--json] [--interval DURATION] [--class CLASS] [--periods F,...]\n"
     "                      [--thresholds F,...] [--limits P,...] [-n COUNT] [--show RANK]\n"
     "                      [-o FILE] MOUNT [POLICY.xml]\n"
     "Replays the I/O MOUNT has recorded (its heat buckets) against the assigned policy\n"
     "(or POLICY.xml) and against variants of it, enforcing at every interval as\n"
     "`fsppadm enforce` would, moving nothing. Lists, best first, the share of read and\n"
     "written bytes the CLASS files would have served over the recorded window and the\n"
     "bytes each variant would have moved, then prints the policy text of the best (or\n"
     "of --show RANK) for `fsppadm assign`. Needs at least 2 intervals of history\n"
     "(exit 1 otherwise).\n"
     "  --interval DURATION  time between simulated enforces: seconds, or with a suffix\n"
     "                s, m, h, d (\"90s\", \"15m\", \"6h\"); a multiple of the heat bucket\n"
     "                (default: the policy's shortest PERIOD, rounded up to whole buckets)\n"
     "  --class CLASS the fast class whose served share is measured and whose limit the\n"
     "                variants change (default ssd)\n"
     "  --periods F,...     factors applied to every IOTEMP/ACCESSTEMP PERIOD (default\n"
     "                0.5,1,2)\n"
     "  --thresholds F,...  factors applied to every IOTEMP/ACCESSTEMP MIN and MAX\n"
     "                (default 0.5,1,2)\n"
     "  --limits P,...      CLASS limits to try, percent of its capacity, besides the\n"
     "                policy's own (default 80,90,100)\n"
     "  -n COUNT      variants to list (default 10; 0 = all)\n"
     "  --show RANK   print the policy text of this rank instead of the best (1)\n"
     "  -o FILE       also write that policy text to FILE\n"
     "  --json        one JSON document (every variant with its policy text)\n"},
    {FsppadmCommand::kReport, "report",
     "usage: fsppadm report [--html FILE | --json] [--depth N] [--hours H] MOUNT\n"
     "Shows, per directory, how many bytes and files sit on each placement class and\n"
     "how hot they are (bytes read and written in the last H hours, and IOTEMP: those\n"
     "bytes per hour per byte held), then the same per class and per volume with\n"
     "capacity, used and free space. Default: text tables.\n"
     "  --html FILE   write a self-contained HTML page with a chart instead (\"-\":\n"
     "                standard output)\n"
     "  --json        the same data as one JSON document\n"
     "  --depth N     one row per directory N components below the mount point:\n"
     "                deeper files count in their ancestor there, files higher up in\n"
     "                their own directory (default 2, 0..1000; 0: one row, \"/\")\n"
     "  --hours H     the heat window in hours, decimals allowed (default 24, at most\n"
     "                8784)\n"},
    {FsppadmCommand::kSchedule, "schedule",
     "usage: fsppadm schedule [--hourly-active] [--daily-full] MOUNT\n"
     "       fsppadm schedule --list MOUNT\n"
     "       fsppadm schedule --remove MOUNT\n"
     "Makes the system's scheduler run enforce: systemd timers where systemd runs\n"
     "(/etc/systemd/system/tierfs-enforce-FSNAME-*.timer, enabled at once), else\n"
     "/etc/cron.d/tierfs-FSNAME. Replaces the file system's earlier schedule,\n"
     "mkdstfs --cron's included. Runs use --no-wait: one that finds an enforce\n"
     "running is refused, and `fsppadm status` lists it with its message.\n"
     "  --hourly-active  hourly at :15, `enforce -C -T CLASS`: files with recent I/O\n"
     "                   and files on the metadata volume's class\n"
     "  --daily-full     daily at 03:45, `enforce`: every file\n"
     "                   (neither given: both, the paper's schedule)\n"
     "  --list           print the schedule files and their contents\n"
     "  --remove         remove them (stopping the timers)\n"},
    {FsppadmCommand::kTag, "tag",
     "usage: fsppadm tag add|remove TAG FILE...\n"
     "       fsppadm tag list FILE...\n"
     "Adds or removes the word TAG in each file's tags (the extended attribute\n"
     "user.tierfs.tags, comma-separated), which policies select with <TAG>; list\n"
     "prints each file's tags. The file's owner (or root) may change them.\n"},
};

constexpr char kScanOptions[] =
    "  -C            only files with I/O or namespace activity in the policy's longest PERIOD\n"
    "                (default: every file)\n"
    "  -T CLASS      only files now on volumes of CLASS (repeatable; default: all classes)\n"
    "  -F POLICY.xml use this policy instead of the assigned one\n"
    "  -P            tab-separated output: file, summary, class and note records\n"
    "  --json        the daemon's result as one JSON document\n"
    "  -r REPORT     write the report to the file REPORT (standard output gets the summary)\n"
    "  -a            add access and modification times to each file row\n"
    "  -s BYTES      stop after moving this much data: bytes, or with a suffix K, M, G, T\n"
    "                (powers of 1024; default: no limit)\n"
    "  -n FILES      stop after moving or deleting this many files (default: no limit)\n"
    "  -t HOURS      stop after running this many hours, decimals allowed (default: no limit)\n"
    "  -p IO_NICE    1..100: files relocated at once: 1 at 1, 16 at 50 (default), 32 at 100\n"
    "  --no-wait     exit at once if another enforce runs on the mount (default: wait)\n";

constexpr char kScanNotes[] =
    "The first PATH names the file system; every PATH must be in it. A directory is\n"
    "swept recursively. Exit status: 0 ok, 1 some files failed, 2 usage or policy\n"
    "error, 3 the daemon could not be reached.\n";

const CommandInfo* FindCommand(const std::string& name) {
  for (const CommandInfo& c : kCommands) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

const CommandInfo* InfoOf(FsppadmCommand command) {
  for (const CommandInfo& c : kCommands) {
    if (c.command == command) return &c;
  }
  return nullptr;
}

bool IsScan(FsppadmCommand c) {
  return c == FsppadmCommand::kEnforce || c == FsppadmCommand::kAnalyze ||
         c == FsppadmCommand::kQuery;
}

std::vector<OptionSpec> SpecsFor(FsppadmCommand c) {
  std::vector<OptionSpec> specs = {{"help", 'h', false, ""}, {"version", 0, false, ""}};
  switch (c) {
    case FsppadmCommand::kAssign:
    case FsppadmCommand::kValidate:
      specs.push_back({"force", 'f', false, ""});
      break;
    case FsppadmCommand::kList:
      specs.push_back({"json", 0, false, ""});
      break;
    case FsppadmCommand::kStatus:
      specs.push_back({nullptr, 'n', true, "COUNT"});
      specs.push_back({"json", 0, false, ""});
      break;
    case FsppadmCommand::kAdvise:
      specs.insert(specs.end(), {{"json", 0, false, ""},
                                 {"interval", 0, true, "DURATION"},
                                 {"class", 0, true, "CLASS"},
                                 {"periods", 0, true, "F,..."},
                                 {"thresholds", 0, true, "F,..."},
                                 {"limits", 0, true, "P,..."},
                                 {nullptr, 'n', true, "COUNT"},
                                 {"show", 0, true, "RANK"},
                                 {nullptr, 'o', true, "FILE"}});
      break;
    case FsppadmCommand::kSchedule:
      specs.insert(specs.end(), {{"hourly-active", 0, false, ""},
                                 {"daily-full", 0, false, ""},
                                 {"remove", 0, false, ""},
                                 {"list", 0, false, ""}});
      break;
    case FsppadmCommand::kReport:
      specs.insert(specs.end(), {{"json", 0, false, ""},
                                 {"html", 0, true, "FILE"},
                                 {"depth", 0, true, "N"},
                                 {"hours", 0, true, "H"}});
      break;
    case FsppadmCommand::kEnforce:
    case FsppadmCommand::kAnalyze:
    case FsppadmCommand::kQuery:
      specs.insert(specs.end(), {{nullptr, 'C', false, ""},
                                 {nullptr, 'T', true, "CLASS"},
                                 {nullptr, 'F', true, "POLICY.xml"},
                                 {nullptr, 'P', false, ""},
                                 {"json", 0, false, ""},
                                 {nullptr, 'r', true, "REPORT"},
                                 {nullptr, 'a', false, ""},
                                 {nullptr, 's', true, "BYTES"},
                                 {nullptr, 'n', true, "FILES"},
                                 {nullptr, 't', true, "HOURS"},
                                 {nullptr, 'p', true, "IO_NICE"},
                                 {"no-wait", 0, false, ""}});
      break;
    default:
      break;
  }
  return specs;
}

// Prefixes an option error with the value's option: "-s: not a size...".
template <typename T>
Status Take(const OptionSpec& spec, Result<T> parsed, T* out) {
  if (!parsed.ok()) return Status::Invalid(OptionName(spec) + ": " + parsed.status().message());
  *out = *parsed;
  return Status::Ok();
}

// A comma-separated list of decimal numbers, each > 0 and at most `max`
// ("0.5,1,2"). EINVAL naming the option and the bad item.
Status ParseNumberList(const std::string& option, const char* value, double max,
                       std::vector<double>* out) {
  out->clear();
  std::string text = value;
  size_t start = 0;
  for (;;) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos
                                                                     : comma - start);
    // ParseHours accepts exactly the plain decimals wanted here ("0.5", "2").
    Result<double> number = ParseHours(item);
    if (!number.ok() || !(*number > 0) || *number > max) {
      return Status::Invalid(option + ": expected numbers greater than 0" +
                             (max < 1e9 ? " and at most " + std::to_string(static_cast<long long>(max)) : std::string()) +
                             " separated by commas, got \"" + item + "\"");
    }
    out->push_back(*number);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return Status::Ok();
}

Status OnOption(FsppadmArgs* a, const OptionSpec& spec, const char* value) {
  const std::string name = spec.long_name != nullptr && spec.short_name == 0 ? spec.long_name : "";
  switch (spec.short_name) {
    case 'h':
      a->help = true;
      return Status::Ok();
    case 'f':
      a->force = true;
      return Status::Ok();
    case 'C':
      a->active_only = true;
      return Status::Ok();
    case 'T':
      if (*value == '\0') return Status::Invalid("-T: empty class name");
      a->classes.push_back(value);
      return Status::Ok();
    case 'F':
      a->policy_file = value;
      return Status::Ok();
    case 'P':
      a->parsable = true;
      return Status::Ok();
    case 'r':
      a->report_file = value;
      return Status::Ok();
    case 'a':
      a->report_times = true;
      return Status::Ok();
    case 's':
      return Take(spec, ParseBytes(value), &a->limit_bytes);
    case 'n':
      return Take(spec, ParseCount(value),
                  a->command == FsppadmCommand::kStatus   ? &a->status_count
                  : a->command == FsppadmCommand::kAdvise ? &a->advise_rows
                                                          : &a->limit_files);
    case 'o':
      if (*value == '\0') return Status::Invalid("-o: empty file name");
      a->advise_output = value;
      return Status::Ok();
    case 't':
      return Take(spec, ParseHours(value), &a->limit_hours);
    case 'p': {
      // Any failure reads the same: "1e300", "-5" and "101" are all outside 1..100.
      Result<uint64_t> nice = ParseCount(value);
      if (!nice.ok() || *nice < 1 || *nice > 100) {
        return Status::Invalid("-p: IO_NICE must be 1..100, got " + std::string(value));
      }
      a->io_nice = static_cast<int>(*nice);
      return Status::Ok();
    }
    default:
      break;
  }
  if (name == "version") {
    a->version = true;
  } else if (name == "json") {
    a->json = true;
  } else if (name == "no-wait") {
    a->no_wait = true;
  } else if (name == "hourly-active") {
    a->schedule_active = true;
  } else if (name == "daily-full") {
    a->schedule_full = true;
  } else if (name == "remove") {
    a->schedule_remove = true;
  } else if (name == "list") {
    a->schedule_list = true;
  } else if (name == "interval") {
    return Take(spec, ParseDuration(value), &a->advise_interval_s);
  } else if (name == "class") {
    if (*value == '\0') return Status::Invalid("--class: empty class name");
    a->advise_class = value;
  } else if (name == "periods") {
    return ParseNumberList("--periods", value, 1e12, &a->advise_periods);
  } else if (name == "thresholds") {
    return ParseNumberList("--thresholds", value, 1e12, &a->advise_thresholds);
  } else if (name == "limits") {
    return ParseNumberList("--limits", value, 100, &a->advise_limits);
  } else if (name == "html") {
    if (*value == '\0') return Status::Invalid("--html: empty file name");
    a->report_html = value;
  } else if (name == "depth") {
    Result<uint64_t> depth = ParseCount(value);
    if (!depth.ok() || *depth > 1000) {
      return Status::Invalid("--depth: N must be 0 to 1000, got \"" + std::string(value) + "\"");
    }
    a->report_depth = static_cast<int64_t>(*depth);
  } else if (name == "hours") {
    Result<double> hours = ParseHours(value);
    if (!hours.ok() || !(*hours > 0) || *hours > 8784) {
      return Status::Invalid("--hours: H must be more than 0 and at most 8784, got \"" +
                             std::string(value) + "\"");
    }
    a->report_hours = *hours;
  } else if (name == "show") {
    Result<uint64_t> rank = ParseCount(value);
    if (!rank.ok() || *rank < 1) {
      return Status::Invalid("--show: RANK must be 1 or more, got " + std::string(value));
    }
    a->advise_show = *rank;
  }
  return Status::Ok();
}

Status CheckOperands(FsppadmArgs* a, std::vector<std::string> ops) {
  auto need = [](bool ok, const char* syntax) {
    return ok ? Status::Ok() : Status::Invalid(std::string("expected ") + syntax);
  };
  switch (a->command) {
    case FsppadmCommand::kAssign:
      TIERFS_RETURN_IF_ERROR(need(ops.size() >= 2, "MOUNT... POLICY.xml"));
      a->policy_file = ops.back();
      ops.pop_back();
      a->mounts = std::move(ops);
      break;
    case FsppadmCommand::kValidate:
      TIERFS_RETURN_IF_ERROR(need(!ops.empty(), "[MOUNT...] POLICY.xml"));
      a->policy_file = ops.back();
      ops.pop_back();
      a->mounts = std::move(ops);
      break;
    case FsppadmCommand::kUnassign:
      TIERFS_RETURN_IF_ERROR(need(!ops.empty(), "MOUNT..."));
      a->mounts = std::move(ops);
      break;
    case FsppadmCommand::kList:
      a->mounts = std::move(ops);
      break;
    case FsppadmCommand::kPrint:
    case FsppadmCommand::kStatus:
      TIERFS_RETURN_IF_ERROR(need(ops.size() == 1, "one MOUNT"));
      a->mounts = std::move(ops);
      break;
    case FsppadmCommand::kHeatBucket: {
      TIERFS_RETURN_IF_ERROR(need(ops.size() == 2, "MOUNT SECONDS"));
      Result<uint64_t> seconds = ParseCount(ops[1]);
      if (!seconds.ok() || *seconds < 1 || *seconds > 86400) {
        return Status::Invalid("SECONDS must be 1 to 86400, got \"" + ops[1] + "\"");
      }
      a->heat_bucket_seconds = static_cast<int64_t>(*seconds);
      ops.pop_back();
      a->mounts = std::move(ops);
      break;
    }
    case FsppadmCommand::kAdvise:
      TIERFS_RETURN_IF_ERROR(need(ops.size() == 1 || ops.size() == 2, "MOUNT [POLICY.xml]"));
      if (ops.size() == 2) {
        a->policy_file = ops.back();
        ops.pop_back();
      }
      a->mounts = std::move(ops);
      break;
    case FsppadmCommand::kSchedule: {
      TIERFS_RETURN_IF_ERROR(need(ops.size() == 1, "one MOUNT"));
      const int modes = int(a->schedule_remove) + int(a->schedule_list) +
                        int(a->schedule_active || a->schedule_full);
      if (modes > 1) {
        return Status::Invalid("--remove, --list and --hourly-active/--daily-full exclude each "
                               "other");
      }
      if (!a->schedule_active && !a->schedule_full) {
        a->schedule_active = a->schedule_full = true;
      }
      a->mounts = std::move(ops);
      break;
    }
    case FsppadmCommand::kReport:
      TIERFS_RETURN_IF_ERROR(need(ops.size() == 1, "one MOUNT"));
      if (a->json && !a->report_html.empty()) {
        return Status::Invalid("--html and --json exclude each other");
      }
      a->mounts = std::move(ops);
      break;
    case FsppadmCommand::kEnforce:
    case FsppadmCommand::kAnalyze:
    case FsppadmCommand::kQuery:
      TIERFS_RETURN_IF_ERROR(need(!ops.empty(), "at least one PATH (the first names the mount)"));
      if (a->parsable && a->json) return Status::Invalid("-P and --json exclude each other");
      if (a->report_times && a->json) return Status::Invalid("-a has no effect with --json");
      a->paths = std::move(ops);
      break;
    case FsppadmCommand::kTag: {
      TIERFS_RETURN_IF_ERROR(
          need(!ops.empty(), "add|remove TAG FILE... or list FILE..."));
      a->tag_action = ops.front();
      ops.erase(ops.begin());
      if (a->tag_action == "add" || a->tag_action == "remove") {
        TIERFS_RETURN_IF_ERROR(need(ops.size() >= 2, "TAG FILE..."));
        a->tag = ops.front();
        ops.erase(ops.begin());
        if (a->tag.find_first_of(", \t\n") != std::string::npos || a->tag.empty()) {
          return Status::Invalid("a TAG is one word without commas or spaces, got \"" + a->tag +
                                 "\"");
        }
      } else if (a->tag_action == "list") {
        TIERFS_RETURN_IF_ERROR(need(!ops.empty(), "FILE..."));
      } else {
        return Status::Invalid("expected add, remove or list, got \"" + a->tag_action + "\"");
      }
      a->paths = std::move(ops);
      break;
    }
    case FsppadmCommand::kNone:
      break;
  }
  return Status::Ok();
}

}  // namespace

const char* FsppadmCommandName(FsppadmCommand command) {
  const CommandInfo* info = InfoOf(command);
  return info == nullptr ? "" : info->name;
}

std::string FsppadmUsage(FsppadmCommand command) {
  if (IsScan(command)) {
    std::string name = FsppadmCommandName(command);
    std::string what =
        command == FsppadmCommand::kEnforce
            ? "Evaluates the policy over the named paths and relocates (or deletes) files.\n"
        : command == FsppadmCommand::kAnalyze
            ? "Plans like enforce and reports the space each class would have; moves nothing.\n"
            : "Lists every named file with the rule and statement that govern it, the\n"
              "temperatures its rule measures, and what enforce would do; moves nothing.\n";
    return "usage: fsppadm " + name +
           " [-C] [-T CLASS]... [-F POLICY.xml] [-P | --json] [-r REPORT [-a]]\n"
           "       [-s BYTES] [-n FILES] [-t HOURS] [-p IO_NICE] [--no-wait] PATH...\n" +
           what + kScanOptions + kCommonOptions + kScanNotes;
  }
  if (const CommandInfo* info = InfoOf(command); info != nullptr && info->usage != nullptr) {
    return std::string(info->usage) + kCommonOptions;
  }
  return "usage: fsppadm COMMAND [OPTIONS] [OPERANDS]\n"
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
}

Result<FsppadmArgs> ParseFsppadmArgs(const std::vector<std::string>& args) {
  FsppadmArgs a;
  if (args.size() < 2) return Status::Invalid("no command given (see fsppadm --help)");
  const std::string& word = args[1];
  if (word == "--help" || word == "-h" || word == "help") {
    a.help = true;
    if (word == "help" && args.size() > 2) {
      const CommandInfo* info = FindCommand(args[2]);
      if (info == nullptr) return Status::Invalid("unknown command \"" + args[2] + "\"");
      a.command = info->command;
    }
    return a;
  }
  if (word == "--version") {
    a.version = true;
    return a;
  }
  const CommandInfo* info = FindCommand(word);
  if (info == nullptr) {
    if (!word.empty() && word[0] == '-') {
      return Status::Invalid("the command comes first, before options such as " + word +
                             " (see fsppadm --help)");
    }
    return Status::Invalid("unknown command \"" + word + "\" (see fsppadm --help)");
  }
  a.command = info->command;
  std::vector<std::string> rest(args.begin() + 1, args.end());  // rest[0] = command name
  std::vector<OptionSpec> specs = SpecsFor(a.command);
  Result<std::vector<std::string>> operands = ParseOptions(
      rest, specs,
      [&a](const OptionSpec& spec, const char* value) { return OnOption(&a, spec, value); });
  if (!operands.ok()) {
    return Status::Invalid(std::string(info->name) + ": " + operands.status().message());
  }
  if (a.help || a.version) return a;
  Status st = CheckOperands(&a, std::move(*operands));
  if (!st.ok()) return Status::Invalid(std::string(info->name) + ": " + st.message());
  return a;
}

}  // namespace tierfs::cli
