// MotoServer: moto's standalone S3 server (PyPI "moto[server]"), a second S3
// implementation that behaves like AWS where RGW does not: buckets in regions
// (a HEAD names the bucket's in x-amz-bucket-region), virtual-hosted
// addressing (Host: BUCKET.localhost:PORT), session tokens. Started on a free
// loopback port from the tests' Python virtual environment
// (scripts/test-venv.sh installs it), bounded in time, and stopped by its pid
// (it is also sent SIGTERM when the test binary dies: PR_SET_PDEATHSIG).
//
// Not thread-safe: one test thread drives it.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "common/status.h"

namespace tierfs::testing {

class MotoServer {
 public:
  // Where moto_server is looked for: $TIERFS_MOTO_SERVER, else
  // $TIERFS_TEST_VENV/bin/moto_server, else
  // $HOME/.cache/tierfs-test-venv/bin/moto_server. "" when none is executable.
  static std::string FindBinary();

  // Starts moto_server and waits (at most 30 s) until it answers HTTP. ENOENT
  // when it is not installed (the message says how to install it), EIO with
  // the tail of its log when it exits or does not answer in time.
  static Result<std::unique_ptr<MotoServer>> Start();

  // Stops the server (Stop()) if still running.
  ~MotoServer();
  MotoServer(const MotoServer&) = delete;
  MotoServer& operator=(const MotoServer&) = delete;

  // SIGTERM, SIGKILL after 5 s, and waits for it; removes its directory.
  Status Stop();

  int port() const { return port_; }
  // "http://127.0.0.1:PORT" (path-style requests) and "http://localhost:PORT"
  // (virtual-hosted: BUCKET.localhost, which curl resolves to loopback).
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string localhost_endpoint() const {
    return "http://localhost:" + std::to_string(port_);
  }
  const std::string& dir() const { return dir_; }
  // What the server logged (one line per request): the tests look there for
  // what was sent.
  std::string Log() const;

 private:
  MotoServer() = default;
  pid_t pid_ = -1;
  int port_ = 0;
  std::string dir_;
};

}  // namespace tierfs::testing
