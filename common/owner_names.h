// OwnerNames: uid -> user name and gid -> group name (getpwuid_r/getgrgid_r),
// each looked up once and cached, for policies that select files by USER or
// GROUP (docs/policies.md "SELECT: which files") over many files with few owners.
//
// Not thread-safe: one instance per scan or replay. An id without an entry in
// the user or group database maps to "" (it then matches no named USER/GROUP).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

namespace tierfs {

class OwnerNames {
 public:
  // The user name of `uid`, "" when it has none.
  const std::string& User(uint32_t uid);
  // The group name of `gid`, "" when it has none.
  const std::string& Group(uint32_t gid);

 private:
  std::unordered_map<uint32_t, std::string> users_, groups_;
};

}  // namespace tierfs
