// VolumeState: one volume of the file system as the policy engine sees it.
//
// fs/ fills these from its volume table and statvfs before a scan or a
// create; the planner projects free space on copies of them. Value type;
// thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tierfs::policy {

struct VolumeState {
  uint32_t id = 0;                   // volume id as in FileRecord::volume_id
  std::string name;                  // "vol1", for reports
  std::vector<std::string> classes;  // placement classes (docs/policies.md "Classes, not volumes")
  uint64_t total_bytes = 0;          // capacity
  uint64_t free_bytes = 0;           // free now
  // Free space that placement must leave untouched (the watermark of
  // docs/policies.md "What a scan does"): a volume has room for n bytes when
  // free_bytes - reserve_bytes >= n.
  uint64_t reserve_bytes = 0;
  // False while the volume takes no new data at all (offline, full after an
  // ENOSPC, or the metadata volume short of its database reserve): no room.
  bool accepts_data = true;
  // False for an object volume: relocations may go there, new files
  // never (ChooseCreateVolume passes it by, so a CREATE naming its class falls
  // to the next class).
  bool takes_creates = true;

  bool HasClass(const std::string& name) const {
    for (const std::string& c : classes) {
      if (c == name) return true;
    }
    return false;
  }
};

}  // namespace tierfs::policy
