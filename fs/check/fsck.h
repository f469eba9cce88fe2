// The consistency check of a tierfs file system (`tierfs check`): reconciles the
// metadata database with the objects on every volume, reports one finding per
// problem, and with `repair` fixes what can be fixed without guessing.
//
// What is checked (docs/reliability.md, "Check and backup", has the user's view):
//   database  PRAGMA integrity_check
//   label     a volume whose .tierfs/label is missing or names another file system
//             or volume; nothing on such a volume is examined or touched (an
//             unmounted disk looks like an empty directory: "repairing" its files
//             would zero them all)
//   orphan    an object whose inode does not exist, is not a regular file, or is
//             located elsewhere (another volume or generation), unless recorded in
//             pending_objects; also an object name in the wrong objects/xx directory
//   upload    a multipart upload in progress on a store (a crash mid-upload)
//   pending   a pending_objects leftover: an object that is not its inode's
//             location (or a row whose object is gone); the next mount removes it
//   superseded  an earlier upload of a file on a store (a lower number than the
//             upload its row names, which is there): a failed delete's leftover
//   misplaced a file whose object is missing where the row says but present, under
//             its exact name, on exactly one other volume of either kind, local or
//             store, or as another upload on its store, the latest taken (a
//             restored database that predates a relocation or an upload)
//   missing   a regular file of size > 0 without an object on its volume
//   short     an object smaller than its file's recorded size
//   long      an object longer than its file's recorded size (bytes never
//             acknowledged: a crash after writes without fsync)
//   dirent    an entry whose inode does not exist, whose parent does not exist or
//             is not a directory, or a second entry naming a directory
//   unnamed   an inode that no entry names, other than the root and nlink-0
//             orphans (which the next mount reclaims)
//   nlink     a link count that differs from the entries naming the inode (for a
//             directory: 2 + its subdirectories)
//   tmp       a leftover in a volume's .tierfs/tmp (the next mount empties it)
//   sequence  the next inode number is not above every object's inode number (a
//             restored database): a new file would reuse an old object's bytes
//   stray     a file in .tierfs/objects that is not named like an object (left alone)
//   unreadable  (an error, not damage) a directory or object the check could not
//             read (EIO...): a volume with one is not checked at all, as with a bad
//             label, and no file is repaired as "missing" while one exists
//
// An object volume (a bucket and prefix on an S3 store) is listed whole and its
// objects judged by the same rules as a local volume's (fs/check/store_listing.h);
// a store that cannot be listed, or that holds no object while files with bytes
// are there (a wrong bucket or prefix), is not checked, as a bad label.
//
// The rule of every repair: no repair destroys the only copy of any bytes. An
// object is deleted only when it is a pending_objects leftover and its file's own
// object was seen where the row points, when it is an earlier upload of a file
// whose later upload was seen, when an identical copy (same length and XXH3-64)
// is its file's object, or when nothing can claim it and the user asked
// (delete_orphans), each deletion said per object.
//
// Repairs, in this order: empty tmp/; make new inode numbers start above every
// object's, a store's keys included; point misplaced files at their object; remove
// pending leftovers and clear their pending_objects rows; delete superseded
// uploads; move local orphan objects
// into /lost+found as new regular files `#<old ino>.<generation>` (mode 0600, root)
// whose object is the orphan renamed on its own volume; give a store's orphan of an
// inode number the database does not know its inode back under that number in
// /lost+found (a store has no rename; its key already names it), delete a store's
// orphan that duplicates its file's object, keep any other; abort multipart
// uploads (offline only); trim long objects to the recorded size (or,
// with trust_objects, or after a crash of a mount with passthrough opens, take the
// object's length as the size; an object on a store is never trimmed); set the size of a
// file whose object is short to the object's length, and of a file whose object is
// missing to 0 (data loss, reported as such: nothing is invented); clear the
// remaining pending_objects rows; remove entries that cannot stand; link unnamed
// inodes into /lost+found as `#<ino>`; set every link count to what the entries
// say. /lost+found is created (mode 0700, root, like ext4's) when needed. No repair
// is attempted on a database that fails integrity_check, nor on a volume with a
// bad label (its files are not even looked at).
//
// Crash safety of the lost+found move: the new inode's row commits first, then the
// orphan is renamed to the new inode's object name. A crash between the two leaves
// /lost+found/#I.G pointing at no object while the orphan I.G is still there; the
// next repair finds that entry by its name and finishes the rename instead of
// adding a second one.
//
// Modes: offline (the caller holds the daemon lock; `meta` is opened with
// Metadata::OpenForCheck for a read-only check, Metadata::Open for repair) and
// live (options.live: the daemon checks its own mounted file system through its
// own connection, read-only). Live, the database keeps changing while the volumes
// are read, so every finding about a file or an object is verified again against
// the current state before it is reported (current_attr, a fresh stat, the pending
// list), relocations in flight (pending objects, tmp/) are not findings, and the
// integrity check runs on an online backup copy in options.snapshot_dir so the
// file system is not stalled for its length.
//
// Thread-safety: CheckFileSystem may run on any thread; `meta` is thread-safe.
// A read-only check (repair false) writes nothing under the volumes.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "fs/volume/volume_io.h"
#include "meta/metadata.h"

namespace tierfs {

enum class FindingSeverity {
  kDamage,    // the file system is inconsistent
  kLeftover,  // crash leftovers the next mount removes (pending objects, tmp/)
  kNote,      // something that is not tierfs's (a stray file); left alone
  kError,     // the check could not read something (EIO): it is incomplete there
};
// "damage" | "leftover" | "note" | "error".
const char* FindingSeverityName(FindingSeverity severity);

struct CheckFinding {
  std::string kind;  // a word of the table above: "orphan", "missing"...
  FindingSeverity severity = FindingSeverity::kDamage;
  std::string message;  // one line, naming the file, object or volume at fault
  bool repaired = false;
  std::string repair;      // with repair: what was done, or why nothing was
  bool data_loss = false;  // the repair dropped bytes (missing or short object)
};

struct CheckOptions {
  bool repair = false;
  // Repair after restoring a database backup: an object longer than its file is
  // newer than the restored row, so the size becomes the object's length instead
  // of the object being trimmed.
  bool trust_objects = false;
  // Delete the orphans on a store that nothing can claim (no inode, or one whose
  // object differs) instead of keeping them; an orphan of an unknown inode is then
  // deleted rather than brought back in /lost+found. Each deletion is a finding.
  bool delete_orphans = false;
  // The daemon checks its own mounted file system (see the file comment).
  bool live = false;
  // Live: the attributes of an inode as the daemon sees them now (memory, else the
  // database), to tell an open file's unflushed size from damage.
  std::function<Result<meta::Inode>(uint64_t ino)> current_attr;
  // Live: directory for the integrity check's backup copy ("" = $TMPDIR or /tmp).
  std::string snapshot_dir;
  // For messages: the database's path.
  std::string database_path;
  // Every system call on a volume (reading the objects, and the repairs) goes
  // through this seam.
  VolumeIo* io = &VolumeIo::Posix();
  // Called as the check advances (phase "database", "objects", "namespace",
  // "repair"); may be null.
  std::function<void(const std::string& phase, uint64_t done, uint64_t total)> progress;
};

struct CheckReport {
  std::vector<CheckFinding> findings;
  uint64_t volumes = 0;  // volumes examined (good labels)
  uint64_t files = 0;    // regular files in the database
  uint64_t objects = 0;  // object files found
  bool live = false;
  bool repair = false;

  // Damage findings not repaired.
  size_t UnrepairedDamage() const;
  // Error findings: what the check could not read, so could not check.
  size_t Errors() const;
  // Findings the repair fixed.
  size_t Repaired() const;
  nlohmann::json ToJson() const;
  // EINVAL for a malformed document.
  static Result<CheckReport> FromJson(const nlohmann::json& json);
};

// Runs the check (and the repairs when options.repair) over `meta` and the volumes
// its volumes table names. Returns the report; an error only when the check could
// not run at all (the database cannot be read). Damage is in the report, not in the
// status.
Result<CheckReport> CheckFileSystem(meta::Metadata& meta, const CheckOptions& options);

}  // namespace tierfs
