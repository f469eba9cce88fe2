// The part of `tierfs check` that looks at an object volume's store (issue 29):
// every key under PREFIX/objects/ is told its inode (fs/volume/object_location.h)
// and held against the database, and the multipart uploads in progress under
// the prefix are listed.
//
// Findings (fs/check/fsck.h's kinds):
//   orphan    an object whose inode does not exist, is not a regular file, or is
//             located elsewhere, and that no pending_objects row names; repair
//             deletes it (a store has no lost+found)
//   pending   an object that a pending_objects row names (a relocation's other
//             copy): the next mount deletes it; repair deletes it and clears the
//             row. Also a row whose object is gone: repair clears the row
//   upload    a multipart upload in progress (a crash mid-upload leaves one);
//             repair (offline only: a live daemon may be uploading) aborts it
//   missing   a file of size > 0 on the volume whose object is not in the store
//             (not repaired: nothing is invented; restore the object)
//   short / long  an object whose size differs from its file's (not repaired)
//   stray     a key under the prefix not named like an object (left alone)
//   unreadable  the store could not be opened or listed: nothing of it is checked
// Objects are counted in `objects`. Thread-compatible (one check at a time).
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "fs/check/fsck.h"
#include "meta/records.h"

namespace tierfs {

struct StoreCheckInput {
  meta::Volume volume;             // an object volume (IsObjectVolume)
  // The database's regular files on this volume.
  std::vector<meta::Inode> files;
  // (ino, generation) of the pending_objects rows on this volume.
  std::set<std::pair<uint64_t, uint64_t>> pending;
  bool repair = false;             // fix what can be fixed
  bool live = false;               // a mounted file system: uploads are not aborted
  // The inode as it is now (ENOENT when it does not exist).
  std::function<Result<meta::Inode>(uint64_t ino)> current;
  // "/a/b (inode 5)" for messages.
  std::function<std::string(uint64_t ino)> describe;
  // Clears the pending_objects row of (ino, this volume).
  std::function<Status(uint64_t ino)> clear_pending;
};

struct StoreCheckOutcome {
  std::vector<CheckFinding> findings;
  uint64_t objects = 0;    // keys named like objects
  bool complete = false;   // the store was listed whole
};

// Checks (and with input.repair repairs) the store of input.volume.
StoreCheckOutcome CheckObjectStore(const StoreCheckInput& input);

}  // namespace tierfs
