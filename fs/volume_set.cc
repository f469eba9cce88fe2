#include "fs/volume_set.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>

#include "fs/volume_label.h"

namespace tierfs {
namespace {

std::string ObjectSubdir(const std::string& volume_dir, uint64_t ino) {
  char xx[8];
  std::snprintf(xx, sizeof xx, "%02x", static_cast<unsigned>(ino % 256));
  return ObjectsDir(volume_dir) + "/" + xx;
}

// Removes every entry of a flat directory (the tmp/ of a volume).
void EmptyDirectory(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    unlink((dir + "/" + name).c_str());
  }
  closedir(d);
}

}  // namespace

Result<std::unique_ptr<VolumeSet>> VolumeSet::Open(const std::vector<meta::Volume>& volumes,
                                                   const std::string& fs_uuid,
                                                   const Clock& clock) {
  for (const meta::Volume& v : volumes) {
    Result<VolumeLabel> label = ReadVolumeLabel(v.path);
    if (!label.ok()) {
      return Status::Error(label.status().code(), "volume " + v.name + " (" + v.path +
                                                      "): " + label.status().message());
    }
    if (label->fs_uuid != fs_uuid || label->volume_id != v.id) {
      return Status::Invalid("volume " + v.name + " (" + v.path + ") carries the label of " +
                             (label->fs_uuid != fs_uuid ? "another file system (" +
                                                              label->fs_uuid + ")"
                                                        : "volume " + label->volume_name) +
                             ": refusing to mount");
    }
    EmptyDirectory(TmpDir(v.path));
  }
  return std::unique_ptr<VolumeSet>(new VolumeSet(volumes, clock));
}

const meta::Volume* VolumeSet::Find(uint32_t id) const {
  for (const meta::Volume& v : volumes_) {
    if (v.id == id) return &v;
  }
  return nullptr;
}

std::string VolumeSet::NameOf(uint32_t id) const {
  const meta::Volume* v = Find(id);
  return v != nullptr ? v->name : "";
}

std::string VolumeSet::ObjectPath(uint32_t volume_id, uint64_t ino, uint64_t generation) const {
  const meta::Volume* v = Find(volume_id);
  if (v == nullptr) return {};
  return ObjectSubdir(v->path, ino) + "/" + std::to_string(ino) + "." + std::to_string(generation);
}

std::string VolumeSet::TmpPath(uint32_t volume_id, uint64_t ino, uint64_t generation) const {
  static std::atomic<uint64_t> counter{0};
  const meta::Volume* v = Find(volume_id);
  if (v == nullptr) return {};
  return TmpDir(v->path) + "/" + std::to_string(ino) + "." + std::to_string(generation) + "." +
         std::to_string(getpid()) + "." + std::to_string(counter.fetch_add(1));
}

Result<int> VolumeSet::OpenObject(uint32_t volume_id, uint64_t ino, uint64_t generation,
                                  bool create) const {
  const meta::Volume* v = Find(volume_id);
  if (v == nullptr) return Status::Io("inode " + std::to_string(ino) + " is on unknown volume " +
                                      std::to_string(volume_id));
  const std::string path = ObjectPath(volume_id, ino, generation);
  int flags = O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0);
  int fd = open(path.c_str(), flags, 0600);
  if (fd < 0 && errno == ENOENT && create) {
    mkdir(ObjectSubdir(v->path, ino).c_str(), 0700);  // first object in this subdir
    fd = open(path.c_str(), flags, 0600);
  }
  if (fd < 0) return Status::FromErrno("open object " + path);
  return fd;
}

Status VolumeSet::RemoveObject(uint32_t volume_id, uint64_t ino, uint64_t generation) const {
  const std::string path = ObjectPath(volume_id, ino, generation);
  if (path.empty()) return Status::Ok();
  if (unlink(path.c_str()) != 0 && errno != ENOENT) {
    return Status::FromErrno("unlink object " + path);
  }
  return Status::Ok();
}

Result<struct statvfs> VolumeSet::Statvfs(uint32_t volume_id) const {
  const meta::Volume* v = Find(volume_id);
  if (v == nullptr) return Status::NotFound("no volume " + std::to_string(volume_id));
  struct statvfs st;
  if (statvfs(v->path.c_str(), &st) != 0) return Status::FromErrno("statvfs " + v->path);
  return st;
}

std::vector<policy::VolumeState> VolumeSet::Space(bool fresh) const {
  std::lock_guard lock(space_mu_);
  const int64_t now = clock_.NowNanos();
  if (!fresh && !space_.empty() && now - space_time_ns_ < kNanosPerSecond) return space_;
  std::vector<policy::VolumeState> out;
  for (const meta::Volume& v : volumes_) {
    policy::VolumeState s;
    s.id = v.id;
    s.name = v.name;
    s.classes = {v.placement_class};
    struct statvfs st;
    if (statvfs(v.path.c_str(), &st) == 0) {
      s.total_bytes = uint64_t{st.f_blocks} * st.f_frsize;
      s.free_bytes = uint64_t{st.f_bavail} * st.f_frsize;
      s.reserve_bytes = s.total_bytes / 100;
    }
    out.push_back(std::move(s));
  }
  space_ = out;
  space_time_ns_ = now;
  return out;
}

}  // namespace tierfs
