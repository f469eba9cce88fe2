// Free loopback ports for the services the tests start (a Ceph gateway and
// monitor, moto's server): the kernel's choice of an ephemeral port, bound and
// released. Another process may take it before the service binds it; callers
// that care try again. Thread-safe.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>

namespace tierfs::testing {

// Whether TCP `port` on 127.0.0.1 can be bound now (0 asks for any port); the
// port bound in *bound when given.
inline bool BindLoopback(int port, int* bound = nullptr) {
  int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  socklen_t len = sizeof addr;
  const bool ok = bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
                  getsockname(s, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
  if (ok && bound != nullptr) *bound = ntohs(addr.sin_port);
  close(s);
  return ok;
}

// A loopback port free now (an ephemeral one, above 32768), or 0.
inline int FreeLoopbackPort() {
  int port = 0;
  return BindLoopback(0, &port) ? port : 0;
}

}  // namespace tierfs::testing
