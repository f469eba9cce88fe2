// FileSystem: files whose object is on an object volume. Their
// metadata is in the database like every file's, so stat, ls, xattrs and
// renames never reach the store; reads are served by ranged GETs through the
// handle's readahead window and counted as heat like any read; a write,
// truncate or fallocate first recalls the file to a local volume
// (RecallForWrite). docs/design.md "Object volumes".
#include <string>

#include "common/log.h"
#include "fs/objstore/s3_errors.h"
#include "fs/core/file_system.h"
#include "fs/core/relocator.h"

namespace tierfs {

Result<size_t> FileSystem::ReadFromStore(FileHandle* fh, uint32_t volume,
                                         const meta::Inode& attr, char* buf, size_t size,
                                         off_t offset) {
  ObjectVolume* store = volumes_->Store(volume);
  const std::string name = volumes_->NameOf(volume);
  if (store == nullptr) return Status::Io("inode " + std::to_string(attr.ino) + ": no volume");
  if (volumes_->Health(volume) == VolumeHealth::kOffline) {
    metrics_.RecordStoreReadError();
    return Status::Io("inode " + std::to_string(attr.ino) + ": object volume " + name +
                      " is offline");
  }
  StoreReadahead* window;
  {
    MutexLock lock(fh->inode->mu);
    if (!fh->store_readahead) fh->store_readahead = std::make_unique<StoreReadahead>();
    window = fh->store_readahead.get();
  }
  const std::string key = store->KeyOf(attr);
  // `store` lives as long as the volume set.
  auto fetch = [store, key](uint64_t at, size_t length, char* into) -> Result<size_t> {
    return store->quick().GetObject(store->location().bucket, key, at, length, into);
  };
  auto n = window->Read(static_cast<uint64_t>(offset), size, attr.size, buf, fetch);
  if (!n.ok()) {
    metrics_.RecordStoreReadError();
    const int code = n.status().code();
    LogError("read of inode {} from object volume {} ({}): {}", attr.ino, name,
             store->Url(key), n.status().message());
    // Only a store that does not answer makes the volume offline (ETIMEDOUT
    // by the 10 s rule); a busy or failing one (SlowDown, 5xx) fails this read
    // alone, and keys it refuses are the health probe's to find (a 403 on one
    // key may be a policy's).
    const S3Failure kind = ClassifyS3Errno(code);
    if (kind == S3Failure::kUnreachable || kind == S3Failure::kTimeout) {
      volumes_->MarkStoreOffline(
          volume, Status::Error(code, "a read failed: " + n.status().message()));
    }
    return Status::Io("inode " + std::to_string(attr.ino) + ": object volume " + name + ": " +
                      n.status().message());
  }
  return *n;
}

Status FileSystem::RecallForWrite(const InodeRef& inode, const char* why, bool bytes_wanted) {
  meta::Inode attr;
  {
    MutexLock lock(inode->mu);
    attr = inode->attr;
  }
  if (!S_ISREG(attr.mode) || !volumes_->IsObjectVolume(attr.volume_id)) return Status::Ok();
  policy::CreatePlacement placement;
  std::string path = "(unlinked)";
  if (policy()) {
    auto p = meta_->PathOf(attr.ino);
    if (p.ok()) {
      path = *p;
      placement = CreatePlacementFor(attr.uid, attr.gid, path);
    }
  } else if (auto p = meta_->PathOf(attr.ino); p.ok()) {
    path = *p;
  }
  const uint64_t needed = (bytes_wanted ? attr.size : 0) + kCreateHeadroomBytes;
  std::optional<uint32_t> target =
      policy::ChooseCreateVolume(placement, volumes_->Space(/*fresh=*/true), needed);
  if (!target) {
    return Status::NoSpace("inode " + std::to_string(attr.ino) + " (" + path +
                           ") is on object volume " + volumes_->NameOf(attr.volume_id) +
                           " and no volume its CREATE rule allows has room for " +
                           std::to_string(needed) + " bytes to bring it back for a " + why);
  }
  Relocator relocator(*this);
  auto result = relocator.Relocate(
      attr.ino, *target,
      bytes_wanted ? Relocator::Mode::kHoldWriters : Relocator::Mode::kEmptyRecall,
      attr.volume_id, /*move_unlinked=*/true);
  if (!result.ok()) return Status::Error(result.status().code(), result.status().message());
  if (result->outcome != "moved") {
    // A store that cannot be reached (ECONNREFUSED, EHOSTUNREACH) is an I/O
    // error to the write(2) or fsync(2) that needed the file back.
    int err = result->error;
    if (err == 0 || err == ENOENT || ClassifyS3Errno(err) == S3Failure::kUnreachable) err = EIO;
    return Status::Error(err,
                         "inode " + std::to_string(attr.ino) + " (" + path +
                             "): recall from object volume " +
                             volumes_->NameOf(attr.volume_id) + " for a " + why + ": " +
                             result->outcome);
  }
  metrics_.RecordRecallForWrite();
  LogInfo("{} (inode {}) recalled from object volume {} to {} for a {} ({} bytes, {:.3f} s)",
          path, attr.ino, volumes_->NameOf(attr.volume_id), volumes_->NameOf(*target), why,
          result->bytes, result->seconds);
  return Status::Ok();
}

}  // namespace tierfs
