#include "fs/volume/object_walk.h"

#include <cerrno>
#include <charconv>
#include <vector>

#include "fs/volume/volume_label.h"

namespace tierfs {

std::optional<ObjectName> ParseObjectName(std::string_view name) {
  const size_t dot = name.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == name.size()) return std::nullopt;
  auto parse = [](std::string_view digits, uint64_t* value) {
    if (digits.empty() || digits[0] == '0') return false;  // canonical decimal only
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), *value);
    return ec == std::errc() && ptr == digits.data() + digits.size() && *value > 0;
  };
  ObjectName out;
  if (!parse(name.substr(0, dot), &out.ino) || !parse(name.substr(dot + 1), &out.generation)) {
    return std::nullopt;
  }
  return out;
}

bool IsObjectSubdirName(std::string_view name) {
  auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
  return name.size() == 2 && hex(name[0]) && hex(name[1]);
}

void WalkObjectStore(VolumeIo& io, const std::string& volume_dir, ObjectWalkDepth depth,
                     const ObjectWalkCallbacks& callbacks) {
  const std::string objects = ObjectsDir(volume_dir);
  std::vector<std::string> subdirs;
  if (io.ListDir(objects, &subdirs) != 0) {
    callbacks.unreadable(objects, errno);
    return;
  }
  std::vector<std::string> names;
  for (const std::string& sub : subdirs) {
    const std::string sub_path = objects + "/" + sub;
    struct stat st;
    if (io.Lstat(sub_path, &st) != 0) {
      if (errno != ENOENT) callbacks.unreadable(sub_path, errno);
      continue;
    }
    if (!S_ISDIR(st.st_mode) || !IsObjectSubdirName(sub)) {
      if (callbacks.stray) callbacks.stray(sub_path);
      continue;
    }
    if (io.ListDir(sub_path, &names) != 0) {
      if (errno != ENOENT) callbacks.unreadable(sub_path, errno);
      continue;
    }
    for (const std::string& name : names) {
      WalkedObject o;
      o.path = sub_path + "/" + name;
      o.subdir = sub;
      o.id = ParseObjectName(name);
      o.wrong_subdir = o.id && sub != ObjectSubdirName(o.id->ino);
      if (depth == ObjectWalkDepth::kAttributes && io.Lstat(o.path, &o.st) != 0) {
        if (errno != ENOENT) callbacks.unreadable(o.path, errno);
        continue;
      }
      callbacks.entry(o);
    }
  }
}

}  // namespace tierfs
