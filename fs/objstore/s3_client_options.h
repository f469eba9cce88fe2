// S3ClientOptions: where an S3Client sends its requests, with which credentials,
// and how long it waits and retries. Plain value type; the defaults suit a store
// on the local network or the same machine.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "fs/objstore/s3_credentials.h"

namespace tierfs {

struct S3ClientOptions {
  // "http://HOST:PORT" or "https://HOST[:PORT]"; requests use path-style
  // addressing (ENDPOINT/BUCKET/KEY), which needs no DNS name per bucket.
  std::string endpoint;
  // The region in the signature's scope. RGW and MinIO accept any; AWS wants the
  // bucket's own.
  std::string region = "us-east-1";
  S3Credentials credentials;

  // Time to set up a TCP (and TLS) connection before the attempt fails.
  double connect_timeout_seconds = 5;
  // An attempt that moves no byte for this long fails (a hung store, a dead
  // peer behind a live TCP connection): whole seconds, rounded up.
  double stall_timeout_seconds = 30;
  // The bound on one call: all its attempts and the pauses between them. A
  // call still failing then returns the last attempt's error (ETIMEDOUT when
  // the time ran out inside an attempt).
  double request_timeout_seconds = 300;
  // Attempts per call, the first included, for failures that may pass (a
  // connection refused or reset, a timeout, 5xx, 429/503 SlowDown).
  int max_attempts = 4;
  // The pause before the second attempt; it doubles for each later one up to
  // backoff_max_seconds, and each pause is drawn at random from its upper half
  // (jitter, so that many clients do not retry in step).
  double backoff_initial_seconds = 0.1;
  double backoff_max_seconds = 2;

  // Called from the calling thread as bytes move, with the bytes sent and
  // received so far by the current attempt (both restart at 0 on a retry):
  // for progress reports and metrics, and for tests that act mid-transfer. It
  // must not call back into the client.
  std::function<void(uint64_t sent, uint64_t received)> progress;
};

}  // namespace tierfs
