// Pass "pending" (rows; fs/check/fsck.h): pending_objects rows whose object
// is gone or became its inode's location (the row outlived a commit).
#include "fs/check/checker.h"

namespace tierfs::fsck {

void Checker::CheckPendingRows() {
  for (const auto& [key, generation] : pending_) {
    const auto [ino, volume_id] = key;
    if (!Good(volume_id)) continue;
    Result<std::optional<uint64_t>> seen = ObjectSizeOn(volume_id, ino, generation);
    if (!seen.ok()) continue;  // reported as unreadable
    const bool present = seen->has_value();
    if (present) {
      auto it = files_.find(ino);
      const bool is_location = it != files_.end() && it->second.volume_id == volume_id &&
                               it->second.generation == generation;
      if (!is_location) continue;  // reported with the objects above
    }
    CheckFinding& f =
        Add("pending", FindingSeverity::kLeftover,
            "pending_objects row (inode " + std::to_string(ino) + ", " +
                VolumeText(volume_id) + "): " +
                (present ? "its object is the inode's location" : "its object is gone") +
                "; the next mount clears it");
    if (can_repair_) {
      Repaired(f, meta_.RemovePendingObject(ino, volume_id), "row cleared");
    }
  }
}

}  // namespace tierfs::fsck
