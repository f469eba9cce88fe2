#include "fs/volume/io_steps.h"

#include <fcntl.h>

namespace tierfs {

Status SyncDirectory(VolumeIo& io, const std::string& dir) {
  const int fd = io.Open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  if (fd < 0) return Status::FromErrno("open " + dir);
  Status st = io.Fsync(fd, /*datasync=*/false) == 0 ? Status::Ok()
                                                    : Status::FromErrno("fsync " + dir);
  io.Close(fd);
  return st;
}

Status TrimFile(VolumeIo& io, const std::string& path, uint64_t size, bool durable) {
  const int fd = io.Open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0);
  if (fd < 0) return Status::FromErrno("open " + path);
  Status st;
  if (io.Ftruncate(fd, static_cast<off_t>(size)) != 0) {
    st = Status::FromErrno("truncate " + path);
  } else if (durable && io.Fsync(fd, /*datasync=*/false) != 0) {
    st = Status::FromErrno("fsync " + path);
  }
  io.Close(fd);
  return st;
}

}  // namespace tierfs
