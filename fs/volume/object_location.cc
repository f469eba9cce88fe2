#include "fs/volume/object_location.h"

#include <charconv>

#include "fs/objstore/s3_names.h"
#include "fs/volume/object_walk.h"
#include "fs/volume/volume_label.h"

namespace tierfs {

Result<ObjectLocation> ParseObjectUrl(std::string_view url) {
  const std::string quoted = "\"" + std::string(url) + "\"";
  constexpr std::string_view kScheme = "s3://";
  if (url.substr(0, kScheme.size()) != kScheme) {
    return Status::Invalid(quoted + " is not an object volume URL (s3://BUCKET/PREFIX)");
  }
  std::string_view rest = url.substr(kScheme.size());
  while (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  const size_t slash = rest.find('/');
  ObjectLocation loc;
  loc.bucket = std::string(rest.substr(0, slash));
  if (Status st = CheckBucketName(loc.bucket); !st.ok()) {
    return Status::Invalid(quoted + ": " + st.message());
  }
  if (slash != std::string_view::npos) loc.prefix = std::string(rest.substr(slash + 1));
  // Each component of the prefix: non-empty, not "." or "..", printable ASCII
  // without ':' (the CLASS separator of `URL:CLASS`).
  size_t start = 0;
  while (!loc.prefix.empty() && start <= loc.prefix.size()) {
    size_t end = loc.prefix.find('/', start);
    if (end == std::string::npos) end = loc.prefix.size();
    const std::string part = loc.prefix.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") {
      return Status::Invalid(quoted + ": the prefix may not have empty, \".\" or \"..\" parts");
    }
    for (char c : part) {
      if (c <= ' ' || c > '~' || c == ':') {
        return Status::Invalid(quoted + ": the prefix may hold printable ASCII only, "
                               "without spaces or ':'");
      }
    }
    start = end + 1;
  }
  if (loc.prefix.size() > 512) return Status::Invalid(quoted + ": the prefix is over 512 bytes");
  return loc;
}

std::string ObjectUrl(const ObjectLocation& location) {
  return "s3://" + location.bucket + (location.prefix.empty() ? "" : "/" + location.prefix);
}

std::string ObjectKeyPrefix(const ObjectLocation& location) {
  return (location.prefix.empty() ? "" : location.prefix + "/") + "objects/";
}

std::string ObjectKeyStem(const ObjectLocation& location, uint64_t ino, uint64_t generation) {
  return ObjectKeyPrefix(location) + ObjectSubdirName(ino) + "/" + std::to_string(ino) + "." +
         std::to_string(generation);
}

std::string ObjectKey(const ObjectLocation& location, uint64_t ino, uint64_t generation,
                      uint64_t version) {
  std::string key = ObjectKeyStem(location, ino, generation);
  if (version != 0) key += ".v" + std::to_string(version);
  return key;
}

std::optional<ObjectKeyId> ParseObjectKey(const ObjectLocation& location, std::string_view key) {
  const std::string prefix = ObjectKeyPrefix(location);
  if (key.substr(0, prefix.size()) != prefix) return std::nullopt;
  key.remove_prefix(prefix.size());
  const size_t slash = key.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const std::string_view subdir = key.substr(0, slash);
  std::string_view base = key.substr(slash + 1);
  uint64_t version = 0;
  if (const size_t v = base.find(".v"); v != std::string_view::npos) {
    const std::string_view digits = base.substr(v + 2);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), version);
    if (ec != std::errc() || end != digits.data() + digits.size() || version == 0 ||
        digits[0] == '0') {
      return std::nullopt;
    }
    base = base.substr(0, v);
  }
  std::optional<ObjectName> name = ParseObjectName(base);
  if (!IsObjectSubdirName(subdir) || !name || subdir != ObjectSubdirName(name->ino)) {
    return std::nullopt;
  }
  return ObjectKeyId{name->ino, name->generation, version};
}

}  // namespace tierfs
