// Online backup of the metadata database (`tierfs backup`, docs/reliability.md).
//
// The daemon writes the copy itself, through its own connection (meta/backup.cc
// tells why the result is consistent while it keeps serving): into a temporary
// file beside the destination, fsynced, renamed over the destination, and the
// directory fsynced, so the destination is always either the previous backup or
// a whole new one. Restoring is a file copy while unmounted (docs/reliability.md).
//
// Free functions; thread-safe (two backups to one destination both finish, the
// later rename wins).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "meta/metadata.h"

namespace tierfs {

// The name of the periodic backup on a volume: <volume>/.tierfs/meta.db.backup.
inline constexpr char kBackupFileName[] = "meta.db.backup";

struct BackupResult {
  std::string path;    // the destination
  uint64_t bytes = 0;  // size of the copy
  uint64_t pages = 0;  // database pages copied
  double seconds = 0;  // wall time of the copy, rename and fsyncs
};

// Where a backup goes when no destination is given: kBackupFileName in the .tierfs
// directory of the first volume (by id) that does not hold the database, so that
// losing the metadata volume does not lose the backup too; its label must name
// this file system (`fs_uuid`) and that volume: an unmounted disk is never written
// to. EINVAL when the file system has one volume; ENOENT/EINVAL naming the volume
// when its label is missing or foreign.
Result<std::string> DefaultBackupPath(const std::vector<meta::Volume>& volumes,
                                      const std::string& fs_uuid);

// Refuses a destination that is not absolute (EINVAL), that lies inside the mount
// point (EINVAL: the daemon would write through its own file system), or that is
// the live database `db_path` or one of its -wal, -shm, -journal files, by name or
// by inode (EINVAL). `dest` should be resolved (no "..", no symlinked parents).
Status CheckBackupDestination(const std::string& dest, const std::string& mountpoint,
                              const std::string& db_path);

// Writes a consistent copy of `meta`'s database to `dest` (see the file comment),
// mode 0600. `progress(done, total)` in pages; may be null. Errors name the file:
// ENOENT/EACCES for the directory, ENOSPC, the SQLite error of the copy.
Result<BackupResult> BackupDatabase(meta::Metadata& meta, const std::string& dest,
                                    const std::function<void(uint64_t, uint64_t)>& progress);

}  // namespace tierfs
