// Passes over an object volume's store (fs/check/store_listing.h lists it):
// its objects are filed like a local volume's, so that later passes judge
// both kinds by one set of rules; "upload" for multipart uploads in progress.
#include "fs/check/checker.h"

#include <algorithm>

#include "fs/check/store_listing.h"

namespace tierfs::fsck {

void Checker::ListStores() {
  for (const meta::Volume& v : volumes_) {
    if (!meta::IsObjectVolume(v)) continue;
    const std::string who = "object volume " + v.name + " (" + v.path + " at " + v.endpoint + ")";
    Result<std::unique_ptr<ObjectVolume>> opened = ObjectVolume::Open(v);
    Result<StoreListing> listing =
        opened.ok() ? ListStore(**opened) : Result<StoreListing>(opened.status());
    if (!listing.ok()) {
      unreadable_volumes_.insert(v.id);
      CheckFinding* f = Unreadable(who + ": " + listing.status().message() +
                                   "; its objects were not checked");
      if (f != nullptr && o_.repair) f->repair = "not repaired: nothing on this store was touched";
      continue;
    }
    if (listing->objects.empty() && HasNonEmptyFilesOn(v.id)) {
      unreadable_volumes_.insert(v.id);
      CheckFinding& f = Add("label", FindingSeverity::kDamage,
                            who + ": holds no object, while the database has files with "
                                  "bytes there (a wrong bucket, prefix or account?); its "
                                  "files were not checked");
      if (o_.repair) f.repair = "not repaired: nothing on this store was touched";
      continue;
    }
    ObjectVolume& store = **opened;
    for (const std::string& url : listing->strays) {
      Add("stray", FindingSeverity::kNote, url + ": not named like an object; left alone");
    }
    for (const StoreObject& so : listing->objects) {
      ++report_.objects;
      max_object_ino_ = std::max(max_object_ino_, so.ino);
      auto it = files_.find(so.ino);
      if (it != files_.end() && it->second.volume_id == v.id &&
          it->second.generation == so.generation && it->second.store_version == so.version) {
        it->second.found = true;
        it->second.object_size = so.size;
        continue;
      }
      ObjectEntry o;
      o.volume_id = v.id;
      o.ino = so.ino;
      o.generation = so.generation;
      o.version = so.version;
      o.size = so.size;
      o.path = store.Url(so.key);
      o.key = so.key;
      set_aside_.push_back(std::move(o));
    }
    uploads_[v.id] = std::move(listing->uploads);
    stores_[v.id] = std::move(*opened);
    good_.insert(v.id);
  }
}

bool Checker::HasNonEmptyFilesOn(uint32_t volume_id) const {
  for (const auto& [ino, f] : files_) {
    if (f.volume_id == volume_id && f.nlink > 0 && f.size > 0) return true;
  }
  return false;
}

void Checker::CheckUploads() {
  for (const auto& [id, uploads] : uploads_) {
    ObjectVolume* store = Store(id);
    for (const S3MultipartUpload& u : uploads) {
      CheckFinding& f =
          Add("upload", FindingSeverity::kLeftover,
              store->Url(u.key) + ": a multipart upload in progress (begun at " +
                  std::to_string(u.initiated) +
                  " s since the epoch; a crash mid-upload leaves one)");
      if (!can_repair_ || o_.live) continue;
      Status st = store->transfer().AbortMultipartUpload(store->location().bucket, u.key,
                                                         u.upload_id);
      if (st.code() == ENOENT) st = Status::Ok();  // ended meanwhile
      Repaired(f, st, "aborted");
    }
  }
}

}  // namespace tierfs::fsck
