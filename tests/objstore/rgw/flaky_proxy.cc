#include "tests/objstore/rgw/flaky_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace tierfs::testing {
namespace {

sockaddr_in Loopback(int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  return addr;
}

bool WriteAll(int fd, const char* data, size_t n) {
  while (n > 0) {
    ssize_t w = send(fd, data, n, MSG_NOSIGNAL);
    if (w <= 0) return false;
    data += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// An HTTP-date: "Sun, 06 Nov 1994 08:49:37 GMT".
std::string HttpDate(time_t t) {
  struct tm tm;
  gmtime_r(&t, &tm);
  char buf[64];
  strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

}  // namespace

FlakyProxy::FlakyProxy(int target_port) : target_port_(target_port) {
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr = Loopback(0);
  socklen_t len = sizeof addr;
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      listen(listen_fd_, 64) == 0 &&
      getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port_ = ntohs(addr.sin_port);
  }
  acceptor_ = std::thread([this] { AcceptLoop(); });
}

FlakyProxy::~FlakyProxy() {
  stopping_ = true;
  shutdown(listen_fd_, SHUT_RDWR);  // wakes accept()
  acceptor_.join();
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int fd : open_fds_) shutdown(fd, SHUT_RDWR);  // wakes each Serve's poll
    threads.swap(threads_);
  }
  for (std::thread& t : threads) t.join();
  for (int fd : open_fds_) close(fd);
  close(listen_fd_);
}

void FlakyProxy::FailNext(int connections, Fault fault) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_next_ = connections;
  fault_ = fault;
}

void FlakyProxy::FailFor(double seconds, Fault fault) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_until_ = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(seconds));
  fault_ = fault;
  // Clients keep their connections for the next request (a health probe every
  // second keeps one open for good): cut them, so that the next request comes
  // on a new connection, which gets the fault.
  for (int fd : open_fds_) shutdown(fd, SHUT_RDWR);
}

void FlakyProxy::AcceptLoop() {
  while (!stopping_) {
    int client = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) {
      if (stopping_) return;
      continue;
    }
    ++accepted_;
    std::lock_guard<std::mutex> lock(mu_);
    open_fds_.push_back(client);
    threads_.emplace_back([this, client] { Serve(client); });
  }
}

void FlakyProxy::Serve(int client) {
  bool fail = false;
  Fault fault;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (fail_next_ > 0) {
      --fail_next_;
      fail = true;
      fault = fault_;
    } else if (std::chrono::steady_clock::now() < fail_until_) {
      fail = true;
      fault = fault_;
    }
  }
  if (fail) ++failed_;
  if (fail && fault != Fault::kRewriteEtag) {
    Fail(client, fault);
    return;  // the fd stays in open_fds_ (shut down, not closed) until the end
  }
  Forward(client, fail && fault == Fault::kRewriteEtag);
}

void FlakyProxy::Forward(int client, bool rewrite_etag) {
  int upstream = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr = Loopback(target_port_);
  if (connect(upstream, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(upstream);
    shutdown(client, SHUT_RDWR);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    open_fds_.push_back(upstream);
  }
  // The request's head as it streams (to find where its body starts), and the
  // reply's heads held back until whole (to rewrite the final one's ETag).
  std::string request_head, reply_head;
  uint64_t body_left = 0;
  uint64_t replied = 0;  // reply bytes of this connection, for CutNextReplyAfter
  bool flip_next = false, reply_rewritten = !rewrite_etag;
  // Both directions until either side closes.
  char buf[65536];
  pollfd fds[2] = {{client, POLLIN, 0}, {upstream, POLLIN, 0}};
  while (!stopping_) {
    if (poll(fds, 2, 1000) < 0) break;
    bool done = false;
    for (int i = 0; i < 2 && !done; ++i) {
      if (fds[i].revents == 0) continue;
      ssize_t n = recv(fds[i].fd, buf, sizeof buf, 0);
      if (n <= 0) {
        done = true;
        break;
      }
      if (i == 0) {
        // Request by request (a retry may come on the same connection): the
        // head byte by byte, then its Content-Length of body, whose first byte
        // is flipped when it is a PUT's.
        size_t pos = 0;
        while (pos < static_cast<size_t>(n)) {
          if (body_left > 0) {
            if (flip_next) {
              if (puts_to_damage_.fetch_sub(1) > 0) {
                buf[pos] ^= 0x20;
                ++damaged_;
              } else {
                puts_to_damage_.fetch_add(1);
              }
              flip_next = false;
            }
            uint64_t take = std::min<uint64_t>(body_left, static_cast<uint64_t>(n) - pos);
            pos += take;
            body_left -= take;
            continue;
          }
          request_head.push_back(buf[pos++]);
          if (request_head.size() < 4 ||
              request_head.compare(request_head.size() - 4, 4, "\r\n\r\n") != 0) {
            continue;
          }
          std::string lower = request_head;
          for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
          size_t at = lower.find("\r\ncontent-length:");
          body_left =
              at == std::string::npos ? 0 : std::strtoull(lower.c_str() + at + 17, nullptr, 10);
          flip_next = body_left > 0 && request_head.compare(0, 4, "PUT ") == 0;
          request_head.clear();
        }
      }
      if (i == 1 && !reply_rewritten) {
        reply_head.append(buf, static_cast<size_t>(n));
        size_t end;
        while (!reply_rewritten && (end = reply_head.find("\r\n\r\n")) != std::string::npos) {
          std::string head = reply_head.substr(0, end + 4);
          std::string rest = reply_head.substr(end + 4);
          if (head.compare(0, 10, "HTTP/1.1 1") != 0) {  // not "100 Continue"
            std::string lower = head;
            for (char& c : lower) {
              c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            }
            size_t at = lower.find("\r\netag:");
            if (at != std::string::npos) {
              size_t digit = head.find_first_of("0123456789abcdefABCDEF", at + 7);
              if (digit != std::string::npos) head[digit] = head[digit] == '0' ? '1' : '0';
            }
            head.insert(head.size() - 2, "x-amz-server-side-encryption: AES256\r\n");
            reply_rewritten = true;
          }
          if (!WriteAll(client, head.data(), head.size())) done = true;
          reply_head = rest;
        }
        if (reply_rewritten && !reply_head.empty()) {
          if (!WriteAll(client, reply_head.data(), reply_head.size())) done = true;
          reply_head.clear();
        }
        continue;
      }
      if (i == 1) {
        Pace(static_cast<size_t>(n));
        reply_bytes_ += static_cast<uint64_t>(n);
        replied += static_cast<uint64_t>(n);
        uint64_t cut_at = cut_after_.load();
        if (cut_at > 0 && replied >= cut_at && cut_after_.compare_exchange_strong(cut_at, 0)) {
          ++cut_;
          done = true;
          break;
        }
      }
      if (!WriteAll(fds[1 - i].fd, buf, static_cast<size_t>(n))) done = true;
    }
    if (done) break;
  }
  shutdown(client, SHUT_RDWR);
  shutdown(upstream, SHUT_RDWR);
}

void FlakyProxy::Pace(size_t n) {
  const double rate = reply_rate_.load();
  if (rate <= 0) return;
  std::chrono::steady_clock::time_point until;
  {
    std::lock_guard<std::mutex> lock(pace_mu_);
    const auto now = std::chrono::steady_clock::now();
    if (paced_until_ < now) paced_until_ = now;
    paced_until_ += std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(static_cast<double>(n) / rate));
    until = paced_until_;
  }
  std::this_thread::sleep_until(until);
}

void FlakyProxy::Fail(int client, Fault fault) {
  // Read the request's headers first, as a server does before it answers.
  std::string head;
  char buf[4096];
  while (head.find("\r\n\r\n") == std::string::npos && head.size() < 65536) {
    pollfd p{client, POLLIN, 0};
    if (poll(&p, 1, 2000) <= 0) break;
    ssize_t n = recv(client, buf, sizeof buf, 0);
    if (n <= 0) break;
    head.append(buf, static_cast<size_t>(n));
  }
  std::string body, status, extra;
  switch (fault) {
    case Fault::kSlowDown503:
      status = "503 Slow Down";
      body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SlowDown</Code>"
             "<Message>Please reduce your request rate.</Message></Error>";
      break;
    case Fault::kInternalError500:
      status = "500 Internal Server Error";
      body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>InternalError</Code>"
             "</Error>";
      break;
    case Fault::kCloseBeforeReply:
      shutdown(client, SHUT_RDWR);
      return;
    case Fault::kSkewed403:
      status = "403 Forbidden";
      body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>RequestTimeTooSkewed</Code>"
             "<Message>The difference between the request time and the server's time is too "
             "large.</Message></Error>";
      extra = "Date: " + HttpDate(time(nullptr) + skew_seconds_.load()) + "\r\n";
      break;
    case Fault::kKeysRefused403:
      status = "403 Forbidden";
      body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>InvalidAccessKeyId</Code>"
             "</Error>";
      break;
    case Fault::kRewriteEtag:
      return;  // passed through (Forward)
  }
  if (fault == Fault::kSlowDown503 && retry_after_.load() >= 0) {
    extra = "Retry-After: " + std::to_string(retry_after_.load()) + "\r\n";
  }
  // A HEAD's reply carries no body, but its length all the same.
  bool head_request = head.compare(0, 5, "HEAD ") == 0;
  std::string reply = "HTTP/1.1 " + status + "\r\nContent-Type: application/xml\r\n" +
                      "Content-Length: " + std::to_string(body.size()) +
                      "\r\nConnection: close\r\n" + extra + "\r\n" + (head_request ? "" : body);
  WriteAll(client, reply.data(), reply.size());
  shutdown(client, SHUT_RDWR);
}

}  // namespace tierfs::testing
