#include "fs/check/db_backup.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>

#include "common/unique_fd.h"
#include "fs/volume/volume_label.h"

namespace tierfs {
namespace {

// `path` is `dir` or below it (both absolute, lexically normal).
bool IsUnder(const std::string& path, const std::string& dir) {
  if (dir.empty()) return false;
  if (dir == "/") return true;
  return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
                         path[dir.size()] == '/');
}

Status FsyncPath(const std::string& path, int flags) {
  UniqueFd fd(open(path.c_str(), flags | O_CLOEXEC));
  if (fd.get() < 0) return Status::FromErrno("open " + path);
  if (fsync(fd.get()) != 0) return Status::FromErrno("fsync " + path);
  return Status::Ok();
}

}  // namespace

Result<std::string> DefaultBackupPath(const std::vector<meta::Volume>& volumes,
                                      const std::string& fs_uuid) {
  if (volumes.size() < 2) {
    return Status::Invalid("this file system has one volume: give the backup a destination "
                           "outside it");
  }
  const meta::Volume& v = volumes[1];  // volumes[0] holds the database
  Result<VolumeLabel> label = ReadVolumeLabel(v.path);
  if (!label.ok()) {
    return Status::Error(label.status().code(), "no backup written to volume " + v.name + ": " +
                                                    label.status().message());
  }
  if (label->fs_uuid != fs_uuid || label->volume_id != v.id) {
    return Status::Invalid("no backup written to volume " + v.name + ": the label in " + v.path +
                           " names another volume or file system");
  }
  return TierfsDir(v.path) + "/" + kBackupFileName;
}

Status CheckBackupDestination(const std::string& dest, const std::string& mountpoint,
                              const std::string& db_path) {
  if (dest.empty() || dest[0] != '/') {
    return Status::Invalid("backup destination " + dest + " is not an absolute path");
  }
  if (IsUnder(dest, mountpoint)) {
    return Status::Invalid("backup destination " + dest + " is inside the file system (" +
                           mountpoint + "): write it outside the mount");
  }
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    if (dest == db_path + suffix) {
      return Status::Invalid("backup destination " + dest + " is the live database");
    }
  }
  struct stat d, live;
  if (stat(dest.c_str(), &d) == 0 && stat(db_path.c_str(), &live) == 0 && d.st_dev == live.st_dev &&
      d.st_ino == live.st_ino) {
    return Status::Invalid("backup destination " + dest + " is the live database " + db_path);
  }
  return Status::Ok();
}

Result<BackupResult> BackupDatabase(meta::Metadata& meta, const std::string& dest,
                                    const std::function<void(uint64_t, uint64_t)>& progress) {
  const auto start = std::chrono::steady_clock::now();
  const size_t slash = dest.rfind('/');
  const std::string dir = slash == 0 ? "/" : dest.substr(0, slash);
  std::string tmp = dest + ".tmp-XXXXXX";
  {
    UniqueFd fd(mkostemp(tmp.data(), O_CLOEXEC));  // mode 0600: the namespace is private
    if (fd.get() < 0) return Status::FromErrno("create " + dest + ".tmp-*");
  }
  BackupResult result;
  result.path = dest;
  Status st = meta.BackupTo(tmp, 256, [&](uint64_t done, uint64_t total) {
    result.pages = total;
    if (progress) progress(done, total);
  });
  struct stat sb;
  if (st.ok()) st = FsyncPath(tmp, O_RDONLY);
  if (st.ok() && stat(tmp.c_str(), &sb) != 0) st = Status::FromErrno("stat " + tmp);
  if (st.ok() && rename(tmp.c_str(), dest.c_str()) != 0) {
    st = Status::FromErrno("rename " + tmp + " to " + dest);
  }
  if (!st.ok()) {
    unlink(tmp.c_str());
    return st;
  }
  TIERFS_RETURN_IF_ERROR(FsyncPath(dir, O_RDONLY | O_DIRECTORY));
  result.bytes = static_cast<uint64_t>(sb.st_size);
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace tierfs
