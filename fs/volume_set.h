// VolumeSet: the mounted file system's volumes and the objects on them.
//
// Built once at mount from the database's volume rows. Open() proves that every
// directory is the volume it claims to be (its .tierfs/label names this file system
// and this volume id) and refuses to mount otherwise, naming the directory: a
// directory without its label is never written to. Objects are regular files named
// <volume>/.tierfs/objects/<xx>/<ino>.<generation>, xx = ino mod 256 in hex.
//
// Thread-safe: the volume list is immutable after Open(); Space() caches statvfs
// results under its own mutex.
#pragma once

#include <sys/statvfs.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "meta/records.h"
#include "policy/volume_state.h"

namespace tierfs {

class VolumeSet {
 public:
  // Verifies labels and empties each volume's tmp/ (relocations that a crash left
  // half done). ENOENT naming the volume and its directory when a label is missing,
  // EINVAL when the label belongs to another file system or volume.
  static Result<std::unique_ptr<VolumeSet>> Open(const std::vector<meta::Volume>& volumes,
                                                 const std::string& fs_uuid, const Clock& clock);

  const std::vector<meta::Volume>& volumes() const { return volumes_; }
  // The volume with `id`, or nullptr.
  const meta::Volume* Find(uint32_t id) const;
  // The volume's name ("vol1"), or "" for an unknown id (0 = no volume).
  std::string NameOf(uint32_t id) const;

  std::string ObjectPath(uint32_t volume_id, uint64_t ino, uint64_t generation) const;
  // A fresh temporary path on the volume for a relocation copy.
  std::string TmpPath(uint32_t volume_id, uint64_t ino, uint64_t generation) const;

  // Opens the object read-write (O_CLOEXEC). With `create`, creates it (mode 0600)
  // when missing. Returns the fd (caller owns it) or the open(2) errno.
  Result<int> OpenObject(uint32_t volume_id, uint64_t ino, uint64_t generation, bool create) const;
  // Removes an object; a missing one is not an error (reclaim is idempotent).
  Status RemoveObject(uint32_t volume_id, uint64_t ino, uint64_t generation) const;

  // Capacity of every volume for the placement code, refreshed at most once per
  // second unless `fresh`. Reserve = 1% of the volume (the watermark, dst-spec 10.19).
  std::vector<policy::VolumeState> Space(bool fresh = false) const;
  // statvfs of one volume's directory.
  Result<struct statvfs> Statvfs(uint32_t volume_id) const;

 private:
  VolumeSet(std::vector<meta::Volume> volumes, const Clock& clock)
      : volumes_(std::move(volumes)), clock_(clock) {}

  const std::vector<meta::Volume> volumes_;
  const Clock& clock_;
  mutable std::mutex space_mu_;  // guards space_ and space_time_ns_
  mutable std::vector<policy::VolumeState> space_;
  mutable int64_t space_time_ns_ = 0;
};

}  // namespace tierfs
