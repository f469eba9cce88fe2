// ControlServer: the daemon's end of the control channel (design.md "Control channel").
//
// Listens on a UNIX stream socket (mode 0600, <metadata volume>/.tierfs/control.sock),
// admits only root or the uid that mounted (checked with SO_PEERCRED), and speaks
// newline-delimited JSON: the client sends one request object; the server answers
// with zero or more {"progress": {...}} lines and exactly one final line
// {"ok": true, "result": {...}} or {"ok": false, "errno": N, "error": "message"}.
// The full vocabulary of requests is in fs/control/control_protocol.md.
//
// Limits (ControlServerLimits): at most kMaxControlConnections connections are
// served at once (each on its own thread); the last kRootReservedControlConnections
// of them are root's alone, so that clients of other uids (the mounting user's,
// even idle ones by the hundred) can never keep root's `fsppadm` out. A root
// connection beyond the maximum waits up to kControlQueueWaitMs for a place
// (meanwhile no other is accepted), then is answered with {"ok": false, "errno":
// EAGAIN, ...} and closed; another uid's connection beyond its share gets that
// answer at once. A client must send its whole
// request line within kControlRequestTimeoutSeconds of connecting, else it is
// answered with ETIMEDOUT and closed, so an idle client does not hold a thread for
// ever. Only reading the request is timed: a handler may run (and stream
// progress) as long as it needs. One request per connection: bytes after the
// request's newline are an error (EINVAL).
//
// Threading: one accept thread; each connection is served on its own thread and
// calls the handler there. Stop() (or the destructor) closes the socket and joins.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "common/status.h"

namespace tierfs {

// Passed to a handler to stream progress lines before the final answer.
class ControlReply {
 public:
  virtual ~ControlReply() = default;
  // Sends {"progress": progress}. Returns false when the client has gone away.
  virtual bool Progress(const nlohmann::json& progress) = 0;
};

struct ControlPeer {
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
};

// Handles one request; returns the "result" object or an error Status (sent as
// {"ok": false, "errno": status.code(), "error": status.message()}).
using ControlHandler =
    std::function<Result<nlohmann::json>(const nlohmann::json& request, const ControlPeer& peer,
                                         ControlReply& reply)>;

// Longest request line the server reads (bytes, newline excluded); a longer one is
// answered with EMSGSIZE. Policy XML documents are the largest requests.
constexpr size_t kMaxControlRequestBytes = 64 << 20;

// How many connections the server serves at once (see the file comment).
constexpr int kMaxControlConnections = 32;
// Seconds a client has, from connecting, to send its whole request line.
constexpr int kControlRequestTimeoutSeconds = 30;
// Milliseconds a connection beyond the maximum waits for a place before it is refused.
constexpr int kControlQueueWaitMs = 2000;
// Seconds one reply or progress line may wait for a client that stopped reading;
// then the connection counts as gone, so it cannot hold its thread for ever.
constexpr int kControlSendTimeoutSeconds = 60;

// Of kMaxControlConnections, how many only root's connections may take.
constexpr int kRootReservedControlConnections = 4;

struct ControlServerLimits {
  int max_connections = kMaxControlConnections;                  // >= 1
  int request_timeout_ms = kControlRequestTimeoutSeconds * 1000;  // > 0, milliseconds
  int queue_wait_ms = kControlQueueWaitMs;                        // >= 0, milliseconds
  // Places only root may take (other uids share the rest); at most
  // max_connections - 1 of them take effect.
  int root_reserved = kRootReservedControlConnections;
};

// The admission rule of the control socket: root, or the uid that mounted.
bool ControlPeerAllowed(const ControlPeer& peer, uid_t owner_uid);

// Client side of the transport: a connected, close-on-exec stream socket to
// `socket_path` (paths longer than sun_path are reached through their directory).
// The caller owns (and closes) the fd. Errors: the connect(2) errno (ENOENT,
// ECONNREFUSED, EACCES...) with a message naming the socket.
Result<int> ConnectControlSocket(const std::string& socket_path);

class ControlServer {
 public:
  // Binds `socket_path` (replacing a stale socket file), owner `owner_uid`, mode 0600,
  // and serves within `limits` (EINVAL when max_connections or request_timeout_ms is
  // not positive, or queue_wait_ms is negative).
  static Result<std::unique_ptr<ControlServer>> Start(const std::string& socket_path,
                                                      uid_t owner_uid, ControlHandler handler,
                                                      const ControlServerLimits& limits = {});
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;
  void Stop();

 private:
  struct Impl;
  explicit ControlServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tierfs
