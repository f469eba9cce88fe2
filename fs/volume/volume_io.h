// VolumeIo: the backing I/O seam. Every system call tierfs makes on a volume's
// objects, directories and label (open, read, write, fsync, truncate, fallocate,
// copy, rename, unlink, mkdir, dup2, stat, statvfs, directory listings) goes
// through one of these: the file calls it shares with the metadata layer
// (FileIo, common/file_io.h) and the volume calls below. So tests can make any
// step fail deterministically (fs/volume/fault_injecting_volume_io.h) where the
// real file system would fail at random: ENOSPC in the middle of a write, EIO
// from a copy or a listing, a short write, the daemon stopping between two steps
// (the Env of LevelDB; docs/design.md "Why every volume system call goes through
// one interface").
//
// Each method has its system call's contract: it returns what the call returns
// and, on failure, -1 with errno set (so callers keep Status::FromErrno). The
// paths are absolute. Thread-safe: implementations are called from every FUSE
// worker, the periodic flush and relocation workers at once.
#pragma once

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "common/file_io.h"

namespace tierfs {

class VolumeIo : public FileIo {
 public:
  // Opens the file `fd` refers to once more, write-only with O_DIRECT (through
  // /proc/self/fd): a new fd, or -1 with errno (EINVAL when the file system takes
  // no O_DIRECT). Fault rules name it "open", with `fd`'s path.
  virtual int ReopenDirect(int fd);
  // pwrite(2) to an fd from ReopenDirect: the same contract, for a call that
  // waits for the device (BlockingKind::kDirectWrite). Fault rules name it
  // "write", as Pwrite.
  virtual ssize_t PwriteDirect(int fd, const void* buf, size_t count, off_t offset);
  // truncate(2) of the file `path` (not opened first): 0, or -1 with errno.
  // Fault rules name it "truncate", as Ftruncate.
  virtual int Truncate(const std::string& path, off_t length);
  virtual ssize_t CopyFileRange(int fd_in, off_t* off_in, int fd_out, off_t* off_out,
                                size_t length, unsigned int flags);
  virtual int Rename(const std::string& from, const std::string& to);
  // renameat2(2) with RENAME_NOREPLACE: EEXIST instead of replacing `to`.
  virtual int RenameNoReplace(const std::string& from, const std::string& to);
  virtual int Mkdir(const std::string& path, mode_t mode);
  // statvfs(2) of the file system holding `path` (a volume directory): 0, or -1
  // with errno (ENOENT, EIO). Sizes in the result are in units of st->f_frsize
  // bytes. Fault rules name it "statfs".
  virtual int StatVfs(const std::string& path, struct statvfs* st);
  // The names in directory `path` (opendir(3) and readdir(3) to the end), "." and
  // ".." left out, in the order the file system gives them, into *names (replaced).
  // 0, or -1 with errno: opendir's (ENOENT, ENOTDIR, EACCES, EMFILE) or readdir's
  // (EIO: the directory could not be read; *names is then empty, never a part
  // taken for the whole). Fault rules name it "readdir".
  virtual int ListDir(const std::string& path, std::vector<std::string>* names);
  // Whether some open file description of the file `fd` refers to has it open
  // for writing, in any process: the kernel's own backing files of passthrough
  // opens and the shared mappings made through them included, which no daemon
  // bookkeeping sees once their file was closed. A read lease
  // (fcntl F_SETLEASE F_RDLCK, given back at once) is refused exactly then.
  // `fd` must be open read-only, or it counts itself. Returns 1 (a writer
  // exists), 0 (none), or -1 with errno (EINVAL: leases are off, sysctl
  // fs.leases-enable, or the file system takes none). Fault rules name it "lease".
  virtual int HasWriters(int fd);
  // dup2(2): the relocator points an open object fd at its new object.
  virtual int Dup2(int old_fd, int new_fd);
  // FUSE_DEV_IOC_BACKING_OPEN: registers `object_fd` as a backing file of the
  // FUSE connection of `device_fd` (fs/fuse/passthrough.h). Returns its id (> 0),
  // or -1 with errno. Fault rules name it "backing", with the object's path.
  virtual int BackingOpen(int device_fd, int object_fd);
  // A named step of a multi-step operation (the relocator's "relocate-snapshot",
  // "relocate-after-copy", "relocate-after-commit"; a passthrough RELEASE's
  // "passthrough-release"): no system call, nothing
  // happens in production. Fault rules name it "point", with `name` as the
  // PATH, so a test can stop the daemon there, delay it, or hold it until
  // released, and so drive one exact interleaving of a race.
  virtual void ReachPoint(const char* /*name*/) {}

  // The plain system calls; a process-wide instance.
  static VolumeIo& Posix();
};

}  // namespace tierfs
