// What several passes of the consistency check share (checker.h): findings,
// volumes, the database's view, objects of either kind of volume, and the
// repairs more than one pass makes (sizes, /lost+found).
#include "fs/check/checker.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <string>

#include "fs/volume/object_hash.h"
#include "fs/volume/object_location.h"
#include "fs/volume/volume_label.h"

namespace tierfs::fsck {

const char* TypeName(uint32_t mode) {
  switch (mode & S_IFMT) {
    case S_IFREG: return "regular file";
    case S_IFDIR: return "directory";
    case S_IFLNK: return "symlink";
    case S_IFCHR: return "character device";
    case S_IFBLK: return "block device";
    case S_IFIFO: return "fifo";
    case S_IFSOCK: return "socket";
    default: return "inode of unknown type";
  }
}


CheckFinding& Checker::Add(const char* kind, FindingSeverity severity, std::string message) {
  CheckFinding f;
  f.kind = kind;
  f.severity = severity;
  f.message = std::move(message);
  report_.findings.push_back(std::move(f));
  return report_.findings.back();
}

void Checker::Repaired(CheckFinding& f, const Status& st, const std::string& what) {
  f.repaired = st.ok();
  f.repair = st.ok() ? what : "repair failed: " + st.message();
}

CheckFinding* Checker::Unreadable(std::string message) {
  if (!unreadable_seen_.insert(message).second) return nullptr;
  return &Add("unreadable", FindingSeverity::kError, std::move(message));
}

void Checker::VolumeUnreadable(const meta::Volume& v, const std::string& path, int error) {
  good_.erase(v.id);
  unreadable_volumes_.insert(v.id);
  CheckFinding* f = Unreadable("volume " + VolumeText(v.id) + ": " +
                               Status::FromErrno(error, "cannot read " + path).message() +
                               "; its files and objects were not checked");
  if (f != nullptr && o_.repair) f->repair = "not repaired: nothing on this volume was touched";
}

const meta::Volume* Checker::VolumeById(uint32_t id) const {
  for (const meta::Volume& v : volumes_) {
    if (v.id == id) return &v;
  }
  return nullptr;
}

std::string Checker::VolumeText(uint32_t id) const {
  const meta::Volume* v = VolumeById(id);
  if (v == nullptr) return "unknown volume " + std::to_string(id);
  return v->name + " (" + v->path + ")";
}

std::string Checker::ObjectPath(uint32_t volume_id, uint64_t ino, uint64_t generation) const {
  const meta::Volume* v = VolumeById(volume_id);
  return v == nullptr ? std::string() : ObjectPathIn(v->path, ino, generation);
}

ObjectVolume* Checker::Store(uint32_t id) const {
  auto it = stores_.find(id);
  return it == stores_.end() ? nullptr : it->second.get();
}

std::string Checker::Describe(uint64_t ino) {
  Result<std::string> path = meta_.PathOf(ino);
  if (path.ok()) return *path + " (inode " + std::to_string(ino) + ")";
  return "inode " + std::to_string(ino) + " (no name)";
}

Result<meta::Inode> Checker::Current(uint64_t ino) {
  if (o_.current_attr) return o_.current_attr(ino);
  return meta_.GetInode(ino);
}

Status Checker::LoadFiles() {
  return meta_.ForEachRegularFile([&](const meta::Inode& inode) {
    FileEntry& e = files_[inode.ino];
    e.generation = inode.generation;
    e.store_version = inode.store_version;
    e.volume_id = inode.volume_id;
    e.size = inode.size;
    e.nlink = inode.nlink;
  });
}

Status Checker::LoadPending() {
  pending_.clear();
  Result<std::vector<meta::PendingObject>> rows = meta_.ListPendingObjects();
  if (!rows.ok()) return rows.status();
  for (const meta::PendingObject& p : *rows) pending_[{p.ino, p.volume_id}] = p.generation;
  return Status::Ok();
}

bool Checker::IsPending(const ObjectEntry& o) const {
  auto it = pending_.find({o.ino, o.volume_id});
  return it != pending_.end() && it->second == o.generation && !o.wrong_subdir;
}

Result<std::optional<uint64_t>> Checker::ObjectSize(const std::string& path) {
  struct stat st;
  if (o_.io->Lstat(path, &st) == 0) {
    if (!S_ISREG(st.st_mode)) return std::optional<uint64_t>();
    return std::optional<uint64_t>(static_cast<uint64_t>(st.st_size));
  }
  if (errno == ENOENT || errno == ENOTDIR) return std::optional<uint64_t>();
  const Status error = Status::FromErrno("cannot stat " + path);
  Unreadable(error.message() + "; left as it is");
  return error;
}

bool Checker::HasObject(const std::string& path) {
  Result<std::optional<uint64_t>> size = ObjectSize(path);
  return size.ok() && size->has_value();
}

bool Checker::LacksObject(const std::string& path) {
  Result<std::optional<uint64_t>> size = ObjectSize(path);
  return size.ok() && !size->has_value();
}

Result<std::optional<uint64_t>> Checker::ObjectSizeOn(uint32_t volume_id, uint64_t ino,
                                                    uint64_t generation, uint64_t version) {
  ObjectVolume* store = Store(volume_id);
  if (store == nullptr) {
    if (VolumeById(volume_id) == nullptr) return std::optional<uint64_t>();
    return ObjectSize(ObjectPath(volume_id, ino, generation));
  }
  const std::string key = store->Key(ino, generation, version);
  Result<S3ObjectInfo> head = store->transfer().HeadObject(store->location().bucket, key);
  if (head.ok()) return std::optional<uint64_t>(head->size);
  if (head.status().code() == ENOENT) return std::optional<uint64_t>();
  const Status error = Status::Error(head.status().code(), head.status().message());
  Unreadable(error.message() + "; left as it is");
  return error;
}

bool Checker::HasObjectOn(uint32_t volume_id, uint64_t ino, uint64_t generation,
                          uint64_t version) {
  Result<std::optional<uint64_t>> size = ObjectSizeOn(volume_id, ino, generation, version);
  return size.ok() && size->has_value();
}

bool Checker::LacksObjectOn(uint32_t volume_id, uint64_t ino, uint64_t generation,
                            uint64_t version) {
  Result<std::optional<uint64_t>> size = ObjectSizeOn(volume_id, ino, generation, version);
  return size.ok() && !size->has_value();
}

bool Checker::StillThere(const ObjectEntry& o) {
  return o.key.empty() ? HasObject(o.path)
                       : HasObjectOn(o.volume_id, o.ino, o.generation, o.version);
}

std::string Checker::ObjectName(uint32_t volume_id, uint64_t ino, uint64_t generation,
                                uint64_t version) const {
  if (const ObjectVolume* store = Store(volume_id)) {
    return store->Url(store->Key(ino, generation, version));
  }
  return ObjectPath(volume_id, ino, generation);
}

std::optional<std::pair<uint64_t, std::string>> Checker::LengthAndHash(uint32_t volume_id,
                                                                       uint64_t ino,
                                                                       uint64_t generation,
                                                                       uint64_t version) {
  if (ObjectVolume* store = Store(volume_id)) {
    Result<S3ObjectInfo> head = store->transfer().HeadObject(store->location().bucket,
                                                             store->Key(ino, generation, version));
    if (!head.ok()) return std::nullopt;
    auto hash = head->metadata.find(kObjectHashMetadata);
    if (hash == head->metadata.end()) return std::nullopt;
    return std::make_pair(head->size, hash->second);
  }
  const std::string path = ObjectPath(volume_id, ino, generation);
  int fd = o_.io->Open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0);
  if (fd < 0) return std::nullopt;
  struct stat st;
  std::optional<std::pair<uint64_t, std::string>> out;
  if (o_.io->Fstat(fd, &st) == 0) {
    Result<uint64_t> hash = HashObject(*o_.io, fd, st.st_size);
    if (hash.ok()) out.emplace(static_cast<uint64_t>(st.st_size), Xxh3Hex(*hash));
  }
  o_.io->Close(fd);
  return out;
}

Status Checker::DeleteObject(const ObjectEntry& o) {
  if (ObjectVolume* store = Store(o.volume_id); store != nullptr && !o.key.empty()) {
    return store->transfer().DeleteObject(store->location().bucket, o.key);
  }
  return o_.io->Unlink(o.path) == 0 || errno == ENOENT ? Status::Ok()
                                                       : Status::FromErrno("unlink " + o.path);
}

Status Checker::SetSize(uint64_t ino, uint64_t size, const std::string& why) {
  meta::InodeRepair fix;
  fix.ino = ino;
  fix.size = size;
  fix.why = why + ": size ->" + std::to_string(size);
  return meta_.RepairInode(fix);
}

Result<uint64_t> Checker::LostFound() {
  if (lost_found_) return *lost_found_;
  Result<meta::Inode> existing = meta_.LookupInode(meta::kRootIno, kLostFound);
  if (existing.ok()) {
    if (!S_ISDIR(existing->mode)) {
      return Status::Error(ENOTDIR, "/lost+found exists and is not a directory");
    }
    lost_found_ = existing->ino;
    return *lost_found_;
  }
  if (existing.status().code() != ENOENT) return existing.status();
  meta::Inode proto;
  proto.mode = S_IFDIR | 0700;
  Result<meta::Inode> created = meta_.Create(meta::kRootIno, kLostFound, proto);
  if (!created.ok()) return created.status();
  lost_found_ = created->ino;
  return *lost_found_;
}

Result<std::string> Checker::FreeName(uint64_t dir, const std::string& base) {
  for (int n = 1; n < 1000; ++n) {
    std::string name = n == 1 ? base : base + "-" + std::to_string(n);
    Result<uint64_t> taken = meta_.Lookup(dir, name);
    if (!taken.ok() && taken.status().code() == ENOENT) return name;
    if (!taken.ok()) return taken.status();
  }
  return Status::Exists("no free name for " + base + " in /lost+found");
}

}  // namespace tierfs::fsck
