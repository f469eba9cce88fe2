// mkdstfs: carrying out a plan (see CreateFileSystem in cli/mkdstfs/mkdstfs.h).
//
// Every step that creates something first registers how to remove it; on
// failure the registered undos run newest first. An undo only ever removes what
// this run created: the label file, directories that did not exist before (and
// only with rmdir, which refuses a non-empty directory), the database files,
// the cron file. User files are never touched.
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <vector>

#include "cli/common/cron_entry.h"
#include "cli/mkdstfs/default_policy.h"
#include "cli/mkdstfs/mkdstfs.h"
#include "cli/common/tool_support.h"
#include "common/clock.h"
#include "fs/volume/volume_label.h"
#include "meta/metadata.h"
#include "policy/loader.h"

namespace tierfs::cli {
namespace {

class Undo {
 public:
  explicit Undo(std::ostream* verbose) : verbose_(verbose) {}
  ~Undo() {
    for (auto it = steps_.rbegin(); it != steps_.rend(); ++it) {
      if (verbose_ != nullptr) *verbose_ << "undo: " << it->first << "\n";
      it->second();
    }
  }
  Undo(const Undo&) = delete;
  Undo& operator=(const Undo&) = delete;

  void Push(std::string what, std::function<void()> action) {
    steps_.emplace_back(std::move(what), std::move(action));
  }
  void Commit() { steps_.clear(); }

 private:
  std::ostream* verbose_;
  std::vector<std::pair<std::string, std::function<void()>>> steps_;
};

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

void Say(std::ostream* verbose, const std::string& line) {
  if (verbose != nullptr) *verbose << line << "\n" << std::flush;
}

Result<std::string> NewUuid() {
  std::ifstream in("/proc/sys/kernel/random/uuid");
  std::string uuid;
  if (in >> uuid && uuid.size() == 36) return uuid;
  unsigned char b[16];
  if (getrandom(b, sizeof b, 0) != static_cast<ssize_t>(sizeof b)) {
    return Status::FromErrno("cannot generate a file system uuid");
  }
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
  char buf[40];
  std::snprintf(buf, sizeof buf,
                "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                b[15]);
  return std::string(buf);
}

Status WriteLabels(const CreateRequest& r, const std::string& uuid, Undo& undo,
                   std::ostream* verbose) {
  for (const meta::Volume& v : r.plan.volumes) {
    if (meta::IsObjectVolume(v)) continue;  // a bucket has no label
    const std::string dir = v.path;
    const bool had_top = Exists(TierfsDir(dir));
    const bool had_objects = Exists(ObjectsDir(dir));
    const bool had_tmp = Exists(TmpDir(dir));
    undo.Push("rm " + VolumeLabelPath(dir), [=] {
      unlink(VolumeLabelPath(dir).c_str());
      if (!had_tmp) rmdir(TmpDir(dir).c_str());
      if (!had_objects) rmdir(ObjectsDir(dir).c_str());
      if (!had_top) rmdir(TierfsDir(dir).c_str());
    });
    Say(verbose, "mklabel " + dir + "    # " + v.name + " of " + r.fs_name + ", uuid " + uuid);
    VolumeLabel label{uuid, r.fs_name, v.id, v.name};
    TIERFS_RETURN_IF_ERROR(WriteVolumeLabel(dir, label));
  }
  return Status::Ok();
}

Status CreateDatabase(const CreateRequest& r, const std::string& uuid, Undo& undo,
                      std::ostream* verbose) {
  const std::string& metadata_dir = r.plan.volumes.front().path;
  const std::string db = MetadataDbPath(metadata_dir);
  if (Exists(db)) return Status::Exists(db + " appeared while mkdstfs ran; not touching it");
  undo.Push("rm " + db, [db, metadata_dir] {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) unlink((db + suffix).c_str());
    // What a tierfs daemon that failed to mount leaves in the new .tierfs.
    for (const std::string& path : {DaemonLockPath(metadata_dir), ControlSocketPath(metadata_dir),
                                    TierfsDir(metadata_dir) + "/tierfs.log"}) {
      unlink(path.c_str());
    }
  });
  std::string volume_list;
  for (const meta::Volume& v : r.plan.volumes) {
    volume_list += " " + v.name + "=" + v.path + ":" + v.placement_class + ":" + v.role;
  }
  Say(verbose, "mkmeta " + db + volume_list);
  const Clock& clock = SystemClock::Get();
  meta::FsInfo info;
  info.uuid = uuid;
  info.name = r.fs_name;
  info.created_ns = clock.NowNanos();
  info.iostat_bucket_seconds = r.heat_bucket_seconds;
  TIERFS_RETURN_IF_ERROR(
      meta::Metadata::Format(db, info, r.plan.volumes, r.root_uid, r.root_gid, clock));
  // Format creates the file as the invoking user; mode 0600 keeps the namespace
  // (names, owners) from being read around tierfs's permission checks.
  chmod(db.c_str(), 0600);
  const std::string policy_xml = DefaultPolicyXml(r.plan.default_create_classes);
  policy::LoadResult loaded = policy::LoadPolicy(policy_xml);
  if (!loaded.ok()) {
    std::string why = loaded.errors.empty() ? "" : ": " + loaded.errors.front().ToString();
    return Status::Invalid("internal error: the default policy does not validate" + why);
  }
  Say(verbose, "fsppadm assign " + r.mount_point + " mkdstfs.xml    # " + kDefaultPolicyName +
                   ", stored in " + db);
  Result<std::unique_ptr<meta::Metadata>> meta = meta::Metadata::Open(db, meta::MetadataOptions{});
  if (!meta.ok()) return meta.status();
  meta::PolicyRecord record;
  record.name = kDefaultPolicyName;
  record.xml = policy_xml;
  record.assigned_ns = clock.NowNanos();
  return (*meta)->SetPolicy(record);
}

Status InstallCron(const CreateRequest& r, Undo& undo, std::ostream* verbose) {
  const std::string path = CronFilePath(r.fs_name);
  if (Exists(path)) return Status::Exists(path + " already exists");
  const std::string text =
      CronFileText(r.cron_schedule, r.fs_name, r.mount_point, r.fsppadm_binary);
  Say(verbose, "crontab " + path + "    # " + r.cron_schedule + " root " + r.fsppadm_binary +
                   " enforce " + r.mount_point);
  undo.Push("rm " + path, [path] { unlink(path.c_str()); });
  // cron reads files whole at any moment: write a hidden temporary, then rename.
  const std::string tmp = CronDir() + "/.tierfs-mkdstfs." + std::to_string(getpid());
  Status st = WriteTextFile(tmp, text);
  if (st.ok() && chmod(tmp.c_str(), 0644) != 0) st = Status::FromErrno("cannot chmod " + tmp);
  if (st.ok() && rename(tmp.c_str(), path.c_str()) != 0) {
    st = Status::FromErrno("cannot rename " + tmp + " to " + path);
  }
  if (!st.ok()) unlink(tmp.c_str());
  return st;
}

Status MakeMountPoint(const std::string& mount_point, Undo& undo, std::ostream* verbose) {
  if (Exists(mount_point)) {
    struct stat st;
    if (stat(mount_point.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return Status::Error(ENOTDIR, "the mount point " + mount_point + " is not a directory");
    }
    return Status::Ok();
  }
  Say(verbose, "/bin/mkdir -p " + mount_point);
  std::string path;
  size_t pos = 0;
  while (pos < mount_point.size()) {
    size_t next = mount_point.find('/', pos + 1);
    if (next == std::string::npos) next = mount_point.size();
    path = mount_point.substr(0, next);
    pos = next;
    if (path.empty() || path == "/") continue;
    if (mkdir(path.c_str(), 0755) == 0) {
      undo.Push("rmdir " + path, [path] { rmdir(path.c_str()); });
    } else if (errno != EEXIST) {
      return Status::FromErrno("cannot create the mount point " + path);
    }
  }
  return Status::Ok();
}

Status Mount(const CreateRequest& r, std::ostream* verbose) {
  std::vector<std::string> argv = {r.tierfs_binary};
  if (!r.mount_options.empty()) {
    argv.push_back("-o");
    argv.push_back(r.mount_options);
  }
  argv.push_back(r.plan.volumes.front().path);
  argv.push_back(r.mount_point);
  std::string line;
  for (const std::string& a : argv) line += (line.empty() ? "" : " ") + a;
  Say(verbose, line);
  std::vector<char*> cargv;
  for (std::string& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) return Status::FromErrno("cannot start tierfs");
  if (pid == 0) {
    execv(cargv[0], cargv.data());
    std::perror(cargv[0]);
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return Status::FromErrno("waiting for tierfs");
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return Status::Ok();
  std::string how = WIFEXITED(status) ? "exited with status " + std::to_string(WEXITSTATUS(status))
                                      : "was killed by signal " + std::to_string(WTERMSIG(status));
  return Status::Io("mounting failed: " + r.tierfs_binary + " " + how +
                    " (its message is above); the new file system was removed again");
}

}  // namespace

Result<std::string> CreateFileSystem(const CreateRequest& request, std::ostream* verbose) {
  if (request.plan.volumes.empty()) return Status::Invalid("no volumes");
  Result<std::string> uuid = NewUuid();
  if (!uuid.ok()) return uuid.status();
  Say(verbose, "uuidgen    # " + *uuid);

  Undo undo(verbose);
  TIERFS_RETURN_IF_ERROR(WriteLabels(request, *uuid, undo, verbose));
  TIERFS_RETURN_IF_ERROR(CreateDatabase(request, *uuid, undo, verbose));
  if (!request.cron_schedule.empty()) TIERFS_RETURN_IF_ERROR(InstallCron(request, undo, verbose));
  if (request.mount) {
    TIERFS_RETURN_IF_ERROR(MakeMountPoint(request.mount_point, undo, verbose));
    TIERFS_RETURN_IF_ERROR(Mount(request, verbose));
  }
  undo.Commit();
  return std::move(*uuid);
}

}  // namespace tierfs::cli
