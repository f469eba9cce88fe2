// ControlClient: the tools' end of the control channel (fs/control/control_protocol.md).
//
// One client per tierfs mount; each Call() opens a connection to the daemon's
// socket, writes one request line, passes every {"progress": ...} line to a
// callback, and returns the final answer's "result" or its error. Transport
// failures (no socket, daemon gone, a garbled answer) are told apart from the
// daemon's own errors by unreachable(), because the tools exit with status 3
// for the former (docs/commands.md "How the tools find the file system").
//
// Not thread-safe: use one client per thread (connections are not shared).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/common/mount_table.h"
#include "common/status.h"

namespace tierfs::cli {

// Longest answer line the client accepts (a full scan report is one line).
constexpr size_t kMaxControlAnswerBytes = size_t{1} << 30;

using ProgressCallback = std::function<void(const nlohmann::json& progress)>;

class ControlClient {
 public:
  explicit ControlClient(TierfsMount mount) : mount_(std::move(mount)) {}
  // A client for a bare socket (tests; no mount point).
  static ControlClient ForSocket(const std::string& socket_path);

  const TierfsMount& mount() const { return mount_; }

  // Sends `request` (an object with "op") and waits for the final answer, calling
  // `on_progress` (if set) with the value of each progress line on the way.
  // Returns the "result" member. Errors: {"ok":false} answers become
  // Status(errno, error); transport failures return the socket errno (or EPROTO
  // for a garbled answer, EPIPE for a connection closed early) with a message
  // naming the mount, and set unreachable().
  Result<nlohmann::json> Call(const nlohmann::json& request,
                              const ProgressCallback& on_progress = nullptr);

  // True when the last Call failed for transport reasons.
  bool unreachable() const { return unreachable_; }

  // The tool exit status for a failed Call: kExitUnreachable after a transport
  // failure, kExitUsage for EINVAL (validation), kExitFailed otherwise.
  int ExitCodeFor(const Status& status) const;

 private:
  Status Transport(int code, const std::string& what);

  TierfsMount mount_;
  bool unreachable_ = false;
};

}  // namespace tierfs::cli
