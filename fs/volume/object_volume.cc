#include "fs/volume/object_volume.h"

#include "fs/objstore/s3_credentials.h"

namespace tierfs {

Result<std::unique_ptr<ObjectVolume>> ObjectVolume::Open(const meta::Volume& row) {
  const std::string who = "object volume " + (row.name.empty() ? row.path : row.name + " (" +
                                                                             row.path + ")");
  Result<ObjectLocation> location = ParseObjectUrl(row.path);
  if (!location.ok()) return Status::Invalid(who + ": " + location.status().message());
  if (row.endpoint.empty()) return Status::Invalid(who + ": no endpoint (--endpoint URL)");
  if (row.credentials_file.empty()) {
    return Status::Invalid(who + ": no credentials file (--credentials FILE)");
  }
  Result<S3Credentials> creds = LoadS3Credentials(row.credentials_file);
  if (!creds.ok()) {
    return Status::Error(creds.status().code(), who + ": " + creds.status().message());
  }
  S3ClientOptions transfer;
  transfer.endpoint = row.endpoint;
  transfer.credentials = *creds;
  // "" in a row is the default (and all a row of schema version 5 has).
  if (!row.region.empty()) transfer.region = row.region;
  if (!row.addressing.empty()) {
    Result<S3Addressing> addressing = ParseS3Addressing(row.addressing);
    if (!addressing.ok()) return Status::Invalid(who + ": " + addressing.status().message());
    transfer.addressing = *addressing;
  }
  transfer.ca_file = row.ca_file;
  S3ClientOptions quick = transfer;
  quick.connect_timeout_seconds = kQuickConnectSeconds;
  quick.stall_timeout_seconds = kQuickStallSeconds;
  quick.request_timeout_seconds = kQuickRequestSeconds;
  quick.max_attempts = 2;
  // A busy store (SlowDown, 5xx) is retried for the call's whole few seconds.
  quick.retry_budget_seconds = kQuickRequestSeconds;
  quick.backoff_max_seconds = 0.5;
  std::unique_ptr<ObjectVolume> v(new ObjectVolume);
  v->location_ = *location;
  auto t = S3Client::Create(std::move(transfer));
  if (!t.ok()) return Status::Error(t.status().code(), who + ": " + t.status().message());
  auto q = S3Client::Create(std::move(quick));
  if (!q.ok()) return Status::Error(q.status().code(), who + ": " + q.status().message());
  v->endpoint_ = (*t)->options().endpoint;
  v->transfer_ = std::move(*t);
  v->quick_ = std::move(*q);
  return v;
}

S3ClientStats::Calls ObjectVolume::CallsOf(S3Op op) const {
  S3ClientStats::Calls calls = transfer_->stats().CallsOf(op);
  calls.Add(quick_->stats().CallsOf(op));
  return calls;
}

Status ObjectVolume::Probe() { return quick_->HeadBucket(location_.bucket); }

ObjectVolume::UploadInFlight::UploadInFlight(ObjectVolume& volume, std::string key)
    : volume_(volume), key_(std::move(key)) {
  MutexLock lock(volume_.uploads_mu_);
  ++volume_.uploads_in_flight_[key_];
}

ObjectVolume::UploadInFlight::~UploadInFlight() {
  MutexLock lock(volume_.uploads_mu_);
  auto it = volume_.uploads_in_flight_.find(key_);
  if (it != volume_.uploads_in_flight_.end() && --it->second == 0) {
    volume_.uploads_in_flight_.erase(it);
  }
}

Result<size_t> ObjectVolume::AbortLeftoverUploads() {
  Result<std::vector<S3MultipartUpload>> uploads =
      quick_->ListMultipartUploads(location_.bucket, ObjectKeyPrefix(location_));
  if (!uploads.ok()) return uploads.status();
  size_t aborted = 0;
  Status first;
  for (const S3MultipartUpload& u : *uploads) {
    {
      MutexLock lock(uploads_mu_);
      if (uploads_in_flight_.count(u.key) != 0) continue;
    }
    Status st = quick_->AbortMultipartUpload(location_.bucket, u.key, u.upload_id);
    if (st.ok()) ++aborted;
    if (!st.ok() && st.code() != ENOENT && first.ok()) first = st;
  }
  if (!first.ok()) return first;
  return aborted;
}

Status ObjectVolume::CheckUsable() {
  TIERFS_RETURN_IF_ERROR(Probe());
  Result<std::string> versioning = transfer_->GetBucketVersioning(location_.bucket);
  if (!versioning.ok()) return versioning.status();
  if (!versioning->empty()) {
    return Status::Invalid("bucket " + location_.bucket + " has versioning " + *versioning +
                           ": every object tierfs replaces or deletes would stay there as an "
                           "old version that no listing shows; give a bucket that never had "
                           "versioning turned on");
  }
  return Status::Ok();
}

}  // namespace tierfs
