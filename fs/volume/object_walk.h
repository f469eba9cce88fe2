// Walking a volume's object store: every object under <volume>/.tierfs/objects/xx/
// with the identity its name encodes, read through the VolumeIo seam.
//
// One walker for the two readers of a whole store, crash recovery at mount
// (fs/core/crash_recovery.cc: objects of files whose create the crash undid) and
// `tierfs check` (fs/check/fsck.cc: every object against the database), so that
// both agree on what an object name is, which directories are tierfs's, and what
// counts as unreadable. What each does with an entry stays theirs.
//
// Object naming itself (ObjectsDir, ObjectSubdirName, ObjectPathIn) is in
// fs/volume/volume_label.h. Free functions; thread-safe as `io` is.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "fs/volume/volume_io.h"

namespace tierfs {

// What an object's file name says: "<ino>.<generation>".
struct ObjectName {
  uint64_t ino = 0;
  uint64_t generation = 0;
};
// Parses "<ino>.<generation>" (canonical decimal, both > 0); nullopt otherwise.
std::optional<ObjectName> ParseObjectName(std::string_view name);
// Whether `name` is an objects/ subdirectory name: two lower-case hex digits.
bool IsObjectSubdirName(std::string_view name);

// One entry of an objects/xx directory.
struct WalkedObject {
  std::string path;             // absolute: <volume>/.tierfs/objects/<subdir>/<name>
  std::string subdir;           // "xx", where it was found
  std::optional<ObjectName> id;  // nullopt: not named like an object
  // id is set but its inode's objects live in another xx (ObjectSubdirName(id->ino)).
  bool wrong_subdir = false;
  // With ObjectWalkDepth::kAttributes: lstat(2) of `path` (type, size in bytes);
  // zeroed otherwise.
  struct stat st {};
};

enum class ObjectWalkDepth {
  kNames,       // names only: one directory listing per objects/xx
  kAttributes,  // and one lstat per entry (its type and size)
};

struct ObjectWalkCallbacks {
  // Every entry of every objects/xx directory, object-named or not. Required.
  std::function<void(const WalkedObject&)> entry;
  // An entry of objects/ that is not an xx directory (absolute path); may be null.
  std::function<void(const std::string& path)> stray;
  // A directory (objects/ or objects/xx) that could not be listed, or an entry that
  // could not be stat'ed, with the errno (EIO, EACCES, ...). objects/ itself
  // missing is reported too (ENOENT); entries that vanish during the walk (ENOENT:
  // removed meanwhile, by a live daemon) are skipped silently. Required: what is
  // under an unreadable directory was not seen, and each caller must decide what
  // that means for it.
  std::function<void(const std::string& path, int error)> unreadable;
};

// Walks <volume_dir>/.tierfs/objects through `io` (ListDir, Lstat), calling
// `callbacks` for what it finds, in directory order. Goes on after an unreadable
// directory with the next one.
void WalkObjectStore(VolumeIo& io, const std::string& volume_dir, ObjectWalkDepth depth,
                     const ObjectWalkCallbacks& callbacks);

}  // namespace tierfs
