// ControlServer: see fs/control/control_server.h and fs/control/control_protocol.md.
//
// Lifecycle of the socket file: the server binds a temporary name in the same
// directory, sets mode 0600 and the owner, listens, and only then renames it over
// control.sock, so a client never finds a socket with the wrong permissions. A
// socket file left by a dead daemon is replaced; one that still answers is not
// (EADDRINUSE). Stop() unlinks the file only if it is still the one we created.
//
// Threads: the accept thread blocks in accept(2); Stop() wakes it by shutting the
// listening socket down. A connection beyond limits.max_connections waits up to
// limits.queue_wait_ms for a place, and is then refused by the accept thread
// itself (a short answer sent without blocking), so a flood of idle clients costs
// no threads; each admitted one has limits.request_timeout_ms to send its request
// (poll(2) against a deadline: a client that trickles bytes gains nothing).
// Each connection runs on its own thread, which never closes its fd: it shuts
// it down when done (the client sees EOF), and whoever joins the thread (the accept loop when reaping, or Stop) closes the fd. That
// way Stop() can shut down any connection fd without racing a close and a reuse
// of the number.
#include "fs/control/control_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <list>
#include <string_view>
#include <thread>

#include "common/cond_var.h"
#include "common/mutex.h"
#include "common/thread_annotations.h"

namespace tierfs {
namespace {

using nlohmann::json;

std::string DirName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string BaseName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Calls `op(addr, len)` with a sockaddr_un for `path`. A path too long for
// sun_path is reached as /proc/self/fd/<dirfd>/<name>. Returns op's errno.
template <typename Op>
Status WithUnixAddress(const std::string& path, Op op) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  int dirfd = -1;
  std::string name = path;
  if (name.size() >= sizeof(addr.sun_path)) {
    dirfd = open(DirName(path).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0) return Status::FromErrno("cannot open the directory of " + path);
    name = "/proc/self/fd/" + std::to_string(dirfd) + "/" + BaseName(path);
    if (name.size() >= sizeof(addr.sun_path)) {
      close(dirfd);
      return Status::Error(ENAMETOOLONG, "socket name too long: " + path);
    }
  }
  std::memcpy(addr.sun_path, name.c_str(), name.size() + 1);
  int rc = op(reinterpret_cast<const sockaddr*>(&addr), static_cast<socklen_t>(sizeof addr));
  int err = errno;
  if (dirfd >= 0) close(dirfd);
  if (rc != 0) return Status::FromErrno(err, path);
  return Status::Ok();
}

// Writes all of `data`; false when the peer has gone (EPIPE, ECONNRESET...).
bool SendAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// One JSON line; invalid UTF-8 in strings (file names are bytes) is replaced
// rather than thrown about.
std::string Line(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

json ErrorReply(int code, const std::string& message) {
  return json{{"ok", false}, {"errno", code}, {"error", message}};
}

enum class ReadOutcome { kLine, kEof, kTooLong, kTimeout, kTrailing, kError };

using SteadyClock = std::chrono::steady_clock;

// Reads up to the first newline (excluded) into *line, waiting until `deadline` at
// most. kTrailing when bytes follow the newline (in what has arrived so far: a
// request is one line, and the client's next move is to read).
ReadOutcome ReadRequestLine(int fd, SteadyClock::time_point deadline, std::string* line) {
  char buf[64 * 1024];
  line->clear();
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
    if (left.count() <= 0) return ReadOutcome::kTimeout;
    pollfd p{fd, POLLIN, 0};
    int ready = poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count() + 1, 60'000)));
    if (ready < 0 && errno != EINTR) return ReadOutcome::kError;
    if (ready <= 0) continue;  // EINTR, or time to look at the deadline again
    ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      return ReadOutcome::kError;
    }
    if (n == 0) return ReadOutcome::kEof;
    std::string_view chunk(buf, static_cast<size_t>(n));
    size_t nl = chunk.find('\n');
    const bool more_in_chunk = nl != std::string_view::npos && nl + 1 < chunk.size();
    if (nl != std::string_view::npos) chunk = chunk.substr(0, nl);
    if (line->size() + chunk.size() > kMaxControlRequestBytes) return ReadOutcome::kTooLong;
    line->append(chunk);
    if (nl == std::string_view::npos) continue;
    char next;
    if (more_in_chunk || recv(fd, &next, 1, MSG_PEEK | MSG_DONTWAIT) > 0) {
      return ReadOutcome::kTrailing;
    }
    return ReadOutcome::kLine;
  }
}

// "30 s", "0.25 s": a timeout in milliseconds as messages print it.
std::string Seconds(int ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", ms / 1000.0);
  return buf;
}

// Parses the request line; EINVAL saying what is wrong with it.
Result<json> ParseRequest(const std::string& line) {
  try {
    return json::parse(line);
  } catch (const json::parse_error& e) {
    // nlohmann's words for a complete value followed by more text.
    if (std::string_view(e.what()).find("expected end of input") != std::string_view::npos) {
      return Status::Invalid("trailing data after the JSON request, at byte " +
                             std::to_string(e.byte) + " (a request is one JSON object)");
    }
    std::string_view what = e.what();
    if (size_t bracket = what.find("] "); bracket != std::string_view::npos) {
      what.remove_prefix(bracket + 2);
    }
    return Status::Invalid("malformed JSON request: " + std::string(what));
  } catch (const std::exception& e) {
    return Status::Invalid(std::string("malformed JSON request: ") + e.what());
  }
}

class SocketReply final : public ControlReply {
 public:
  SocketReply(int fd, const std::atomic<bool>& stopping) : fd_(fd), stopping_(stopping) {}
  bool Progress(const json& progress) override {
    if (gone_ || stopping_.load()) return false;
    if (!SendAll(fd_, Line(json{{"progress", progress}}))) gone_ = true;
    return !gone_;
  }

 private:
  int fd_;
  const std::atomic<bool>& stopping_;
  bool gone_ = false;
};

}  // namespace

bool ControlPeerAllowed(const ControlPeer& peer, uid_t owner_uid) {
  return peer.uid == 0 || peer.uid == owner_uid;
}

Result<int> ConnectControlSocket(const std::string& socket_path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::FromErrno("socket");
  Status st = WithUnixAddress(socket_path, [fd](const sockaddr* addr, socklen_t len) {
    int rc;
    do {
      rc = connect(fd, addr, len);
    } while (rc != 0 && errno == EINTR);
    return rc;
  });
  if (!st.ok()) {
    close(fd);
    return Status::Error(st.code(), "cannot connect to " + st.message());
  }
  return fd;
}

struct ControlServer::Impl {
  struct Connection {
    int fd = -1;
    // The peer, read once at accept (SO_PEERCRED); `have_peer` false when unreadable.
    ControlPeer peer;
    bool have_peer = false;
    bool root() const { return have_peer && peer.uid == 0; }
    std::thread thread;
    // Guarded by Impl::mu (not annotated: a nested struct cannot name the
    // lock of the Impl that owns it).
    bool done = false;
  };

  std::string socket_path;
  uid_t owner_uid = 0;
  ControlHandler handler;
  ControlServerLimits limits;
  int listen_fd = -1;
  dev_t socket_dev = 0;  // identity of the socket file we created
  ino_t socket_ino = 0;
  std::atomic<bool> stopping{false};
  std::thread accept_thread;
  Mutex stop_mu ACQUIRED_BEFORE(mu);  // serializes Stop()

  Mutex mu;  // guards connections, each Connection::done, and active
  std::list<std::shared_ptr<Connection>> connections GUARDED_BY(mu);
  // Connections admitted and not yet finished: what limits.max_connections bounds
  // (`connections` also holds finished threads until they are reaped).
  int active GUARDED_BY(mu) = 0;
  int others_active GUARDED_BY(mu) = 0;  // of `active`, the connections of uids other than root
  CondVar slot_freed;  // signalled when `active` drops, and by Stop

  ~Impl() {
    if (listen_fd >= 0) close(listen_fd);
  }

  void AcceptLoop() EXCLUDES(mu);
  void Serve(Connection* conn) EXCLUDES(mu);
  // Joins and closes the connections that have finished.
  void Reap() EXCLUDES(mu);
};

void ControlServer::Impl::AcceptLoop() {
  while (!stopping.load()) {
    int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (stopping.load()) break;
      if (errno == EINTR || errno == ECONNABORTED) continue;
      // EMFILE, ENFILE, ENOBUFS, ENOMEM: back off instead of spinning.
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    Reap();
    auto conn = std::make_shared<Connection>();
    conn->fd = fd;
    ucred cred{};
    socklen_t cred_len = sizeof cred;
    conn->have_peer = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) == 0;
    if (conn->have_peer) conn->peer = ControlPeer{cred.pid, cred.uid, cred.gid};
    const int others_max =
        limits.max_connections - std::min(limits.root_reserved, limits.max_connections - 1);
    MutexLock lock(mu);
    if (stopping.load()) {
      close(fd);
      break;
    }
    auto has_place = [&]() REQUIRES(mu) {
      return active < limits.max_connections && (conn->root() || others_active < others_max);
    };
    // A client that calls again as soon as it has read an answer may find its
    // previous connection's thread still finishing: wait a moment for a place.
    // Not when the places of non-root clients are all taken by non-root clients:
    // those are refused at once, so that a flood of them never slows the accepts.
    if (conn->root() || others_active < others_max) {
      const auto deadline =
          std::chrono::steady_clock::now() + std::chrono::milliseconds(limits.queue_wait_ms);
      while (!has_place() && !stopping.load() && slot_freed.WaitUntil(mu, deadline)) {
      }
    }
    if (stopping.load()) {
      close(fd);
      break;
    }
    if (!has_place()) {
      const bool all_taken = active >= limits.max_connections;  // read under mu
      lock.Unlock();
      // Without blocking: a fresh socket's buffer holds this short line.
      const std::string answer = Line(ErrorReply(
          EAGAIN, conn->root() || all_taken
                      ? "the daemon is serving " + std::to_string(limits.max_connections) +
                            " control connections already; try again"
                      : "the daemon is serving " + std::to_string(others_max) +
                            " control connections of non-root clients already (the other " +
                            std::to_string(limits.max_connections - others_max) +
                            " places are kept for root); try again"));
      (void)!send(fd, answer.data(), answer.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      shutdown(fd, SHUT_RDWR);
      close(fd);
      continue;
    }
    try {
      conn->thread = std::thread([this, c = conn.get()] { Serve(c); });
    } catch (const std::exception&) {  // std::system_error: no thread for this client
      close(fd);
      continue;
    }
    ++active;
    if (!conn->root()) ++others_active;
    connections.push_back(std::move(conn));
  }
}

void ControlServer::Impl::Reap() {
  std::list<std::shared_ptr<Connection>> finished;
  {
    MutexLock lock(mu);
    for (auto it = connections.begin(); it != connections.end();) {
      if ((*it)->done) {
        finished.push_back(std::move(*it));
        it = connections.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& conn : finished) {
    conn->thread.join();
    close(conn->fd);
  }
}

void ControlServer::Impl::Serve(Connection* conn) {
  const int fd = conn->fd;
  const timeval send_timeout{kControlSendTimeoutSeconds, 0};
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof send_timeout);
  const ControlPeer& peer = conn->peer;
  const bool have_cred = conn->have_peer;

  json answer;
  std::string line;
  ReadOutcome outcome = ReadRequestLine(
      fd, SteadyClock::now() + std::chrono::milliseconds(limits.request_timeout_ms), &line);
  if (outcome == ReadOutcome::kTooLong) {
    answer = ErrorReply(
        EMSGSIZE, "request longer than " + std::to_string(kMaxControlRequestBytes) + " bytes");
  } else if (outcome == ReadOutcome::kTimeout) {
    answer = ErrorReply(ETIMEDOUT, "no complete request within " +
                                       Seconds(limits.request_timeout_ms) +
                                       " of connecting (a request is one line of JSON)");
  } else if (outcome == ReadOutcome::kTrailing) {
    answer = ErrorReply(EINVAL,
                        "unexpected data after the request's newline (one request per connection)");
  } else if (outcome != ReadOutcome::kLine) {
    // The client hung up (or the server is stopping) before sending a request.
  } else if (!have_cred || !ControlPeerAllowed(peer, owner_uid)) {
    answer = ErrorReply(EACCES, have_cred ? "permission denied: uid " + std::to_string(peer.uid) +
                                                " is neither root nor the owner (uid " +
                                                std::to_string(owner_uid) + ") of this file system"
                                          : "permission denied: cannot identify the client");
  } else {
    Result<json> parsed = ParseRequest(line);
    json request = parsed.ok() ? std::move(parsed).value() : json();
    if (!parsed.ok()) {
      answer = ErrorReply(EINVAL, parsed.status().message());
    } else if (!request.is_object() || !request.contains("op") || !request["op"].is_string()) {
      answer = ErrorReply(EINVAL, "a request is a JSON object with a string member \"op\"");
    } else {
      SocketReply reply(fd, stopping);
      try {
        Result<json> result = handler(request, peer, reply);
        if (result.ok()) {
          json value = std::move(result).value();
          if (value.is_null()) value = json::object();
          answer = json{{"ok", true}, {"result", std::move(value)}};
        } else {
          int code = result.status().code() > 0 ? result.status().code() : EIO;
          answer = ErrorReply(code, result.status().message());
        }
      } catch (const std::exception& e) {  // a handler must not throw; contain it here
        answer = ErrorReply(EIO, std::string("internal error: ") + e.what());
      } catch (...) {
        answer = ErrorReply(EIO, "internal error");
      }
    }
  }
  if (!answer.is_null()) {
    try {
      SendAll(fd, Line(answer));
    } catch (const std::exception& e) {  // e.g. a result too large to serialize
      SendAll(fd, Line(ErrorReply(EIO, std::string("cannot encode the answer: ") + e.what())));
    }
  }
  shutdown(fd, SHUT_RDWR);
  MutexLock lock(mu);
  conn->done = true;
  --active;
  if (!conn->root()) --others_active;
  slot_freed.NotifyAll();
}

ControlServer::ControlServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ControlServer::~ControlServer() { Stop(); }

Result<std::unique_ptr<ControlServer>> ControlServer::Start(const std::string& socket_path,
                                                            uid_t owner_uid,
                                                            ControlHandler handler,
                                                            const ControlServerLimits& limits) {
  if (!handler) return Status::Invalid("ControlServer::Start: no handler");
  if (limits.max_connections < 1 || limits.request_timeout_ms < 1 || limits.queue_wait_ms < 0 ||
      limits.root_reserved < 0) {
    return Status::Invalid("ControlServer::Start: limits must be positive");
  }
  struct stat st;
  if (lstat(socket_path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      return Status::Exists(socket_path + " exists and is not a socket; not replacing it");
    }
    Result<int> probe = ConnectControlSocket(socket_path);
    if (probe.ok()) {
      close(*probe);
      return Status::Error(EADDRINUSE, "another daemon is listening on " + socket_path);
    }
  }

  auto impl = std::make_unique<Impl>();
  impl->socket_path = socket_path;
  impl->owner_uid = owner_uid;
  impl->handler = std::move(handler);
  impl->limits = limits;
  impl->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (impl->listen_fd < 0) return Status::FromErrno("socket");

  const std::string tmp_path =
      DirName(socket_path) + "/.control.sock." + std::to_string(getpid()) + ".tmp";
  unlink(tmp_path.c_str());
  const int fd = impl->listen_fd;
  Status st_bind = WithUnixAddress(
      tmp_path, [fd](const sockaddr* addr, socklen_t len) { return bind(fd, addr, len); });
  if (!st_bind.ok()) return Status::Error(st_bind.code(), "cannot bind " + st_bind.message());
  auto fail = [&tmp_path](const std::string& what) {
    Status s = Status::FromErrno(what);
    unlink(tmp_path.c_str());
    return s;
  };
  if (chmod(tmp_path.c_str(), 0600) != 0) return fail("cannot chmod " + tmp_path);
  if (geteuid() == 0 && owner_uid != 0 &&
      chown(tmp_path.c_str(), owner_uid, static_cast<gid_t>(-1)) != 0) {
    return fail("cannot chown " + tmp_path);
  }
  if (listen(fd, 128) != 0) return fail("cannot listen on " + tmp_path);
  if (rename(tmp_path.c_str(), socket_path.c_str()) != 0) {
    return fail("cannot rename " + tmp_path + " to " + socket_path);
  }
  if (lstat(socket_path.c_str(), &st) == 0) {
    impl->socket_dev = st.st_dev;
    impl->socket_ino = st.st_ino;
  }

  Impl* raw = impl.get();
  try {
    raw->accept_thread = std::thread([raw] { raw->AcceptLoop(); });
  } catch (const std::exception& e) {
    unlink(socket_path.c_str());
    return Status::Error(EAGAIN, std::string("cannot start the control thread: ") + e.what());
  }
  return std::unique_ptr<ControlServer>(new ControlServer(std::move(impl)));
}

void ControlServer::Stop() {
  if (!impl_) return;
  MutexLock stop_lock(impl_->stop_mu);
  if (impl_->stopping.exchange(true)) return;
  {
    MutexLock lock(impl_->mu);  // so that a waiting accept loop cannot miss it
    impl_->slot_freed.NotifyAll();
  }
  // Wakes accept(2): on Linux a listening socket that is shut down fails accept
  // with EINVAL.
  shutdown(impl_->listen_fd, SHUT_RDWR);
  if (impl_->accept_thread.joinable()) impl_->accept_thread.join();

  std::list<std::shared_ptr<Impl::Connection>> connections;
  {
    MutexLock lock(impl_->mu);
    connections.swap(impl_->connections);
    // Unblocks reads and progress writes; a handler still running sees
    // Progress() return false and finishes.
    for (auto& conn : connections) shutdown(conn->fd, SHUT_RDWR);
  }
  for (auto& conn : connections) {
    conn->thread.join();
    close(conn->fd);
  }

  struct stat st;
  if (lstat(impl_->socket_path.c_str(), &st) == 0 && st.st_dev == impl_->socket_dev &&
      st.st_ino == impl_->socket_ino) {
    unlink(impl_->socket_path.c_str());
  }
  close(impl_->listen_fd);
  impl_->listen_fd = -1;
}

}  // namespace tierfs
