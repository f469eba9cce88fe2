#include "common/owner_names.h"

#include <grp.h>
#include <pwd.h>

namespace tierfs {

const std::string& OwnerNames::User(uint32_t uid) {
  auto [it, inserted] = users_.try_emplace(uid);
  if (inserted) {
    char buf[1024];
    passwd pw, *out = nullptr;
    if (getpwuid_r(uid, &pw, buf, sizeof buf, &out) == 0 && out) it->second = out->pw_name;
  }
  return it->second;
}

const std::string& OwnerNames::Group(uint32_t gid) {
  auto [it, inserted] = groups_.try_emplace(gid);
  if (inserted) {
    char buf[1024];
    group gr, *out = nullptr;
    if (getgrgid_r(gid, &gr, buf, sizeof buf, &out) == 0 && out) it->second = out->gr_name;
  }
  return it->second;
}

}  // namespace tierfs
