#include "fs/volume/volume_io.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "common/blocking_section.h"
#include "common/unique_dir.h"

namespace tierfs {

int VolumeIo::ReopenDirect(int fd) {
  BlockingSection blocking(BlockingKind::kNamespace);
  char path[40];
  std::snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  return open(path, O_WRONLY | O_DIRECT | O_CLOEXEC);
}

ssize_t VolumeIo::PwriteDirect(int fd, const void* buf, size_t count, off_t offset) {
  BlockingSection blocking(BlockingKind::kDirectWrite);
  return pwrite(fd, buf, count, offset);
}

int VolumeIo::Truncate(const std::string& path, off_t length) {
  BlockingSection blocking(BlockingKind::kNamespace);
  return truncate(path.c_str(), length);
}

ssize_t VolumeIo::CopyFileRange(int fd_in, off_t* off_in, int fd_out, off_t* off_out,
                                size_t length, unsigned int flags) {
  BlockingSection blocking(BlockingKind::kWrite);
  return copy_file_range(fd_in, off_in, fd_out, off_out, length, flags);
}

int VolumeIo::Rename(const std::string& from, const std::string& to) {
  BlockingSection blocking(BlockingKind::kNamespace);
  return rename(from.c_str(), to.c_str());
}

int VolumeIo::RenameNoReplace(const std::string& from, const std::string& to) {
  BlockingSection blocking(BlockingKind::kNamespace);
  return renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE);
}

int VolumeIo::Mkdir(const std::string& path, mode_t mode) {
  BlockingSection blocking(BlockingKind::kNamespace);
  return mkdir(path.c_str(), mode);
}

int VolumeIo::BackingOpen(int device_fd, int object_fd) {
  struct {  // struct fuse_backing_map, Linux's include/uapi/linux/fuse.h 7.40
    int32_t fd;
    uint32_t flags;    // must be 0
    uint64_t padding;  // must be 0
  } map{object_fd, 0, 0};
  static_assert(sizeof map == 16);
  return ioctl(device_fd, _IOW(229, 1, decltype(map)), &map);
}

int VolumeIo::HasWriters(int fd) {
  if (fcntl(fd, F_SETLEASE, F_RDLCK) != 0) return errno == EAGAIN ? 1 : -1;
  fcntl(fd, F_SETLEASE, F_UNLCK);
  return 0;
}

int VolumeIo::StatVfs(const std::string& path, struct statvfs* st) {
  BlockingSection blocking(BlockingKind::kNamespace);
  return statvfs(path.c_str(), st);
}

int VolumeIo::ListDir(const std::string& path, std::vector<std::string>* names) {
  BlockingSection blocking(BlockingKind::kNamespace);
  names->clear();
  UniqueDir d = OpenDir(path);
  if (!d) return -1;
  // readdir(3) tells an error from the end only through errno.
  for (errno = 0; dirent* e = readdir(d.get()); errno = 0) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    names->emplace_back(e->d_name);
  }
  if (errno != 0) {
    const int err = errno;
    names->clear();
    errno = err;
    return -1;
  }
  return 0;
}

int VolumeIo::Dup2(int old_fd, int new_fd) { return dup2(old_fd, new_fd); }

VolumeIo& VolumeIo::Posix() {
  static VolumeIo* posix = new VolumeIo;  // never destroyed: used until exit
  return *posix;
}

}  // namespace tierfs
