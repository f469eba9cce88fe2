// ObjectVolume: an object volume's store: where its objects are
// (fs/volume/object_location.h), and the S3 clients that reach them.
//
// Two clients, because a FUSE read and a relocation want different bounds:
//  - transfer(): relocations (uploads, recalls, deletes) and `tierfs check`,
//    with S3ClientOptions' defaults (5 s connect, 30 s stall, 300 s per call,
//    a busy store retried for up to those 300 s);
//  - quick(): reads served to applications and the health probe, bounded so
//    that a dead or frozen store turns into EIO within a few seconds
//    (kQuick* below; an application's read(2) waits at most about
//    kQuickRequestSeconds).
// The credentials are read from the volume's credentials file once, when the
// volume is opened (at mount, or when `fsvoladm add` adds it); the secret (and
// a session token) stays in memory, handed to libcurl to sign, and in no
// message. The row's region, addressing and CA file set both clients' (the
// defaults when empty: us-east-1, path-style, the system's CAs).
//
// Thread-safe (S3Client is).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "common/mutex.h"
#include "common/status.h"
#include "common/thread_annotations.h"
#include "fs/objstore/s3_client.h"
#include "fs/volume/object_location.h"
#include "meta/records.h"

namespace tierfs {

// Bounds of quick() calls, seconds; two attempts at most when the store does not
// answer (refused, timeouts), as many as fit in kQuickRequestSeconds when it
// answers busy or failing (SlowDown, 5xx).
inline constexpr double kQuickConnectSeconds = 2;
inline constexpr double kQuickStallSeconds = 2;
inline constexpr double kQuickRequestSeconds = 4;

class ObjectVolume {
 public:
  // Opens the store of object volume `row` (IsObjectVolume): parses its path,
  // loads its credentials file (LoadS3Credentials: refused when group or others
  // may read it) and makes the clients. Sends nothing. Errors name the volume:
  // EINVAL (a bad URL, endpoint, region or addressing, a malformed credentials
  // file), EACCES (a credentials or CA file that cannot be read, a credentials
  // file others may read), ENOENT (no such credentials or CA file).
  static Result<std::unique_ptr<ObjectVolume>> Open(const meta::Volume& row);

  const ObjectLocation& location() const { return location_; }
  const std::string& endpoint() const { return endpoint_; }
  // The key of upload `version` of inode `ino`'s object (ObjectKey).
  std::string Key(uint64_t ino, uint64_t generation, uint64_t version) const {
    return ObjectKey(location_, ino, generation, version);
  }
  // The key of the object of file `attr` (its inode, generation and
  // store_version).
  std::string KeyOf(const meta::Inode& attr) const {
    return Key(attr.ino, attr.generation, attr.store_version);
  }
  // "s3://BUCKET/KEY": how logs and errors name an object.
  std::string Url(const std::string& key) const { return "s3://" + location_.bucket + "/" + key; }

  // HEAD of the bucket with quick()'s bounds: OK; ENOENT (no such bucket),
  // EACCES (credentials refused), ECONNREFUSED/EHOSTUNREACH (nothing answers
  // at the endpoint), ETIMEDOUT (no reply in time), EAGAIN/EIO (the store
  // answers, busy or failing) (ClassifyS3Errno).
  Status Probe();

  // What `fsvoladm add` and `mkdstfs` ask of a store before it becomes a
  // volume: Probe()'s answer, then that its bucket keeps no versions. EINVAL,
  // naming the bucket, for a bucket whose versioning is Enabled or Suspended:
  // it would keep every object tierfs replaces or deletes as an old version
  // that no listing shows, and bill it, for ever.
  Status CheckUsable();

  // Replies of both clients so far (S3Client::replies).
  uint64_t Replies() const { return transfer_->replies() + quick_->replies(); }

  // Both clients' calls of `op` so far, summed (S3ClientStats::Calls): the
  // volume's request, error and latency metrics.
  S3ClientStats::Calls CallsOf(S3Op op) const;
  // Body bytes both clients sent to / received from the store so far.
  uint64_t SentBytes() const {
    return transfer_->stats().SentBytes() + quick_->stats().SentBytes();
  }
  uint64_t ReceivedBytes() const {
    return transfer_->stats().ReceivedBytes() + quick_->stats().ReceivedBytes();
  }

  // Uploads of this daemon in flight, by key: a multipart upload that is not
  // one of them is a leftover of a daemon that died mid-upload (one daemon
  // serves a file system, and its prefix is its own).
  class UploadInFlight {
   public:
    UploadInFlight(ObjectVolume& volume, std::string key);
    ~UploadInFlight();
    UploadInFlight(const UploadInFlight&) = delete;
    UploadInFlight& operator=(const UploadInFlight&) = delete;

   private:
    ObjectVolume& volume_;
    const std::string key_;
  };
  // Marks an upload of `key` in flight for the life of the result; taken
  // before the upload begins.
  UploadInFlight TrackUpload(std::string key) { return UploadInFlight(*this, std::move(key)); }

  // Aborts every multipart upload under the volume's prefix whose key has no
  // upload of this daemon in flight: the parts a crash mid-upload left, which
  // the store keeps (and bills) until aborted. Returns how many were aborted;
  // the listing's error, or the first abort's (the others are still tried).
  // An upload that ended meanwhile (ENOENT) is not an error.
  Result<size_t> AbortLeftoverUploads() EXCLUDES(uploads_mu_);

  S3Client& transfer() { return *transfer_; }
  S3Client& quick() { return *quick_; }

 private:
  ObjectVolume() = default;
  ObjectLocation location_;
  std::string endpoint_;
  std::unique_ptr<S3Client> transfer_;
  std::unique_ptr<S3Client> quick_;
  Mutex uploads_mu_;
  std::map<std::string, int> uploads_in_flight_ GUARDED_BY(uploads_mu_);  // key -> count
};

}  // namespace tierfs
