#include "fs/volume/volume_set.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>

#include "common/log.h"
#include "fs/objstore/s3_errors.h"
#include "fs/volume/volume_label.h"
#include "meta/space_reserve.h"

namespace tierfs {
namespace {

// Removes every entry of a flat directory (the tmp/ of a volume: relocations a
// stop interrupted, and recycled objects of the last mount). One that cannot be
// read keeps them: they are copies and empty files, never a file's only bytes.
void EmptyDirectory(VolumeIo& io, const std::string& dir) {
  std::vector<std::string> names;
  if (io.ListDir(dir, &names) != 0) {
    if (errno != ENOENT) {
      LogWarning("{}; its leftovers stay", Status::FromErrno("cannot read " + dir).message());
    }
    return;
  }
  for (const std::string& name : names) io.Unlink(dir + "/" + name);
}

}  // namespace

const char* VolumeHealthName(VolumeHealth health) {
  switch (health) {
    case VolumeHealth::kOnline:
      return "online";
    case VolumeHealth::kFull:
      return "full";
    case VolumeHealth::kOffline:
      return "offline";
  }
  return "unknown";
}

Result<std::unique_ptr<VolumeSet>> VolumeSet::Open(const std::vector<meta::Volume>& volumes,
                                                   const std::string& fs_uuid, const Clock& clock,
                                                   VolumeIo& io) {
  if (volumes.empty()) return Status::Invalid("a file system needs at least one volume");
  std::unique_ptr<VolumeSet> set(new VolumeSet(volumes, fs_uuid, clock, io));
  for (const meta::Volume& v : volumes) {
    if (meta::IsObjectVolume(v)) {
      if (v.id == volumes.front().id) {
        return Status::Invalid("volume " + v.name + " (" + v.path +
                               ") is an object volume and cannot hold the metadata");
      }
      auto store = ObjectVolume::Open(v);
      if (!store.ok()) return store.status();
      set->SlotOf(v.id)->store = std::move(*store);
      continue;
    }
    TIERFS_RETURN_IF_ERROR(set->VerifyLabel(v));
    EmptyDirectory(io, TmpDir(v.path));
  }
  set->ProbeStores();
  return set;
}

VolumeSet::VolumeSet(std::vector<meta::Volume> volumes, std::string fs_uuid, const Clock& clock,
                     VolumeIo& io)
    : fs_uuid_(std::move(fs_uuid)), clock_(clock), io_(io) {
  auto snap = std::make_unique<Snapshot>();
  snap->volumes = std::move(volumes);
  for (size_t i = 0; i < snap->volumes.size(); ++i) snap->slots.push_back(NewSlotLocked());
  PublishLocked(std::move(snap));
}

Status VolumeSet::VerifyLabel(const meta::Volume& v) const {
  Result<VolumeLabel> label = ReadVolumeLabel(v.path, io_);
  if (!label.ok()) {
    return Status::Error(label.status().code(),
                         "volume " + v.name + " (" + v.path + "): " + label.status().message());
  }
  if (label->fs_uuid != fs_uuid_ || label->volume_id != v.id || label->retired) {
    return Status::Invalid(
        "volume " + v.name + " (" + v.path + ") carries the label of " +
        (label->fs_uuid != fs_uuid_ ? "another file system (" + label->fs_uuid + ")"
         : label->retired           ? "a retired volume (" + label->volume_name + ")"
                                    : "volume " + label->volume_name) +
        ": refusing to use it");
  }
  return Status::Ok();
}

VolumeSet::Slot* VolumeSet::NewSlotLocked() {
  slots_.push_back(std::make_unique<Slot>());
  return slots_.back().get();
}

void VolumeSet::PublishLocked(std::unique_ptr<Snapshot> next) {
  current_.store(next.get(), std::memory_order_release);
  snapshots_.push_back(std::move(next));
  MutexLock lock(space_mu_);
  space_time_ns_ = 0;  // placement must see the change at once
}

Status VolumeSet::Add(const meta::Volume& volume) {
  MutexLock change(change_mu_);
  const Snapshot& now = *Current();
  for (const meta::Volume& v : now.volumes) {
    if (v.id == volume.id || v.name == volume.name) {
      return Status::Exists("volume " + volume.name + " (id " + std::to_string(volume.id) +
                            ") is already in the set as " + v.name);
    }
  }
  std::shared_ptr<ObjectVolume> store;
  if (meta::IsObjectVolume(volume)) {
    auto opened = ObjectVolume::Open(volume);
    if (!opened.ok()) return opened.status();
    store = std::move(*opened);
  } else {
    TIERFS_RETURN_IF_ERROR(VerifyLabel(volume));
    EmptyDirectory(io_, TmpDir(volume.path));
  }
  auto next = std::make_unique<Snapshot>(now);
  size_t at = 0;
  while (at < next->volumes.size() && next->volumes[at].id < volume.id) ++at;
  next->volumes.insert(next->volumes.begin() + static_cast<long>(at), volume);
  Slot* slot = NewSlotLocked();
  slot->store = std::move(store);  // before the snapshot is published
  next->slots.insert(next->slots.begin() + static_cast<long>(at), slot);
  PublishLocked(std::move(next));
  return Status::Ok();
}

Status VolumeSet::Remove(uint32_t id) {
  MutexLock change(change_mu_);
  const Snapshot& now = *Current();
  const int i = IndexOf(now, id);
  if (i < 0) return Status::NotFound("no volume with id " + std::to_string(id));
  if (i == 0) return Status::Invalid("the metadata volume cannot leave the volume set");
  {
    // The leaving directory keeps no recycled objects.
    Slot* slot = now.slots[static_cast<size_t>(i)];
    MutexLock lock(slot->pool_mu);
    for (const std::string& path : slot->pool) io_.Unlink(path);
    slot->pool.clear();
  }
  auto next = std::make_unique<Snapshot>(now);
  next->volumes.erase(next->volumes.begin() + i);
  next->slots.erase(next->slots.begin() + i);
  PublishLocked(std::move(next));
  return Status::Ok();
}

Status VolumeSet::SetClass(uint32_t id, const std::string& placement_class) {
  if (placement_class.empty()) return Status::Invalid("empty placement class");
  MutexLock change(change_mu_);
  const Snapshot& now = *Current();
  const int i = IndexOf(now, id);
  if (i < 0) return Status::NotFound("no volume with id " + std::to_string(id));
  auto next = std::make_unique<Snapshot>(now);
  next->volumes[static_cast<size_t>(i)].placement_class = placement_class;
  PublishLocked(std::move(next));
  return Status::Ok();
}

Status VolumeSet::SetDraining(uint32_t id, bool draining) {
  Slot* slot = SlotOf(id);
  if (slot == nullptr) return Status::NotFound("no volume with id " + std::to_string(id));
  slot->draining.store(draining);
  MutexLock lock(space_mu_);
  space_time_ns_ = 0;
  return Status::Ok();
}

bool VolumeSet::Draining(uint32_t id) const {
  const Slot* slot = SlotOf(id);
  return slot != nullptr && slot->draining.load();
}

int VolumeSet::IndexOf(const Snapshot& snap, uint32_t id) {
  for (size_t i = 0; i < snap.volumes.size(); ++i) {
    if (snap.volumes[i].id == id) return static_cast<int>(i);
  }
  return -1;
}

VolumeSet::Slot* VolumeSet::SlotOf(uint32_t id) const {
  const Snapshot& snap = *Current();
  const int i = IndexOf(snap, id);
  return i < 0 ? nullptr : snap.slots[static_cast<size_t>(i)];
}

const meta::Volume* VolumeSet::Find(uint32_t id) const {
  const Snapshot& snap = *Current();
  const int i = IndexOf(snap, id);
  return i < 0 ? nullptr : &snap.volumes[static_cast<size_t>(i)];
}

std::string VolumeSet::StateOf(const meta::Volume& volume) const {
  if (volume.state != "online") return volume.state;
  if (Draining(volume.id)) return "draining";
  return VolumeHealthName(Health(volume.id));
}

std::string VolumeSet::NameOf(uint32_t id) const {
  const meta::Volume* v = Find(id);
  return v != nullptr ? v->name : "";
}

std::string VolumeSet::ObjectPath(uint32_t volume_id, uint64_t ino, uint64_t generation) const {
  const meta::Volume* v = Find(volume_id);
  if (v == nullptr || meta::IsObjectVolume(*v)) return {};
  return ObjectPathIn(v->path, ino, generation);
}

std::string VolumeSet::TmpPath(uint32_t volume_id, uint64_t ino, uint64_t generation) const {
  static std::atomic<uint64_t> counter{0};
  const meta::Volume* v = Find(volume_id);
  if (v == nullptr || meta::IsObjectVolume(*v)) return {};
  return TmpDir(v->path) + "/" + std::to_string(ino) + "." + std::to_string(generation) + "." +
         std::to_string(getpid()) + "." + std::to_string(counter.fetch_add(1));
}

VolumeHealth VolumeSet::Health(uint32_t volume_id) const {
  const Slot* slot = SlotOf(volume_id);
  return slot == nullptr ? VolumeHealth::kOffline : static_cast<VolumeHealth>(slot->health.load());
}

bool VolumeSet::RefusesData(uint32_t volume_id) const {
  if (Health(volume_id) == VolumeHealth::kOffline) return true;
  return volume_id == metadata_volume_id() && reserve_ != nullptr && reserve_->depleted();
}

void VolumeSet::SetHealth(const meta::Volume& v, Slot& slot, VolumeHealth health,
                          const std::string& why) const {
  const int before = slot.health.exchange(static_cast<int>(health));
  if (before == static_cast<int>(health)) return;
  {
    MutexLock lock(space_mu_);
    space_time_ns_ = 0;  // placement must see the change at once
  }
  Log(health == VolumeHealth::kOnline ? LogLevel::kInfo : LogLevel::kWarning,
      fmt::format("volume {} ({}) is now {}{}{}", v.name, v.path, VolumeHealthName(health),
                  why.empty() ? "" : ": ", why));
}

void VolumeSet::MarkFull(uint32_t volume_id) const {
  const meta::Volume* v = Find(volume_id);
  Slot* slot = SlotOf(volume_id);
  if (v == nullptr || slot == nullptr || slot->health.load() == int(VolumeHealth::kOffline)) return;
  SetHealth(*v, *slot, VolumeHealth::kFull, "a write met ENOSPC");
}

VolumeHealth VolumeSet::CheckLabel(uint32_t volume_id) const {
  const meta::Volume* vp = Find(volume_id);
  Slot* slot = SlotOf(volume_id);
  if (vp == nullptr || slot == nullptr) return VolumeHealth::kOffline;
  // A store has no label: ProbeStores keeps its health.
  if (slot->store) return static_cast<VolumeHealth>(slot->health.load());
  const meta::Volume& v = *vp;
  Result<VolumeLabel> label = ReadVolumeLabel(v.path, io_);
  std::string why;
  if (!label.ok()) {
    why = label.status().message();
  } else if (label->fs_uuid != fs_uuid_ || label->volume_id != v.id || label->retired) {
    why = "its directory carries the label of another file system or volume";
  }
  const VolumeHealth now = static_cast<VolumeHealth>(slot->health.load());
  if (!why.empty()) {
    SetHealth(v, *slot, VolumeHealth::kOffline, why);
    return VolumeHealth::kOffline;
  }
  if (now == VolumeHealth::kOffline) {
    SetHealth(v, *slot, VolumeHealth::kOnline, "its label is back");
    return VolumeHealth::kOnline;
  }
  return now;
}

void VolumeSet::RecheckFull(uint32_t volume_id) const {
  const meta::Volume* v = Find(volume_id);
  Slot* slot = SlotOf(volume_id);
  if (v == nullptr || slot == nullptr || slot->health.load() != int(VolumeHealth::kFull)) return;
  struct statvfs st;
  if (io_.StatVfs(v->path, &st) != 0) return;
  const uint64_t total = uint64_t{st.f_blocks} * st.f_frsize;
  const uint64_t free = uint64_t{st.f_bavail} * st.f_frsize;
  if (free > 2 * (total / 100)) SetHealth(*v, *slot, VolumeHealth::kOnline, "it has room again");
}

bool VolumeSet::IsObjectVolume(uint32_t id) const { return Store(id) != nullptr; }

bool VolumeSet::ClassHasObjectVolume(const std::string& cls) const {
  for (const meta::Volume& v : volumes()) {
    if (v.placement_class == cls && meta::IsObjectVolume(v)) return true;
  }
  return false;
}

ObjectVolume* VolumeSet::Store(uint32_t id) const {
  const Slot* slot = SlotOf(id);
  return slot == nullptr ? nullptr : slot->store.get();
}

Status VolumeSet::RemoveAnyObject(uint32_t id, uint64_t ino, uint64_t generation,
                                  uint64_t store_version) const {
  ObjectVolume* store = Store(id);
  if (store == nullptr) return RemoveObject(id, ino, generation);
  const meta::Volume* v = Find(id);
  if (Health(id) == VolumeHealth::kOffline && v != nullptr) return OfflineError(*v);
  // Quick bounds: a reclaim (an unlink's last step) must not wait minutes for a
  // store that stopped answering; what fails stays for the next mount.
  return store->quick().DeleteObject(store->location().bucket,
                                     store->Key(ino, generation, store_version));
}

Status VolumeSet::RemoveLeftovers(uint32_t id, uint64_t ino, uint64_t generation,
                                  std::optional<uint64_t> keep) const {
  ObjectVolume* store = Store(id);
  if (store == nullptr) return keep ? Status::Ok() : RemoveObject(id, ino, generation);
  const meta::Volume* v = Find(id);
  if (Health(id) == VolumeHealth::kOffline && v != nullptr) return OfflineError(*v);
  S3Client& s3 = store->quick();
  const std::string& bucket = store->location().bucket;
  const std::string stem = ObjectKeyStem(store->location(), ino, generation);
  std::string token;
  do {
    auto page = s3.ListObjects(bucket, stem, token);
    if (!page.ok()) return page.status();
    for (const S3ListedObject& o : page->objects) {
      std::optional<ObjectKeyId> id_of = ParseObjectKey(store->location(), o.key);
      if (!id_of || id_of->ino != ino || id_of->generation != generation) continue;
      if (keep && id_of->version == *keep) continue;
      TIERFS_RETURN_IF_ERROR(s3.DeleteObject(bucket, o.key));
    }
    token = page->next_continuation_token;
  } while (!token.empty());
  return Status::Ok();
}

void VolumeSet::ProbeStores() const {
  const Snapshot& snap = *Current();
  for (size_t i = 0; i < snap.volumes.size(); ++i) {
    Slot& slot = *snap.slots[i];
    if (!slot.store) continue;
    Status st = slot.store->Probe();
    if (st.ok()) {
      slot.timing_out_since_ns.store(0);
      // Back from offline: the uploads that failed while it was gone could not
      // be aborted then.
      if (slot.health.load() == int(VolumeHealth::kOffline)) slot.next_upload_sweep_ns.store(0);
      SetHealth(snap.volumes[i], slot, VolumeHealth::kOnline, "its store answers");
      SweepUploads(snap.volumes[i], slot);
    } else {
      StoreFailed(snap.volumes[i], slot, st);
    }
  }
}

void VolumeSet::SweepUploads(const meta::Volume& v, Slot& slot) const {
  const int64_t now = clock_.NowNanos();
  if (now < slot.next_upload_sweep_ns.load()) return;
  slot.next_upload_sweep_ns.store(now + kUploadSweepSeconds * 1'000'000'000LL);
  Result<size_t> aborted = slot.store->AbortLeftoverUploads();
  if (!aborted.ok()) {
    LogWarning("object volume {} ({}): leftover multipart uploads not aborted: {}", v.name,
               v.path, aborted.status().message());
  } else if (*aborted > 0) {
    LogInfo("object volume {} ({}): aborted {} multipart upload(s) a crash left", v.name,
            v.path, *aborted);
  }
}

void VolumeSet::MarkStoreOffline(uint32_t id, const Status& why) const {
  const meta::Volume* v = Find(id);
  Slot* slot = SlotOf(id);
  if (v == nullptr || slot == nullptr || !slot->store) return;
  StoreFailed(*v, *slot, why);
}

void VolumeSet::StoreFailed(const meta::Volume& v, Slot& slot, const Status& why) const {
  switch (ClassifyS3Errno(why.code())) {
    case S3Failure::kBusy:
    case S3Failure::kFailed:
      // The store answers, busy or failing: the call that met it fails, the
      // volume stays online (offline would fail every read and relocation in
      // flight, including those the store would serve).
      LogWarning("object volume {}: its store answers but failed ({}): {}", v.name,
                 S3FailureName(ClassifyS3Errno(why.code())), why.message());
      return;
    case S3Failure::kTimeout:
      break;  // the rule below
    default:
      // Unreachable, credentials refused, or (from the probe) the bucket gone.
      SetHealth(v, slot, VolumeHealth::kOffline, why.message());
      return;
  }
  const int64_t now = clock_.NowNanos();
  const uint64_t replies = slot.store->Replies();
  int64_t since = slot.timing_out_since_ns.load();
  if (since == 0 || replies != slot.replies_then.load()) {
    // The first timeout, or the store answered something since the last one.
    slot.replies_then.store(replies);
    slot.timing_out_since_ns.compare_exchange_strong(since, now);
    return;
  }
  if (now - since >= kStoreTimeoutsBeforeOfflineSeconds * 1'000'000'000LL) {
    SetHealth(v, slot, VolumeHealth::kOffline,
              why.message() + fmt::format(" (no reply to anything for {} s)",
                                          (now - since) / 1'000'000'000LL));
  }
}

void VolumeSet::CheckHealth() const {
  for (const meta::Volume& v : volumes()) {
    if (CheckLabel(v.id) == VolumeHealth::kFull) RecheckFull(v.id);
  }
}

Status VolumeSet::OfflineError(const meta::Volume& v) const {
  if (meta::IsObjectVolume(v)) {
    return Status::Io("object volume " + v.name + " (" + v.path + " at " + v.endpoint +
                      ") is offline: its store does not answer");
  }
  return Status::Io("volume " + v.name + " (" + v.path +
                    ") is offline: its label is missing or foreign (is its device mounted?)");
}

Result<int> VolumeSet::OpenObject(uint32_t volume_id, uint64_t ino, uint64_t generation,
                                  bool create) const {
  const meta::Volume* v = Find(volume_id);
  if (v == nullptr) return Status::Io("inode " + std::to_string(ino) + " is on unknown volume " +
                                      std::to_string(volume_id));
  if (Health(volume_id) == VolumeHealth::kOffline) return OfflineError(*v);
  if (meta::IsObjectVolume(*v)) {
    // Its bytes are read from the store (FileSystem::Read), never through an fd.
    return Status::Error(EXDEV, "inode " + std::to_string(ino) + " is on object volume " +
                                    v->name + ": it has no local object");
  }
  const std::string path = ObjectPath(volume_id, ino, generation);
  int flags = O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0);
  // A new object is a recycled one when the pool has one: a rename costs the
  // backing file system no inode allocation (on ext4 that search is most of a
  // create's time right after many deletes).
  if (create) {
    bool reused = ReuseObject(volume_id, path);
    if (!reused && errno == ENOENT) {  // the object's subdirectory is new
      io_.Mkdir(ObjectsDir(v->path) + "/" + ObjectSubdirName(ino), 0700);
      reused = ReuseObject(volume_id, path);
    }
    if (reused) flags &= ~O_CREAT;
  }
  int fd = io_.Open(path, flags, 0600);
  if (fd < 0 && errno == ENOENT && create && (flags & O_CREAT) == 0) {
    flags |= O_CREAT;  // the reused object went meanwhile: make one
    fd = io_.Open(path, flags, 0600);
  }
  if (fd < 0 && errno == ENOENT) {
    // The object, its subdirectory, or the whole volume is missing. Only a volume
    // that still carries its label may be written to (an unmounted device leaves a
    // bare directory behind).
    if (CheckLabel(volume_id) == VolumeHealth::kOffline) return OfflineError(*v);
    if (!create) {
      return Status::Io("object " + path + " is missing on volume " + v->name +
                        " (run `tierfs check`)");
    }
    io_.Mkdir(ObjectsDir(v->path) + "/" + ObjectSubdirName(ino), 0700);  // its first object
    fd = io_.Open(path, flags, 0600);
  }
  if (fd < 0) return Status::FromErrno("open object " + path);
  return fd;
}

Status VolumeSet::RemoveObject(uint32_t volume_id, uint64_t ino, uint64_t generation) const {
  const std::string path = ObjectPath(volume_id, ino, generation);
  if (path.empty()) return Status::Ok();
  if (!RecycleObject(volume_id, path) && io_.Unlink(path) != 0 && errno != ENOENT) {
    return Status::FromErrno("unlink object " + path);
  }
  if (volume_id == metadata_volume_id() && reserve_ != nullptr && reserve_->depleted()) {
    reserve_->Refill();  // no room yet is not an error: the periodic check retries
  }
  RecheckFull(volume_id);
  return Status::Ok();
}

bool VolumeSet::RecycleObject(uint32_t volume_id, const std::string& path) const {
  const meta::Volume* v = Find(volume_id);
  Slot* slot = SlotOf(volume_id);
  // A draining volume is about to leave: nothing is kept for creates there.
  if (!recycle_objects_.load() || v == nullptr || slot == nullptr || slot->draining.load()) {
    return false;
  }
  std::string to;
  {
    MutexLock lock(slot->pool_mu);
    if (slot->pool.size() >= kRecycledObjects) return false;
    to = TmpDir(v->path) + "/free." + std::to_string(slot->pool_names++);
  }
  // Renamed first, emptied after: the object's name is gone at once, as after an
  // unlink, and its blocks go back to the volume with the truncate.
  if (io_.RenameNoReplace(path, to) != 0) return false;
  if (io_.Truncate(to, 0) != 0) {
    io_.Unlink(to);
    return true;  // the object is gone either way
  }
  MutexLock lock(slot->pool_mu);
  slot->pool.push_back(std::move(to));
  return true;
}

void VolumeSet::DropRecycledObjects() const {
  for (const meta::Volume& v : volumes()) {
    Slot* slot = SlotOf(v.id);
    if (slot == nullptr) continue;
    MutexLock lock(slot->pool_mu);
    for (const std::string& path : slot->pool) io_.Unlink(path);
    slot->pool.clear();
  }
}

bool VolumeSet::ReuseObject(uint32_t volume_id, const std::string& path) const {
  Slot* slot = SlotOf(volume_id);
  if (slot == nullptr) return false;
  std::string from;
  {
    MutexLock lock(slot->pool_mu);
    if (slot->pool.empty()) {
      errno = 0;
      return false;
    }
    from = std::move(slot->pool.back());
    slot->pool.pop_back();
  }
  if (io_.RenameNoReplace(from, path) == 0) return true;
  const int err = errno;
  // ENOENT: the subdirectory is new (or tmp/ was emptied); EEXIST: the object is
  // there. Either way the pooled object stays pooled, and the caller opens.
  MutexLock lock(slot->pool_mu);
  slot->pool.push_back(std::move(from));
  errno = err;
  return false;
}

Result<struct statvfs> VolumeSet::Statvfs(uint32_t volume_id) const {
  const meta::Volume* v = Find(volume_id);
  if (v == nullptr) return Status::NotFound("no volume " + std::to_string(volume_id));
  if (meta::IsObjectVolume(*v)) {
    return Status::Error(ENOTSUP, "object volume " + v->name + " has no file system to ask");
  }
  struct statvfs st;
  if (io_.StatVfs(v->path, &st) != 0) return Status::FromErrno("statvfs " + v->path);
  return st;
}

std::vector<policy::VolumeState> VolumeSet::Space(bool fresh) const {
  MutexLock lock(space_mu_);
  const int64_t now = clock_.NowNanos();
  if (!fresh && !space_.empty() && space_time_ns_ != 0 && now - space_time_ns_ < kNanosPerSecond) {
    return space_;
  }
  std::vector<policy::VolumeState> out;
  const Snapshot& snap = *Current();
  for (size_t i = 0; i < snap.volumes.size(); ++i) {
    const meta::Volume& v = snap.volumes[i];
    policy::VolumeState s;
    s.id = v.id;
    s.name = v.name;
    s.classes = {v.placement_class};
    const auto health = static_cast<VolumeHealth>(snap.slots[i]->health.load());
    if (snap.slots[i]->store) {
      // Relocations only; the store's capacity is unknown (kObjectVolumeBytes).
      s.takes_creates = false;
      s.total_bytes = s.free_bytes = kObjectVolumeBytes;
      s.accepts_data = health == VolumeHealth::kOnline && !snap.slots[i]->draining.load();
      out.push_back(std::move(s));
      continue;
    }
    struct statvfs st;
    // An offline volume's directory is not the volume: its numbers mean nothing.
    // One that cannot say (EIO) counts as having no room: nothing is placed there.
    if (health != VolumeHealth::kOffline && io_.StatVfs(v.path, &st) == 0) {
      s.total_bytes = uint64_t{st.f_blocks} * st.f_frsize;
      s.free_bytes = uint64_t{st.f_bavail} * st.f_frsize;
      s.reserve_bytes = s.total_bytes / 100;
    }
    s.accepts_data = health == VolumeHealth::kOnline && !RefusesData(v.id) &&
                     !snap.slots[i]->draining.load();
    out.push_back(std::move(s));
  }
  space_ = out;
  space_time_ns_ = now;
  return out;
}

}  // namespace tierfs
