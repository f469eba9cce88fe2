// mkdstfs: arguments, checks of the directories, and the main function. The
// creation itself (and its rollback) is in mkdstfs_create.cc.
#include "cli/mkdstfs/mkdstfs.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <optional>

#include "cli/common/control_client.h"
#include "cli/common/cron_entry.h"
#include "cli/mkdstfs/default_policy.h"
#include "cli/common/json_fields.h"
#include "cli/common/exit_codes.h"
#include "cli/common/mount_table.h"
#include "cli/common/object_volume_add.h"
#include "cli/common/option_parser.h"
#include "cli/common/text_table.h"
#include "cli/common/tool_support.h"
#include "cli/common/units.h"
#include "cli/version.h"
#include "cli/common/volume_add.h"
#include "cli/common/volume_table.h"
#include "fs/volume/media_type.h"
#include "fs/volume/object_volume.h"
#include "fs/volume/volume_label.h"

namespace tierfs::cli {
namespace {

constexpr char kTool[] = "mkdstfs";

// The s3:// operands of `a` as volume rows (cli/common/object_volume_add.h), and the
// other operands in *dirs. EINVAL naming the operand or option.
Result<std::vector<meta::Volume>> SplitObjectVolumes(const MkdstfsArgs& a,
                                                     std::vector<std::string>* dirs) {
  std::vector<meta::Volume> stores;
  const ObjectStoreOptions store{a.endpoint, a.credentials, a.region, a.addressing, a.ca_file};
  for (const std::string& operand : a.volumes) {
    if (!IsObjectVolumeOperand(operand)) {
      dirs->push_back(operand);
      continue;
    }
    Result<meta::Volume> row = ParseObjectVolumeOperand(operand, store);
    if (!row.ok()) return row.status();
    stores.push_back(*row);
  }
  if (stores.empty() && store.any()) {
    return Status::Invalid("--endpoint, --credentials, --region, --addressing and --ca-file are "
                           "for s3://BUCKET/PREFIX:CLASS volumes");
  }
  return stores;
}

// `name` next to this executable, else the first executable `name` on PATH; ""
// when there is none.
std::string FindBinary(const std::string& name) {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    std::string dir(self, static_cast<size_t>(n));
    dir.resize(dir.find_last_of('/') + 1);
    std::string candidate = dir + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  const char* path = getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + name;
    struct stat st;
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    start = end + 1;
  }
  return "";
}

bool IsUnderOrSame(const std::string& dir, const std::string& path) {
  if (dir == "/") return true;
  return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
                         path[dir.size()] == '/');
}

// The mount point, absolute and (as far as it exists) without symlinks.
std::string ResolveMountPoint(const std::string& mount_point) {
  Result<std::string> real = ResolvePath(mount_point);
  return real.ok() ? *real : NormalizePath(mount_point);
}

// The tierfs mounted exactly on `mount_point` (resolved), if any.
std::optional<TierfsMount> TierfsMountedAt(const CliEnv& env, const std::string& mount_point) {
  Result<std::vector<MountEntry>> mounts = ReadMountInfo(env.mountinfo_path);
  if (!mounts.ok()) return std::nullopt;
  std::optional<MountEntry> mount = TierfsMountOn(*mounts, mount_point);
  if (!mount) return std::nullopt;
  return ToTierfsMount(*mount);
}

// mkdstfs on a file system that exists and is mounted on MOUNTPOINT (docs/commands.md
// "mkdstfs": as VxFS's mkdstfs does for an existing volume set, volumes are added,
// classes re-applied, the policy re-assigned): each DIR that is not yet a volume
// is added online (the code of `fsvoladm add`, cli/common/volume_add.h); a DIR that
// already is one gets the CLASS given for it (setclass); mkdstfs's own default
// policy, if it is still the assigned one, is regenerated for the classes the set
// now has. A policy the administrator assigned is left alone.
int AddToExisting(const MkdstfsArgs& a, const CliEnv& env, const TierfsMount& mount) {
  using nlohmann::json;
  ControlClient client(mount);
  auto report = [&](const Status& st) {
    PrintError(env, kTool, CallErrorMessage(client, st));
    return client.ExitCodeFor(st);
  };
  if (!a.cron_schedule.empty()) {
    PrintError(env, kTool,
               "--cron applies only when mkdstfs creates a file system; " + mount.mount_point +
                   " already holds " + a.fs_name + " (add the schedule to cron yourself)");
    return kExitUsage;
  }
  Result<json> ping = client.Call(json{{"op", "ping"}});
  if (!ping.ok()) return report(ping.status());
  if (JsonString(*ping, "fs_name") != a.fs_name) {
    PrintError(env, kTool,
               mount.mount_point + " holds tierfs file system " + JsonString(*ping, "fs_name") +
                   ", not " + a.fs_name + "; nothing changed");
    return kExitUsage;
  }
  const std::string uuid = JsonString(*ping, "fs_uuid");
  std::vector<std::string> dirs;
  Result<std::vector<meta::Volume>> stores = SplitObjectVolumes(a, &dirs);
  if (!stores.ok()) {
    PrintError(env, kTool, stores.status().message());
    return kExitUsage;
  }
  Result<std::vector<VolumeProbe>> probes = ProbeVolumes(dirs, "/sys",
                                                         LabelledDirs::kKeepLabelled);
  if (!probes.ok()) {
    PrintError(env, kTool, probes.status().message());
    return kExitUsage;
  }
  Result<json> before = client.Call(json{{"op", "volumes"}});
  if (!before.ok()) return report(before.status());
  std::ostream* verbose = a.verbose ? env.out : nullptr;
  // Check everything first: a refused DIR changes nothing.
  std::vector<const VolumeProbe*> to_add;
  std::vector<std::pair<std::string, std::string>> reclass;  // volume name, class
  for (const VolumeProbe& p : *probes) {
    if (p.label) {
      const json* member = nullptr;
      for (const json& v : JsonArray(*before, "volumes")) {
        if (p.label->fs_uuid == uuid && JsonUint(v, "id") == p.label->volume_id) member = &v;
      }
      if (member == nullptr) {
        PrintError(env, kTool,
                   p.spec.dir + " is already a tierfs volume (volume " + p.label->volume_name +
                       " of file system " +
                       (p.label->fs_name.empty() ? p.label->fs_uuid : p.label->fs_name) +
                       "); nothing changed");
        return kExitUsage;
      }
      if (!p.spec.placement_class.empty() &&
          p.spec.placement_class != JsonString(*member, "class")) {
        reclass.emplace_back(JsonString(*member, "name"), p.spec.placement_class);
      }
      continue;
    }
    if (Result<meta::Volume> row = PlanVolume(p); !row.ok()) {
      PrintError(env, kTool, row.status().message());
      return kExitUsage;
    }
    to_add.push_back(&p);
  }
  for (const VolumeProbe* p : to_add) {
    Result<json> added = AddVolumeOnline(client, *p, verbose);
    if (!added.ok()) return report(Status::Error(added.status().code(), p->spec.dir + ": " +
                                                                     added.status().message()));
    if (verbose == nullptr) *env.out << AddedVolumeLine(*added) << "\n";
  }
  for (const meta::Volume& row : *stores) {
    bool member = false;
    for (const json& v : JsonArray(*before, "volumes")) {
      if (JsonString(v, "path") == row.path) member = true;
    }
    if (member) continue;  // already one of its volumes
    Result<json> added = AddObjectVolumeOnline(client, row, verbose);
    if (!added.ok()) return report(Status::Error(added.status().code(), row.path + ": " +
                                                                     added.status().message()));
    if (verbose == nullptr) *env.out << AddedVolumeLine(*added) << "\n";
  }
  for (const auto& [name, cls] : reclass) {
    if (verbose != nullptr) {
      *verbose << "fsvoladm setclass " << mount.mount_point << " " << name << " " << cls << "\n";
    }
    Result<json> changed =
        client.Call(json{{"op", "volume_setclass"}, {"volume", name}, {"class", cls}});
    if (!changed.ok()) return report(changed.status());
  }
  Result<json> after = client.Call(json{{"op", "volumes"}});
  if (!after.ok()) return report(after.status());
  Result<json> policy = client.Call(json{{"op", "get_policy"}});
  if (!policy.ok()) return report(policy.status());
  const json& assigned = JsonObject(*policy, "policy");
  if (JsonString(assigned, "name") == kDefaultPolicyName) {
    std::vector<meta::Volume> rows;
    for (const json& v : JsonArray(*after, "volumes")) {
      meta::Volume row;
      row.placement_class = JsonString(v, "class");
      rows.push_back(row);
    }
    const std::string xml = DefaultPolicyXml(DefaultCreateClasses(rows));
    if (xml != JsonString(assigned, "xml")) {
      if (verbose != nullptr) {
        *verbose << "fsppadm assign " << mount.mount_point << " mkdstfs.xml    # "
                 << kDefaultPolicyName << " for the new classes\n";
      }
      Result<json> assigned_now = client.Call(json{{"op", "assign"}, {"xml", xml}});
      if (!assigned_now.ok()) return report(assigned_now.status());
    }
  }
  if (verbose == nullptr) {
    *env.out << "tierfs file system " << a.fs_name << " (" << uuid << ") on " << mount.mount_point
             << ":\n"
             << VolumesTable(*after);
  }
  return kExitOk;
}

}  // namespace

std::string MkdstfsUsage() {
  return "usage: mkdstfs [-f] [-v] [-h] [-m MOUNTOPTS] [--cron SCHEDULE]\n"
         "               [--heat-bucket SECONDS] [--no-mount] [--endpoint URL --credentials FILE\n"
         "               [--region REGION] [--addressing path|virtual] [--ca-file FILE]]\n"
         "               MOUNTPOINT FSNAME DIR[:CLASS]...\n"
         "Creates a tierfs file system over the directories DIR (one per device) and mounts\n"
         "it on MOUNTPOINT. When FSNAME is already mounted on MOUNTPOINT, adds each DIR that\n"
         "is not yet one of its volumes (as fsvoladm add does), gives a DIR that is one the\n"
         "CLASS given for it, and regenerates mkdstfs's default policy if it is still the\n"
         "assigned one. Each DIR's placement class is its detected media type (ssd, hdd,\n"
         "mixed) unless CLASS is given. The first ssd DIR (else the first mixed one) holds\n"
         "the metadata and is tagged class ssdmetadata; the default policy IOTEMP_Policy\n"
         "places new files on hdd, and on ssdmetadata only when hdd is full.\n"
         "  -f, --force      proceed without any ssd or mixed DIR (the first DIR holds the\n"
         "                   metadata); never makes mkdstfs reuse a tierfs volume\n"
         "                   (default: refuse)\n"
         "  -v, --verbose    print every step as a command line\n"
         "  -m MOUNTOPTS     mount options, comma separated, passed to tierfs as\n"
         "                   -o MOUNTOPTS (allow_other,ro...; default: none)\n"
         "  --cron SCHEDULE  install /etc/cron.d/tierfs-FSNAME running `fsppadm enforce\n"
         "                   MOUNTPOINT` on SCHEDULE, a crontab time (\"0 * * * *\",\n"
         "                   @daily...; default: no schedule)\n"
         "  --heat-bucket SECONDS\n"
         "                   length of the buckets I/O is counted in, 1 to 86400 s: no\n"
         "                   policy PERIOD may be shorter (default 3600; fsppadm\n"
         "                   heatbucket changes it later)\n"
         "  --no-mount       create the file system but do not mount it (default: mount)\n"
         "  --endpoint URL   the S3 store (http[s]://HOST[:PORT]) of the\n"
         "                   s3://BUCKET/PREFIX:CLASS operands: object volumes, which\n"
         "                   take files by relocation only (the bucket must exist)\n"
         "  --credentials FILE\n"
         "                   the keys for --endpoint (access_key = ..., secret_key = ...;\n"
         "                   mode 0600 or 0400; optional session_token = ...), read by\n"
         "                   the daemon at every mount\n"
         "  --region REGION  the bucket's region, which requests are signed for (default\n"
         "                   us-east-1); a wrong one is refused, naming the right one\n"
         "  --addressing path|virtual\n"
         "                   ENDPOINT/BUCKET/KEY (path, the default) or BUCKET.HOST/KEY\n"
         "  --ca-file FILE   PEM CA certificates that an https --endpoint's certificate\n"
         "                   must verify against (default: the system's)\n"
         "  -h, --help       this text\n"
         "  --version        print the version and exit\n"
         "Exit status: 0 ok, 1 the creation failed (and was undone), 2 usage error or a\n"
         "directory that cannot be used.\n";
}

Result<MkdstfsArgs> ParseMkdstfsArgs(const std::vector<std::string>& args) {
  MkdstfsArgs a;
  std::vector<OptionSpec> specs = {{"force", 'f', false, ""},     {"verbose", 'v', false, ""},
                                   {"help", 'h', false, ""},      {nullptr, 'm', true, "MOUNTOPTS"},
                                   {"cron", 0, true, "SCHEDULE"}, {"no-mount", 0, false, ""},
                                   {"heat-bucket", 0, true, "SECONDS"},
                                   {"endpoint", 0, true, "URL"},
                                   {"credentials", 0, true, "FILE"},
                                   {"region", 0, true, "REGION"},
                                   {"addressing", 0, true, "path|virtual"},
                                   {"ca-file", 0, true, "FILE"},
                                   {"version", 0, false, ""}};
  Result<std::vector<std::string>> operands =
      ParseOptions(args, specs, [&a](const OptionSpec& spec, const char* value) -> Status {
        switch (spec.short_name) {
          case 'f':
            a.force = true;
            return Status::Ok();
          case 'v':
            a.verbose = true;
            return Status::Ok();
          case 'h':
            a.help = true;
            return Status::Ok();
          case 'm':
            a.mount_options = value;
            return Status::Ok();
          default:
            break;
        }
        if (std::string(spec.long_name) == "version") {
          a.version = true;
        } else if (std::string(spec.long_name) == "endpoint") {
          a.endpoint = value;
        } else if (std::string(spec.long_name) == "credentials") {
          a.credentials = value;
        } else if (std::string(spec.long_name) == "region") {
          a.region = value;
        } else if (std::string(spec.long_name) == "addressing") {
          a.addressing = value;
        } else if (std::string(spec.long_name) == "ca-file") {
          a.ca_file = value;
        } else if (std::string(spec.long_name) == "cron") {
          Status st = CheckCronSchedule(value);
          if (!st.ok()) return Status::Invalid("--cron: " + st.message());
          a.cron_schedule = value;
        } else if (std::string(spec.long_name) == "heat-bucket") {
          Result<uint64_t> seconds = ParseCount(value);
          if (!seconds.ok() || *seconds < uint64_t{meta::kMinIoBucketSeconds} ||
              *seconds > uint64_t{meta::kMaxIoBucketSeconds}) {
            return Status::Invalid("--heat-bucket: SECONDS must be 1 to 86400, got " +
                                   std::string(value));
          }
          a.heat_bucket_seconds = static_cast<int64_t>(*seconds);
        } else {
          a.mount = false;
        }
        return Status::Ok();
      });
  if (!operands.ok()) return operands.status();
  if (a.help || a.version) return a;
  if (operands->size() < 3) return Status::Invalid("expected MOUNTPOINT FSNAME DIR[:CLASS]...");
  a.mount_point = (*operands)[0];
  a.fs_name = (*operands)[1];
  a.volumes.assign(operands->begin() + 2, operands->end());
  TIERFS_RETURN_IF_ERROR(CheckFsName(a.fs_name));
  if (a.mount_point.find_first_of("\n\r") != std::string::npos) {
    return Status::Invalid("MOUNTPOINT may not contain a line break");
  }
  if (!a.mount && !a.mount_options.empty()) {
    return Status::Invalid("-m has no effect with --no-mount");
  }
  return a;
}

Result<std::vector<VolumeProbe>> ProbeVolumes(const std::vector<std::string>& operands,
                                              const std::string& sysfs_root,
                                              LabelledDirs labelled) {
  std::vector<VolumeProbe> probes;
  for (const std::string& operand : operands) {
    Result<VolumeSpec> spec = ParseVolumeSpec(operand);
    if (!spec.ok()) return spec.status();
    struct stat st;
    if (stat(spec->dir.c_str(), &st) != 0) {
      int err = errno;
      if (err == ENOENT) return Status::NotFound(spec->dir + " does not exist");
      return Status::FromErrno(err, spec->dir);
    }
    if (!S_ISDIR(st.st_mode)) return Status::Error(ENOTDIR, spec->dir + " is not a directory");
    Result<std::string> real = ResolvePath(spec->dir);
    if (!real.ok()) return real.status();
    spec->dir = *real;
    struct stat label_st;
    std::optional<VolumeLabel> live_label;
    if (lstat(VolumeLabelPath(spec->dir).c_str(), &label_st) == 0) {
      Result<VolumeLabel> label = ReadVolumeLabel(spec->dir);
      const bool retired = label.ok() && label->retired;  // left by fsvoladm remove: free
      if (!retired && (labelled == LabelledDirs::kRefuse || !label.ok())) {
        std::string whose =
            label.ok() ? " (volume " + label->volume_name + " of file system " +
                             (label->fs_name.empty() ? label->fs_uuid : label->fs_name) + ")"
                       : "";
        return Status::Exists(spec->dir + " is already a tierfs volume" + whose +
                              "; a volume is never reused. Remove its .tierfs directory yourself "
                              "if that file system is gone (or `fsvoladm remove` it).");
      }
      if (!retired) live_label = *label;
    }
    if (!live_label && lstat(MetadataDbPath(spec->dir).c_str(), &label_st) == 0) {
      return Status::Exists(spec->dir + " holds a tierfs metadata database (" +
                            MetadataDbPath(spec->dir) + ") but no label; refusing to reuse it");
    }
    VolumeProbe probe;
    probe.label = std::move(live_label);
    probe.spec = std::move(*spec);
    probe.device = static_cast<uint64_t>(st.st_dev);
    probe.identity = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
    Result<std::string> media = DetectMediaType(probe.spec.dir, sysfs_root);
    if (media.ok()) {
      probe.media_type = *media;
    } else {
      probe.detect_error = media.status().message();
    }
    probes.push_back(std::move(probe));
  }
  return probes;
}

namespace {

int MkdstfsBody(const std::vector<std::string>& args, const CliEnv& env) {
  Result<MkdstfsArgs> parsed = ParseMkdstfsArgs(args);
  if (std::optional<int> ended = AnswerParseVersionHelp(parsed, env, kTool, MkdstfsUsage,
                                                        " (see mkdstfs --help)")) {
    return *ended;
  }
  const MkdstfsArgs& a = *parsed;
  std::ostream* verbose = a.verbose ? env.out : nullptr;
  if (std::optional<TierfsMount> existing =
          TierfsMountedAt(env, ResolveMountPoint(a.mount_point))) {
    return AddToExisting(a, env, *existing);
  }

  std::vector<std::string> dirs;
  Result<std::vector<meta::Volume>> stores = SplitObjectVolumes(a, &dirs);
  if (!stores.ok()) {
    PrintError(env, kTool, stores.status().message());
    return kExitUsage;
  }
  if (dirs.empty()) {
    // A new file system's first volume holds the metadata: a directory.
    PrintError(env, kTool, "an object volume cannot hold the metadata: give a directory too");
    return kExitUsage;
  }
  Result<std::vector<VolumeProbe>> probes = ProbeVolumes(dirs);
  if (!probes.ok()) {
    // A volume of FSNAME itself: the file system exists but is not mounted here.
    Result<std::vector<VolumeProbe>> labelled =
        ProbeVolumes(dirs, "/sys", LabelledDirs::kKeepLabelled);
    if (labelled.ok()) {
      for (const VolumeProbe& p : *labelled) {
        if (p.label && p.label->fs_name == a.fs_name) {
          PrintError(env, kTool,
                     probes.status().message() + " File system " + a.fs_name +
                         " is not mounted on " + ResolveMountPoint(a.mount_point) +
                         ": to add volumes to it, mount it there (tierfs METADATA_DIR "
                         "MOUNTPOINT) and run mkdstfs again. Nothing changed.");
          return kExitUsage;
        }
      }
    }
    PrintError(env, kTool, probes.status().message());
    return kExitUsage;
  }
  if (verbose != nullptr) {
    for (const VolumeProbe& p : *probes) {
      *verbose << "mediatype " << p.spec.dir << "    # "
               << (p.media_type.empty() ? "unknown: " + p.detect_error : p.media_type) << "\n";
    }
  }
  Result<MkdstfsPlan> plan = PlanVolumes(*probes, a.force);
  if (!plan.ok()) {
    PrintError(env, kTool, plan.status().message());
    return kExitUsage;
  }
  for (const std::string& w : plan->warnings) PrintError(env, kTool, "warning: " + w);
  // Object volumes follow the directories; each store must answer for its bucket
  // (a missing bucket is named) before anything is created.
  for (meta::Volume row : *stores) {
    row.id = static_cast<uint32_t>(plan->volumes.size() + 1);
    row.name = "vol" + std::to_string(row.id);
    row.state = "online";
    if (verbose != nullptr) {
      *verbose << "s3 head-bucket " << row.path << " --endpoint " << row.endpoint;
      if (!row.region.empty()) *verbose << " --region " << row.region;
      *verbose << "\n";
    }
    auto store = ObjectVolume::Open(row);
    Status st = store.ok() ? (*store)->CheckUsable() : store.status();
    if (!st.ok()) {
      const std::string bucket = row.path.substr(5, row.path.find('/', 5) - 5);
      PrintError(env, kTool, st.code() == ENOENT ? "bucket " + bucket + " does not exist at " +
                                                       row.endpoint + " (create it first)"
                                                 : row.path + ": " + st.message());
      return kExitUsage;
    }
    plan->volumes.push_back(row);
  }

  CreateRequest request;
  request.plan = std::move(*plan);
  request.fs_name = a.fs_name;
  request.mount_point = ResolveMountPoint(a.mount_point);
  request.mount_options = a.mount_options;
  request.cron_schedule = a.cron_schedule;
  request.heat_bucket_seconds = a.heat_bucket_seconds;
  request.mount = a.mount;
  request.root_uid = getuid();
  request.root_gid = getgid();
  for (const meta::Volume& v : request.plan.volumes) {
    if (IsUnderOrSame(v.path, request.mount_point) ||
        IsUnderOrSame(request.mount_point, v.path)) {
      PrintError(env, kTool,
                 "the mount point " + request.mount_point + " and the volume " + v.path +
                     " may not contain one another");
      return kExitUsage;
    }
  }
  if (a.mount) {
    request.tierfs_binary = FindBinary("tierfs");
    if (request.tierfs_binary.empty()) {
      PrintError(env, kTool,
                 "cannot find the tierfs program next to mkdstfs or in PATH (use --no-mount "
                 "and mount later with tierfs)");
      return kExitUsage;
    }
  }
  if (!a.cron_schedule.empty()) {
    request.fsppadm_binary = FindBinary("fsppadm");
    if (request.fsppadm_binary.empty()) request.fsppadm_binary = "fsppadm";
    std::string cron_file = CronFilePath(a.fs_name);
    struct stat st;
    if (lstat(cron_file.c_str(), &st) == 0) {
      PrintError(env, kTool, cron_file + " already exists; remove it or choose another FSNAME");
      return kExitUsage;
    }
  }

  Result<std::string> uuid = CreateFileSystem(request, verbose);
  if (!uuid.ok()) {
    PrintError(env, kTool, uuid.status().message());
    return kExitFailed;
  }
  if (verbose == nullptr) {
    *env.out << "tierfs file system " << a.fs_name << " (" << *uuid << ") "
             << (a.mount ? "mounted on " : "created for ") << request.mount_point << "\n";
    TextTable table({"VOLUME", "CLASS", "MEDIA", "ROLE", "DIRECTORY"});
    for (const meta::Volume& v : request.plan.volumes) {
      table.AddRow({v.name, v.placement_class,
                    v.media_type + (v.media_type_source == "configured" ? " (given)" : ""),
                    v.role, v.path});
    }
    *env.out << table.Render();
  }
  return kExitOk;
}

}  // namespace

int MkdstfsMain(const std::vector<std::string>& args, const CliEnv& env) {
  return RunToolBody(env, kTool, [&] { return MkdstfsBody(args, env); });
}

}  // namespace tierfs::cli
