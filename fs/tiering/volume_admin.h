// VolumeAdmin: adding, removing and re-classing volumes of a mounted file system
// (fsvoladm; docs/commands.md "fsvoladm", the VxFS fsvoladm/vxvset behaviour).
//
//  - Add labels a directory as a new dataonly volume (as mkdstfs does), commits
//    its row, and puts it in the live VolumeSet: new files and relocations may
//    use it at once. Order: label, row, set; a crash between leaves a labelled
//    directory that is no volume yet (adding it again is allowed), never a row
//    without its label (which would stop the next mount).
//  - Remove evacuates every object of the volume (unlinked-but-open files too)
//    with the Relocator, each file to the volume its CREATE rule picks now
//    (policy/evacuation.h), so open descriptors follow their file; then removes
//    the row, drops the volume from the set and marks its label retired. It
//    refuses, changing nothing, the metadata volume, an offline volume, and a
//    volume whose files the others have no room for (saying how many bytes are
//    missing). While it runs the volume is draining: nothing new lands there. A
//    file busy (written during its copy) is retried, at most
//    kEvacuationBackgroundTries times in the background and then once holding
//    its writers. If anything is left at the end, the volume stays (still
//    listed, online, no longer draining) and every file is readable where it
//    is: the ones moved on their new volume, the others on this one.
//  - SetClass changes a volume's placement class in the row and the live set.
//
// Thread-safe: one administrative change at a time (admin_mu_); the data path
// goes on throughout.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/mutex.h"
#include "common/status.h"
#include "common/thread_annotations.h"
#include "fs/core/file_system.h"
#include "fs/core/relocator.h"
#include "meta/records.h"

namespace tierfs {

// Background attempts at moving a busy file before one attempt holding its writers.
inline constexpr int kEvacuationBackgroundTries = 3;
// Passes over the volume's remaining files (files created there before the
// volume started draining, busy files, moves that met a full target).
inline constexpr int kEvacuationRounds = 6;

struct AddVolumeRequest {
  // Absolute, existing directory; or an object volume's "s3://BUCKET/PREFIX".
  std::string path;
  std::string placement_class;    // CheckSimpleName rule
  std::string media_type;         // "ssd" | "hdd" | "mixed" | "unknown"
  std::string media_type_source;  // "detected" | "configured"
  // Object volumes only: "http[s]://HOST[:PORT]" and the absolute path of the
  // credentials file (read by the daemon, never stored but as a path).
  std::string endpoint;
  std::string credentials_file;
  // Object volumes only, "" for the defaults: the region requests are signed
  // for (us-east-1), "path" or "virtual" addressing (path), the absolute path
  // of a PEM file of CA certificates for an HTTPS endpoint (the system's).
  std::string region;
  std::string addressing;
  std::string ca_file;
};

struct RemoveVolumeReport {
  meta::Volume volume;                 // the row that was removed
  uint64_t files_moved = 0;            // objects moved to other volumes
  uint64_t bytes_moved = 0;
  uint64_t outside_create_classes = 0; // moved outside their CREATE classes (no room there)
  uint64_t busy_retries = 0;           // attempts that found the file written meanwhile
  std::string label_warning;           // "" or why the label could not be marked retired
};

// Progress of a removal: `done` of `total` files handled, `bytes` moved so far.
using EvacuationProgress =
    std::function<void(uint64_t done, uint64_t total, uint64_t bytes)>;

class VolumeAdmin {
 public:
  // `fs` and `relocator` must outlive this object.
  VolumeAdmin(FileSystem& fs, Relocator& relocator) : fs_(fs), relocator_(relocator) {}

  // Adds the directory as a new dataonly volume; returns its row (id, name
  // "vol<id>"). Errors, nothing changed: EINVAL (relative path, bad class or
  // media type, a directory inside the mount point or holding it), ENOENT /
  // ENOTDIR (no such directory), EEXIST (already a volume of this file system,
  // the same directory under another path, a live label of another file system,
  // a metadata database there).
  // An object volume ("s3://BUCKET/PREFIX" path; AddObject) instead.
  Result<meta::Volume> Add(const AddVolumeRequest& request) EXCLUDES(admin_mu_);

  // Evacuates and forgets the volume named `volume` (name "vol3", its directory,
  // or its id). Errors, the volume left in place: ENOENT (no such volume),
  // EINVAL (the metadata volume), EIO (offline), ENOSPC (the other volumes lack
  // room: the message says how many bytes are missing), EBUSY (files still
  // there after every round; the message gives the first failure).
  Result<RemoveVolumeReport> Remove(const std::string& volume, const EvacuationProgress& progress)
      EXCLUDES(admin_mu_);

  // Sets the placement class of `volume`; returns the row before the change.
  // ENOENT, EINVAL (bad class).
  Result<meta::Volume> SetClass(const std::string& volume, const std::string& placement_class)
      EXCLUDES(admin_mu_);

 private:
  // Add for an object volume: checks the URL, the endpoint and the credentials
  // file (ObjectVolume::Open), asks the store for the bucket (ENOENT naming the
  // bucket and the endpoint when it is missing, EACCES when the credentials are
  // refused, when the bucket lives in another region than the one given (the
  // message names it and says --region REGION) or when the endpoint's
  // certificate does not verify, EIO/ETIMEDOUT when the store does not
  // answer), refuses a prefix
  // another volume of this file system uses or that already holds objects
  // (EEXIST), then commits the row and adds it to the set. admin_mu_ held.
  Result<meta::Volume> AddObjectLocked(const AddVolumeRequest& request) REQUIRES(admin_mu_);
  // The volume `volume` names, from the live set. ENOENT listing the volumes.
  Result<meta::Volume> Resolve(const std::string& volume) const;
  // The files (unlinked-but-open ones included) with their object on `id`.
  Result<std::vector<meta::Inode>> FilesOn(uint32_t id);
  // The CREATE placement for one file (by its first path; not governed if none).
  policy::CreatePlacement PlacementOf(const meta::Inode& file);
  // Moves everything off `v` (draining). Fills `report`; EBUSY if files remain.
  Status Evacuate(const meta::Volume& v, const EvacuationProgress& progress,
                  RemoveVolumeReport* report);

  FileSystem& fs_;
  Relocator& relocator_;
  Mutex admin_mu_;  // one add/remove/setclass at a time
};

}  // namespace tierfs
