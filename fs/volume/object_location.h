// Where an object volume keeps its objects: "s3://BUCKET/PREFIX",
// the spelling `fsvoladm add`, `mkdstfs`, the database's `volumes.path` and
// every report use, and the key each file's object has there.
//
// Keys follow local volumes' object names (fs/volume/volume_label.h):
// PREFIX/objects/<ino mod 256, two hex digits>/<ino>.<generation>, so that
// `tierfs check` tells an object's inode with the parser it uses for
// directories (fs/volume/object_walk.h), then ".v<N>" for the file's Nth
// upload (Inode::store_version; none for 0, the keys of schema 6): every
// upload writes a key no earlier upload wrote, so no reader or listing can
// take one upload's bytes for another's, whatever the store's consistency.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace tierfs {

struct ObjectLocation {
  std::string bucket;  // DNS-style bucket name (3-63 of a-z 0-9 . -)
  std::string prefix;  // key prefix without leading or trailing '/'; may be ""
};

// Parses "s3://BUCKET[/PREFIX]" (a trailing '/' is dropped). EINVAL, naming the
// URL, for another scheme, a bad bucket name, an empty path component ("a//b")
// or a prefix with "." or ".." components or characters outside printable ASCII.
Result<ObjectLocation> ParseObjectUrl(std::string_view url);
// "s3://BUCKET/PREFIX" ("s3://BUCKET" for an empty prefix).
std::string ObjectUrl(const ObjectLocation& location);
// "PREFIX/objects/" ("objects/" for an empty prefix): what every object key of
// the volume starts with.
std::string ObjectKeyPrefix(const ObjectLocation& location);
// The key of upload `version` of inode `ino`'s object: ObjectKeyPrefix +
// "<xx>/<ino>.<generation>", then ".v<version>" unless version is 0.
std::string ObjectKey(const ObjectLocation& location, uint64_t ino, uint64_t generation,
                      uint64_t version);
// ObjectKey without its version suffix: a listing with this prefix returns
// every upload of (ino, generation), among keys of other generations that
// ParseObjectKey tells apart ("2.1" is also the start of "2.10").
std::string ObjectKeyStem(const ObjectLocation& location, uint64_t ino, uint64_t generation);

// The inode, generation and upload a key of this volume names, or nullopt when
// `key` is not ObjectKey(location, ino, generation, version) for some values
// with xx = ino mod 256 (a stray or foreign key: `tierfs check` reports it,
// never removes it). ".v0" is not a key ObjectKey writes: nullopt.
struct ObjectKeyId {
  uint64_t ino = 0;
  uint64_t generation = 0;
  uint64_t version = 0;
};
std::optional<ObjectKeyId> ParseObjectKey(const ObjectLocation& location, std::string_view key);

}  // namespace tierfs
