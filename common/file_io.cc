#include "common/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/blocking_section.h"

namespace tierfs {

int FileIo::Open(const std::string& path, int flags, mode_t mode) {
  BlockingSection blocking(BlockingKind::kNamespace);
  return open(path.c_str(), flags, mode);
}

ssize_t FileIo::Pread(int fd, void* buf, size_t count, off_t offset) {
  BlockingSection blocking(BlockingKind::kRead);
  return pread(fd, buf, count, offset);
}

ssize_t FileIo::Pwrite(int fd, const void* buf, size_t count, off_t offset) {
  BlockingSection blocking(BlockingKind::kWrite);
  return pwrite(fd, buf, count, offset);
}

int FileIo::Fsync(int fd, bool datasync) {
  BlockingSection blocking(BlockingKind::kSync);
  return datasync ? fdatasync(fd) : fsync(fd);
}

int FileIo::Ftruncate(int fd, off_t length) {
  BlockingSection blocking(BlockingKind::kNamespace);
  return ftruncate(fd, length);
}

int FileIo::Fallocate(int fd, int mode, off_t offset, off_t length) {
  BlockingSection blocking(BlockingKind::kNamespace);
  return fallocate(fd, mode, offset, length);
}

int FileIo::Unlink(const std::string& path) {
  BlockingSection blocking(BlockingKind::kNamespace);
  return unlink(path.c_str());
}

int FileIo::Stat(const std::string& path, struct stat* st) {
  BlockingSection blocking(BlockingKind::kNamespace);
  return stat(path.c_str(), st);
}

int FileIo::Lstat(const std::string& path, struct stat* st) {
  BlockingSection blocking(BlockingKind::kNamespace);
  return lstat(path.c_str(), st);
}

// No BlockingSection: an open file's inode is in memory, and this is on the
// getattr path of every open file.
int FileIo::Fstat(int fd, struct stat* st) { return fstat(fd, st); }

int FileIo::Close(int fd) {
  BlockingSection blocking(BlockingKind::kNamespace);
  return close(fd);
}

FileIo& FileIo::Posix() {
  static FileIo* posix = new FileIo;  // never destroyed: used until exit
  return *posix;
}

}  // namespace tierfs
