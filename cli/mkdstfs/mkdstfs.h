// mkdstfs: sets up a tierfs file system from a list of directories and mounts it
// (docs/commands.md "mkdstfs", after the Veritas paper's mkdstfs, with
// directories in place of VxVM volumes):
//
//   mkdstfs [-f] [-v] [-h] [-m MOUNTOPTS] [--cron SCHEDULE] [--heat-bucket SECONDS]
//           [--no-mount] [--endpoint URL --credentials FILE [--region REGION]
//           [--addressing path|virtual] [--ca-file FILE]] MOUNTPOINT FSNAME DIR[:CLASS]...
//   (a DIR may be s3://BUCKET/PREFIX:CLASS: an object volume, cli/common/object_volume_add.h)
//   mkdstfs --version
//
// Steps: check every DIR (exists, is a directory, is not already a tierfs
// volume), detect media types, plan the volume set (cli/mkdstfs/mkdstfs_plan.h), write
// the volume labels, create the metadata database with the root directory
// owned by the invoking user, store the default policy (cli/mkdstfs/default_policy.h),
// optionally install a cron entry (cli/common/cron_entry.h), mkdir -p MOUNTPOINT and
// run `tierfs [-o MOUNTOPTS] METADATA_DIR MOUNTPOINT`. If a step fails after
// the first label is written, everything mkdstfs created is removed again; it
// never deletes anything it did not create. Not thread-safe.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "cli/common/cli_env.h"
#include "cli/mkdstfs/mkdstfs_plan.h"
#include "common/status.h"
#include "meta/records.h"

namespace tierfs::cli {

struct MkdstfsArgs {
  bool force = false;         // -f: proceed without an ssd or mixed volume
  bool verbose = false;       // -v: print every step as a command line
  bool help = false;          // -h, --help
  bool version = false;       // --version
  bool mount = true;          // --no-mount clears it
  std::string mount_options;  // -m, passed as tierfs -o
  std::string cron_schedule;  // --cron
  int64_t heat_bucket_seconds = meta::kDefaultIoBucketSeconds;  // --heat-bucket, 1..86400 s
  std::string mount_point;
  std::string fs_name;
  std::vector<std::string> volumes;  // DIR[:CLASS] operands, in order (s3:// ones included)
  std::string endpoint;              // --endpoint, for s3://BUCKET/PREFIX:CLASS operands
  std::string credentials;           // --credentials, for s3:// operands
  std::string region;                // --region, for s3:// operands
  std::string addressing;            // --addressing path|virtual, for s3:// operands
  std::string ca_file;               // --ca-file, for s3:// operands
};

// Parses {"mkdstfs", ...}. EINVAL naming the bad option or operand.
Result<MkdstfsArgs> ParseMkdstfsArgs(const std::vector<std::string>& args);
std::string MkdstfsUsage();

// What ProbeVolumes does with a directory that carries a live tierfs label (a
// retired one, left by `fsvoladm remove`, is always free to use).
enum class LabelledDirs {
  kRefuse,        // EEXIST: mkdstfs creating a file system never reuses a volume
  kKeepLabelled,  // record it in VolumeProbe::label (adding to an existing file system)
};

// Checks each DIR[:CLASS] operand and detects its media type (unless detection
// is impossible: then media_type stays "" and detect_error says why). Errors,
// naming the directory: ENOENT (missing), ENOTDIR, EEXIST (already carries a
// live tierfs label, with kRefuse, or a database: mkdstfs never reuses a
// volume, even with -f), EINVAL (a bad CLASS or an unreadable label).
// `sysfs_root` is for tests.
Result<std::vector<VolumeProbe>> ProbeVolumes(const std::vector<std::string>& operands,
                                              const std::string& sysfs_root = "/sys",
                                              LabelledDirs labelled = LabelledDirs::kRefuse);

// What CreateFileSystem does.
struct CreateRequest {
  MkdstfsPlan plan;
  std::string fs_name;
  std::string mount_point;    // absolute
  std::string mount_options;  // "" = none
  std::string cron_schedule;  // "" = no cron entry
  // FsInfo::iostat_bucket_seconds, 1..86400 s (Format refuses others).
  int64_t heat_bucket_seconds = meta::kDefaultIoBucketSeconds;
  bool mount = true;
  std::string tierfs_binary;   // absolute path, when mount
  std::string fsppadm_binary;  // for the cron entry
  uid_t root_uid = 0;          // owner of the root directory
  gid_t root_gid = 0;
};

// Carries out the plan (labels, database, policy, cron entry, mount point,
// mount), printing each step as a command line on `verbose` when it is not
// null. On failure removes what it created and returns the error. Returns the
// new file system's uuid.
Result<std::string> CreateFileSystem(const CreateRequest& request, std::ostream* verbose);

// Runs mkdstfs; exit status 0 ok, 1 the creation failed (and was undone),
// 2 usage error or a refused directory.
int MkdstfsMain(const std::vector<std::string>& args, const CliEnv& env);

}  // namespace tierfs::cli
