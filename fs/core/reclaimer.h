// Reclaimer: the reclaim of unlinked inodes, object first, then row, once
// nothing refers to them (nlink, opens and kernel lookups all zero).
//
// Order (docs/design.md, "Namespace and objects"): an object goes only after
// the change that made its inode's nlink 0 is committed, else a crash could
// bring back a name whose bytes are gone; the row goes only after its object,
// so a crash in between leaves an nlink-0 row that the next mount finishes
// (FileSystem::Mount reclaims such orphans). A reclaim whose unlink still sits
// in the open commit group waits in a queue, by the group's ticket, until
// ReclaimCommitted runs after that group commits.
//
// Threads: Reclaim runs on whichever thread drops the last reference (a FUSE
// worker's FORGET, RELEASE or unlink, a relocation, the flush threads);
// ReclaimCommitted on the group-commit thread after every commit and on any
// thread that commits at once (FileSystem::SyncMetadata). Locks: mu_ guards the
// queue only, and is never held while an object or a row is removed.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "common/mutex.h"
#include "common/thread_annotations.h"
#include "fs/volume/volume_set.h"
#include "meta/metadata.h"

namespace tierfs {

class Reclaimer {
 public:
  // Both must outlive the Reclaimer's last call.
  Reclaimer(meta::Metadata& meta, VolumeSet& volumes) : meta_(meta), volumes_(volumes) {}
  Reclaimer(const Reclaimer&) = delete;
  Reclaimer& operator=(const Reclaimer&) = delete;

  // Removes the inode `attr` (nlink 0, no opens, no lookups): at once when its
  // nlink-0 change is committed, else queued until ReclaimCommitted finds it
  // committed. Failures are logged and leave the row for the next mount.
  void Reclaim(const meta::Inode& attr) EXCLUDES(mu_);
  // Runs the queued reclaims whose nlink-0 change is committed now; their rows
  // go in one change (Metadata::DeleteInodes). Failures are logged.
  void ReclaimCommitted() EXCLUDES(mu_);

 private:
  // Takes off the queue the reclaims whose ticket is committed now.
  std::vector<meta::Inode> TakeCommitted() EXCLUDES(mu_);
  // Object and row of `attr`, its nlink 0 being durable.
  void ReclaimNow(const meta::Inode& attr);
  // The object part: true when the inode's object is gone (or it never had
  // one); false (logged) when its removal failed and the row must stay.
  bool RemoveObjectOf(const meta::Inode& attr);

  meta::Metadata& meta_;
  VolumeSet& volumes_;
  Mutex mu_;
  // Reclaims waiting for their nlink-0 change to commit: (ticket, inode).
  std::vector<std::pair<uint64_t, meta::Inode>> waiting_ GUARDED_BY(mu_);
};

}  // namespace tierfs
