// Volume labels: see fs/volume/volume_label.h.
//
// The label file is text, so that an administrator can read it with cat:
//
//   tierfs-volume-label 1
//   fs_uuid=3f0c...
//   fs_name=data
//   volume_id=2
//   volume_name=vol2
//
// Unknown keys are ignored (room for later versions); the first line is a magic
// line with the format version. Writes are atomic: a temporary file in the same
// directory is written and fsynced, renamed over the label, and the directory is
// fsynced, so a crash leaves either the old label or the new one.
#include "fs/volume/volume_label.h"

#include <cctype>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <string_view>

#include "fs/volume/io_steps.h"


namespace tierfs {
namespace {

constexpr std::string_view kMagic = "tierfs-volume-label 1";
constexpr size_t kMaxLabelBytes = 64 * 1024;

// `dir` without trailing slashes ("/" stays "/").
std::string StripSlashes(const std::string& dir) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  return d;
}

std::string Join(const std::string& dir, const char* name) {
  std::string d = StripSlashes(dir);
  if (d.empty() || d.back() != '/') d += '/';
  return d + name;
}

// Creates directory `path` (mode 0700) if missing; *created tells whether it did.
Status EnsureDir(VolumeIo& io, const std::string& path, bool* created) {
  *created = false;
  if (io.Mkdir(path, 0700) == 0) {
    *created = true;
    return Status::Ok();
  }
  if (errno != EEXIST) return Status::FromErrno("cannot create " + path);
  struct stat st;
  if (io.Stat(path, &st) != 0) return Status::FromErrno("cannot stat " + path);
  if (!S_ISDIR(st.st_mode)) return Status::Error(ENOTDIR, path + " exists and is not a directory");
  return Status::Ok();
}

// Writes `data` at the start of the new file `fd`.
Status WriteAll(VolumeIo& io, int fd, std::string_view data, const std::string& path) {
  off_t at = 0;
  while (!data.empty()) {
    ssize_t n = io.Pwrite(fd, data.data(), data.size(), at);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno("cannot write " + path);
    }
    data.remove_prefix(static_cast<size_t>(n));
    at += n;
  }
  return Status::Ok();
}

bool HasLineBreak(const std::string& s) { return s.find_first_of("\r\n") != std::string::npos; }

Status CheckLabel(const VolumeLabel& label) {
  if (label.fs_uuid.empty()) return Status::Invalid("volume label: empty fs_uuid");
  if (label.volume_name.empty()) return Status::Invalid("volume label: empty volume_name");
  if (label.volume_id == 0) return Status::Invalid("volume label: volume_id must be positive");
  if (HasLineBreak(label.fs_uuid) || HasLineBreak(label.fs_name) ||
      HasLineBreak(label.volume_name)) {
    return Status::Invalid("volume label: values may not contain line breaks");
  }
  return Status::Ok();
}

std::string Serialize(const VolumeLabel& label) {
  std::string s(kMagic);
  s += "\nfs_uuid=" + label.fs_uuid;
  s += "\nfs_name=" + label.fs_name;
  s += "\nvolume_id=" + std::to_string(label.volume_id);
  s += "\nvolume_name=" + label.volume_name;
  if (label.retired) s += "\nretired=1";
  s += "\n";
  return s;
}

Result<VolumeLabel> Parse(std::string_view text, const std::string& path) {
  VolumeLabel label;
  bool have_uuid = false, have_id = false, have_name = false;
  int line_no = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line_no == 1) {
      if (line != kMagic) {
        return Status::Invalid(path + ": not a tierfs volume label (line 1 should read \"" +
                               std::string(kMagic) + "\")");
      }
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) {
      return Status::Invalid(path + ":" + std::to_string(line_no) + ": expected key=value");
    }
    std::string_view key = line.substr(0, eq);
    std::string_view value = line.substr(eq + 1);
    if (key == "fs_uuid") {
      label.fs_uuid = value;
      have_uuid = !value.empty();
    } else if (key == "fs_name") {
      label.fs_name = value;
    } else if (key == "volume_id") {
      uint32_t id = 0;
      auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), id);
      if (ec != std::errc() || ptr != value.data() + value.size() || id == 0) {
        return Status::Invalid(path + ":" + std::to_string(line_no) +
                               ": volume_id must be a positive integer");
      }
      label.volume_id = id;
      have_id = true;
    } else if (key == "volume_name") {
      label.volume_name = value;
      have_name = !value.empty();
    } else if (key == "retired") {
      label.retired = value == "1";
    }  // Unknown keys: written by a later version; ignored.
  }
  if (line_no == 0) return Status::Invalid(path + ": empty volume label");
  if (!have_uuid) return Status::Invalid(path + ": volume label lacks fs_uuid");
  if (!have_id) return Status::Invalid(path + ": volume label lacks volume_id");
  if (!have_name) return Status::Invalid(path + ": volume label lacks volume_name");
  return label;
}

// ENOENT / ENOTDIR naming the directory when `volume_dir` is not a directory.
Status CheckVolumeDir(VolumeIo& io, const std::string& volume_dir) {
  struct stat st;
  if (io.Stat(volume_dir, &st) != 0) {
    int err = errno;
    if (err == ENOENT) {
      return Status::NotFound("volume directory " + volume_dir + " does not exist");
    }
    return Status::FromErrno(err, "cannot stat volume directory " + volume_dir);
  }
  if (!S_ISDIR(st.st_mode)) {
    return Status::Error(ENOTDIR, "volume directory " + volume_dir + " is not a directory");
  }
  return Status::Ok();
}

}  // namespace

Status CheckSimpleName(std::string_view name, const char* what) {
  if (name.empty()) return Status::Invalid(std::string("empty ") + what);
  if (name.size() > 64) {
    return Status::Invalid(std::string(what) + " \"" + std::string(name) +
                           "\" is longer than 64 characters");
  }
  if (name[0] == '.' || name[0] == '-') {
    return Status::Invalid(std::string(what) + " \"" + std::string(name) +
                           "\" may not start with '.' or '-'");
  }
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-') {
      return Status::Invalid(std::string(what) + " \"" + std::string(name) +
                             "\" may hold only letters, digits, '_', '.' and '-'");
    }
  }
  return Status::Ok();
}

std::string TierfsDir(const std::string& volume_dir) { return Join(volume_dir, ".tierfs"); }
std::string ObjectsDir(const std::string& volume_dir) { return TierfsDir(volume_dir) + "/objects"; }
std::string TmpDir(const std::string& volume_dir) { return TierfsDir(volume_dir) + "/tmp"; }
std::string MetadataDbPath(const std::string& volume_dir) {
  return TierfsDir(volume_dir) + "/meta.db";
}
std::string ControlSocketPath(const std::string& volume_dir) {
  return TierfsDir(volume_dir) + "/control.sock";
}
std::string VolumeLabelPath(const std::string& volume_dir) {
  return TierfsDir(volume_dir) + "/label";
}

Status WriteVolumeLabel(const std::string& volume_dir, const VolumeLabel& label, VolumeIo& io) {
  TIERFS_RETURN_IF_ERROR(CheckLabel(label));
  TIERFS_RETURN_IF_ERROR(CheckVolumeDir(io, volume_dir));

  // Never take over a directory that belongs to another file system; rewriting our
  // own label (same uuid) is allowed, e.g. to rename a volume.
  struct stat st;
  const std::string label_path = VolumeLabelPath(volume_dir);
  if (io.Lstat(label_path, &st) == 0) {
    Result<VolumeLabel> existing = ReadVolumeLabel(volume_dir, io);
    if (!existing.ok()) {
      return Status::Exists(volume_dir + " already has a tierfs label that cannot be read (" +
                            existing.status().message() + "); refusing to overwrite it");
    }
    if (existing->fs_uuid != label.fs_uuid && !existing->retired) {
      return Status::Exists(volume_dir + " already carries the label of tierfs file system " +
                            (existing->fs_name.empty() ? "" : existing->fs_name + " ") + "(uuid " +
                            existing->fs_uuid + ", volume " + existing->volume_name + ")");
    }
  }

  const std::string tierfs_dir = TierfsDir(volume_dir);
  bool created_top = false, created_objects = false, created_tmp = false;
  TIERFS_RETURN_IF_ERROR(EnsureDir(io, tierfs_dir, &created_top));
  TIERFS_RETURN_IF_ERROR(EnsureDir(io, ObjectsDir(volume_dir), &created_objects));
  TIERFS_RETURN_IF_ERROR(EnsureDir(io, TmpDir(volume_dir), &created_tmp));
  if (created_top) TIERFS_RETURN_IF_ERROR(SyncDirectory(io, volume_dir));

  const std::string tmp_path = tierfs_dir + "/label.tmp." + std::to_string(getpid());
  io.Unlink(tmp_path);  // a leftover of a crashed writer with our pid
  {
    const int fd = io.Open(tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return Status::FromErrno("cannot create " + tmp_path);
    Status st_write = WriteAll(io, fd, Serialize(label), tmp_path);
    if (st_write.ok() && io.Fsync(fd, false) != 0) {
      st_write = Status::FromErrno("cannot fsync " + tmp_path);
    }
    if (io.Close(fd) != 0 && st_write.ok()) {
      st_write = Status::FromErrno("cannot close " + tmp_path);
    }
    if (!st_write.ok()) {
      io.Unlink(tmp_path);
      return st_write;
    }
  }
  if (io.Rename(tmp_path, label_path) != 0) {
    Status st_rename = Status::FromErrno("cannot rename " + tmp_path + " to " + label_path);
    io.Unlink(tmp_path);
    return st_rename;
  }
  return SyncDirectory(io, tierfs_dir);
}

Result<VolumeLabel> ReadVolumeLabel(const std::string& volume_dir, VolumeIo& io) {
  const std::string path = VolumeLabelPath(volume_dir);
  const int fd = io.Open(path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT || err == ENOTDIR) {
      TIERFS_RETURN_IF_ERROR(CheckVolumeDir(io, volume_dir));
      return Status::NotFound("no tierfs label in " + volume_dir + " (" + path +
                              " is missing): is its device mounted?");
    }
    return Status::FromErrno(err, "cannot open the volume label " + path);
  }
  std::string text;
  char buf[4096];
  Status st = Status::Ok();
  while (st.ok()) {
    ssize_t n = io.Pread(fd, buf, sizeof buf, static_cast<off_t>(text.size()));
    if (n < 0) {
      if (errno == EINTR) continue;
      st = Status::FromErrno("cannot read the volume label " + path);
    } else if (n == 0) {
      break;
    } else {
      text.append(buf, static_cast<size_t>(n));
      if (text.size() > kMaxLabelBytes) {
        st = Status::Invalid(path + ": volume label larger than 64 KiB; not a tierfs label");
      }
    }
  }
  io.Close(fd);
  if (!st.ok()) return st;
  return Parse(text, path);
}

std::string ObjectSubdirName(uint64_t ino) {
  char xx[8];
  std::snprintf(xx, sizeof xx, "%02x", static_cast<unsigned>(ino % 256));
  return xx;
}

std::string ObjectPathIn(const std::string& volume_dir, uint64_t ino, uint64_t generation) {
  return ObjectsDir(volume_dir) + "/" + ObjectSubdirName(ino) + "/" + std::to_string(ino) + "." +
         std::to_string(generation);
}

}  // namespace tierfs
