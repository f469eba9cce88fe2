// The consistency check's state and passes (`tierfs check`, fs/check/fsck.h):
// one Checker per run holds the tables every pass reads and fills (the
// database's files, the objects set aside, the pending rows, the opened
// stores), and each pass is a member defined in a file of its own, named
// after the finding kinds it looks for and repairs: pass_labels.cc,
// pass_local_objects.cc, pass_stores.cc, pass_inode_sequence.cc,
// pass_misplaced.cc, pass_sizes.cc, pass_orphans.cc, pass_missing.cc,
// pass_pending_rows.cc, pass_namespace.cc (and pass_database.cc). fsck.cc runs
// them in order; checker.cc has what several passes share.
//
// Every finding about a file or an object is looked at again (a fresh stat or
// HEAD, the current attributes) before it is reported or repaired: that is what
// makes the live mode sound while the daemon keeps serving, and what lets a
// repair see the repairs made before it.
//
// Internal to fs/check: not a public interface. Thread-compatible (one run).
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/byte_count.h"
#include "common/status.h"
#include "fs/check/fsck.h"
#include "fs/objstore/s3_types.h"
#include "fs/volume/object_volume.h"
#include "fs/volume/object_walk.h"
#include "meta/metadata.h"

namespace tierfs::fsck {

// One regular file as the database has it, and what the walk found for it.
struct FileEntry {
  uint64_t generation = 0;
  uint64_t store_version = 0;  // which upload its object is, on a store
  uint32_t volume_id = 0;
  uint64_t size = 0;
  uint32_t nlink = 0;
  bool found = false;        // its object was seen at its location
  uint64_t object_size = 0;  // when found
};

// An object that is not its file's location (pending, misplaced or orphan).
struct ObjectEntry {
  uint32_t volume_id = 0;
  uint64_t ino = 0;
  uint64_t generation = 0;
  uint64_t version = 0;       // on a store: the upload its key names
  uint64_t size = 0;
  std::string path;           // a local object's path; a store's object's s3:// URL
  std::string key;            // on a store: the object's key ("" for a local object)
  bool wrong_subdir = false;  // a good name in the wrong objects/xx directory
  bool consumed = false;      // became a misplaced file's object
};

// The name of the directory repairs put nameless files in, under the root.
inline constexpr char kLostFound[] = "lost+found";

// "regular file", "directory"... for messages.
const char* TypeName(uint32_t mode);

class Checker {
 public:
  Checker(meta::Metadata& meta, const CheckOptions& options) : meta_(meta), o_(options) {
    report_.live = options.live;
    report_.repair = options.repair;
  }

  // ---- the driver (fsck.cc) --------------------------------------------------

  // Runs every pass in order (fsck.cc) and returns the report; an error only
  // when the check could not run at all.
  Result<CheckReport> Run();

  // A query failed half-way (a damaged database, or EIO): the report so far, and
  // why it stops there. ENOMEM and EBUSY are not damage: the check could not run.
  Result<CheckReport> Stopped(const Status& st);

  // Reports progress to options.progress, when set.
  void Progress(const char* phase, uint64_t done, uint64_t total);

 private:
  // ---- findings (checker.cc) -------------------------------------------------

  // A new finding of `kind` (a word of fsck.h's table) in the report.
  CheckFinding& Add(const char* kind, FindingSeverity severity, std::string message);

  // Records the outcome of a repair on `f`.
  static void Repaired(CheckFinding& f, const Status& st, const std::string& what);

  // An error finding: something the check could not read. Once per message: null
  // when it was made before.
  CheckFinding* Unreadable(std::string message);

  // Volume `v` could not be read at `path`: none of its files or objects is checked
  // (as with a bad label), and no file anywhere is taken for one whose object is
  // missing, since its object may be there (see CheckMissing).
  void VolumeUnreadable(const meta::Volume& v, const std::string& path, int error);

  // ---- volumes and the database's view (checker.cc) --------------------------

  // The volumes table's row of `id`, or null.
  const meta::Volume* VolumeById(uint32_t id) const;

  // "vol2 (/srv/hdd1)" for messages.
  std::string VolumeText(uint32_t id) const;

  bool Good(uint32_t id) const { return good_.count(id) != 0; }

  // The path of a local object of (ino, generation) on `volume_id` ("" when unknown).
  std::string ObjectPath(uint32_t volume_id, uint64_t ino, uint64_t generation) const;

  // The opened store of object volume `id`, or null for a local volume (or a
  // store that could not be listed).
  ObjectVolume* Store(uint32_t id) const;

  // "/a/b (inode 5)", or "inode 5 (no name)".
  std::string Describe(uint64_t ino);

  // The inode as it stands now (the daemon's view when live).
  Result<meta::Inode> Current(uint64_t ino);

  // The database's regular files into files_.
  Status LoadFiles();

  // The pending_objects rows into pending_ (again: live, they change).
  Status LoadPending();

  // Whether set-aside object `o` is named by a pending_objects row.
  bool IsPending(const ObjectEntry& o) const;

  // ---- objects of either kind of volume (checker.cc) -------------------------

  // The size in bytes of the regular file at `path` (an object), through the seam;
  // nullopt when there is none (ENOENT, ENOTDIR, or not a regular file). An lstat
  // that fails otherwise (EIO) is an error: reported once as "unreadable" and
  // returned, so that nothing is repaired on what could not be seen.
  Result<std::optional<uint64_t>> ObjectSize(const std::string& path);

  // Whether an object is surely there; and surely not there. Both false when it
  // could not be seen (ObjectSize's error).
  bool HasObject(const std::string& path);

  bool LacksObject(const std::string& path);

  // The same for the object of (ino, generation) on volume `volume_id`, of
  // either kind (on a store: upload `version`'s key): a store's is asked with
  // a HEAD (its listing may be old: live, or after a repair). Nullopt on a
  // volume the database does not know.
  Result<std::optional<uint64_t>> ObjectSizeOn(uint32_t volume_id, uint64_t ino,
                                               uint64_t generation, uint64_t version);

  bool HasObjectOn(uint32_t volume_id, uint64_t ino, uint64_t generation, uint64_t version);

  bool LacksObjectOn(uint32_t volume_id, uint64_t ino, uint64_t generation, uint64_t version);

  // Whether set-aside object `o` is still there.
  bool StillThere(const ObjectEntry& o);

  // How messages name the object of (ino, generation) on `volume_id` (on a
  // store: upload `version`'s key).
  std::string ObjectName(uint32_t volume_id, uint64_t ino, uint64_t generation,
                         uint64_t version) const;

  // The length and XXH3-64 of the object of (ino, generation) on `volume_id`
  // (on a store: upload `version`'s): a local object is read and hashed; an
  // object on a store carries the hash it was uploaded with (x-amz-meta-xxh3,
  // checked against the source before the upload committed). Nullopt when it
  // cannot be read or has no hash.
  std::optional<std::pair<uint64_t, std::string>> LengthAndHash(uint32_t volume_id, uint64_t ino,
                                                                uint64_t generation,
                                                                uint64_t version);

  // Deletes set-aside object `o` (unlink, or DELETE on its store).
  Status DeleteObject(const ObjectEntry& o);

  // ---- repairs shared by several passes (checker.cc) -------------------------

  // Sets inode `ino`'s size (bytes) with an FCL "repair" record saying `why`.
  Status SetSize(uint64_t ino, uint64_t size, const std::string& why);

  // /lost+found, created (mode 0700, root) when missing.
  Result<uint64_t> LostFound();

  // `base`, or `base`-2, -3... whichever is free in `dir`.
  Result<std::string> FreeName(uint64_t dir, const std::string& base);

  // ---- pass_database.cc ------------------------------------------------------

  // database: PRAGMA integrity_check (on a copy, live).
  void CheckDatabase();

  Result<std::vector<std::string>> IntegrityProblems();

  // ---- pass_labels.cc --------------------------------------------------------

  // label: every local volume's label and objects/ directory; fills good_.
  void CheckLabels();

  // ---- pass_local_objects.cc -------------------------------------------------

  // Walks one volume's objects (fs/volume/object_walk.h): ticks off each file
  // whose location an object is and sets the others aside. Anything unreadable
  // there leaves the whole volume unchecked, as a bad label does: a file whose
  // object was not seen must not be taken for one whose object is missing.
  void WalkObjects(const meta::Volume& v);

  // One entry of volume `v`'s objects/xx directories.
  void Take(const meta::Volume& v, const WalkedObject& w);

  // tmp: a relocation's leftovers in `v`'s tmp/.
  void WalkTmp(const meta::Volume& v);

  // ---- pass_stores.cc --------------------------------------------------------

  // Lists every object volume's store whole and files its objects as the walk
  // of a local volume does (Take): each one that is its file's location ticks
  // the file off, the others are set aside for the passes below, which judge
  // them by the same rules as local objects. A store that cannot be opened or
  // listed is not checked at all (as an unreadable volume), and one that holds
  // no object while files of size > 0 are there is taken for a wrong bucket or
  // prefix: its files are not judged missing.
  void ListStores();

  // Whether the database has a file with bytes on `volume_id`.
  bool HasNonEmptyFilesOn(uint32_t volume_id) const;

  // Multipart uploads a crash cut short: leftovers, aborted by an offline
  // repair (a live daemon may be uploading).
  void CheckUploads();

  // ---- pass_inode_sequence.cc ------------------------------------------------

  // New inodes must not get the number of an object that exists (a restored
  // database older than its volumes): the new file would open those bytes. Runs
  // before any repair creates an inode (lost+found).
  Status CheckInodeSequence();

  // ---- pass_misplaced.cc -----------------------------------------------------

  // A file whose object is missing at its location but present under its exact name
  // on exactly one other good volume, of either kind: point the file there. This
  // is what a database restored from a backup older than a relocation looks like
  // (local to local, local to a store, a store to local).
  void CheckMisplaced();

  // ---- pass_sizes.cc ---------------------------------------------------------

  // short and long: objects whose length is not their file's size.
  void CheckSizes();

  // The path of an object of `file` (same inode and generation) on another good
  // volume that is at least `size` bytes long and whose first `short_size` bytes
  // equal those of `location` (the short object), if any: a copy of the same
  // contents, not a stale one that later writes made differ.
  std::optional<std::string> OtherCopyCovering(uint64_t ino, const FileEntry& file,
                                               const std::string& location,
                                               uint64_t short_size, uint64_t size);

  // Whether the first `n` bytes of files `a` and `b` are equal (false on any error).
  bool SamePrefix(const std::string& a, const std::string& b, uint64_t n);

  // Copies bytes [from, to) of `source` into `target` at the same offsets, and
  // fsyncs `target`.
  Status CopyTail(const std::string& source, const std::string& target, uint64_t from,
                  uint64_t to);

  // ---- pass_orphans.cc -------------------------------------------------------

  // Pending leftovers and orphans.
  Status CheckSetAside();

  // A relocation's other copy that pending_objects records (the next mount
  // deletes it). The repair deletes it only once the file's own object was
  // seen where its row points, or the file is gone: a copy whose file's
  // location could not be read may be the only one left.
  void CheckPendingLeftover(const ObjectEntry& o);

  // Whether `o` is an earlier upload of a file whose own upload (a higher
  // number, on the same store) was seen: what a delete that failed after a
  // recall, or a relocation's cleanup that did not finish, leaves.
  bool IsSuperseded(const ObjectEntry& o);

  // superseded: reported; the repair (offline) deletes it once the file's
  // own upload is seen again. An earlier upload holds bytes the file has
  // since replaced, never the file's only copy.
  void CheckSuperseded(const ObjectEntry& o);

  // Why `o` is an orphan, or nullopt when it is its inode's location now.
  std::optional<std::string> OrphanReason(const ObjectEntry& o);

  // Moves orphan `o` into /lost+found as a new file (see the file comment of fsck.h).
  void Adopt(const ObjectEntry& o, CheckFinding& f);

  // The repair of an orphan on a store, which has no rename to move it into
  // /lost+found: nothing the user stored is deleted unless another copy holds
  // the same bytes or the user asked for it (options.delete_orphans).
  //  - no inode of its number: the inode comes back under its own number in
  //    /lost+found (#<ino>.<generation>), and its key is its object;
  //  - its file's object is elsewhere and holds the same bytes (length and
  //    XXH3-64): deleted, a duplicate;
  //  - anything else: kept and reported, or deleted with delete_orphans.
  void SettleStoreOrphan(const ObjectEntry& o, CheckFinding& f);

  // An orphan of an inode number the database does not know (a file created
  // after a restored backup): that inode again, in /lost+found, without moving
  // a byte (Metadata::RepairAdoptObject; CheckInodeSequence has already made new
  // inode numbers start above it).
  void AdoptInPlace(const ObjectEntry& o, CheckFinding& f);

  // ---- pass_missing.cc -------------------------------------------------------

  // missing: files of size > 0 whose object was seen nowhere.
  void CheckMissing();

  // ---- pass_pending_rows.cc --------------------------------------------------

  // pending_objects rows whose object was not seen as a leftover: the object is its
  // inode's location (the row outlived a committed relocation) or is gone.
  void CheckPendingRows();

  // ---- pass_namespace.cc -----------------------------------------------------

  // dirent, unnamed, nlink: the namespace's own consistency.
  Status CheckNamespace();

  // Links an inode no entry names into /lost+found as #<ino>.
  void Reconnect(const meta::LinkCountProblem& p, CheckFinding& f);

  meta::Metadata& meta_;
  const CheckOptions& o_;
  CheckReport report_;
  meta::FsInfo info_;
  std::vector<meta::Volume> volumes_;
  std::set<uint32_t> good_;  // volumes whose label (and objects/) are right
  std::set<uint32_t> unreadable_volumes_;  // volumes an I/O error kept from being checked
  std::set<std::string> unreadable_seen_;  // messages of "unreadable" findings made
  bool db_ok_ = true;
  bool can_repair_ = false;
  // Offline, after a crash of a mount with passthrough opens: long objects hold
  // bytes the kernel wrote (msync may have made them durable), kept as the next
  // mount would keep them (Metadata::CrashedWithPassthroughWrites).
  bool kernel_wrote_ = false;
  std::unordered_map<uint64_t, FileEntry> files_;
  std::map<std::pair<uint64_t, uint32_t>, uint64_t> pending_;  // (ino, volume) -> generation
  std::vector<ObjectEntry> set_aside_;
  uint64_t max_object_ino_ = 0;  // the highest inode number in an object's name
  std::optional<uint64_t> lost_found_;
  // Object volumes listed whole, and their multipart uploads in progress.
  std::map<uint32_t, std::unique_ptr<ObjectVolume>> stores_;
  std::map<uint32_t, std::vector<S3MultipartUpload>> uploads_;
};

}  // namespace tierfs::fsck
