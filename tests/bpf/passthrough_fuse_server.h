// PassthroughFuseServer: a minimal FUSE file system for tests, served straight
// on /dev/fuse (no libfuse, whose 3.14 cannot ask for passthrough), that
// answers every open with FOPEN_PASSTHROUGH so the kernel serves reads and
// writes from a backing file without asking the daemon.
//
// One root directory (nodeid 1) holding kFiles regular files, "f0" (nodeid 2)
// to "f3" (nodeid 5), all backed by the file given to Mount (each inode with
// its own backing id). READ and WRITE requests are answered with
// EIO and counted: a test that sees none knows its I/O went by passthrough.
// Needs root (mount(2), and FUSE_DEV_IOC_BACKING_OPEN wants CAP_SYS_ADMIN) and
// a kernel with FUSE passthrough (6.9+).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "common/status.h"
#include "common/unique_fd.h"

namespace tierfs {

class PassthroughFuseServer {
 public:
  static constexpr int kFiles = 4;
  static constexpr uint64_t kFileNodeid = 2;     // "f0"; file i is nodeid 2 + i, "f<i>"
  static constexpr const char* kFileName = "f0";

  // Mounts at `mount_point` (an empty directory) and serves until destroyed.
  // `backing_path`: an existing regular file on a non-stacked file system
  // (max_stack_depth is 1). Errors: errno of opening it or /dev/fuse, or of mount(2).
  static Result<std::unique_ptr<PassthroughFuseServer>> Mount(const std::string& mount_point,
                                                              const std::string& backing_path);
  // Unmounts (MNT_DETACH) and stops the serving thread within about 100 ms.
  ~PassthroughFuseServer();

  // READ and WRITE requests the kernel sent (0 when passthrough serves all I/O).
  uint64_t data_requests() const { return data_requests_.load(); }
  // OPEN requests answered with a backing id.
  uint64_t passthrough_opens() const { return passthrough_opens_.load(); }

 private:
  PassthroughFuseServer() = default;
  void Serve();
  void Handle(const char* request, size_t size);
  void Reply(uint64_t unique, int error, const void* payload, size_t size);

  std::string mount_point_;
  UniqueFd fuse_fd_;
  UniqueFd backing_fd_;
  // Per file: the backing id, registered at the first OPEN and closed at the
  // last RELEASE (the kernel wants one id for every concurrent open of an inode).
  int backing_ids_[kFiles] = {};
  int open_handles_[kFiles] = {};
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> data_requests_{0};
  std::atomic<uint64_t> passthrough_opens_{0};
  std::thread thread_;
};

}  // namespace tierfs
