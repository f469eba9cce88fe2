// VolumeSet: the mounted file system's volumes, their health, and the objects on
// them.
//
// Built once at mount from the database's volume rows. Open() proves that every
// directory is the volume it claims to be (its .tierfs/label names this file system
// and this volume id) and refuses to mount otherwise, naming the directory: a
// directory without its label is never written to. Objects are regular files named
// <volume>/.tierfs/objects/<xx>/<ino>.<generation>, xx = ino mod 256 in hex. Every
// system call on them goes through the VolumeIo seam (fs/volume_io.h).
//
// Health (design.md, "Living with full volumes, lost volumes and crashes"): a
// volume is online, full (a data write met ENOSPC there; placement and relocation
// skip it until it has room above its reserve again) or offline (its label is
// gone or foreign: the device under it was unmounted or replaced). An object open
// that fails re-checks the label; CheckHealth() re-checks every volume
// periodically and brings a volume back online when its label is back. Files on
// an offline volume get EIO, and nothing is ever created in its directory. The
// metadata volume also refuses data while the database's space reserve is
// depleted (meta/space_reserve.h).
//
// Thread-safe: the volume list is immutable after Open(); health is atomic;
// Space() caches statvfs results under its own mutex.
#pragma once

#include <sys/statvfs.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "fs/volume_io.h"
#include "meta/records.h"
#include "policy/volume_state.h"

namespace tierfs {

namespace meta {
class SpaceReserve;
}

// A volume's health; see the file comment.
enum class VolumeHealth : int { kOnline = 0, kFull = 1, kOffline = 2 };
// "online" | "full" | "offline", as fsppadm status and fsvoladm show it.
const char* VolumeHealthName(VolumeHealth health);

class VolumeSet {
 public:
  // Verifies labels and empties each volume's tmp/ (relocations that a crash left
  // half done). ENOENT naming the volume and its directory when a label is missing,
  // EINVAL when the label belongs to another file system or volume. `io` must
  // outlive the set.
  static Result<std::unique_ptr<VolumeSet>> Open(const std::vector<meta::Volume>& volumes,
                                                 const std::string& fs_uuid, const Clock& clock,
                                                 VolumeIo& io = VolumeIo::Posix());

  const std::vector<meta::Volume>& volumes() const { return volumes_; }
  // The volume with `id`, or nullptr.
  const meta::Volume* Find(uint32_t id) const;
  // The volume's name ("vol1"), or "" for an unknown id (0 = no volume).
  std::string NameOf(uint32_t id) const;
  // The volume that holds the metadata database (the first one).
  uint32_t metadata_volume_id() const { return volumes_.front().id; }
  // The seam every object system call goes through.
  VolumeIo& io() const { return io_; }

  std::string ObjectPath(uint32_t volume_id, uint64_t ino, uint64_t generation) const;
  // A fresh temporary path on the volume for a relocation copy.
  std::string TmpPath(uint32_t volume_id, uint64_t ino, uint64_t generation) const;

  // Opens the object read-write (O_CLOEXEC). With `create`, creates it (mode 0600)
  // when missing. Returns the fd (caller owns it). Errors: EIO naming the volume
  // when it is offline (checked again when the open fails: a missing label makes
  // it offline, logged once); EIO for a missing object on an online volume (the
  // namespace says the file has bytes: damage, see `tierfs check`); otherwise the
  // open(2) errno.
  Result<int> OpenObject(uint32_t volume_id, uint64_t ino, uint64_t generation, bool create) const;
  // Removes an object; a missing one is not an error (reclaim is idempotent).
  // The room it leaves goes first to a depleted database reserve, and may bring a
  // full volume back online (RecheckFull).
  Status RemoveObject(uint32_t volume_id, uint64_t ino, uint64_t generation) const;

  // Capacity of every volume for the placement code, refreshed at most once per
  // second unless `fresh`. Reserve = 1% of the volume (the watermark, dst-spec 10.19).
  // A volume that is offline, full, or (the metadata volume) short of its database
  // reserve has accepts_data false, so placement and relocation pass it by; an
  // offline volume shows no capacity (its directory is not the volume).
  std::vector<policy::VolumeState> Space(bool fresh = false) const;
  // statvfs of one volume's directory.
  Result<struct statvfs> Statvfs(uint32_t volume_id) const;

  VolumeHealth Health(uint32_t volume_id) const;
  // Whether new data must keep off the volume: offline, or the metadata volume
  // while its database reserve is depleted. A write there is treated as ENOSPC
  // (the file moves on). Cheap: two atomic loads.
  bool RefusesData(uint32_t volume_id) const;
  // A data write met ENOSPC (or EDQUOT) on the volume: mark it full and drop the
  // cached free space, so the next placement sees it.
  void MarkFull(uint32_t volume_id) const;
  // Re-reads the volume's label: offline (logged once) when it is missing or
  // foreign, back online when it is right again. Returns the health now.
  VolumeHealth CheckLabel(uint32_t volume_id) const;
  // A full volume back to online when its free space is above twice its reserve
  // (called after objects were removed from it, so a delete makes room at once).
  void RecheckFull(uint32_t volume_id) const;
  // The periodic check (every writeback period): labels of all volumes, and
  // RecheckFull for every full one.
  void CheckHealth() const;
  // The metadata volume refuses data while `reserve` is depleted; removing an
  // object from it grows the reserve back at once. Set once at mount, before
  // serving; `reserve` must outlive the set (or be reset to null).
  void SetMetadataReserve(meta::SpaceReserve* reserve) { reserve_ = reserve; }

 private:
  VolumeSet(std::vector<meta::Volume> volumes, std::string fs_uuid, const Clock& clock,
            VolumeIo& io);
  // Index of the volume with `id` in volumes_, or -1.
  int IndexOf(uint32_t id) const;
  void SetHealth(size_t index, VolumeHealth health, const std::string& why) const;
  // An EIO naming the offline volume.
  Status OfflineError(const meta::Volume& v) const;

  const std::vector<meta::Volume> volumes_;
  const std::string fs_uuid_;
  const Clock& clock_;
  VolumeIo& io_;
  meta::SpaceReserve* reserve_ = nullptr;
  // Health per volume, parallel to volumes_ (VolumeHealth values).
  std::unique_ptr<std::atomic<int>[]> health_;
  mutable std::mutex space_mu_;  // guards space_ and space_time_ns_
  mutable std::vector<policy::VolumeState> space_;
  mutable int64_t space_time_ns_ = 0;
};

}  // namespace tierfs
