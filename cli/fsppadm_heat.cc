// fsppadm heatbucket: changes the length of a mounted file system's iostat
// buckets, its heat resolution (tierfs extension, issue 10; docs/policies.md
// "Temperatures"). The daemon refuses a length that a PERIOD of the assigned
// policy is shorter than; otherwise it restarts the counts with the new length
// (control op heat_bucket, fs/control/control_protocol.md).
#include "cli/exit_codes.h"
#include "cli/fsppadm_commands.h"
#include "cli/json_fields.h"
#include "cli/text_table.h"

namespace tierfs::cli::fsppadm {

int RunHeatBucket(const FsppadmArgs& args, const CliEnv& env) {
  int exit_code = kExitOk;
  std::optional<Target> target = Connect(env, args.mounts[0], &exit_code);
  if (!target) return exit_code;
  std::optional<nlohmann::json> reply = CallOrReport(
      env, *target, nlohmann::json{{"op", "heat_bucket"}, {"seconds", args.heat_bucket_seconds}},
      &exit_code);
  if (!reply) return exit_code;
  *env.out << PrintableField(target->where.mount.mount_point) << ": heat bucket "
           << JsonInt(*reply, "old_seconds") << " s -> " << JsonInt(*reply, "seconds")
           << " s; I/O counts restarted (temperatures start again from zero)\n";
  return exit_code;
}

}  // namespace tierfs::cli::fsppadm
