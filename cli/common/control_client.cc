#include "cli/common/control_client.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <string_view>

#include "cli/common/exit_codes.h"
#include "cli/common/json_fields.h"
#include "fs/control/control_server.h"

namespace tierfs::cli {
namespace {

using nlohmann::json;

class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser() { close(fd_); }
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;

 private:
  int fd_;
};

// Reads newline-terminated lines from a socket.
class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd) {}
  // 1: a line in *line; 0: EOF (a partial last line is dropped); -1: error in errno
  // (EMSGSIZE for a line longer than kMaxControlAnswerBytes).
  int Next(std::string* line) {
    for (;;) {
      size_t nl = buf_.find('\n', scanned_);
      if (nl != std::string::npos) {
        line->assign(buf_, 0, nl);
        buf_.erase(0, nl + 1);
        scanned_ = 0;
        return 1;
      }
      scanned_ = buf_.size();
      if (buf_.size() > kMaxControlAnswerBytes) {
        errno = EMSGSIZE;
        return -1;
      }
      char chunk[64 * 1024];
      ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
      if (n < 0) {
        if (errno == EINTR) continue;
        return -1;
      }
      if (n == 0) return 0;
      buf_.append(chunk, static_cast<size_t>(n));
    }
  }

 private:
  int fd_;
  std::string buf_;
  size_t scanned_ = 0;
};

}  // namespace

ControlClient ControlClient::ForSocket(const std::string& socket_path) {
  return ControlClient(TierfsMount{"", "", socket_path});
}

Status ControlClient::Transport(int code, const std::string& what) {
  unreachable_ = true;
  std::string where = mount_.mount_point.empty() ? mount_.socket_path
                                                 : "the tierfs daemon of " + mount_.mount_point;
  return Status::Error(code, "cannot reach " + where + ": " + what);
}

Result<json> ControlClient::Call(const json& request, const ProgressCallback& on_progress) {
  unreachable_ = false;
  Result<int> fd = ConnectControlSocket(mount_.socket_path);
  if (!fd.ok()) {
    int code = fd.status().code();
    std::string why =
        code == ENOENT || code == ECONNREFUSED
            ? "no daemon listens on " + mount_.socket_path + " (" + std::strerror(code) + ")"
            : fd.status().message();
    if (code == EACCES) why += " (only root or the user who mounted may use it)";
    return Transport(code, why);
  }
  FdCloser closer(*fd);

  std::string line = JsonDump(request) + "\n";
  std::string_view rest = line;
  while (!rest.empty()) {
    ssize_t n = send(*fd, rest.data(), rest.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      // The daemon may have answered already (e.g. permission denied) and
      // closed: read what it said before giving up.
      if (errno == EPIPE || errno == ECONNRESET) break;
      return Transport(errno, std::string("sending the request: ") + std::strerror(errno));
    }
    rest.remove_prefix(static_cast<size_t>(n));
  }

  LineReader reader(*fd);
  std::string answer_line;
  for (;;) {
    int rc = reader.Next(&answer_line);
    if (rc < 0) {
      return Transport(errno, std::string("reading the answer: ") + std::strerror(errno));
    }
    if (rc == 0) {
      return Transport(EPIPE, "the daemon closed the connection without answering");
    }
    json answer = json::parse(answer_line, nullptr, /*allow_exceptions=*/false);
    if (answer.is_discarded() || !answer.is_object()) {
      return Transport(EPROTO, "the daemon sent a line that is not a JSON object");
    }
    if (answer.contains("progress")) {
      if (on_progress) on_progress(answer["progress"]);
      continue;
    }
    auto ok = answer.find("ok");
    if (ok == answer.end() || !ok->is_boolean()) {
      return Transport(EPROTO, "the daemon's answer has no \"ok\" member");
    }
    if (ok->get<bool>()) {
      auto result = answer.find("result");
      return result == answer.end() ? json::object() : *result;
    }
    int code = static_cast<int>(JsonInt(answer, "errno", EIO));
    if (code <= 0) code = EIO;
    return Status::Error(code, JsonString(answer, "error", std::strerror(code)));
  }
}

int ControlClient::ExitCodeFor(const Status& status) const {
  if (unreachable_) return kExitUnreachable;
  if (status.code() == EINVAL) return kExitUsage;
  return kExitFailed;
}

}  // namespace tierfs::cli
