// What `tierfs check` reads of an object volume's store: every key under
// PREFIX/objects/ told as the inode, generation and upload it names
// (fs/volume/object_location.h), the keys that name none, and the multipart
// uploads in progress under the prefix. The check (fsck.cc) holds these
// against the database together with every other volume's objects, so that an
// object on a store and one on a local volume are judged by the same rules
// (docs/reliability.md, "What a repair never does").
//
// Thread-compatible; sends only listings (ListObjectsV2 and
// ListMultipartUploads), never a change.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "fs/objstore/s3_types.h"
#include "fs/volume/object_volume.h"

namespace tierfs {

// A key of the store named like an object.
struct StoreObject {
  uint64_t ino = 0;
  uint64_t generation = 0;
  uint64_t version = 0;  // the upload its key names (ObjectKeyId::version)
  uint64_t size = 0;  // bytes, as the listing says
  std::string key;
};

struct StoreListing {
  std::vector<StoreObject> objects;           // in key order
  std::vector<std::string> strays;            // other keys under the prefix
  std::vector<S3MultipartUpload> uploads;     // in progress under the prefix
};

// Lists `store` whole (every page). The first listing error, with the volume's
// URL in its message: nothing of a store listed in part is judged.
Result<StoreListing> ListStore(ObjectVolume& store);

}  // namespace tierfs
