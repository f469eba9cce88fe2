// VolumeSet: the mounted file system's volumes, their health, and the objects on
// them.
//
// Built once at mount from the database's volume rows. Open() proves that every
// directory is the volume it claims to be (its .tierfs/label names this file system
// and this volume id) and refuses to mount otherwise, naming the directory: a
// directory without its label is never written to. Objects are regular files named
// <volume>/.tierfs/objects/<xx>/<ino>.<generation>, xx = ino mod 256 in hex. Every
// system call on them goes through the VolumeIo seam (fs/volume/volume_io.h).
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
// The volume list changes at run time (fsvoladm add, remove, setclass: Add,
// Remove, SetClass), but readers never lock: the list is an immutable snapshot
// behind one atomic pointer, and a change publishes a new snapshot. Old
// snapshots are kept until the set is destroyed (a few hundred bytes per
// administrative change), so a reference from volumes() or a pointer from
// Find() stays valid for the life of the set; it may describe the list as it
// was a moment ago (a removed volume, an old class). The data path pays one
// acquire load per lookup.
//
// Object volumes (path "s3://BUCKET/PREFIX", fs/volume/object_volume.h)
// are in the set too, with no directory: no label, no tmp/, no recycled objects.
// Their health comes from a probe of the bucket (ProbeStores, run every second
// by the daemon, and a failed read: MarkStoreOffline), not from a label. They
// take relocations only, never creates (Space: takes_creates false), and report
// kObjectVolumeBytes of room to placement (a store's capacity is not known).
//
// Thread-safe: health and draining are atomics per volume (kept by id across
// snapshots); Space() caches statvfs results under its own mutex; changes are
// serialized by change_mu_.
#pragma once

#include <sys/statvfs.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/mutex.h"
#include "common/status.h"
#include "common/thread_annotations.h"
#include "fs/volume/object_volume.h"
#include "fs/volume/volume_io.h"
#include "meta/records.h"
#include "policy/volume_state.h"

namespace tierfs {

namespace meta {
class SpaceReserve;
}

// The room an object volume shows to placement (1 PiB): a store's capacity is
// unknown, and a full one answers ENOSPC to the upload, which fails that move only.
inline constexpr uint64_t kObjectVolumeBytes = uint64_t{1} << 50;

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
  // Object volumes open their store (ObjectVolume::Open's errors refuse the
  // mount, naming the volume) and are probed once (offline when the store does
  // not answer: the mount goes on).
  static Result<std::unique_ptr<VolumeSet>> Open(const std::vector<meta::Volume>& volumes,
                                                 const std::string& fs_uuid, const Clock& clock,
                                                 VolumeIo& io = VolumeIo::Posix());

  // The volumes now, ordered by id, the metadata volume first. The reference stays
  // valid for the life of the set (see the file comment); a later change is not
  // reflected in it.
  const std::vector<meta::Volume>& volumes() const { return Current()->volumes; }
  // The volume with `id`, or nullptr.
  const meta::Volume* Find(uint32_t id) const;
  // The volume's name ("vol1"), or "" for an unknown id (0 = no volume).
  std::string NameOf(uint32_t id) const;
  // The volume that holds the metadata database (the first one).
  uint32_t metadata_volume_id() const { return Current()->volumes.front().id; }
  // The seam every object system call goes through.
  VolumeIo& io() const { return io_; }
  // Whether volume `id` is an object volume (false for an unknown id).
  bool IsObjectVolume(uint32_t id) const;
  // The store of object volume `id`, or nullptr (a directory, or an unknown id).
  // Valid for the life of the set.
  ObjectVolume* Store(uint32_t id) const;
  // Whether some volume of placement class `cls` is an object volume (the
  // class's capacity is then unknown).
  bool ClassHasObjectVolume(const std::string& cls) const;
  // Removes inode `ino`'s object from volume `id`, whatever its kind: a file on
  // a directory as RemoveObject does; on an object volume a DELETE of the key
  // of upload `store_version` (ObjectVolume::quick() bounds, a few seconds; a
  // missing key is no error). EIO naming the volume when an object volume is
  // offline; the store's errors otherwise.
  Status RemoveAnyObject(uint32_t id, uint64_t ino, uint64_t generation,
                         uint64_t store_version) const;
  // Removes what a pending_objects row stands for: on a directory, the object
  // of (ino, generation) unless `keep` is set (it is the file's location); on
  // an object volume, every upload of (ino, generation) but upload `*keep`,
  // found by listing the keys that start with ObjectKeyStem (a failed
  // delete's older upload, or the copy of an upload that never committed,
  // whatever its number). quick() bounds per request. Errors as
  // RemoveAnyObject's; the first failed delete stops it (what is left stays
  // pending).
  Status RemoveLeftovers(uint32_t id, uint64_t ino, uint64_t generation,
                         std::optional<uint64_t> keep) const;
  // Probes every object volume's bucket (ObjectVolume::Probe, a few seconds at
  // most each): online when it answers, else by the rule of StoreFailed
  // (offline, logged once with the store's words, when it is unreachable,
  // refuses the keys, or the bucket is gone). The daemon calls it every second.
  void ProbeStores() const;
  // A call on object volume `id` failed with `why`, whose errno tells what it
  // says of the store (ClassifyS3Errno), by the rule of StoreFailed: offline,
  // so that the next reads fail fast until ProbeStores finds the store back,
  // when nothing answers at its address (ECONNREFUSED, EHOSTUNREACH,
  // ENETUNREACH), when it refuses the keys (EACCES), or when it has only timed
  // out for kStoreTimeoutsBeforeOfflineSeconds (ETIMEDOUT); still online when
  // it answers busy or failing (EAGAIN, EIO, EPROTO: the call fails alone).
  // Other errnos (ENOENT, EINVAL...) are the request's and mark it offline too:
  // callers pass only failures that are the store's. `why` goes to the log.
  void MarkStoreOffline(uint32_t id, const Status& why) const;
  // How long a store may only time out, answering nothing at all, before it
  // is offline, seconds. A store busy with uploads can take longer than the
  // probe's bounds to answer a HEAD (seen: 2 s under four 16 MiB parts at
  // once), and marking it offline then failed every relocation in flight.
  static constexpr int64_t kStoreTimeoutsBeforeOfflineSeconds = 10;
  // How often an online store's leftover multipart uploads are aborted
  // (ObjectVolume::AbortLeftoverUploads): at the first probe that finds it
  // after the mount, then at this period, so that a crash's parts are not
  // kept (and billed) until an offline repair.
  static constexpr int64_t kUploadSweepSeconds = 3600;

  // The path of the object of (ino, generation) on local volume `volume_id`;
  // "" for an object volume (its keys: ObjectVolume::KeyOf) or an unknown id.
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
  // second unless `fresh`. Reserve = 1% of the volume (the watermark; docs/reliability.md
  // "What a full volume does").
  // A volume that is offline, full, or (the metadata volume) short of its database
  // reserve has accepts_data false, so placement and relocation pass it by; an
  // offline volume shows no capacity (its directory is not the volume).
  std::vector<policy::VolumeState> Space(bool fresh = false) const;
  // statvfs of one volume's directory.
  Result<struct statvfs> Statvfs(uint32_t volume_id) const;

  VolumeHealth Health(uint32_t volume_id) const;
  // What `fsvoladm list` and the metrics call the volume's state: its row's
  // state when that says more than "online" (e.g. "removing"), else "draining"
  // while fsvoladm remove empties it, else its live health ("online", "full",
  // "offline").
  std::string StateOf(const meta::Volume& volume) const;
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
  // The periodic check (with every periodic flush): labels of all volumes, and
  // RecheckFull for every full one.
  void CheckHealth() const;
  // ---- Changes at run time (fsvoladm). Each publishes a new snapshot and makes
  // the next Space() read fresh numbers; none touches the database (the caller
  // commits the volume row first).
  //
  // Adds `volume` (its row is already in the database) after proving its
  // directory carries this file system's label for volume.id (not retired), and
  // empties its tmp/; an object volume instead opens its store
  // (ObjectVolume::Open: EINVAL, EACCES, ENOENT for its credentials file). EEXIST when the id or the name is already in the set;
  // ENOENT / EINVAL as Open() for a missing or foreign label. It starts online,
  // not draining.
  Status Add(const meta::Volume& volume);
  // Drops volume `id` from the set. EINVAL for the metadata volume, ENOENT for
  // an unknown id. The caller has moved every object off it first.
  Status Remove(uint32_t id);
  // Gives volume `id` the placement class `placement_class` (non-empty).
  // ENOENT for an unknown id, EINVAL for an empty class.
  Status SetClass(uint32_t id, const std::string& placement_class);
  // A draining volume (being removed) takes no new data: Space() shows it with
  // accepts_data false, so creates, moves on ENOSPC and relocations pass it by.
  // Existing files on it stay readable and writable. ENOENT for an unknown id.
  Status SetDraining(uint32_t id, bool draining);
  bool Draining(uint32_t id) const;

  // The metadata volume refuses data while `reserve` is depleted; removing an
  // object from it grows the reserve back at once. Set once at mount, before
  // serving; `reserve` must outlive the set (or be reset to null).
  void SetMetadataReserve(meta::SpaceReserve* reserve) { reserve_ = reserve; }
  // Unlinks every recycled object (unmount): a clean volume keeps none in tmp/.
  void DropRecycledObjects() const;
  // From now on removed objects are unlinked, never recycled for new files (a
  // mount whose INIT granted passthrough: FileSystem::EnablePassthrough).
  void KeepNoRecycledObjects() { recycle_objects_.store(false); }

 private:
  // Per-volume state that outlives snapshots (kept by id).
  struct Slot {
    std::atomic<int> health{int(VolumeHealth::kOnline)};  // VolumeHealth values
    std::atomic<bool> draining{false};
    // Recycled objects: emptied inodes in tmp/ ("free.<n>") that the next creates
    // take by rename (see RemoveObject). tmp/ is emptied at mount, so the pool is
    // memory only.
    Mutex pool_mu;
    std::vector<std::string> pool GUARDED_BY(pool_mu);  // paths
    uint64_t pool_names GUARDED_BY(pool_mu) = 0;  // the next "free.<n>"
    // An object volume's store (set before the slot is published); null for a
    // directory.
    std::shared_ptr<ObjectVolume> store;
    // The store's failures (StoreFailed): since when it has only timed out
    // (ns of clock_, 0: it answers), and its reply count then.
    std::atomic<int64_t> timing_out_since_ns{0};
    std::atomic<uint64_t> replies_then{0};
    // When the probe next aborts the store's leftover multipart uploads (ns of
    // clock_; 0: at its first answer after the mount).
    std::atomic<int64_t> next_upload_sweep_ns{0};
  };
  // A request to `slot`'s store failed with `why` (its errno classified by
  // ClassifyS3Errno). Nothing at the address (ECONNREFUSED, EHOSTUNREACH), keys
  // refused (EACCES) or another request error (a bucket gone: ENOENT) make the
  // volume offline at once. A timeout does only once the store has answered
  // nothing at all for kStoreTimeoutsBeforeOfflineSeconds: a reply to any
  // request in between (an upload's part, a read) shows it busy, not gone, and
  // starts the wait anew. A store that answers busy or failing (EAGAIN, EIO,
  // EPROTO) leaves the volume as it is (logged).
  void StoreFailed(const meta::Volume& v, Slot& slot, const Status& why) const;
  // Aborts `slot`'s store's leftover multipart uploads when their time has
  // come (kUploadSweepSeconds); failures are logged and tried at the next.
  void SweepUploads(const meta::Volume& v, Slot& slot) const;
  // Keeps up to kRecycledObjects emptied objects per volume for the next creates.
  static constexpr size_t kRecycledObjects = 4096;
  // Moves the object at `path` into the volume's pool, emptied; false when the
  // pool is full or a step failed (the caller unlinks it then).
  bool RecycleObject(uint32_t volume_id, const std::string& path) const;
  // Takes a pooled object and gives it the name `path` (never replacing an object
  // there); false when the pool is empty (errno 0) or the rename failed (its
  // errno: ENOENT when the subdirectory of `path` is missing, EEXIST).
  bool ReuseObject(uint32_t volume_id, const std::string& path) const;
  // One published volume list; never changed once published.
  struct Snapshot {
    std::vector<meta::Volume> volumes;  // ordered by id
    std::vector<Slot*> slots;           // parallel to volumes
  };

  VolumeSet(std::vector<meta::Volume> volumes, std::string fs_uuid, const Clock& clock,
            VolumeIo& io);
  const Snapshot* Current() const { return current_.load(std::memory_order_acquire); }
  // Index of the volume with `id` in `snap`, or -1.
  static int IndexOf(const Snapshot& snap, uint32_t id);
  // The slot of volume `id` in the current snapshot, or nullptr.
  Slot* SlotOf(uint32_t id) const;
  void SetHealth(const meta::Volume& v, Slot& slot, VolumeHealth health,
                 const std::string& why) const;
  // An EIO naming the offline volume.
  Status OfflineError(const meta::Volume& v) const;
  // Checks that `dir` carries this file system's live label for volume `v`.
  Status VerifyLabel(const meta::Volume& v) const;
  // Publishes `next` (change_mu_ held) and drops the cached space numbers.
  void PublishLocked(std::unique_ptr<Snapshot> next) REQUIRES(change_mu_) EXCLUDES(space_mu_);
  // A new slot for a volume entering the set (change_mu_ held, or in the constructor).
  Slot* NewSlotLocked() REQUIRES(change_mu_);

  const std::string fs_uuid_;
  const Clock& clock_;
  VolumeIo& io_;
  meta::SpaceReserve* reserve_ = nullptr;
  std::atomic<bool> recycle_objects_{true};  // see KeepNoRecycledObjects
  Mutex change_mu_ ACQUIRED_BEFORE(space_mu_);  // serializes Add/Remove/SetClass
  // Every snapshot ever published (readers hold plain pointers; see the file comment).
  std::vector<std::unique_ptr<const Snapshot>> snapshots_ GUARDED_BY(change_mu_);
  std::vector<std::unique_ptr<Slot>> slots_ GUARDED_BY(change_mu_);
  std::atomic<const Snapshot*> current_{nullptr};
  mutable Mutex space_mu_;
  mutable std::vector<policy::VolumeState> space_ GUARDED_BY(space_mu_);
  mutable int64_t space_time_ns_ GUARDED_BY(space_mu_) = 0;
};

}  // namespace tierfs
