#include "fs/check/store_listing.h"

#include "fs/volume/object_location.h"

namespace tierfs {

Result<StoreListing> ListStore(ObjectVolume& store) {
  StoreListing out;
  S3Client& s3 = store.transfer();
  const std::string& bucket = store.location().bucket;
  const std::string prefix = ObjectKeyPrefix(store.location());
  const std::string where = "s3://" + bucket + "/" + prefix;
  std::string token;
  do {
    auto page = s3.ListObjects(bucket, prefix, token);
    if (!page.ok()) {
      return Status::Error(page.status().code(),
                           "cannot list " + where + ": " + page.status().message());
    }
    for (const S3ListedObject& o : page->objects) {
      std::optional<ObjectKeyId> id = ParseObjectKey(store.location(), o.key);
      if (!id) {
        out.strays.push_back(store.Url(o.key));
        continue;
      }
      out.objects.push_back({id->ino, id->generation, id->version, o.size, o.key});
    }
    token = page->next_continuation_token;
  } while (!token.empty());
  auto uploads = s3.ListMultipartUploads(bucket, prefix);
  if (!uploads.ok()) {
    return Status::Error(uploads.status().code(), "cannot list the multipart uploads under " +
                                                      where + ": " + uploads.status().message());
  }
  out.uploads = std::move(*uploads);
  return out;
}

}  // namespace tierfs
