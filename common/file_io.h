// FileIo: the file-call seam. The system calls tierfs makes on files it keeps
// beside its data (the metadata database, its reserve file) go through one of
// these, and so do the writes SQLite makes to the database through its own VFS,
// announced by BeforeDbCall (meta/database_vfs.h). fs/volume's VolumeIo extends
// it with the calls on volumes' objects and directories, and its fault-injecting
// double fails chosen calls of either (fs/volume/fault_injecting_volume_io.h):
// the daemon hands the metadata layer the same instance it uses for volumes, so
// one fault plan reaches the database volume too (docs/design.md "Why every
// volume system call goes through one interface").
//
// Each method has its system call's contract: it returns what the call returns
// and, on failure, -1 with errno set (so callers keep Status::FromErrno). The
// paths are absolute. Thread-safe: implementations are called from every FUSE
// worker, the group committer and the periodic threads at once.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <string>

namespace tierfs {

// A step SQLite takes on a database file (the database, its "-wal" or its
// "-journal") through its own VFS rather than through a FileIo.
enum class DbCall { kWrite, kTruncate, kSync };

class FileIo {
 public:
  virtual ~FileIo() = default;

  // open(2): a new fd, or -1 with errno (ENOENT, EEXIST with O_EXCL, EACCES,
  // ENOSPC, EIO). Fault rules name it "open".
  virtual int Open(const std::string& path, int flags, mode_t mode);
  // pread(2): the bytes read (0 at the end of the file), or -1 with errno (EIO).
  // Fault rules name it "read".
  virtual ssize_t Pread(int fd, void* buf, size_t count, off_t offset);
  // pwrite(2): the bytes written (possibly fewer than `count`), or -1 with errno
  // (ENOSPC, EDQUOT, EIO). Fault rules name it "write".
  virtual ssize_t Pwrite(int fd, const void* buf, size_t count, off_t offset);
  // fdatasync(2) when `datasync`, else fsync(2): 0, or -1 with errno (EIO,
  // ENOSPC). Fault rules name it "fsync".
  virtual int Fsync(int fd, bool datasync);
  // ftruncate(2): 0, or -1 with errno (EIO, EFBIG). Fault rules name it "truncate".
  virtual int Ftruncate(int fd, off_t length);
  // fallocate(2): 0, or -1 with errno (ENOSPC, EDQUOT, EOPNOTSUPP where the file
  // system has none, EIO). Fault rules name it "fallocate".
  virtual int Fallocate(int fd, int mode, off_t offset, off_t length);
  // unlink(2): 0, or -1 with errno (ENOENT, EACCES, EIO). Fault rules name it
  // "unlink".
  virtual int Unlink(const std::string& path);
  // stat(2) of `path` (symbolic links followed) into *st: 0, or -1 with errno
  // (ENOENT: no such file; EIO: the volume could not read the inode). Fault rules
  // name it "stat".
  virtual int Stat(const std::string& path, struct stat* st);
  // lstat(2): as Stat, but a symbolic link is described, not followed. "stat".
  virtual int Lstat(const std::string& path, struct stat* st);
  // fstat(2) of an open file: 0, or -1 with errno (EBADF, EIO). Fault rules name
  // it "stat", with the path `fd` was opened with.
  virtual int Fstat(int fd, struct stat* st);
  // close(2): 0, or -1 with errno (EIO: an earlier write was lost); the fd is
  // freed either way. Fault rules name it "close".
  virtual int Close(int fd);
  // SQLite is about to take step `call` on the database file `path` (the
  // database, its "-wal" or "-journal"; meta/database_vfs.h). No system call:
  // 0 lets SQLite go on; -1 with errno (ENOSPC, EIO) makes the step fail as
  // the file system would have, having done nothing. Always 0 here. Fault
  // rules name the steps "db-write", "db-truncate" and "db-sync".
  virtual int BeforeDbCall(DbCall /*call*/, const std::string& /*path*/) { return 0; }

  // The plain system calls; a process-wide instance.
  static FileIo& Posix();
};

}  // namespace tierfs
