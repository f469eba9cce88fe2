#include "fs/check/store_check.h"

#include <sys/stat.h>

#include <map>
#include <memory>

#include "fs/volume/object_location.h"
#include "fs/volume/object_volume.h"

namespace tierfs {
namespace {

std::string Bytes(uint64_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

CheckFinding Finding(const char* kind, FindingSeverity severity, std::string message) {
  CheckFinding f;
  f.kind = kind;
  f.severity = severity;
  f.message = std::move(message);
  return f;
}

void Outcome(CheckFinding& f, const Status& st, const std::string& what) {
  f.repaired = st.ok();
  f.repair = st.ok() ? what : "repair failed: " + st.message();
}

}  // namespace

StoreCheckOutcome CheckObjectStore(const StoreCheckInput& in) {
  StoreCheckOutcome out;
  const meta::Volume& v = in.volume;
  const std::string who = "object volume " + v.name + " (" + v.path + " at " + v.endpoint + ")";
  auto opened = ObjectVolume::Open(v);
  if (!opened.ok()) {
    out.findings.push_back(Finding("unreadable", FindingSeverity::kError,
                                   opened.status().message() + "; its objects were not checked"));
    return out;
  }
  ObjectVolume& store = **opened;
  S3Client& s3 = store.transfer();
  const std::string& bucket = store.location().bucket;
  const std::string prefix = ObjectKeyPrefix(store.location());

  // Every key under the prefix, with its size.
  std::vector<S3ListedObject> listed;
  std::string token;
  do {
    auto page = s3.ListObjects(bucket, prefix, token);
    if (!page.ok()) {
      out.findings.push_back(Finding("unreadable", FindingSeverity::kError,
                                     who + ": cannot list " + prefix + ": " +
                                         page.status().message() +
                                         "; its objects were not checked"));
      return out;
    }
    listed.insert(listed.end(), page->objects.begin(), page->objects.end());
    token = page->next_continuation_token;
  } while (!token.empty());

  std::map<uint64_t, const meta::Inode*> files;
  for (const meta::Inode& f : in.files) files[f.ino] = &f;
  std::set<std::pair<uint64_t, uint64_t>> seen;  // (ino, generation) of objects listed
  for (const S3ListedObject& o : listed) {
    std::optional<ObjectKeyId> id = ParseObjectKey(store.location(), o.key);
    if (!id) {
      out.findings.push_back(Finding("stray", FindingSeverity::kNote,
                                     store.Url(o.key) + ": not named like an object; left alone"));
      continue;
    }
    ++out.objects;
    seen.insert({id->ino, id->generation});
    auto file = files.find(id->ino);
    bool located = file != files.end() && file->second->generation == id->generation;
    if (!located && in.current) {
      // Again, now (live: a relocation may have just committed it).
      Result<meta::Inode> now = in.current(id->ino);
      located = now.ok() && S_ISREG(now->mode) && now->volume_id == v.id &&
                now->generation == id->generation;
    }
    if (located) {
      const uint64_t size = file != files.end() ? file->second->size : o.size;
      if (o.size != size) {
        CheckFinding f = Finding(
            o.size < size ? "short" : "long", FindingSeverity::kDamage,
            in.describe(id->ino) + ": object " + store.Url(o.key) + " has " + Bytes(o.size) +
                ", the file " + Bytes(size));
        if (in.repair) f.repair = "not repaired: objects on a store are never rewritten";
        out.findings.push_back(std::move(f));
      }
      continue;
    }
    if (in.pending.count({id->ino, id->generation}) != 0) {
      CheckFinding f = Finding("pending", FindingSeverity::kLeftover,
                               store.Url(o.key) + ": a relocation's other copy of inode " +
                                   std::to_string(id->ino) + "; the next mount deletes it");
      if (in.repair) {
        Status st = s3.DeleteObject(bucket, o.key);
        if (st.ok() && in.clear_pending) st = in.clear_pending(id->ino);
        Outcome(f, st, "deleted, and its pending_objects row cleared");
      }
      out.findings.push_back(std::move(f));
      continue;
    }
    Result<meta::Inode> now = in.current ? in.current(id->ino) : Status::NotFound("");
    const std::string why =
        !now.ok()                ? "inode " + std::to_string(id->ino) + " does not exist"
        : !S_ISREG(now->mode)    ? in.describe(id->ino) + " is not a regular file"
        : now->volume_id != v.id ? in.describe(id->ino) + " is on another volume"
                                 : in.describe(id->ino) + " has generation " +
                                       std::to_string(now->generation);
    CheckFinding f = Finding("orphan", FindingSeverity::kDamage,
                             store.Url(o.key) + " (" + Bytes(o.size) + "): " + why);
    if (in.repair) Outcome(f, s3.DeleteObject(bucket, o.key), "deleted from the store");
    out.findings.push_back(std::move(f));
  }

  // Files whose object the listing did not show.
  for (const meta::Inode& f : in.files) {
    if (f.nlink == 0 || f.size == 0 || seen.count({f.ino, f.generation}) != 0) continue;
    if (in.current) {
      Result<meta::Inode> now = in.current(f.ino);
      if (!now.ok() || now->volume_id != v.id || now->nlink == 0) continue;  // moved meanwhile
    }
    auto head = s3.HeadObject(bucket, store.Key(f.ino, f.generation));
    if (head.ok()) continue;  // uploaded since the listing
    CheckFinding finding =
        Finding("missing", FindingSeverity::kDamage,
                in.describe(f.ino) + ", " + Bytes(f.size) + ", has no object at " +
                    store.Url(store.Key(f.ino, f.generation)) + " (" + head.status().message() +
                    ")");
    if (in.repair) finding.repair = "not repaired: restore the object into the bucket";
    out.findings.push_back(std::move(finding));
  }

  // pending_objects rows whose object is gone.
  for (const auto& [ino, generation] : in.pending) {
    if (seen.count({ino, generation}) != 0) continue;
    CheckFinding f = Finding("pending", FindingSeverity::kLeftover,
                             "pending_objects row (inode " + std::to_string(ino) + ", " + who +
                                 "): its object is gone; the next mount clears it");
    if (in.repair && in.clear_pending) Outcome(f, in.clear_pending(ino), "row cleared");
    out.findings.push_back(std::move(f));
  }

  // Uploads a crash cut short.
  auto uploads = s3.ListMultipartUploads(bucket, prefix);
  if (!uploads.ok()) {
    out.findings.push_back(Finding("unreadable", FindingSeverity::kError,
                                   who + ": cannot list multipart uploads: " +
                                       uploads.status().message()));
    return out;
  }
  for (const S3MultipartUpload& u : *uploads) {
    CheckFinding f = Finding("upload", FindingSeverity::kLeftover,
                             store.Url(u.key) + ": a multipart upload in progress (begun at " +
                                 std::to_string(u.initiated) +
                                 " s since the epoch; a crash mid-upload leaves one)");
    if (in.repair && !in.live) {
      Status st = s3.AbortMultipartUpload(bucket, u.key, u.upload_id);
      if (st.code() == ENOENT) st = Status::Ok();  // ended meanwhile
      Outcome(f, st, "aborted");
    }
    out.findings.push_back(std::move(f));
  }
  out.complete = true;
  return out;
}

}  // namespace tierfs
