#include "tests/objstore/rgw/flaky_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

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
    }
  }
  if (fail) {
    ++failed_;
    Fail(client, fault);
    return;  // the fd stays in open_fds_ (shut down, not closed) until the end
  }
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
  // Both directions until either side closes.
  char buf[65536];
  pollfd fds[2] = {{client, POLLIN, 0}, {upstream, POLLIN, 0}};
  while (!stopping_) {
    if (poll(fds, 2, 1000) < 0) break;
    bool done = false;
    for (int i = 0; i < 2 && !done; ++i) {
      if (fds[i].revents == 0) continue;
      ssize_t n = recv(fds[i].fd, buf, sizeof buf, 0);
      if (n <= 0 || !WriteAll(fds[1 - i].fd, buf, static_cast<size_t>(n))) done = true;
    }
    if (done) break;
  }
  shutdown(client, SHUT_RDWR);
  shutdown(upstream, SHUT_RDWR);
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
  std::string body, status;
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
  }
  // A HEAD's reply carries no body, but its length all the same.
  bool head_request = head.compare(0, 5, "HEAD ") == 0;
  std::string reply = "HTTP/1.1 " + status + "\r\nContent-Type: application/xml\r\n" +
                      "Content-Length: " + std::to_string(body.size()) +
                      "\r\nConnection: close\r\n\r\n" + (head_request ? "" : body);
  WriteAll(client, reply.data(), reply.size());
  shutdown(client, SHUT_RDWR);
}

}  // namespace tierfs::testing
