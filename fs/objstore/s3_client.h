// S3Client: the operations tierfs needs on an S3-compatible object store (Ceph's
// RADOS Gateway, MinIO, AWS S3): objects put from and read into file
// descriptors or buffers, their metadata, listings, multipart uploads, buckets.
// The object volume keeps one object per file here.
//
// Every call is bounded in time: a connect timeout, a stall timeout and a bound
// on the whole call. Failures that may pass are retried with exponential
// backoff and full jitter (S3ClientOptions): those of a store that answers
// (5xx, SlowDown, a reset connection) for a time budget, those of a store that
// does not (refused, no DNS, timeouts) a number of times; a Retry-After is
// honoured. A RequestTimeTooSkewed is retried at once, signed at the time of the
// store's Date (the offset is kept for later calls). Every error is a Status
// with a POSIX errno (s3_errors.h has the whole mapping, and ClassifyS3Errno
// what each says of the store) and a message naming the operation, the bucket
// and key, and what the store or the network said:
//   ENOENT        no such key, bucket or upload
//   EACCES        a bad access key or secret, a clock skew the retry did not
//                 fix, or a request the credentials may not make; a bucket in
//                 another region than the one signed for (the message names
//                 it: "the bucket lives in eu-west-1: add it with --region
//                 eu-west-1"); an HTTPS store whose certificate does not
//                 verify (the message names the endpoint and the CAs used)
//   ENOSPC        the store is full or over its quota
//   EINVAL        a name or argument the client or the store refuses
//   ECONNREFUSED  no connection could be made to the store, on every attempt
//   EHOSTUNREACH  the store's name does not resolve, on every attempt
//   EIO           the connection broke, or a 5xx, through the whole retry
//                 budget; an uploaded body the store refused (BadDigest) or
//                 whose ETag differs from its MD5
//   ETIMEDOUT     the call's time ran out, or the store stalled, on the last attempt
//   EAGAIN        the store said SlowDown (429/503) through the whole retry budget
//   EPROTO        a reply that is not what S3 sends; more redirects than
//                 S3ClientOptions::max_redirects, or one from https to http
//   others        from the file descriptor a body is read from or written to
// No message ever contains the secret key or the session token.
//
// Addressing, region, TLS and redirects follow S3ClientOptions: path-style or
// virtual-hosted URLs (signed for the host they name), the region of the
// signature's scope, the store's certificate verified against the system's or
// a given CA file, and a redirect to another endpoint followed for the request
// at hand (never remembered, so that a later request starts at the endpoint).
//
// Sizes and offsets are bytes. Names: buckets DNS-style (3-63 of a-z 0-9 . -),
// keys up to 1024 bytes, metadata names of a-z 0-9 - _ (s3_names.h).
//
// Thread-safe: calls from many threads run at once, each on a connection of its
// own (reused by later calls). A call blocks its thread until it ends.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "fs/objstore/s3_client_options.h"
#include "fs/objstore/s3_client_stats.h"
#include "fs/objstore/s3_http.h"
#include "fs/objstore/s3_types.h"

namespace tierfs {

class S3ResponseSink;

class S3Client {
 public:
  // `length` of GetObjectToFd meaning "to the end of the object".
  static constexpr uint64_t kToEnd = UINT64_MAX;

  // A client for `options.endpoint`. EINVAL when the endpoint is not
  // http[s]://HOST[:PORT] (or, with virtual-hosted addressing, its HOST is an
  // IP address), a timeout is not positive, max_attempts < 1, max_redirects
  // < 0, a key is empty, or the region is not 1-64 of a-z 0-9 -; ENOENT,
  // EACCES or EINVAL when ca_file is given and is not a readable regular file. Sends nothing (HeadBucket checks that the store answers).
  static Result<std::unique_ptr<S3Client>> Create(S3ClientOptions options);

  // --- Buckets (setup and tests; an object volume's bucket exists before it) ---
  // EEXIST when the bucket exists (also when this user owns it). Made in the
  // options' region: outside us-east-1 the request names it as its
  // LocationConstraint, as AWS wants.
  Status CreateBucket(const std::string& bucket);
  // ENOTEMPTY while it holds objects or uploads; ENOENT when missing.
  Status DeleteBucket(const std::string& bucket);
  // Whether the bucket exists and these credentials reach it: OK, ENOENT,
  // EACCES, or the network's error. The cheapest probe of a store's health.
  // EACCES too when the reply names the bucket's region (x-amz-bucket-region)
  // and it is not the options' region, also from a store that answered 200.
  Status HeadBucket(const std::string& bucket);
  // The bucket's versioning state: "Enabled", "Suspended", or "" when it was
  // never turned on. A versioned bucket keeps every replaced or deleted object
  // as an old version that listings do not show. ENOENT, EACCES as HeadBucket.
  Result<std::string> GetBucketVersioning(const std::string& bucket);

  // --- Objects ---
  // Stores bytes [offset, offset + length) of `fd` (read with pread, streamed,
  // never held whole in memory; the fd's file offset is unchanged) as
  // bucket/key with user `metadata`, replacing any object of that name (S3
  // has no partial write). Up to 5 GiB (UploadObject in object_upload.h takes
  // larger ones). Returns the ETag. The range is read twice: once to hash it
  // (its MD5 goes as Content-MD5, which the store checks: a body damaged on the
  // way is refused, retried, and EIO when it never passes), once to send it.
  // The ETag the store returns is compared with that MD5 when it is one (not
  // for SSE-KMS or SSE-C; EIO when they differ). Errors of reading `fd` (EIO,
  // EBADF) are returned as they are, and also EIO when the file ends before
  // offset + length.
  Result<std::string> PutObject(const std::string& bucket, const std::string& key, int fd,
                                uint64_t offset, uint64_t length, const S3Metadata& metadata);

  // Reads up to `length` bytes from `offset` of the object into `buf`, like
  // pread(2): the count read, less than `length` only when the object ends
  // first, 0 when `offset` is at or past its end (S3's 416). A `length` of 0
  // reads nothing and sends nothing. ENOENT when the object or bucket is
  // missing; EPROTO when the store ignored the range (a 200 for a range that
  // does not start at 0).
  Result<size_t> GetObject(const std::string& bucket, const std::string& key, uint64_t offset,
                           size_t length, void* buf);

  // The same into `fd` at `fd_offset` (pwrite; the fd's file offset is
  // unchanged), streamed: `length` may be kToEnd. Returns the bytes written.
  // Errors of writing `fd` (ENOSPC, EIO) are returned as they are. A retry
  // writes the range again from its start.
  Result<uint64_t> GetObjectToFd(const std::string& bucket, const std::string& key,
                                 uint64_t offset, uint64_t length, int fd, uint64_t fd_offset);

  // Size, ETag, time and user metadata of an object; ENOENT when missing (a
  // HEAD reply has no body: a missing bucket is ENOENT too).
  Result<S3ObjectInfo> HeadObject(const std::string& bucket, const std::string& key);

  // Removes the object. Removing a missing object succeeds (S3 answers 204),
  // so a retried delete is harmless; ENOENT only for a missing bucket.
  Status DeleteObject(const std::string& bucket, const std::string& key);

  // One page of ListObjectsV2: keys starting with `prefix` ("" for all), in key
  // order, at most `max_keys` (1..1000), from `continuation_token` ("" for the
  // first page; then the previous page's next_continuation_token, "" when the
  // listing is done).
  Result<S3ObjectPage> ListObjects(const std::string& bucket, const std::string& prefix,
                                   const std::string& continuation_token, int max_keys = 1000);

  // --- Multipart uploads: for objects over a few tens of MiB, in parts of
  // 5 MiB to 5 GiB (the last may be smaller), at most 10000 parts ---
  // Begins an upload of bucket/key with `metadata`: its upload id. A retried
  // request may leave a second, unused upload: ListMultipartUploads finds it.
  Result<std::string> CreateMultipartUpload(const std::string& bucket, const std::string& key,
                                            const S3Metadata& metadata);
  // Uploads part `part_number` (1..10000) from bytes [offset, offset + length)
  // of `fd`, streamed as PutObject does (Content-MD5 sent, the MD5 checked
  // against the part's ETag).
  // Returns the part's ETag. ENOENT when the upload is gone (aborted).
  Result<std::string> UploadPart(const std::string& bucket, const std::string& key,
                                 const std::string& upload_id, int part_number, int fd,
                                 uint64_t offset, uint64_t length);
  // Joins the parts (in part-number order) into the object: its ETag
  // ("MD5-<parts>"; "" when the store reports none, even to a HEAD). EINVAL
  // for a missing, mismatched or too small part (RGW also refuses a list that
  // leaves out a part it holds). A retry after the store has completed the
  // upload (its first reply lost) finds the object in place and succeeds. When
  // every part's ETag is an MD5, the object's ETag (from the reply, or a HEAD
  // when the reply has none) must be MultipartEtag of them (s3_digest.h): EIO
  // when it has that shape and differs (not compared for SSE-KMS or SSE-C).
  Result<std::string> CompleteMultipartUpload(const std::string& bucket, const std::string& key,
                                              const std::string& upload_id,
                                              const std::vector<S3CompletedPart>& parts);
  // Drops the upload and its parts. ENOENT when it is gone already.
  Status AbortMultipartUpload(const std::string& bucket, const std::string& key,
                              const std::string& upload_id);
  // Every upload in progress whose key starts with `prefix`, all pages: the
  // orphans a crash left, for `tierfs check` to abort.
  Result<std::vector<S3MultipartUpload>> ListMultipartUploads(const std::string& bucket,
                                                              const std::string& prefix);

  const S3ClientOptions& options() const { return options_; }

  // Replies received from the store so far, whatever their HTTP status: a
  // store that answers anything is reachable, however slow its other replies
  // (the object volume's health tells a busy store from a dead one by it).
  uint64_t replies() const { return replies_.load(std::memory_order_relaxed); }

  // What this client's calls cost so far: requests per operation, their
  // latency, errors and the bytes moved (S3ClientStats).
  const S3ClientStats& stats() const { return stats_; }

  // Seconds added to this machine's clock to sign requests: the options'
  // clock_offset_seconds until the store says RequestTimeTooSkewed, then the
  // store's Date minus this machine's time.
  int64_t clock_offset_seconds() const { return clock_offset_.load(); }

 private:
  explicit S3Client(S3ClientOptions options);

  // Sends `request` with retries (S3ClientOptions) until a reply with a status
  // in [200, 300) or `also_ok`, or an error that will not pass, or the bound,
  // and counts the call as one of `op` in stats(). `what` ("PUT
  // s3://bucket/key") starts every error message. *attempts (when given)
  // receives the number of attempts made.
  Result<S3HttpResult> Perform(S3Op op, const std::string& what, const S3HttpRequest& request,
                               S3ResponseSink* sink, long also_ok = 0, int* attempts = nullptr);
  // Perform's attempts, the first started at `start`; *attempts receives their number.
  Result<S3HttpResult> Attempt(const std::string& what, const S3HttpRequest& request,
                               S3ResponseSink* sink, long also_ok,
                               std::chrono::steady_clock::time_point start, int* attempts);
  std::string Url(const std::string& bucket, const std::string& key,
                  const std::map<std::string, std::string>& query = {}) const;
  Result<std::string> PutFromFd(S3Op op, const std::string& what, S3HttpRequest request);
  // From the Date of `reply` (a RequestTimeTooSkewed, or a HEAD's 403): the
  // store's time minus this machine's, kept for the requests that follow when
  // it differs from the offset in use by `at_least` seconds (and at least 1).
  // Whether it changed (and a new attempt may then pass).
  bool CorrectClock(const S3HttpResult& reply, int64_t at_least);
  // A request on `bucket` itself (`method` PUT, DELETE or HEAD), named `what`
  // in errors; its reply's body is not needed.
  Status BucketRequest(S3Op op, const char* method, const std::string& what,
                       const std::string& bucket);

  const S3ClientOptions options_;
  S3Http http_;
  std::atomic<uint64_t> replies_{0};
  // Seconds: signing time minus this machine's time (CorrectClock).
  std::atomic<int64_t> clock_offset_;
  S3ClientStats stats_;
};

}  // namespace tierfs
