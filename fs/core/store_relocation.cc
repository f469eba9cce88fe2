// Relocator: the moves to and from an object volume (the steps and
// what a crash leaves are in relocator.h and docs/design.md "Object volumes").
// Local I/O goes through the VolumeIo seam, the store's through the volume's
// S3 client (fs/volume/object_volume.h), with the transfer bounds.
#include <fcntl.h>
#include <unistd.h>

#include <string>

#include "common/log.h"
#include "fs/core/relocator.h"
#include "fs/core/seam_fd.h"
#include "fs/objstore/object_download.h"
#include "fs/objstore/object_upload.h"
#include "fs/volume/io_steps.h"
#include "fs/volume/object_hash.h"

namespace tierfs {
namespace {

std::string DirOf(const std::string& path) { return path.substr(0, path.rfind('/')); }

}  // namespace

Relocator::StoreCopy Relocator::UploadCopy(const meta::Inode& attr, uint32_t to) {
  StoreCopy copy;
  const VolumeSet& volumes = fs_.volumes();
  VolumeIo& io = volumes.io();
  ObjectVolume* store = volumes.Store(to);
  if (store == nullptr) {
    copy.status = Status::Invalid("volume " + std::to_string(to) + " is not an object volume");
    return copy;
  }
  if (volumes.Health(to) == VolumeHealth::kOffline) {
    copy.status = Status::Io("object volume " + volumes.NameOf(to) + " is offline");
    return copy;
  }
  auto src_fd = volumes.OpenObject(attr.volume_id, attr.ino, attr.generation,
                                   /*create=*/attr.size == 0);
  if (!src_fd.ok()) {
    copy.status = src_fd.status();
    return copy;
  }
  SeamFd src(io, *src_fd);
  const off_t size = static_cast<off_t>(attr.size);
  // The hash goes in the upload's headers, so it is known before the first
  // byte is sent: one pass to hash (which leaves the source in the page cache),
  // one to upload.
  auto hash = HashObject(io, src.get(), size);
  if (!hash.ok()) {
    copy.status = hash.status();
    return copy;
  }
  // A key of its own (fs/volume/object_location.h): a reader of the file's
  // earlier upload, or a listing, never meets these bytes under that key.
  copy.version = attr.store_version + 1;
  const std::string key = store->Key(attr.ino, attr.generation, copy.version);
  // An older upload still pending on this store (its delete failed) shares the
  // pending record this upload is about to take over, and the commit clears:
  // removed first, so that nothing is left that no record names.
  Result<bool> leftover = fs_.metadata().IsPendingObject(attr.ino, to);
  if (!leftover.ok()) {
    copy.status = leftover.status();
    return copy;
  }
  if (*leftover) {
    copy.status = volumes.RemoveLeftovers(to, attr.ino, attr.generation, std::nullopt);
    if (!copy.status.ok()) return copy;
  }
  // Pending before the first byte leaves: a crash from here on leaves an object
  // (or a multipart upload) the next mount or `tierfs check --repair` removes.
  copy.status = fs_.metadata().AddPendingObject({attr.ino, attr.generation, to});
  if (copy.status.ok()) copy.status = fs_.SyncMetadata();
  if (!copy.status.ok()) return copy;
  const std::string bucket = store->location().bucket;
  ObjectVolume::UploadInFlight in_flight = store->TrackUpload(key);
  auto uploaded = UploadObject(store->transfer(), bucket, key, src.get(), 0, attr.size,
                               {{kObjectHashMetadata, Xxh3Hex(*hash)}});
  if (!uploaded.ok()) {
    copy.status = uploaded.status();
    return copy;
  }
  io.ReachPoint("upload-after-put");
  // Verified as a local copy is: what the store keeps has the file's size and
  // hash (the client already compared each part's MD5 with its ETag).
  auto head = store->transfer().HeadObject(bucket, key);
  if (!head.ok()) {
    copy.status = head.status();
    return copy;
  }
  auto meta_hash = head->metadata.find(kObjectHashMetadata);
  if (head->size != attr.size || meta_hash == head->metadata.end() ||
      meta_hash->second != Xxh3Hex(*hash)) {
    copy.status = Status::Io("upload of inode " + std::to_string(attr.ino) + " to " +
                             store->Url(key) + " does not match its source (size " +
                             std::to_string(head->size) + " of " + std::to_string(attr.size) +
                             ", xxh3)");
    return copy;
  }
  copy.bytes = attr.size;
  return copy;
}

Relocator::StoreCopy Relocator::RecallCopy(const meta::Inode& attr, uint32_t to, bool empty) {
  StoreCopy copy;
  const VolumeSet& volumes = fs_.volumes();
  VolumeIo& io = volumes.io();
  ObjectVolume* store = volumes.Store(attr.volume_id);
  if (store == nullptr || volumes.IsObjectVolume(to)) {
    copy.status = Status::Invalid("a recall goes from an object volume to a directory");
    return copy;
  }
  // An empty recall asks nothing of the store: it may even be offline.
  if (!empty && volumes.Health(attr.volume_id) == VolumeHealth::kOffline) {
    copy.status = Status::Io("object volume " + volumes.NameOf(attr.volume_id) + " is offline");
    return copy;
  }
  const std::string bucket = store->location().bucket;
  const std::string key = store->KeyOf(attr);
  std::string expected_hash;
  if (!empty) {
    auto head = store->transfer().HeadObject(bucket, key);
    if (!head.ok()) {
      copy.status = head.status();
      return copy;
    }
    auto expected = head->metadata.find(kObjectHashMetadata);
    if (expected == head->metadata.end() || head->size != attr.size) {
      copy.status = Status::Io(store->Url(key) + " is not inode " + std::to_string(attr.ino) +
                               "'s object (size " + std::to_string(head->size) + " of " +
                               std::to_string(attr.size) + ", or no xxh3)");
      return copy;
    }
    expected_hash = expected->second;
  }
  copy.tmp = volumes.TmpPath(to, attr.ino, attr.generation);
  SeamFd dst(io, io.Open(copy.tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (dst.get() < 0) {
    copy.status = Status::FromErrno("create " + copy.tmp);
    copy.tmp.clear();
    return copy;
  }
  const uint64_t size = empty ? 0 : attr.size;
  if (size > 0) {
    // Ranged GETs, several in flight, each retried alone: the time grows with
    // the size, and a failure late in a large object does not start it over.
    auto got = DownloadObject(store->transfer(), bucket, key, size, dst.get());
    if (!got.ok()) copy.status = got.status();
  }
  if (copy.status.ok() && io.Ftruncate(dst.get(), static_cast<off_t>(size)) != 0) {
    copy.status = Status::FromErrno("set size of recalled copy");
  }
  if (copy.status.ok() && io.Fsync(dst.get(), /*datasync=*/false) != 0) {
    copy.status = Status::FromErrno("fsync recalled copy");
  }
  if (copy.status.ok() && !empty) {
    auto hash = HashObject(io, dst.get(), static_cast<off_t>(size));
    if (!hash.ok()) {
      copy.status = hash.status();
    } else if (Xxh3Hex(*hash) != expected_hash) {
      copy.status = Status::Io("recall of inode " + std::to_string(attr.ino) + " from " +
                               store->Url(key) + " does not match its xxh3");
    }
  }
  io.ReachPoint("recall-after-copy");
  copy.fd = dst.release();
  copy.bytes = size;
  return copy;
}

RelocationOutcome Relocator::CommitStoreLocked(InodeState& inode, uint32_t from_volume,
                                               uint32_t to_volume, StoreCopy& copy, bool empty,
                                               bool* durable) {
  *durable = false;
  const VolumeSet& volumes = fs_.volumes();
  VolumeIo& io = volumes.io();
  const bool recall = volumes.IsObjectVolume(from_volume);
  meta::Inode attr = inode.Attributes();
  if (recall) {
    // Renamed only now, under the lock: a second recall of the same file can
    // never rename over a copy that was committed.
    Status st = fs_.metadata().AddPendingObject({attr.ino, attr.generation, to_volume});
    if (st.ok()) st = fs_.SyncMetadata();
    const std::string final_path = volumes.ObjectPath(to_volume, attr.ino, attr.generation);
    if (st.ok()) {
      io.Mkdir(DirOf(final_path), 0700);
      if (io.Rename(copy.tmp, final_path) != 0) {
        st = Status::FromErrno("rename recalled copy");
      } else {
        copy.renamed = true;
        copy.tmp.clear();
        (void)SyncDirectory(io, DirOf(final_path));
      }
    }
    if (!st.ok()) return RelocationOutcome::Failed(st);
  }
  MutexLock sync(inode.sync_mu);
  auto row = fs_.metadata().SetInodeVolume(
      inode.ino, from_volume, to_volume, empty ? std::optional<uint64_t>(0) : std::nullopt,
      recall ? std::nullopt : std::optional<uint64_t>(copy.version));
  if (!row.ok()) return RelocationOutcome::Failed(row.status());
  MutexLock lock(inode.mu);
  if (recall) {
    // Handles opened while the file was on the store have no fd: they get the
    // copy's. An idle entry keeps none (its next open opens the object).
    if (inode.nopen > 0 && inode.fd < 0) {
      inode.fd = copy.fd;
      copy.fd = -1;
    }
    ForgetDirectFdLocked(inode, io);
  } else {
    // The local object is about to go; reads go to the store from now on.
    CloseObjectLocked(inode, io);
  }
  return FinishCommitLocked(inode, *row, durable);
}

void Relocator::DiscardStoreCopy(const meta::Inode& attr, uint32_t to_volume, StoreCopy& copy) {
  const VolumeSet& volumes = fs_.volumes();
  VolumeIo& io = volumes.io();
  if (copy.fd >= 0) {
    io.Close(copy.fd);
    copy.fd = -1;
  }
  if (!copy.tmp.empty()) {
    io.Unlink(copy.tmp);  // never named: no pending record
    copy.tmp.clear();
  }
  const bool upload = volumes.IsObjectVolume(to_volume);
  if (!upload && !copy.renamed) return;
  if (upload && copy.version == 0) return;  // stopped before its pending record
  // The store's object (its upload may have got anywhere) or the renamed copy:
  // its pending record goes only once it is gone; else the next mount retries.
  Status st = volumes.RemoveAnyObject(to_volume, attr.ino, attr.generation, copy.version);
  if (st.ok()) {
    fs_.metadata().RemovePendingObject(attr.ino, to_volume);
  } else {
    LogWarning("inode {}: the copy on {} stays until the next mount: {}", attr.ino,
               volumes.NameOf(to_volume), st.message());
  }
}

}  // namespace tierfs
