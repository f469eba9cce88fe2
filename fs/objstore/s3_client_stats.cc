#include "fs/objstore/s3_client_stats.h"

#include <algorithm>
#include <cerrno>

namespace tierfs {

std::string_view S3OpName(S3Op op) {
  static constexpr std::array<std::string_view, static_cast<size_t>(S3Op::kCount)> kNames = {
      "head_bucket",    "create_bucket", "delete_bucket",
      "put_object",     "get_object",    "head_object",
      "delete_object",  "list_objects",  "create_multipart_upload",
      "upload_part",    "complete_multipart_upload", "abort_multipart_upload",
      "list_multipart_uploads", "get_bucket_versioning"};
  return kNames[static_cast<size_t>(op)];
}

std::string_view S3ErrorKindName(S3ErrorKind kind) {
  static constexpr std::array<std::string_view, static_cast<size_t>(S3ErrorKind::kCount)>
      kNames = {"not_found", "denied", "no_space", "timeout", "unreachable", "slow_down", "other"};
  return kNames[static_cast<size_t>(kind)];
}

S3ErrorKind S3ErrorKindOf(int errno_value) {
  switch (errno_value) {
    case ENOENT: return S3ErrorKind::kNotFound;
    case EACCES: return S3ErrorKind::kDenied;
    case ENOSPC: return S3ErrorKind::kNoSpace;
    case ETIMEDOUT: return S3ErrorKind::kTimeout;
    case EIO:
    case ECONNREFUSED:
    case EHOSTUNREACH:
    case ENETUNREACH: return S3ErrorKind::kUnreachable;
    case EAGAIN: return S3ErrorKind::kSlowDown;
    default: return S3ErrorKind::kOther;
  }
}

void S3ClientStats::RecordCall(S3Op op, double seconds, int attempts, int errno_value) {
  OpCounters& c = ops_[static_cast<size_t>(op)];
  c.count.fetch_add(1, std::memory_order_relaxed);
  c.attempts.fetch_add(static_cast<uint64_t>(std::max(attempts, 1)), std::memory_order_relaxed);
  c.nanos_sum.fetch_add(static_cast<uint64_t>(std::max(seconds, 0.0) * 1e9),
                        std::memory_order_relaxed);
  const auto* bound = std::lower_bound(kLatencyBounds.begin(), kLatencyBounds.end(), seconds);
  if (bound != kLatencyBounds.end()) {
    c.buckets[static_cast<size_t>(bound - kLatencyBounds.begin())].fetch_add(
        1, std::memory_order_relaxed);
  }
  if (errno_value != 0) {
    c.errors[static_cast<size_t>(S3ErrorKindOf(errno_value))].fetch_add(
        1, std::memory_order_relaxed);
  }
}

void S3ClientStats::RecordError(S3Op op, int errno_value) {
  ops_[static_cast<size_t>(op)].errors[static_cast<size_t>(S3ErrorKindOf(errno_value))].fetch_add(
      1, std::memory_order_relaxed);
}

void S3ClientStats::RecordBytes(uint64_t sent, uint64_t received) {
  sent_bytes_.fetch_add(sent, std::memory_order_relaxed);
  received_bytes_.fetch_add(received, std::memory_order_relaxed);
}

S3ClientStats::Calls S3ClientStats::CallsOf(S3Op op) const {
  const OpCounters& c = ops_[static_cast<size_t>(op)];
  Calls out;
  out.count = c.count.load(std::memory_order_relaxed);
  out.attempts = c.attempts.load(std::memory_order_relaxed);
  out.seconds_sum = static_cast<double>(c.nanos_sum.load(std::memory_order_relaxed)) / 1e9;
  for (size_t i = 0; i < out.buckets.size(); ++i) {
    out.buckets[i] = c.buckets[i].load(std::memory_order_relaxed);
  }
  for (size_t i = 0; i < out.errors.size(); ++i) {
    out.errors[i] = c.errors[i].load(std::memory_order_relaxed);
  }
  return out;
}

void S3ClientStats::Calls::Add(const Calls& other) {
  count += other.count;
  attempts += other.attempts;
  seconds_sum += other.seconds_sum;
  for (size_t i = 0; i < buckets.size(); ++i) buckets[i] += other.buckets[i];
  for (size_t i = 0; i < errors.size(); ++i) errors[i] += other.errors[i];
}

}  // namespace tierfs
