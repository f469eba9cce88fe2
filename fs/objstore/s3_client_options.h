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
  // Attempts per call, the first included, for failures that say nothing
  // answers or answers in time: a connection refused, a name that does not
  // resolve, a timeout. (A store that answers is retried for
  // retry_budget_seconds instead.)
  int max_attempts = 4;
  // How long a call keeps retrying failures of a store that answers but is busy
  // or failing for a moment: 5xx, 429/503 SlowDown, a connection reset or cut
  // mid-reply, a body damaged on the way (BadDigest). Attempts go on, however
  // many, until this many seconds have passed since the call began, and never
  // past request_timeout_seconds: a store that sheds load for a minute is
  // waited for rather than given up on within a second.
  double retry_budget_seconds = 300;
  // The pause before the second attempt is at most this; the bound doubles for
  // each later one up to backoff_max_seconds, and each pause is drawn at random
  // from [0, bound] (full jitter, so that many clients do not retry in step). A
  // Retry-After header asks for a longer pause and gets it (within the bounds
  // above).
  double backoff_initial_seconds = 0.1;
  double backoff_max_seconds = 2;

  // Seconds to add to this machine's clock when signing, at the start: 0 but
  // in tests that play a machine with a wrong clock. The client corrects it
  // itself from the store's Date when the store answers RequestTimeTooSkewed.
  int64_t clock_offset_seconds = 0;

  // Called from the calling thread as bytes move, with the bytes sent and
  // received so far by the current attempt (both restart at 0 on a retry):
  // for progress reports and metrics, and for tests that act mid-transfer. It
  // must not call back into the client.
  std::function<void(uint64_t sent, uint64_t received)> progress;
};

}  // namespace tierfs
