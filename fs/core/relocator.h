// Relocator: moves one regular file's object to another volume while the file
// keeps its path and stays open-able and open (design.md "Relocation while files
// are open").
//
// Invariants, in the order the steps run:
//  0. with the inode's io_lock held exclusively (no write in flight), read the
//     file's size and write_gen together: the snapshot the copy stands for
//     (point "relocate-snapshot"; a write between a separate size read and
//     generation read was lost before);
//  1. copy the object into <target>/.tierfs/tmp (holes preserved, at low I/O
//     priority so foreground I/O comes first), fsync it;
//  2. verify the copy against the source with XXH3-64;
//  3. rename it into <target>/.tierfs/objects and open it;
//  4. take the inode's io_lock exclusively; if any write or truncate happened since
//     step 0 (write_gen moved; a write bumps it before and after its pwrite, so a
//     write already inside pwrite when the copy began is seen too), give up:
//     outcome "busy", the copy is removed. A copy whose checksum differs from its
//     source because a write landed during the copy is "busy" too, not an error;
//  5. commit the new volume in the database (one transaction, FCL "relocate");
//  6. dup2 the new object onto the inode's shared fd, so every open handle follows;
//  7. release the lock and only then unlink the source object.
// A crash before 5 leaves the file at its source, after 5 at its target; never
// both live. The object that is not the location (the copy before 5, the source
// after) is recorded in the database's pending_objects first (step 3, and in the
// commit itself), so the next mount removes whatever a crash left behind.
// Only the file's recorded size is copied: bytes beyond it in the source object
// (writes a crash left unacknowledged) never reach the new object.
// Every system call goes through the VolumeIo seam, and the named points
// "relocate-snapshot", "relocate-after-copy" and "relocate-after-commit" are
// VolumeIo::ReachPoint calls, so tests can fail, stop or hold any step
// (fs/volume/fault_injecting_volume_io.h).
//
// To and from an object volume (fs/core/store_relocation.cc) the
// same order holds with the store in place of a directory:
//  - upload: hash the source (XXH3-64), record the store's object as pending
//    (committed), upload it with the hash as x-amz-meta-xxh3 (UploadObject:
//    multipart for large files, aborted when a step fails), HEAD it and compare
//    size and hash, then as 4-5 (the commit closes the inode's local fd: reads
//    go to the store from then on), then remove the local source;
//  - recall: HEAD the object for its hash, GET it into the target's tmp/,
//    fsync, hash the copy and compare, then with the io_lock held record the
//    copy as pending (committed), rename it into objects/, commit, give open
//    handles the new fd, and only then DELETE the store's object.
// A crash leaves the file whole at its committed location; the other copy is
// in pending_objects (the next mount deletes it, from the store too when it
// answers), and an upload cut short mid-multipart is found and aborted by
// `tierfs check --repair`.
//
// Two modes: kBackground (a scan's relocation: the copy runs while the file stays
// readable and writable, and a write makes the move "busy") and kHoldWriters (a
// write met ENOSPC and the file must move on before that write can complete: the
// io_lock is held exclusively for the whole copy, as mergerfs's moveonenospc does,
// so the move cannot be busy).
//
// Thread-safe; one Relocate() per inode at a time is guaranteed by the inode pin +
// io_lock, several inodes may move in parallel.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "common/thread_annotations.h"
#include "fs/core/file_system.h"

namespace tierfs {

// Whether something outside the daemon still has the object of `attr` (a
// local volume's) open for writing, by a read lease (VolumeIo::HasWriters):
// the backing file of a shared writable mapping made through a passthrough
// open outlives that open. Meaningful only while the daemon holds no
// descriptor of the object (its own would count); true when the volume
// takes no lease (logged once).
bool WrittenOutsideTheDaemon(const VolumeSet& volumes, const meta::Inode& attr);

struct RelocationOutcome {
  // "moved" | "busy" (written during the copy, or open by passthrough) | "gone"
  // (unlinked since the scan) | "nospace" (the destination found full by the
  // copy: error is ENOSPC or EDQUOT; the store's or volume's words are logged)
  // | "error: ..."
  std::string outcome;
  int error = 0;         // the errno behind an "error: ..." outcome (ENOSPC, EIO...)
  uint64_t bytes = 0;    // bytes copied
  double seconds = 0;    // wall time of the whole move
  // No move was made: the file was no longer on the `only_from` volume given
  // to Relocate (or already on the destination), another mover having moved
  // it first. The outcome is then "moved" (the file is off `only_from`), with
  // 0 bytes, and the history records nothing.
  bool skipped = false;

  // "error: <st's message>" with st's errno.
  static RelocationOutcome Failed(const Status& st) {
    RelocationOutcome r;
    r.outcome = "error: " + st.message();
    r.error = st.code();
    return r;
  }
};

class Relocator {
 public:
  explicit Relocator(FileSystem& fs) : fs_(fs) {}

  // kEmptyRecall: as kHoldWriters, for a file on an object volume whose bytes
  // are not wanted (a truncate to 0 follows): the recall fetches nothing, makes
  // an empty object and commits the size 0 with the new location.
  enum class Mode { kBackground, kHoldWriters, kEmptyRecall };

  // Moves inode `ino` to volume `to_volume`. Returns the outcome (also recorded in
  // the database's relocation history); a file unlinked since the scan is "gone".
  // One move of a file at a time: a move of a file another move is at waits for
  // it (InodeState::relocate_mu). With `only_from` set, the move is skipped
  // (outcome "moved", 0 bytes, `skipped`) when the file is no longer on
  // `only_from`, before or after that wait: another mover moved it first.
  // Errors only for bad arguments: EINVAL (not a regular file, unknown volume,
  // already there without `only_from`).
  // With `move_unlinked`, a file unlinked but still open (nlink 0, its reclaim
  // waiting for the last close) is moved too instead of being "gone": a volume
  // being removed must give up every object (fs/tiering/volume_admin.h).
  Result<RelocationOutcome> Relocate(uint64_t ino, uint32_t to_volume,
                                     Mode mode = Mode::kBackground, uint32_t only_from = 0,
                                     bool move_unlinked = false);

 private:
  // A copy of a file made for a move to or from an object volume, before its
  // commit (store_relocation.cc).
  struct StoreCopy {
    Status status;        // OK: verified
    uint64_t bytes = 0;   // bytes moved
    std::string tmp;      // recall: the verified copy in the target's tmp/
    int fd = -1;          // recall: its fd (owned until the commit takes it)
    bool renamed = false; // recall: the copy took its object name (pending recorded)
    uint64_t version = 0; // upload: the upload number its key carries (store_version)
  };
  // Upload steps: hash, pending record, upload, verify (to object volume `to`).
  StoreCopy UploadCopy(const meta::Inode& attr, uint32_t to);
  // Recall steps: HEAD, GET into `to`'s tmp/, fsync, verify. With `empty`, an
  // empty file in `to`'s tmp/ and nothing asked of the store.
  StoreCopy RecallCopy(const meta::Inode& attr, uint32_t to, bool empty);
  // The commit of a store move, the io_lock held: for a recall the copy is
  // recorded as pending and renamed into place first. *durable as CommitLocked.
  // With `empty` (an empty recall) the size becomes 0 in the same commit.
  RelocationOutcome CommitStoreLocked(InodeState& inode, uint32_t from_volume,
                                      uint32_t to_volume, StoreCopy& copy, bool empty,
                                      bool* durable)
      REQUIRES(inode.io_lock);
  // Drops the copy of a store move that was not committed: the store's object
  // (upload) or the local copy (recall), with its pending record.
  void DiscardStoreCopy(const meta::Inode& attr, uint32_t to_volume, StoreCopy& copy);
  // Steps 1-3: returns the fd of the verified copy at its final path.
  Result<int> CopyAndVerify(const meta::Inode& attr, uint32_t to_volume, uint64_t* bytes);
  // Steps 5-6 with the io_lock held exclusively: commits the new location and
  // points the shared fd at the new object. Returns the outcome; *durable tells
  // whether the new location is committed (only then may the source go).
  RelocationOutcome CommitLocked(InodeState& inode, uint32_t from_volume, uint32_t to_volume,
                                 int new_fd, bool* durable) REQUIRES(inode.io_lock);
  // The end both commits share, once `row` (SetInodeVolume's) is in the
  // database and the entry's fds point at the new place: the entry takes the
  // row, and the change is synced at once, since the source object goes next.
  // Returns "moved"; *durable as CommitLocked.
  RelocationOutcome FinishCommitLocked(InodeState& inode, const meta::Inode& row, bool* durable)
      REQUIRES(inode.mu, inode.sync_mu);
  // Relocate's steps.
  // EINVAL for a move Relocate does not make: not a regular file, an unknown
  // volume, already there, or between two object volumes.
  Status CheckMove(const meta::Inode& attr, uint32_t to_volume) const;
  // Step 0, the io_lock held exclusively: the size the copy will hold (into
  // *attr) and the write generation it stands for, read together while no
  // write is in flight. Every change to an object's bytes or size holds
  // io_lock (shared) from its first write_gen bump to its size update, so each
  // change is either wholly in both the size and the source object, or still
  // to come and bound to move write_gen. Read apart (the size first, the
  // generation later), a write that completed in between was in neither: the
  // copy missed its bytes and the commit went ahead (docs/reliability.md
  // "Writes that race a relocation").
  struct Snapshot {
    uint64_t write_gen = 0;
    bool passthrough = false;          // the file has passthrough opens
    bool daemon_holds_object = false;  // the daemon has the object open
  };
  Snapshot SnapshotLocked(InodeState& inode, meta::Inode* attr) REQUIRES(inode.io_lock);
  // Whether the move is "busy" before any copy: the kernel or a mapping
  // writes the object past the daemon, or (to a store) the file is open for writing.
  bool BusyBeforeCopy(InodeState& inode, const meta::Inode& attr, const Snapshot& snap,
                      uint32_t to_volume);
  // The outcome of a failed copy: "busy" when a write came meanwhile (it
  // explains the failure), else the error.
  static RelocationOutcome CopyFailed(const Status& st, bool written_meanwhile);
  // Step 4 and the commit of a store move, the io_lock held again: "busy" when
  // a write came or the file moved since the snapshot, else CommitStoreLocked's.
  RelocationOutcome CommitStoreIfUnwrittenLocked(InodeState& inode, uint32_t from_volume,
                                                 uint32_t to_volume, uint64_t gen_before,
                                                 StoreCopy& copy, bool empty, bool* durable)
      REQUIRES(inode.io_lock);
  // After a store move's commit (the io_lock given back): the source goes
  // (step 7, once `durable`), or the copy when the move did not commit.
  void FinishStoreMove(const meta::Inode& attr, uint32_t from_volume, uint32_t to_volume,
                       StoreCopy& copy, bool durable, RelocationOutcome* result);
  // Step 7 of a move between local volumes (the io_lock given back): removes
  // the object that is not the file's location, once `durable`.
  void RemoveStaleObject(const meta::Inode& attr, uint32_t from_volume, uint32_t to_volume,
                         const RelocationOutcome& result, bool durable);
  // The relocation history and the metrics; a destination found full is "nospace".
  void RecordOutcome(uint64_t ino, uint32_t from_volume, uint32_t to_volume,
                     RelocationOutcome* result);
  FileSystem& fs_;
};

}  // namespace tierfs
