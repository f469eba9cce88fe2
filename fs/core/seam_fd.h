// SeamFd: a file descriptor of a volume object closed through the VolumeIo seam
// when it goes out of scope (the relocator's copies and sources). Move-only in
// spirit: release() hands the fd over. Not thread-safe.
#pragma once

#include <utility>

#include "fs/volume/volume_io.h"

namespace tierfs {

class SeamFd {
 public:
  SeamFd(VolumeIo& io, int fd) : io_(io), fd_(fd) {}
  ~SeamFd() {
    if (fd_ >= 0) io_.Close(fd_);
  }
  SeamFd(const SeamFd&) = delete;
  SeamFd& operator=(const SeamFd&) = delete;
  int get() const { return fd_; }
  // The fd, which the caller now owns (-1 afterwards).
  int release() { return std::exchange(fd_, -1); }

 private:
  VolumeIo& io_;
  int fd_;
};

}  // namespace tierfs
