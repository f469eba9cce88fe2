#include "common/status.h"

#include <cstring>

namespace tierfs {

Status Status::FromErrno(const std::string& what) { return FromErrno(errno, what); }

Status Status::FromErrno(int err, const std::string& what) {
  return Status(err == 0 ? EIO : err, what + ": " + std::strerror(err == 0 ? EIO : err));
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return message_ + " (" + std::strerror(code_) + ")";
}

}  // namespace tierfs
