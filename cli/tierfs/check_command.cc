#include "cli/tierfs/check_command.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "cli/common/control_client.h"
#include "cli/common/exit_codes.h"
#include "cli/common/mount_table.h"
#include "cli/common/option_parser.h"
#include "cli/common/tool_support.h"
#include "cli/common/units.h"
#include "cli/tierfs/check_target.h"
#include "fs/volume/daemon_lock.h"
#include "fs/check/fsck.h"
#include "fs/volume/fault_injecting_volume_io.h"
#include "fs/volume/volume_label.h"
#include "meta/metadata.h"

namespace tierfs::cli {
namespace {

using nlohmann::json;

// ---- check ----------------------------------------------------------------------------

struct CheckArgs {
  bool repair = false;
  bool trust_objects = false;
  bool delete_orphans = false;
  bool json = false;
  bool help = false;
  bool version = false;
  std::string operand;
};

Result<CheckArgs> ParseCheckArgs(const std::vector<std::string>& args) {
  CheckArgs a;
  const std::vector<OptionSpec> specs = {{"repair", 'r', false, ""},
                                         {"trust-objects", 0, false, ""},
                                         {"delete-orphans", 0, false, ""},
                                         {"json", 0, false, ""},
                                         {"help", 'h', false, ""},
                                         {"version", 0, false, ""}};
  Result<std::vector<std::string>> operands =
      ParseOptions(args, specs, [&a](const OptionSpec& spec, const char*) -> Status {
        const std::string name = spec.long_name;
        if (name == "repair") a.repair = true;
        if (name == "trust-objects") a.trust_objects = true;
        if (name == "delete-orphans") a.delete_orphans = true;
        if (name == "json") a.json = true;
        if (name == "help") a.help = true;
        if (name == "version") a.version = true;
        return Status::Ok();
      });
  if (!operands.ok()) return operands.status();
  if (a.help || a.version) return a;
  if (operands->size() != 1) return Status::Invalid("expected one MOUNT or METADATA_VOLUME_DIR");
  if (a.trust_objects && !a.repair) return Status::Invalid("--trust-objects needs --repair");
  if (a.delete_orphans && !a.repair) return Status::Invalid("--delete-orphans needs --repair");
  a.operand = (*operands)[0];
  return a;
}

int ExitStatusOf(const CheckReport& report) {
  // Something could not be read: the check did not run over all of it.
  if (report.Errors() > 0) return kCheckError;
  if (report.UnrepairedDamage() > 0) return kCheckDamage;
  if (report.repair && report.Repaired() > 0) return kCheckRepaired;
  return kCheckClean;
}

void PrintReport(const CliEnv& env, const std::string& shown, const CheckReport& report) {
  std::ostream& out = *env.out;
  size_t damage = 0, leftovers = 0, notes = 0, errors = 0, lost = 0;
  for (const CheckFinding& f : report.findings) {
    out << FindingSeverityName(f.severity) << " " << f.kind << ": " << f.message;
    if (report.repair) {
      if (f.repaired) {
        out << " -> repaired: " << f.repair;
      } else if (!f.repair.empty()) {
        out << " -> " << f.repair;
      } else if (f.severity == FindingSeverity::kDamage) {
        out << " -> not repaired";
      }
    }
    out << "\n";
    if (f.severity == FindingSeverity::kDamage) ++damage;
    if (f.severity == FindingSeverity::kLeftover) ++leftovers;
    if (f.severity == FindingSeverity::kNote) ++notes;
    if (f.severity == FindingSeverity::kError) ++errors;
    if (f.data_loss) ++lost;
  }
  out << "tierfs check: " << shown << (report.live ? " (mounted; checked by its daemon)" : "")
      << ": " << report.volumes << " volumes, " << report.files << " files, " << report.objects
      << " objects: ";
  if (report.findings.empty()) {
    out << "clean\n";
  } else {
    out << damage << " damaged, " << leftovers << " leftover, " << notes << " notes";
    if (errors > 0) out << ", " << errors << " unreadable (the check is incomplete)";
    if (report.repair) {
      out << "; " << report.Repaired() << " repaired, " << report.UnrepairedDamage()
          << " damaged not repaired";
    }
    out << "\n";
  }
  out.flush();
  if (errors > 0) {
    PrintError(env, "tierfs check",
               "could not read " + std::to_string(errors) +
                   (errors == 1 ? " part" : " parts") +
                   " of the volumes (see the lines with 'error unreadable'): what is there "
                   "was not checked, and nothing there was repaired");
  }
  if (lost > 0) {
    PrintError(env, "tierfs check",
               "WARNING: DATA LOST in " + std::to_string(lost) +
                   (lost == 1 ? " file" : " files") +
                   " whose bytes were missing (see the lines with DATA LOST)");
  }
}

// Offline: opens the database (read-only for a check) and runs the check here.
Result<CheckReport> CheckOffline(const Target& t, const CheckArgs& a) {
  const std::string db_path = MetadataDbPath(t.metadata_dir);
  Result<std::unique_ptr<meta::Metadata>> meta =
      a.repair ? meta::Metadata::Open(db_path, meta::MetadataOptions{})
               : meta::Metadata::OpenForCheck(db_path);
  if (!meta.ok()) return meta.status();
  CheckOptions options;
  options.repair = a.repair;
  options.trust_objects = a.trust_objects;
  options.delete_orphans = a.delete_orphans;
  options.database_path = db_path;
  // Test seam: TIERFS_FAULTS fails chosen volume I/O calls of the check, as of the
  // daemon (fs/volume/fault_injecting_volume_io.h); builds with test hooks only.
  std::unique_ptr<FaultInjectingVolumeIo> faults;
#ifdef TIERFS_TEST_HOOKS
  Result<std::unique_ptr<FaultInjectingVolumeIo>> created =
      FaultInjectingVolumeIo::FromEnvironment(VolumeIo::Posix());
  if (!created.ok()) return Status::Invalid("TIERFS_FAULTS: " + created.status().message());
  faults = std::move(*created);
  if (faults) options.io = faults.get();
#endif
  return CheckFileSystem(**meta, options);
}

}  // namespace

std::string CheckUsage() {
  return "usage: tierfs check [--json] MOUNT|METADATA_VOLUME_DIR\n"
         "       tierfs check --repair [--trust-objects] [--delete-orphans] [--json]\n"
         "                    METADATA_VOLUME_DIR\n"
         "Reconciles the metadata database of a tierfs file system with the objects on\n"
         "its volumes and reports one line per finding (damage, leftover or note).\n"
         "A mounted file system is checked by its daemon, read-only; an unmounted one is\n"
         "checked here, read-only (nothing on disk changes).\n"
         "  -r, --repair       fix what can be fixed without guessing (unmounted only):\n"
         "                     trim long objects, fix link counts, drop bad entries,\n"
         "                     clear relocation leftovers, size 0 for files whose object\n"
         "                     is missing (DATA LOST), orphan objects to /lost+found;\n"
         "                     it never deletes the only copy of any bytes\n"
         "  --trust-objects    with --repair, after restoring a database backup: a longer\n"
         "                     object sets its file's size instead of being trimmed\n"
         "  --delete-orphans   with --repair: delete orphan objects on a store that nothing\n"
         "                     claims (kept by default), each one named\n"
         "  --json             the report as JSON\n"
         "  -h, --help         this text\n"
         "  --version          print the version and exit\n"
         "Exit status: 0 clean, 1 repaired (nothing left), 2 usage, 3 daemon unreachable,\n"
         "4 damage found and not (all) repaired, 8 could not check (or repair refused:\n"
         "the file system is mounted). See tierfs-check(8) and docs/reliability.md.\n";
}

namespace {
// The check itself, once its arguments are parsed: the exit status.
int RunCheck(const CheckArgs& args, const CliEnv& env);
}  // namespace

int CheckMain(const std::vector<std::string>& args, const CliEnv& env) {
  constexpr char kTool[] = "tierfs check";
  Result<CheckArgs> a = ParseCheckArgs(args);
  if (std::optional<int> done =
          AnswerParseVersionHelp(a, env, kTool, CheckUsage, " (see tierfs check --help)",
                                 "tierfs")) {
    return *done;
  }
  return RunToolBody(env, kTool, [&] { return RunCheck(*a, env); });
}

namespace {

int RunCheck(const CheckArgs& args, const CliEnv& env) {
  constexpr char kTool[] = "tierfs check";
  const CheckArgs* a = &args;
  int exit_code = kCheckError;
  Result<Target> t = LocateTarget(env, a->operand,
                            a->repair ? DaemonLock::Mode::kExclusive : DaemonLock::Mode::kInspect,
                            &exit_code);
  if (!t.ok()) {
    PrintError(env, kTool, t.status().message());
    return exit_code;
  }
  Result<CheckReport> report = Status::Error(EIO, "no report");
  if (t->lock) {
    report = CheckOffline(*t, *a);
    if (!report.ok() && report.status().code() == EUCLEAN) {
      // The database itself is damaged: that is the finding.
      CheckReport r;
      r.repair = a->repair;
      CheckFinding f;
      f.kind = "database";
      f.message = report.status().message();
      if (a->repair) {
        f.repair = "not repaired: restore the database from a backup (docs/reliability.md)";
      }
      r.findings.push_back(f);
      report = std::move(r);
    }
  } else {
    if (a->repair) {
      std::string where = t->mount_point.empty() ? "" : " (fusermount3 -u " + t->mount_point + ")";
      PrintError(env, kTool,
                 "cannot repair " + t->shown + ": it is mounted; unmount it first" + where +
                     ", then run tierfs check --repair " + t->metadata_dir);
      return kCheckError;
    }
    ControlClient client = ClientFor(*t);
    Result<json> answer = client.Call(json{{"op", "check"}});
    if (!answer.ok()) {
      std::string hint;
      if (client.unreachable()) {
        hint = " (if its daemon died, unmount it with fusermount3 -u and check " +
               t->metadata_dir + ")";
      }
      PrintError(env, kTool, answer.status().message() + hint);
      return client.unreachable() ? kCheckUnreachable : kCheckError;
    }
    report = CheckReport::FromJson(*answer);
  }
  if (!report.ok()) {
    PrintError(env, kTool, t->shown + ": " + report.status().message());
    return kCheckError;
  }
  const int status = ExitStatusOf(*report);
  if (a->json) {
    json doc = report->ToJson();
    doc["target"] = t->shown;
    doc["exit_status"] = status;
    *env.out << doc.dump(2) << "\n";
  } else {
    PrintReport(env, t->shown, *report);
  }
  return status;
}

}  // namespace

}  // namespace tierfs::cli
