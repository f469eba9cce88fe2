// S3ClientOptions: where an S3Client sends its requests, with which credentials,
// and how long it waits and retries. Plain value type; the defaults suit a store
// on the local network or the same machine.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "fs/objstore/s3_credentials.h"

namespace tierfs {

// How a request names its bucket.
//  kPath     ENDPOINT/BUCKET/KEY: needs no DNS name per bucket (RGW, MinIO, and
//            AWS too, which still accepts it for existing buckets).
//  kVirtual  SCHEME://BUCKET.HOST[:PORT]/KEY (virtual-hosted): what AWS prefers;
//            BUCKET.HOST must resolve, and over HTTPS the store's certificate
//            must cover it (a bucket name with '.' is not covered by *.HOST).
enum class S3Addressing { kPath, kVirtual };

// "path" or "virtual".
const char* S3AddressingName(S3Addressing addressing);
// The addressing named `name` ("path" or "virtual"); EINVAL naming it otherwise.
Result<S3Addressing> ParseS3Addressing(const std::string& name);

// EINVAL unless `region` is 1-64 of a-z 0-9 - (us-east-1, eu-west-1; RGW's
// zone group names such as "default" pass too).
Status CheckS3Region(const std::string& region);

struct S3ClientOptions {
  // "http://HOST:PORT" or "https://HOST[:PORT]" (s3_names.h NormalizeEndpoint).
  std::string endpoint;
  // The region in the signature's scope. RGW and MinIO accept any; AWS wants the
  // bucket's own, and a call signed for another fails with an error that names
  // the bucket's (S3Client's EACCES "the bucket lives in REGION").
  std::string region = "us-east-1";
  S3Addressing addressing = S3Addressing::kPath;
  S3Credentials credentials;
  // HTTPS: a PEM file of the CA certificates that the store's certificate must
  // verify against, instead of the system's (a private CA); "" for the
  // system's. The certificate is always verified, its name included: a store
  // whose certificate does not verify is refused (EACCES), never reached
  // unverified.
  std::string ca_file;
  // Redirects (301/302/307/308 with a Location) followed per request, each to
  // the place given, with the request signed again for it; an HTTPS request is
  // never redirected to plain HTTP. Beyond this many, EPROTO.
  int max_redirects = 3;

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
