// Status and Result<T>: the error currency of tierfs.
//
// Every fallible function inside tierfs returns a Status (or a Result<T>)
// carrying a POSIX errno and a human-readable message. FUSE handlers reply
// with -status.code(); command-line tools print status.message(). Nothing
// throws across a library boundary. Value types; safe to copy between threads.
#pragma once

#include <cerrno>
#include <optional>
#include <string>
#include <utility>

namespace tierfs {

class Status {
 public:
  // A success status (code() == 0).
  Status() = default;

  static Status Ok() { return Status(); }
  // An error with POSIX errno `code` (> 0) and a message for logs and users.
  static Status Error(int code, std::string message) { return Status(code, std::move(message)); }
  // Shorthands for the errors tierfs returns most.
  static Status NotFound(std::string m) { return Error(ENOENT, std::move(m)); }
  static Status Exists(std::string m) { return Error(EEXIST, std::move(m)); }
  static Status Invalid(std::string m) { return Error(EINVAL, std::move(m)); }
  static Status Io(std::string m) { return Error(EIO, std::move(m)); }
  static Status NoSpace(std::string m) { return Error(ENOSPC, std::move(m)); }
  // An error from the current errno, prefixed with `what` (e.g. "open /x").
  static Status FromErrno(const std::string& what);
  static Status FromErrno(int err, const std::string& what);

  bool ok() const { return code_ == 0; }
  int code() const { return code_; }
  const std::string& message() const { return message_; }
  // "message (strerror)" for logs; "OK" for success.
  std::string ToString() const;

 private:
  Status(int code, std::string message) : code_(code), message_(std::move(message)) {}
  int code_ = 0;
  std::string message_;
};

// A value or an error. Access value() only when ok().
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}  // NOLINT: implicit by design

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace tierfs

// Returns early from the enclosing function when `expr` yields an error Status.
#define TIERFS_RETURN_IF_ERROR(expr)         \
  do {                                       \
    ::tierfs::Status _st = (expr);           \
    if (!_st.ok()) return _st;               \
  } while (0)
