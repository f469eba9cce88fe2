// S3ClientStats: what an S3Client counts of its calls (requests, errors,
// bytes, latency), for the metrics of each object volume (docs/admin.md,
// "Monitoring").
//
// A call is one S3Client operation (PutObject, GetObject...), however many
// HTTP attempts its retries took; its latency runs from the first attempt's
// start to the call's end, backoff pauses included: what the caller waited.
// Bytes are body bytes that crossed the network, every attempt's (a retried
// upload counts twice, as the network carried it twice).
//
// Counting is relaxed atomic adds into fixed arrays (no lock, no allocation),
// so that reads served from a store pay next to nothing. Thread-safe.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>

namespace tierfs {

// The S3 operations, as the metrics label "op" names them (S3OpName).
enum class S3Op : uint8_t {
  kHeadBucket, kCreateBucket, kDeleteBucket, kPutObject, kGetObject, kHeadObject,
  kDeleteObject, kListObjects, kCreateMultipartUpload, kUploadPart,
  kCompleteMultipartUpload, kAbortMultipartUpload, kListMultipartUploads,
  kGetBucketVersioning,
  kCount  // not an operation: the number of them
};

// "head_bucket", "put_object", "upload_part"...: snake case of the S3 action.
std::string_view S3OpName(S3Op op);

// The errors a call is counted under (S3ErrorKind), the errnos of s3_client.h
// by what they tell an administrator; "other" for the rest.
enum class S3ErrorKind : uint8_t {
  kNotFound,     // ENOENT: no such key, bucket or upload
  kDenied,       // EACCES: credentials refused
  kNoSpace,      // ENOSPC: store full or over quota
  kTimeout,      // ETIMEDOUT: the store stalled or the call's bound ran out
  kUnreachable,  // ECONNREFUSED, EHOSTUNREACH, ENETUNREACH: no connection; EIO: a
                 // broken one, 5xx through the retry budget (ClassifyS3Errno
                 // tells these apart)
  kSlowDown,     // EAGAIN: the store asked to slow down on every attempt
  kOther,        // EINVAL, EPROTO, a local file's error...
  kCount
};
std::string_view S3ErrorKindName(S3ErrorKind kind);
S3ErrorKind S3ErrorKindOf(int errno_value);

class S3ClientStats {
 public:
  // Upper bounds of the latency histogram's buckets, seconds (+Inf implicit):
  // 1 ms (a HEAD on the same machine) to 60 s (a 5 GiB part on a slow link).
  static constexpr std::array<double, 14> kLatencyBounds = {
      0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60};

  // One call of `op` that ended after `seconds` with `attempts` HTTP attempts
  // (>= 1), and `errno_value` 0 on success or the errno it returned.
  void RecordCall(S3Op op, double seconds, int attempts, int errno_value);
  // A call of `op` counted by RecordCall as a success that its caller then
  // found failed (an uploaded body whose ETag is not its MD5): one more error.
  void RecordError(S3Op op, int errno_value);
  // Body bytes one attempt sent and received.
  void RecordBytes(uint64_t sent, uint64_t received);

  // ---- Reading them (the exporter, at scrape time) ----
  struct Calls {
    uint64_t count = 0;
    uint64_t attempts = 0;  // HTTP attempts, retries included (>= count)
    double seconds_sum = 0;
    std::array<uint64_t, kLatencyBounds.size()> buckets{};  // not cumulative
    std::array<uint64_t, static_cast<size_t>(S3ErrorKind::kCount)> errors{};
    // Adds `other`'s counts (an object volume sums its two clients).
    void Add(const Calls& other);
  };
  Calls CallsOf(S3Op op) const;
  uint64_t SentBytes() const { return sent_bytes_.load(std::memory_order_relaxed); }
  uint64_t ReceivedBytes() const { return received_bytes_.load(std::memory_order_relaxed); }

 private:
  struct OpCounters {
    std::atomic<uint64_t> count{0};
    std::atomic<uint64_t> attempts{0};
    std::atomic<uint64_t> nanos_sum{0};
    std::array<std::atomic<uint64_t>, kLatencyBounds.size()> buckets{};
    std::array<std::atomic<uint64_t>, static_cast<size_t>(S3ErrorKind::kCount)> errors{};
  };
  std::array<OpCounters, static_cast<size_t>(S3Op::kCount)> ops_{};
  std::atomic<uint64_t> sent_bytes_{0};
  std::atomic<uint64_t> received_bytes_{0};
};

}  // namespace tierfs
