// ObjectPrecreator: keeps empty objects ready on the volumes that take creates.
//
// A create renames a pooled empty object into place (VolumeSet's pool,
// docs/design.md "Recycled objects") instead of waiting for the backing file
// system to allocate an inode: on ext4 that allocation is most of a create's
// time once files have been deleted (it walks every recently freed inode of the
// group), and it varies 5x from run to run. This thread does the allocation
// ahead, off the request path, as object stores precreate objects for their
// metadata servers (Lustre's OST precreation).
//
// Demand-driven: only a volume whose pool a create left under
// VolumeSet::kPoolLowWater is refilled, to `target` objects; a volume that
// takes no creates gets none. What it costs: one empty inode per pooled object
// on the backing file system (the mount empties tmp/, unmount unlinks them).
#pragma once

#include <cstddef>
#include <thread>

#include "common/cond_var.h"
#include "common/mutex.h"
#include "common/thread_annotations.h"
#include "fs/volume/volume_set.h"

namespace tierfs {

class ObjectPrecreator {
 public:
  // Starts the thread and registers with `volumes` (SetOnPoolLow), which must
  // outlive this object and must not be serving creates yet. Each pool that
  // runs low is refilled to `target` objects (--precreate_objects).
  ObjectPrecreator(VolumeSet& volumes, size_t target);
  // Stops the thread (a refill under way ends after its current object) and
  // unregisters from `volumes`, so no create may run then (the FUSE loop and
  // the control channel have stopped); pooled objects stay in the pool.
  ~ObjectPrecreator();
  ObjectPrecreator(const ObjectPrecreator&) = delete;
  ObjectPrecreator& operator=(const ObjectPrecreator&) = delete;

 private:
  void Wake() EXCLUDES(mu_);
  void Run() EXCLUDES(mu_);

  VolumeSet& volumes_;
  const size_t target_;
  Mutex mu_;
  CondVar cv_;
  bool pending_ GUARDED_BY(mu_) = false;  // a pool ran low since the thread last looked
  bool stop_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace tierfs
