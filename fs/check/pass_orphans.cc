// Passes "pending" (objects) and "orphan" (fs/check/fsck.h): the objects set
// aside that are no file's location, and their repairs, which never delete the
// only copy of any bytes (/lost+found on a local volume; on a store, the
// inode back under its own number, or a duplicate deleted, or kept).
#include "fs/check/checker.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>

#include "fs/volume/io_steps.h"
#include "fs/volume/volume_label.h"

namespace tierfs::fsck {

Status Checker::CheckSetAside() {
  if (o_.live && !set_aside_.empty()) {
    // Relocations may have started or finished while the volumes were walked.
    TIERFS_RETURN_IF_ERROR(LoadPending());
  }
  std::sort(set_aside_.begin(), set_aside_.end(),
            [](const ObjectEntry& a, const ObjectEntry& b) { return a.path < b.path; });
  for (ObjectEntry& o : set_aside_) {
    if (o.consumed) continue;
    if (!StillThere(o)) continue;  // gone meanwhile (live), or unreadable
    if (IsPending(o)) {
      if (o_.live) continue;  // a relocation in flight
      CheckPendingLeftover(o);
      continue;
    }
    if (IsSuperseded(o)) {
      CheckSuperseded(o);
      continue;
    }
    std::optional<std::string> why = OrphanReason(o);
    if (!why) continue;  // it is its inode's location after all (live)
    CheckFinding& f = Add("orphan", FindingSeverity::kDamage,
                          "object " + o.path + " (" + Bytes(o.size) + ") on " +
                              VolumeText(o.volume_id) + ": " + *why);
    if (!can_repair_) continue;
    if (o.key.empty()) {
      Adopt(o, f);
    } else {
      SettleStoreOrphan(o, f);
    }
  }
  return Status::Ok();
}

void Checker::CheckPendingLeftover(const ObjectEntry& o) {
  CheckFinding& f = Add("pending", FindingSeverity::kLeftover,
                        "object " + o.path + " (" + Bytes(o.size) + ") on " +
                            VolumeText(o.volume_id) +
                            ": relocation leftover recorded in pending_objects; the "
                            "next mount removes it");
  if (!can_repair_) return;
  auto file = files_.find(o.ino);
  if (file != files_.end() && file->second.nlink > 0 && !file->second.found) {
    f.repair = "not repaired: the file's own object was not seen on " +
               VolumeText(file->second.volume_id) + ", and this may be its only copy";
    return;
  }
  Status st = DeleteObject(o);
  if (st.ok()) st = meta_.RemovePendingObject(o.ino, o.volume_id);
  if (st.ok()) pending_.erase({o.ino, o.volume_id});
  Repaired(f, st, "removed, and its pending_objects row cleared");
}

bool Checker::IsSuperseded(const ObjectEntry& o) {
  if (o.key.empty()) return false;
  auto file = files_.find(o.ino);
  return file != files_.end() && file->second.found && file->second.volume_id == o.volume_id &&
         file->second.generation == o.generation && o.version < file->second.store_version;
}

void Checker::CheckSuperseded(const ObjectEntry& o) {
  const FileEntry& file = files_.at(o.ino);
  CheckFinding& f = Add("superseded", FindingSeverity::kLeftover,
                        "object " + o.path + " (" + Bytes(o.size) + "): an earlier upload of " +
                            Describe(o.ino) + ", whose object is upload " +
                            std::to_string(file.store_version) + " (a delete that failed)");
  if (!can_repair_ || o_.live) return;
  // Again, now: the file's own upload must still be there.
  Result<meta::Inode> now = Current(o.ino);
  if (!now.ok() || now->volume_id != o.volume_id || now->store_version <= o.version ||
      !HasObjectOn(now->volume_id, now->ino, now->generation, now->store_version)) {
    f.repair = "not repaired: the file's own upload was not seen again";
    return;
  }
  Repaired(f, DeleteObject(o), "deleted");
}

std::optional<std::string> Checker::OrphanReason(const ObjectEntry& o) {
  if (o.wrong_subdir) {
    return "in the wrong directory (objects of inode " + std::to_string(o.ino) + " live in " +
           ObjectSubdirName(o.ino) + "/)";
  }
  Result<meta::Inode> inode = Current(o.ino);
  if (!inode.ok()) return "no inode " + std::to_string(o.ino);
  if (!S_ISREG(inode->mode)) {
    return "inode " + std::to_string(o.ino) + " is a " + TypeName(inode->mode);
  }
  if (inode->volume_id == o.volume_id && inode->generation == o.generation &&
      (o.key.empty() || inode->store_version == o.version)) {
    return std::nullopt;
  }
  if (inode->generation != o.generation) {
    return Describe(o.ino) + " has generation " + std::to_string(inode->generation);
  }
  if (inode->volume_id == o.volume_id) {
    return Describe(o.ino) + "'s object is upload " + std::to_string(inode->store_version) +
           ", not " + std::to_string(o.version);
  }
  return Describe(o.ino) + " is on " + VolumeText(inode->volume_id);
}

void Checker::Adopt(const ObjectEntry& o, CheckFinding& f) {
  Result<uint64_t> lf = LostFound();
  if (!lf.ok()) return Repaired(f, lf.status(), "");
  const std::string base = "#" + std::to_string(o.ino) + "." + std::to_string(o.generation);
  const meta::Volume* v = VolumeById(o.volume_id);
  // An earlier repair that stopped between its commit and its rename left
  // /lost+found/#I.G pointing at no object on this volume: finish it.
  std::optional<meta::Inode> target;
  bool resumed = false;
  std::string name = base;
  if (Result<meta::Inode> prior = meta_.LookupInode(*lf, base);
      prior.ok() && S_ISREG(prior->mode) && prior->volume_id == o.volume_id &&
      LacksObject(ObjectPathIn(v->path, prior->ino, prior->generation))) {
    target = *prior;
    resumed = true;
    if (prior->size != o.size) {
      Status st = SetSize(prior->ino, o.size, "lost+found");
      if (!st.ok()) return Repaired(f, st, "");
    }
  } else {
    Result<std::string> free_name = FreeName(*lf, base);
    if (!free_name.ok()) return Repaired(f, free_name.status(), "");
    name = *free_name;
    meta::Inode proto;
    proto.mode = S_IFREG | 0600;
    proto.volume_id = o.volume_id;
    proto.size = o.size;
    Result<meta::Inode> created = meta_.Create(*lf, name, proto);
    if (!created.ok()) return Repaired(f, created.status(), "");
    target = *created;
  }
  const std::string to = ObjectPathIn(v->path, target->ino, target->generation);
  const std::string to_dir = ObjectsDir(v->path) + "/" + ObjectSubdirName(target->ino);
  Status st;
  if (o_.io->Mkdir(to_dir, 0700) != 0 && errno != EEXIST) {
    st = Status::FromErrno("mkdir " + to_dir);
  } else if (o_.io->Rename(o.path, to) != 0) {
    st = Status::FromErrno("rename " + o.path + " to " + to);
  }
  if (!st.ok()) {
    // Do not leave a name without its bytes: unlinked, the next mount reclaims it.
    if (!resumed) (void)meta_.Unlink(*lf, name);
    return Repaired(f, st, "");
  }
  const std::string from_dir = o.path.substr(0, o.path.rfind('/'));
  st = SyncDirectory(*o_.io, to_dir);
  if (st.ok() && from_dir != to_dir) st = SyncDirectory(*o_.io, from_dir);
  Repaired(f, st,
           std::string(resumed ? "finished an interrupted move: " : "") + "now /lost+found/" +
               name + " (inode " + std::to_string(target->ino) + ")");
}

void Checker::SettleStoreOrphan(const ObjectEntry& o, CheckFinding& f) {
  Result<meta::Inode> inode = Current(o.ino);
  if (!inode.ok() && inode.status().code() == ENOENT && !o_.delete_orphans) {
    return AdoptInPlace(o, f);
  }
  if (inode.ok() && S_ISREG(inode->mode) && inode->generation == o.generation &&
      (inode->volume_id != o.volume_id || inode->store_version != o.version)) {
    const std::string location =
        ObjectName(inode->volume_id, o.ino, o.generation, inode->store_version);
    auto mine = LengthAndHash(o.volume_id, o.ino, o.generation, o.version);
    auto theirs = LengthAndHash(inode->volume_id, o.ino, o.generation, inode->store_version);
    if (mine && theirs && *mine == *theirs) {
      return Repaired(f, DeleteObject(o),
                      "deleted: the file's object " + location + " holds the same " +
                          Bytes(mine->first) + " (xxh3 " + mine->second + ")");
    }
    if (!o_.delete_orphans) {
      f.repair = "not repaired: kept, because the file's object " + location +
                 (theirs ? " holds other bytes" : " could not be read") +
                 "; read it with your S3 client, then run --delete-orphans";
      return;
    }
  }
  if (!o_.delete_orphans) {
    f.repair = "not repaired: kept (nothing claims it; --delete-orphans deletes it)";
    return;
  }
  Repaired(f, DeleteObject(o), "deleted from the store, as --delete-orphans asks");
}

void Checker::AdoptInPlace(const ObjectEntry& o, CheckFinding& f) {
  Result<uint64_t> lf = LostFound();
  if (!lf.ok()) return Repaired(f, lf.status(), "");
  Result<std::string> name =
      FreeName(*lf, "#" + std::to_string(o.ino) + "." + std::to_string(o.generation));
  if (!name.ok()) return Repaired(f, name.status(), "");
  Repaired(f,
           meta_.RepairAdoptObject(*lf, *name, o.ino, o.generation, o.version, o.volume_id,
                                   o.size),
           "now /lost+found/" + *name + " (inode " + std::to_string(o.ino) + ", its object " +
               "where it is)");
}

}  // namespace tierfs::fsck
