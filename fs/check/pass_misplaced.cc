// Pass "misplaced" (fs/check/fsck.h): a file whose object is not where its
// row says but, under its exact name, on exactly one other volume of either
// kind. Runs before the orphans: such an object is the file's, not an orphan.
#include "fs/check/checker.h"

#include <unordered_map>
#include <vector>

namespace tierfs::fsck {

void Checker::CheckMisplaced() {
  std::unordered_map<uint64_t, std::vector<size_t>> by_ino;
  for (size_t i = 0; i < set_aside_.size(); ++i) {
    if (!set_aside_[i].wrong_subdir) by_ino[set_aside_[i].ino].push_back(i);
  }
  for (auto& [ino, indexes] : by_ino) {
    auto it = files_.find(ino);
    if (it == files_.end()) continue;
    FileEntry& file = it->second;
    if (file.found || file.nlink == 0) continue;
    if (VolumeById(file.volume_id) != nullptr && !Good(file.volume_id)) continue;
    std::vector<size_t> matches;
    for (size_t i : indexes) {
      if (set_aside_[i].generation == file.generation) matches.push_back(i);
    }
    if (matches.size() != 1) continue;
    ObjectEntry& o = set_aside_[matches[0]];
    // Still so now? (live: a relocation may have committed meanwhile)
    Result<meta::Inode> now = Current(ino);
    if (!now.ok() || now->volume_id != file.volume_id || now->generation != o.generation ||
        now->nlink == 0 || !StillThere(o) ||
        !LacksObjectOn(file.volume_id, ino, file.generation)) {
      continue;
    }
    o.consumed = true;
    CheckFinding& f = Add("misplaced", FindingSeverity::kDamage,
                          Describe(ino) + ": no object on " + VolumeText(file.volume_id) +
                              " where the database says, but its object " + o.path +
                              " is on " + VolumeText(o.volume_id));
    if (can_repair_) {
      meta::InodeRepair fix;
      fix.ino = ino;
      fix.volume_id = o.volume_id;
      fix.why = "misplaced object: volume " + std::to_string(file.volume_id) + "->" +
                std::to_string(o.volume_id);
      Status st = meta_.RepairInode(fix);
      if (st.ok()) {
        file.volume_id = o.volume_id;
        if (IsPending(o)) {
          st = meta_.RemovePendingObject(o.ino, o.volume_id);
          pending_.erase({o.ino, o.volume_id});
        }
      }
      Repaired(f, st, "the file now points at " + o.path);
    }
    // Either way its sizes are compared against this object from now on.
    file.found = true;
    file.object_size = o.size;
  }
}

}  // namespace tierfs::fsck
