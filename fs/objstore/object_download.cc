#include "fs/objstore/object_download.h"

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace tierfs {

Result<uint64_t> DownloadObject(S3Client& client, const std::string& bucket,
                                const std::string& key, uint64_t size, int fd,
                                const DownloadOptions& options) {
  const std::string what = "download of s3://" + bucket + "/" + key;
  if (options.range_bytes == 0) return Status::Invalid(what + ": range size 0");
  if (options.parallel < 1 || options.parallel > 16) {
    return Status::Invalid(what + ": " + std::to_string(options.parallel) +
                           " ranges in flight (1..16)");
  }
  if (size == 0) return uint64_t{0};
  const uint64_t ranges = (size + options.range_bytes - 1) / options.range_bytes;
  std::atomic<uint64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mu;
  Status first_error;
  auto fail = [&](Status st) {
    std::lock_guard<std::mutex> lock(mu);
    if (first_error.ok()) first_error = std::move(st);
    failed.store(true);
  };
  auto worker = [&] {
    for (uint64_t r = next.fetch_add(1); r < ranges && !failed.load(); r = next.fetch_add(1)) {
      const uint64_t offset = r * options.range_bytes;
      const uint64_t length = std::min(options.range_bytes, size - offset);
      Status last;
      bool done = false;
      for (int call = 0; call < options.range_calls && !done && !failed.load(); ++call) {
        Result<uint64_t> got = client.GetObjectToFd(bucket, key, offset, length, fd, offset);
        if (got.ok() && *got == length) {
          done = true;
        } else if (got.ok()) {
          // The object ends before the HEAD said: it is not the same object.
          fail(Status::Error(EPROTO, what + ": the range at " + std::to_string(offset) +
                                         " brought " + std::to_string(*got) + " of " +
                                         std::to_string(length) + " bytes"));
          return;
        } else {
          last = got.status();
          // What the store refuses for this key will not pass by asking again.
          if (last.code() == ENOENT || last.code() == EACCES || last.code() == EPROTO ||
              last.code() == ENOSPC || last.code() == EINVAL) {
            break;
          }
        }
      }
      if (!done) {
        if (!last.ok()) fail(last);
        return;
      }
    }
  };
  const int threads = static_cast<int>(std::min<uint64_t>(ranges, options.parallel));
  std::vector<std::thread> helpers;
  for (int i = 1; i < threads; ++i) helpers.emplace_back(worker);
  worker();
  for (std::thread& t : helpers) t.join();
  if (!first_error.ok()) return first_error;
  return size;
}

}  // namespace tierfs
