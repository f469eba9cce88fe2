// Relocator: moves one regular file's object to another volume while the file
// keeps its path and stays open-able and open (design.md "Relocation while files
// are open").
//
// Invariants, in the order the steps run:
//  1. copy the object into <target>/.tierfs/tmp (holes preserved, at low I/O
//     priority so foreground I/O comes first), fsync it;
//  2. verify the copy against the source with XXH3-64;
//  3. rename it into <target>/.tierfs/objects and open it;
//  4. take the inode's io_lock exclusively; if any write or truncate happened since
//     step 1 (write_gen moved), give up: outcome "busy", the copy is removed;
//  5. commit the new volume in the database (one transaction, FCL "relocate");
//  6. dup2 the new object onto the inode's shared fd, so every open handle follows;
//  7. release the lock and only then unlink the source object.
// A crash before 5 leaves the file at its source, after 5 at its target; never
// both live. The object that is not the location (the copy before 5, the source
// after) is recorded in the database's pending_objects first (step 3, and in the
// commit itself), so the next mount removes whatever a crash left behind.
// TIERFS_CRASH_AT=relocate-after-copy|relocate-after-commit kills the daemon at
// those points, for the tests.
//
// Thread-safe; one Relocate() per inode at a time is guaranteed by the inode pin +
// io_lock, several inodes may move in parallel.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "fs/file_system.h"

namespace tierfs {

struct RelocationOutcome {
  std::string outcome;   // "moved" | "busy" (written during the copy) | "error: ..."
  uint64_t bytes = 0;    // bytes copied
  double seconds = 0;    // wall time of the whole move
};

class Relocator {
 public:
  explicit Relocator(FileSystem& fs) : fs_(fs) {}

  // Moves inode `ino` to volume `to_volume`. Returns the outcome (also recorded in
  // the database's relocation history); a file unlinked since the scan is "gone".
  // Errors only for bad arguments: EINVAL (not a regular file, unknown volume,
  // already there).
  Result<RelocationOutcome> Relocate(uint64_t ino, uint32_t to_volume);

 private:
  // Steps 1-3: returns the fd of the verified copy at its final path.
  Result<int> CopyAndVerify(const meta::Inode& attr, uint32_t to_volume, uint64_t* bytes);
  FileSystem& fs_;
};

}  // namespace tierfs
