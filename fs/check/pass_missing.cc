// Pass "missing" (fs/check/fsck.h): a file of size > 0 whose object was seen
// nowhere. Its repair (size 0, DATA LOST) is refused while any volume could not
// be read: the object may be there.
#include "fs/check/checker.h"

#include <algorithm>
#include <vector>

namespace tierfs::fsck {

void Checker::CheckMissing() {
  std::vector<uint64_t> inos;
  for (const auto& [ino, file] : files_) {
    // A file on a volume the database does not know cannot even be opened empty.
    const bool unknown_volume = VolumeById(file.volume_id) == nullptr;
    if (!file.found && file.nlink > 0 && (file.size > 0 || unknown_volume)) inos.push_back(ino);
  }
  std::sort(inos.begin(), inos.end());
  for (uint64_t ino : inos) {
    const FileEntry& file = files_[ino];
    if (VolumeById(file.volume_id) != nullptr && !Good(file.volume_id)) continue;
    Result<meta::Inode> now = Current(ino);
    if (!now.ok() || now->nlink == 0) continue;
    const bool unknown_volume = VolumeById(now->volume_id) == nullptr;
    if (now->size == 0 && !unknown_volume) continue;
    const std::string path = ObjectName(now->volume_id, ino, now->generation, now->store_version);
    if (VolumeById(now->volume_id) != nullptr &&
        (!Good(now->volume_id) ||
         !LacksObjectOn(now->volume_id, ino, now->generation, now->store_version))) {
      continue;  // moved meanwhile, or an interrupted lost+found move just finished
    }
    std::string where = VolumeById(now->volume_id) == nullptr
                            ? "is on " + VolumeText(now->volume_id)
                            : "has no object on " + VolumeText(now->volume_id) + " (" +
                                  path + ")";
    CheckFinding& f = Add("missing", FindingSeverity::kDamage,
                          Describe(ino) + ", " + Bytes(now->size) + ", " + where);
    if (!can_repair_) continue;
    if (!unreadable_volumes_.empty()) {
      f.repair = "not repaired: a volume could not be read, and the object may be there";
      continue;
    }
    meta::InodeRepair fix;
    fix.ino = ino;
    fix.size = 0;
    fix.why = "missing object: size " + std::to_string(now->size) + "->0";
    // A file on a volume the database does not know gets the first volume: its
    // next open creates an empty object there.
    if (VolumeById(now->volume_id) == nullptr) fix.volume_id = volumes_.front().id;
    Status st = meta_.RepairInode(fix);
    f.data_loss = st.ok() && now->size > 0;
    std::string what = now->size > 0 ? "size set to 0: DATA LOST (" + Bytes(now->size) + ")"
                                     : "size 0";
    if (fix.volume_id) what += ", on " + VolumeText(*fix.volume_id);
    Repaired(f, st, what);
  }
}

}  // namespace tierfs::fsck
