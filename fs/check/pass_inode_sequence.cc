// Pass "sequence" (fs/check/fsck.h): a restored database must not hand out
// the inode numbers of objects newer files left on the volumes (a store's keys
// included), or a new file would open an old file's bytes.
#include "fs/check/checker.h"

#include <algorithm>

namespace tierfs::fsck {

Status Checker::CheckInodeSequence() {
  uint64_t highest = max_object_ino_;
  for (const auto& [key, generation] : pending_) highest = std::max(highest, key.first);
  if (highest == 0) return Status::Ok();
  Result<uint64_t> last = meta_.LastInodeNumber();
  if (!last.ok()) return last.status();
  if (highest <= *last) return Status::Ok();
  CheckFinding& f = Add("sequence", FindingSeverity::kDamage,
                        "the next inode number is " + std::to_string(*last + 1) +
                            ", but objects of inodes up to " + std::to_string(highest) +
                            " exist on the volumes (a restored database?): a new file would "
                            "reuse an old object's bytes");
  if (can_repair_) {
    Repaired(f, meta_.RepairInodeSequence(highest),
             "new inodes start after " + std::to_string(highest));
  }
  return Status::Ok();
}

}  // namespace tierfs::fsck
