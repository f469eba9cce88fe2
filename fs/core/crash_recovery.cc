// FileSystem: what a mount does before serving, so that a crash leaves nothing
// behind (docs/reliability.md "What survives a crash"): relocation leftovers go
// (pending_objects), objects a crash left longer than their files are trimmed (or,
// after a mount with passthrough opens, taken at their length) and shorter ones
// reported, and objects of creates the crash undid are removed.
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <unordered_set>
#include <vector>

#include "common/log.h"
#include "fs/core/file_system.h"
#include "fs/volume/io_steps.h"
#include "fs/volume/object_walk.h"
#include "fs/volume/volume_label.h"

namespace tierfs {

Status FileSystem::RemoveOrphanObjects() {
  std::vector<uint32_t> ids;
  for (const meta::Volume& v : volumes_->volumes()) ids.push_back(v.id);
  auto files = meta_->FilesOnVolumes(ids);
  if (!files.ok()) return files.status();
  std::unordered_set<uint64_t> owned;
  owned.reserve(files->size());
  for (const meta::Inode& f : *files) owned.insert(f.ino);
  uint64_t removed = 0;
  for (const meta::Volume& v : volumes_->volumes()) {
    if (meta::IsObjectVolume(v)) continue;  // a store's orphans are `tierfs check`'s
    // The same walk as `tierfs check`'s (fs/volume/object_walk.h), with a narrower
    // rule: only what is named like an object, in its own xx directory, and owned
    // by no inode at all. An object whose row points elsewhere may be a
    // relocation's copy (pending_objects); anything else is for check to report.
    std::vector<std::string> orphans;
    ObjectWalkCallbacks walk;
    walk.entry = [&](const WalkedObject& o) {
      if (o.id && !o.wrong_subdir && owned.count(o.id->ino) == 0 &&
          meta_->GetInode(o.id->ino).status().code() == ENOENT) {
        orphans.push_back(o.path);
      }
    };
    // What cannot be read keeps its orphans: they are garbage, never a file's bytes,
    // so the mount goes on (`tierfs check` lists them later). No objects/ at all is
    // a volume never used, or offline.
    walk.unreadable = [&](const std::string& path, int error) {
      if (path == ObjectsDir(v.path) && error == ENOENT) return;
      LogWarning("crash recovery: volume {}: {}; objects of files whose creation the crash "
                 "undid stay there (tierfs check lists them)",
                 v.name, Status::FromErrno(error, "cannot read " + path).message());
    };
    WalkObjectStore(volumes_->io(), v.path, ObjectWalkDepth::kNames, walk);
    for (const std::string& path : orphans) {
      if (volumes_->io().Unlink(path) == 0) removed++;
    }
  }
  if (removed > 0) {
    LogInfo("removed {} objects of files whose creation the crash undid", removed);
  }
  return Status::Ok();
}

Status FileSystem::TrimObjectsAfterCrash(bool keep_longer) {
  std::vector<uint32_t> ids;
  for (const meta::Volume& v : volumes_->volumes()) ids.push_back(v.id);
  auto files = meta_->FilesOnVolumes(ids);
  if (!files.ok()) return files.status();
  VolumeIo& io = volumes_->io();
  uint64_t trimmed = 0, bytes = 0, short_objects = 0, kept = 0;
  for (const meta::Inode& f : *files) {
    // An object on a store was verified whole before its commit and is never
    // written in place: nothing to trim.
    if (volumes_->IsObjectVolume(f.volume_id)) continue;
    const std::string path = volumes_->ObjectPath(f.volume_id, f.ino, f.generation);
    struct stat st;
    if (io.Stat(path, &st) != 0) {
      // A missing object is for `tierfs check` to report (an empty file may have none).
      if (errno == ENOENT) continue;
      // One that cannot be looked at may hold bytes never acknowledged past the
      // file's end, which a later extension of the file would show: no mount until
      // the volume reads again (nothing was changed; the next mount recovers).
      return Status::FromErrno("crash recovery: volume " + volumes_->NameOf(f.volume_id) +
                               ": cannot stat " + path);
    }
    if (static_cast<uint64_t>(st.st_size) == f.size) continue;
    if (static_cast<uint64_t>(st.st_size) < f.size) {
      // Acknowledged bytes that are not there: damage, never passed in silence. The
      // file keeps its size (its tail reads zeros) until `tierfs check --repair`
      // restores the range from another object or says it cannot.
      Result<std::string> name = meta_->PathOf(f.ino);
      LogError("{} (inode {}): its object {} has {} bytes, the file {}: {} acknowledged bytes "
               "are missing (run `tierfs check --repair`)",
               name.ok() ? *name : "(no name)", f.ino, path, st.st_size, f.size,
               f.size - static_cast<uint64_t>(st.st_size));
      short_objects++;
      continue;
    }
    if (keep_longer) {
      // One transaction per file, before the next is looked at: a crash here
      // leaves the rest for the next recovery, which keeps them the same way.
      meta::Inode grown = f;
      grown.size = static_cast<uint64_t>(st.st_size);
      grown.mtime_ns = grown.ctime_ns = st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec;
      auto row = meta_->UpdateAttributes(grown, meta::kAttrSize | meta::kAttrMtime |
                                                    meta::kAttrCtime, "write");
      if (!row.ok()) return Status::Error(row.status().code(), "crash recovery: " +
                                                                   row.status().message());
      kept++;
      bytes += static_cast<uint64_t>(st.st_size) - f.size;
      continue;
    }
    // The trim `tierfs check --repair` makes too, without its fsync: a crash before
    // the next clean stop brings this recovery back, which trims again.
    Status trim = TrimFile(io, path, f.size, /*durable=*/false);
    if (!trim.ok()) return Status::Error(trim.code(), "crash recovery: " + trim.message());
    trimmed++;
    bytes += static_cast<uint64_t>(st.st_size) - f.size;
  }
  if (keep_longer) {
    LogWarning("the last mount did not end cleanly (passthrough opens): checked {} objects, "
               "took {} longer than their files at their length ({} bytes the kernel wrote "
               "past the recorded sizes), {} shorter than their files",
               files->size(), kept, bytes, short_objects);
  } else {
    LogWarning("the last mount did not end cleanly: checked {} objects, trimmed {} to their "
               "recorded sizes ({} bytes never acknowledged), {} shorter than their files",
               files->size(), trimmed, bytes, short_objects);
  }
  return Status::Ok();
}

Status FileSystem::RemovePendingObjects() {
  auto pending = meta_->ListPendingObjects();
  if (!pending.ok()) return pending.status();
  for (const meta::PendingObject& p : *pending) {
    auto inode = meta_->GetInode(p.ino);
    const bool is_location = inode.ok() && inode->volume_id == p.volume_id &&
                             inode->generation == p.generation;
    // Never remove what may hold a file's only copy of some bytes: if the
    // location's object is missing or shorter than the file (it should not be: it
    // was renamed into place and its directory synced before the commit), keep the
    // pending one for `tierfs check --repair`, which points the file there or
    // restores the missing range from it.
    // A location on a store was verified before its commit (and is not asked
    // for at every mount).
    if (inode.ok() && S_ISREG(inode->mode) && inode->size > 0 && !is_location &&
        inode->generation == p.generation && !volumes_->IsObjectVolume(inode->volume_id)) {
      // A location that cannot be stat'ed (EIO) counts as missing: keep the other.
      VolumeIo& io = volumes_->io();
      struct stat location, other;
      const bool missing =
          io.Stat(volumes_->ObjectPath(inode->volume_id, inode->ino, inode->generation),
                  &location) != 0;
      const std::string why = missing && errno != ENOENT ? Status::FromErrno("unreadable").message()
                              : missing                  ? "missing"
                                                         : "shorter than the file";
      const bool short_location =
          !missing && static_cast<uint64_t>(location.st_size) < inode->size &&
          io.Stat(volumes_->ObjectPath(p.volume_id, p.ino, p.generation), &other) == 0 &&
          other.st_size > location.st_size;
      if (missing || short_location) {
        LogError("inode {}: its object on {} is {}; keeping the one on {} (run `tierfs check "
                 "--repair`)",
                 p.ino, volumes_->NameOf(inode->volume_id), why, volumes_->NameOf(p.volume_id));
        continue;
      }
    }
    if (volumes_->IsObjectVolume(p.volume_id)) {
      // Every upload of the file there but its location's: a crash mid-upload
      // left one, a failed delete an older one. A store that does not answer
      // keeps them, and the record, for the next mount or `tierfs check
      // --repair`: the mount goes on.
      const std::optional<uint64_t> keep =
          is_location ? std::optional<uint64_t>(inode->store_version) : std::nullopt;
      Status st = volumes_->RemoveLeftovers(p.volume_id, p.ino, p.generation, keep);
      if (!st.ok()) {
        LogWarning("inode {}: its leftover object on {} stays for now: {}", p.ino,
                   volumes_->NameOf(p.volume_id), st.message());
        continue;
      }
    } else if (!is_location) {
      Status st = volumes_->RemoveObject(p.volume_id, p.ino, p.generation);
      if (!st.ok()) return st;
    }
    TIERFS_RETURN_IF_ERROR(meta_->RemovePendingObject(p.ino, p.volume_id));
  }
  return Status::Ok();
}

}  // namespace tierfs
