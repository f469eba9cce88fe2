#include "fs/volume/range_copy.h"

#include <algorithm>
#include <cerrno>
#include <vector>

namespace tierfs {
namespace {

// Writes all of buf at `offset`, through short writes. -1 with errno on failure
// (ENOSPC stays ENOSPC: a short write is retried, so the errno is the real one).
ssize_t WriteAll(VolumeIo& io, int fd, const char* buf, size_t n, off_t offset) {
  size_t done = 0;
  while (done < n) {
    ssize_t w = io.Pwrite(fd, buf + done, n - done, offset + static_cast<off_t>(done));
    if (w < 0) return -1;
    if (w == 0) {
      errno = ENOSPC;  // a write that makes no progress: the device is full
      return -1;
    }
    done += static_cast<size_t>(w);
  }
  return static_cast<ssize_t>(done);
}

}  // namespace

// Copies [offset, offset+length) from src to dst at the same offsets.
Status CopyRange(VolumeIo& io, int src, int dst, off_t offset, off_t length) {
  off_t in = offset, out = offset;
  std::vector<char> buf;
  while (length > 0) {
    ssize_t n = io.CopyFileRange(src, &in, dst, &out, static_cast<size_t>(length), 0);
    if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EOPNOTSUPP || errno == EINVAL)) {
      // Old kernels or file systems without copy_file_range across them: plain copy.
      if (buf.empty()) buf.resize(1 << 20);
      n = io.Pread(src, buf.data(), std::min<off_t>(length, buf.size()), in);
      if (n < 0) return Status::FromErrno("copy read");
      if (n > 0 && WriteAll(io, dst, buf.data(), n, out) < 0) {
        return Status::FromErrno("copy write");
      }
      in += n;
      out += n;
    }
    if (n < 0) return Status::FromErrno("copy");
    if (n == 0) break;  // source shrank: the write-generation check catches it
    length -= n;
  }
  return Status::Ok();
}


}  // namespace tierfs
