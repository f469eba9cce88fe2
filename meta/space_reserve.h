// SpaceReserve: room on the metadata volume that only the metadata database may
// use (design.md, "Living with full volumes").
//
// The SSD tier runs full by design, and the database shares its volume with data
// objects. If data took the last free byte, every SQLite commit would fail
// (SQLITE_FULL) and nothing could be deleted, renamed or relocated to free space:
// the file system would wedge. So the daemon keeps a preallocated reserve file
// (`.tierfs/meta.reserve`, beside meta.db) that data objects can never take, and
// the database VFS (meta/database_vfs.h) asks it for room: when a write to the
// database, its WAL or its journal meets SQLITE_FULL, the reserve gives a slice
// back to the file system and the write is retried, until it fits or the reserve
// is gone. While the reserve is below its target (`depleted()`), the metadata
// volume takes no more data (fs/volume/volume_set.h), and Refill() grows it back
// as soon as space allows.
//
// What an I/O error on the reserve file does: at Install, one that growing it
// meets is returned (the mount refuses a metadata volume that fails its I/O);
// later, Refill() returns it and the reserve stays depleted until a Refill
// succeeds; a slice that cannot be released (the truncate fails) counts as no
// room, so the database write fails with ENOSPC. The database itself is never
// touched by these errors.
//
// Every system call on the reserve file goes through the FileIo it was installed
// with (common/file_io.h). One reserve per process (the daemon serves one file
// system); it applies to database files in the reserve file's directory.
//
// Thread-safe: the database VFS calls ReleaseSliceFor() from whichever thread
// holds the database lock; Refill() and the accessors may be called from any
// thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "common/file_io.h"
#include "common/mutex.h"
#include "common/status.h"
#include "common/thread_annotations.h"

namespace tierfs::meta {

// The reserve tierfs keeps for a database of `database_bytes` on a volume of
// `volume_bytes` (0 = unknown): a quarter of the database, at least 16 MiB (room
// for a few thousand deletes, renames and relocations, and a WAL checkpoint), but
// never more than an eighth of the volume, so a small volume still holds data.
uint64_t DefaultReserveBytes(uint64_t database_bytes, uint64_t volume_bytes);

class SpaceReserve {
 public:
  // Creates (or opens) the reserve file `path` through `io` (which must outlive
  // the reserve) and grows it toward `target_bytes` as far as free space allows
  // (a full volume gets a smaller reserve, not an error), then makes it the
  // process's reserve for SQLite databases in the same directory. Registers the
  // database VFS first (RegisterDatabaseVfs): connections opened before that are
  // not covered; those opened after it (the daemon's, opened before its checks
  // pass and the reserve is installed) are, as soon as a reserve exists. EBUSY
  // when a reserve is already installed in this process; the open(2) errno, or
  // the errno of an I/O error growing the file (EIO; Refill), otherwise.
  static Result<std::unique_ptr<SpaceReserve>> Install(const std::string& path,
                                                       uint64_t target_bytes,
                                                       FileIo& io = FileIo::Posix());
  // Uninstalls (connections still open keep working, without the reserve).
  ~SpaceReserve();
  SpaceReserve(const SpaceReserve&) = delete;
  SpaceReserve& operator=(const SpaceReserve&) = delete;

  // Bytes the reserve file holds now (allocated, not merely sized).
  uint64_t held_bytes() const { return held_.load(); }
  uint64_t target_bytes() const { return target_; }
  // True while the reserve is below its target: the volume is short of room for
  // the database, so data must keep off it.
  bool depleted() const { return held_.load() < target_; }
  // How many slices the shim has released since install (for logs and tests).
  uint64_t releases() const { return releases_.load(); }

  // Grows the reserve back to its target if the volume has the room (fallocate;
  // on file systems without it, written zeros). OK when at target or when there is
  // not enough room yet (depleted() stays true); the errno of a real I/O error.
  Status Refill() EXCLUDES(mu_);

  // Frees one slice (a quarter of the target, at least 1 MiB) of the reserve.
  // False when the reserve is empty or the file could not be shortened.
  bool ReleaseSlice() EXCLUDES(mu_);
  // Called by the database VFS on SQLITE_FULL of a write to `file_name`: the
  // installed reserve's ReleaseSlice() when `file_name` is in its directory;
  // false when there is no such reserve or it freed nothing.
  static bool ReleaseSliceFor(const char* file_name);

  // The directory whose database files this reserve protects.
  const std::string& directory() const { return dir_; }

 private:
  SpaceReserve(std::string path, int fd, uint64_t target, FileIo& io);

  const std::string path_;
  const std::string dir_;
  FileIo& io_;
  const int fd_;
  const uint64_t target_;
  Mutex mu_;  // serializes resizing of the file (held_ is read without it)
  std::atomic<uint64_t> held_{0};
  std::atomic<uint64_t> releases_{0};
};

}  // namespace tierfs::meta
