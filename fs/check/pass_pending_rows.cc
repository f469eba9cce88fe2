// Pass "pending" (rows; fs/check/fsck.h): pending_objects rows whose object
// is gone or became its inode's location (the row outlived a commit).
#include "fs/check/checker.h"

namespace tierfs::fsck {

void Checker::CheckPendingRows() {
  for (const auto& [key, generation] : pending_) {
    const auto [ino, volume_id] = key;
    if (!Good(volume_id)) continue;
    auto it = files_.find(ino);
    const bool on_it = it != files_.end() && it->second.volume_id == volume_id &&
                       it->second.generation == generation;
    bool present;
    if (Store(volume_id) != nullptr) {
      // The row stands for every upload of the file there but its location's:
      // those the listing found were reported above, and stay while they do.
      present = false;
      for (const ObjectEntry& o : set_aside_) {
        if (o.volume_id == volume_id && o.ino == ino && o.generation == generation &&
            !o.consumed && StillThere(o)) {
          present = true;
          break;
        }
      }
      if (present) continue;
      present = on_it;
    } else {
      Result<std::optional<uint64_t>> seen = ObjectSizeOn(volume_id, ino, generation, 0);
      if (!seen.ok()) continue;  // reported as unreadable
      present = seen->has_value();
      if (present && !on_it) continue;  // reported with the objects above
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
