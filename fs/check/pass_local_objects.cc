// Passes over a local volume's files (fs/check/fsck.h): its objects/ walked
// once (fs/volume/object_walk.h), each object ticking off the file it is the
// location of or set aside for the later passes; "stray" for what is not named
// like an object; "tmp" for a relocation's leftovers in tmp/.
#include "fs/check/checker.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>

#include "fs/volume/object_walk.h"
#include "fs/volume/volume_label.h"

namespace tierfs::fsck {

void Checker::WalkObjects(const meta::Volume& v) {
  const size_t aside_before = set_aside_.size();
  std::optional<std::pair<std::string, int>> unreadable;
  ObjectWalkCallbacks walk;
  walk.stray = [&](const std::string& path) {
    Add("stray", FindingSeverity::kNote,
        path + ": not an objects/xx directory of tierfs; left alone");
  };
  walk.unreadable = [&](const std::string& path, int error) {
    if (!unreadable) unreadable.emplace(path, error);
  };
  walk.entry = [&](const WalkedObject& w) { Take(v, w); };
  WalkObjectStore(*o_.io, v.path, ObjectWalkDepth::kAttributes, walk);
  if (unreadable) {
    set_aside_.erase(set_aside_.begin() + static_cast<ptrdiff_t>(aside_before), set_aside_.end());
    VolumeUnreadable(v, unreadable->first, unreadable->second);
  }
}

void Checker::Take(const meta::Volume& v, const WalkedObject& w) {
  if (!S_ISREG(w.st.st_mode) || !w.id) {
    Add("stray", FindingSeverity::kNote,
        w.path + ": not named like an object (" + std::string(TypeName(w.st.st_mode)) +
            "); left alone");
    return;
  }
  ++report_.objects;
  max_object_ino_ = std::max(max_object_ino_, w.id->ino);
  ObjectEntry o;
  o.volume_id = v.id;
  o.ino = w.id->ino;
  o.generation = w.id->generation;
  o.size = static_cast<uint64_t>(w.st.st_size);
  o.path = w.path;
  o.wrong_subdir = w.wrong_subdir;
  auto it = files_.find(o.ino);
  if (!o.wrong_subdir && it != files_.end() && it->second.volume_id == v.id &&
      it->second.generation == o.generation) {
    it->second.found = true;
    it->second.object_size = o.size;
    return;
  }
  set_aside_.push_back(std::move(o));
}

void Checker::WalkTmp(const meta::Volume& v) {
  const std::string tmp = TmpDir(v.path);
  std::vector<std::string> names;
  if (o_.io->ListDir(tmp, &names) != 0) {
    // No tmp/ is no leftover (VolumeSet recreates it at mount).
    if (errno != ENOENT) {
      Unreadable(Status::FromErrno("cannot read " + tmp).message() +
                 "; its leftovers were not checked");
    }
    return;
  }
  std::vector<std::string> leftovers;
  for (const std::string& name : names) {
    // Empty "free.<n>" files are a mounted volume's recycled objects (VolumeSet):
    // inodes kept for the next creates, not leftovers.
    if (name.rfind("free.", 0) == 0) {
      struct stat st;
      if (o_.io->Lstat(tmp + "/" + name, &st) == 0 && S_ISREG(st.st_mode) &&
          st.st_size == 0) {
        continue;
      }
    }
    leftovers.push_back(tmp + "/" + name);
  }
  std::sort(leftovers.begin(), leftovers.end());
  for (const std::string& path : leftovers) {
    struct stat st;
    if (o_.io->Lstat(path, &st) != 0) {
      if (errno != ENOENT) Unreadable(Status::FromErrno("cannot stat " + path).message());
      continue;
    }
    CheckFinding& f = Add("tmp", FindingSeverity::kLeftover,
                          path + " (" + Bytes(static_cast<uint64_t>(st.st_size)) +
                              "): relocation leftover; the next mount removes it");
    if (!can_repair_) continue;
    if (S_ISDIR(st.st_mode)) {
      f.repair = "not repaired: a directory; remove it by hand";
      continue;
    }
    Status rm = o_.io->Unlink(path) == 0 || errno == ENOENT
                    ? Status::Ok()
                    : Status::FromErrno("unlink " + path);
    Repaired(f, rm, "removed");
  }
}

}  // namespace tierfs::fsck
