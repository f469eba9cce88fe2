// Pass "misplaced" (fs/check/fsck.h): a file whose object is not where its
// row says but, under its exact name, on exactly one other volume of either
// kind, or under another upload's key on a store (the row's own upload is
// gone: a database restored from before the file was uploaded again). Of
// several uploads on one store, the latest is the file's. Runs before the
// orphans: such an object is the file's, not an orphan.
#include "fs/check/checker.h"

#include <map>
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
    // The latest upload of each volume that has the file's name.
    std::map<uint32_t, size_t> latest;
    for (size_t i : indexes) {
      const ObjectEntry& o = set_aside_[i];
      if (o.generation != file.generation) continue;
      auto [at, first] = latest.try_emplace(o.volume_id, i);
      if (!first && set_aside_[at->second].version < o.version) at->second = i;
    }
    if (latest.size() != 1) continue;
    ObjectEntry& o = set_aside_[latest.begin()->second];
    // Still so now? (live: a relocation may have committed meanwhile)
    Result<meta::Inode> now = Current(ino);
    if (!now.ok() || now->volume_id != file.volume_id || now->generation != o.generation ||
        now->store_version != file.store_version || now->nlink == 0 || !StillThere(o) ||
        !LacksObjectOn(file.volume_id, ino, file.generation, file.store_version)) {
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
      if (!o.key.empty()) {
        fix.store_version = o.version;
        fix.why += ", upload " + std::to_string(o.version);
      }
      Status st = meta_.RepairInode(fix);
      if (st.ok()) {
        file.volume_id = o.volume_id;
        if (!o.key.empty()) file.store_version = o.version;
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
