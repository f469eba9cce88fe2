// UniqueFd: owns one file descriptor and closes it on scope exit.
//
// Move-only. Not thread-safe (like the fd number it holds, give it one owner).
#pragma once

#include <unistd.h>

#include <utility>

namespace tierfs {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      if (fd_ >= 0) ::close(fd_);
      fd_ = other.release();
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  // The fd, or -1 when empty.
  int get() const { return fd_; }
  // Gives up ownership; returns the fd (the caller closes it).
  int release() { return std::exchange(fd_, -1); }
  // Closes now and returns close(2)'s result, which reports deferred write errors
  // (-1 with errno set). 0 when already empty.
  int Close() { return fd_ >= 0 ? ::close(std::exchange(fd_, -1)) : 0; }

 private:
  int fd_ = -1;
};

}  // namespace tierfs
