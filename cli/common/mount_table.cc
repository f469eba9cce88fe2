#include "cli/common/mount_table.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "fs/volume/volume_label.h"

namespace tierfs::cli {
namespace {

bool IsUnder(const std::string& mount_point, const std::string& path) {
  if (mount_point == "/") return !path.empty() && path[0] == '/';
  return path == mount_point ||
         (path.size() > mount_point.size() &&
          path.compare(0, mount_point.size(), mount_point) == 0 && path[mount_point.size()] == '/');
}

}  // namespace

TierfsMount ToTierfsMount(const MountEntry& e) {
  return TierfsMount{e.mount_point, e.source, ControlSocketPath(e.source)};
}

Result<TierfsMount> FindTierfsMount(const std::vector<MountEntry>& mounts,
                                    const std::string& abs_path) {
  const MountEntry* best = nullptr;
  for (const MountEntry& e : mounts) {
    if (!IsUnder(e.mount_point, abs_path)) continue;
    if (best == nullptr || e.mount_point.size() >= best->mount_point.size()) best = &e;
  }
  if (best != nullptr && best->fs_type == kTierfsFsType) return ToTierfsMount(*best);
  std::string where =
      best == nullptr ? "" : " (it is on " + best->mount_point + ", type " + best->fs_type + ")";
  return Status::Error(ENODEV, abs_path + " is not in a tierfs file system" + where);
}

std::vector<TierfsMount> TierfsMounts(const std::vector<MountEntry>& mounts) {
  std::vector<TierfsMount> out;
  for (const MountEntry& e : mounts) {
    if (e.fs_type != kTierfsFsType) continue;
    bool seen = false;
    for (const TierfsMount& m : out) seen |= m.mount_point == e.mount_point;
    if (!seen) out.push_back(ToTierfsMount(e));
  }
  return out;
}

std::string NormalizePath(const std::string& path) {
  std::string input = path;
  if (input.empty() || input[0] != '/') {
    char cwd[PATH_MAX];
    std::string base = getcwd(cwd, sizeof cwd) != nullptr ? cwd : "/";
    input = base + "/" + input;
  }
  std::vector<std::string> parts;
  size_t i = 0;
  while (i < input.size()) {
    size_t j = input.find('/', i);
    if (j == std::string::npos) j = input.size();
    std::string part = input.substr(i, j - i);
    i = j + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(std::move(part));
  }
  std::string out;
  for (const std::string& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

Result<std::string> ResolvePath(const std::string& path) {
  if (path.empty()) return Status::Invalid("empty path");
  char* resolved = realpath(path.c_str(), nullptr);
  if (resolved != nullptr) {
    std::string out(resolved);
    free(resolved);
    return out;
  }
  int err = errno;
  if (err == ENOTCONN || err == ECONNABORTED) return NormalizePath(path);
  return Status::FromErrno(err, path);
}

Result<std::string> MountRelativePath(const std::string& mount_point, const std::string& abs_path) {
  if (!IsUnder(mount_point, abs_path)) {
    return Status::Invalid(abs_path + " is not under " + mount_point);
  }
  if (mount_point == "/") return abs_path;
  std::string rest = abs_path.substr(mount_point.size());
  return rest.empty() ? std::string("/") : rest;
}

std::string HostPath(const std::string& mount_point, const std::string& mount_path) {
  if (mount_path.empty() || mount_path == "/") return mount_point;
  std::string rel = mount_path[0] == '/' ? mount_path : "/" + mount_path;
  return mount_point == "/" ? rel : mount_point + rel;
}

}  // namespace tierfs::cli
