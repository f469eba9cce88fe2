// S3Http: one HTTP exchange with an S3 endpoint through libcurl, signed with AWS
// Signature V4 by libcurl itself (CURLOPT_AWS_SIGV4, curl >= 7.75), with no
// retry (S3Client retries). Internal to fs/objstore.
//
// Payload signing: a body held in memory (an XML request, nothing at all) is
// signed, its SHA-256 sent as x-amz-content-sha256; a body streamed from a file
// descriptor is sent as UNSIGNED-PAYLOAD. S3Client sends its MD5 as Content-MD5
// instead (computed by a first pass over the file), so the store refuses a body
// damaged on the way (BadDigest); its MD5 is also computed again while it
// streams (sent_md5), which S3Client compares with the ETag the store returns.
//
// The signing time: libcurl's clock, unless the exchange is given a clock
// offset; then an x-amz-date header of this machine's time plus the offset,
// which libcurl (>= 7.75 here; checked with 7.88) signs with instead. (libcurl
// 7.88 then sends that x-amz-date line twice with one value; RGW takes it.)
//
// HTTPS: the store's certificate is verified against S3ClientOptions::ca_file
// when given, else the system's CAs; redirects are not followed here.
//
// Easy handles (each with its connection cache) are pooled and reused, so
// consecutive requests keep their TCP connection. Thread-safe: each exchange
// takes a handle of its own.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/mutex.h"
#include "fs/objstore/s3_client_options.h"

typedef void CURL;

namespace tierfs {

struct S3HttpRequest {
  std::string method;                // GET, HEAD, PUT, POST, DELETE
  std::string url;                   // endpoint + ObjectPath + ["?" + CanonicalQuery]
  std::vector<std::string> headers;  // "Name: value"; x-amz-content-sha256 is added
  std::string body;                  // a small body, signed (ignored with body_fd)
  int body_fd = -1;                  // else a body streamed from this fd ...
  uint64_t body_offset = 0;          // ... from this offset (pread: the fd's offset stays)
  uint64_t body_length = 0;          // ... of this many bytes
  std::string range;                 // "FIRST-LAST" or "FIRST-" (bytes), "" for all
  std::string content_md5;           // base64 MD5 of the body, sent as Content-MD5; "" for none
  std::string content_md5_hex;       // the same in hex (not sent: S3Client compares)
};

// Where a successful (2xx) reply's body goes, when not into S3HttpResult::text.
class S3ResponseSink {
 public:
  virtual ~S3ResponseSink() = default;
  // Takes the next `n` bytes: 0, or an errno (the exchange then ends with it
  // as local_errno and `*what` says what failed).
  virtual int Write(const char* data, size_t n, std::string* what) = 0;
  // Forgets what was written: a retry sends the whole body again.
  virtual void Rewind() = 0;
};

struct S3HttpResult {
  int curl_code = 0;            // a CURLcode; 0 when the exchange completed
  std::string curl_error;       // curl's message ("Failed to connect to ...")
  int local_errno = 0;          // the body's fd or the sink failed
  std::string local_error;
  long status = 0;              // HTTP status of the final reply
  std::map<std::string, std::string> headers;  // of the final reply, names lower case
  std::string text;             // the body when no sink took it (errors, XML), <= 16 MiB
  std::string sent_md5;         // hex MD5 of a body streamed from body_fd
  uint64_t bytes_sent = 0;      // body bytes sent and received (curl's count),
  uint64_t bytes_received = 0;  // also when the exchange failed part way
};

class S3Http {
 public:
  // `options.endpoint` must be normalized (s3_names.h NormalizeEndpoint).
  explicit S3Http(const S3ClientOptions& options);
  ~S3Http();
  S3Http(const S3Http&) = delete;
  S3Http& operator=(const S3Http&) = delete;

  // Sends `request` and waits for the whole reply, at most `timeout_seconds`
  // (> 0). A 2xx body goes to `sink` when given, else to text. The request is
  // signed at this machine's time plus `clock_offset_seconds` (0: libcurl's
  // own clock).
  S3HttpResult Exchange(const S3HttpRequest& request, S3ResponseSink* sink,
                        double timeout_seconds, int64_t clock_offset_seconds = 0);

 private:
  CURL* AcquireHandle() EXCLUDES(mu_);
  void ReleaseHandle(CURL* handle) EXCLUDES(mu_);

  const S3ClientOptions options_;
  const std::string sigv4_;  // "aws:amz:REGION:s3"
  Mutex mu_;
  std::vector<CURL*> idle_ GUARDED_BY(mu_);
};

}  // namespace tierfs
