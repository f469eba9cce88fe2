#include "fs/objstore/s3_client.h"

#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>

#include "common/log.h"
#include "fs/objstore/backoff.h"
#include "fs/objstore/s3_digest.h"
#include "fs/objstore/s3_errors.h"
#include "fs/objstore/s3_names.h"
#include "fs/objstore/s3_xml.h"

namespace tierfs {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A 403 without an S3 code (a HEAD's) is taken for a clock skew when the
// store's Date is this far from the signing time, seconds. Stores refuse a
// skew of 15 minutes (AWS, RGW); a smaller one is corrected all the same, as
// signing at the store's time costs nothing.
constexpr int64_t kSkewSeconds = 60;

double UnitRandom() {
  thread_local std::minstd_rand rng(std::random_device{}());
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
}

// "SCHEME://HOST[:PORT]" of a URL: how messages name where a request went
// (never its query, which may carry an upload id).
std::string Origin(const std::string& url) {
  const size_t host = url.find("://");
  if (host == std::string::npos) return url;
  const size_t end = url.find_first_of("/?", host + 3);
  return end == std::string::npos ? url : url.substr(0, end);
}

// The URL a redirect's Location sends a request from `url` to: an absolute
// http[s] URL, or a path on the same origin. EINVAL for another form, and for
// one that would take an HTTPS request to plain HTTP (the signed request, and
// the body, in clear).
Result<std::string> RedirectTarget(const std::string& url, const std::string& location) {
  std::string to;
  if (location.rfind("http://", 0) == 0 || location.rfind("https://", 0) == 0) {
    to = location;
  } else if (!location.empty() && location[0] == '/') {
    to = Origin(url) + location;
  } else {
    return Status::Invalid("a Location that is neither an http[s] URL nor a path");
  }
  if (url.rfind("https://", 0) == 0 && to.rfind("https://", 0) != 0) {
    return Status::Invalid("from https to " + Origin(to));
  }
  return to;
}

std::string Describe(const std::string& bucket, const std::string& key) {
  return "s3://" + bucket + "/" + key;
}

std::string Attempts(int n, double seconds) {
  char buf[64];
  std::snprintf(buf, sizeof buf, " (%d attempt%s in %.1f s)", n, n == 1 ? "" : "s", seconds);
  return buf;
}

std::vector<std::string> MetadataHeaders(const S3Metadata& metadata) {
  std::vector<std::string> headers;
  for (const auto& [name, value] : metadata) headers.push_back("x-amz-meta-" + name + ": " + value);
  return headers;
}

// Into a caller's buffer: at most its length.
class BufferSink : public S3ResponseSink {
 public:
  BufferSink(void* buf, size_t capacity) : buf_(static_cast<char*>(buf)), capacity_(capacity) {}
  int Write(const char* data, size_t n, std::string* what) override {
    if (n > capacity_ - used_) {
      *what = "the store sent more bytes than the range asked for";
      return EPROTO;
    }
    std::memcpy(buf_ + used_, data, n);
    used_ += n;
    return 0;
  }
  void Rewind() override { used_ = 0; }
  size_t used() const { return used_; }

 private:
  char* buf_;
  size_t capacity_;
  size_t used_ = 0;
};

// Into a file descriptor from `start`, with pwrite.
class FdSink : public S3ResponseSink {
 public:
  FdSink(int fd, uint64_t start, uint64_t limit) : fd_(fd), start_(start), limit_(limit) {}
  int Write(const char* data, size_t n, std::string* what) override {
    if (n > limit_ - written_) {
      *what = "the store sent more bytes than the range asked for";
      return EPROTO;
    }
    while (n > 0) {
      ssize_t w = ::pwrite(fd_, data, n, static_cast<off_t>(start_ + written_));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        int err = w < 0 ? errno : EIO;
        *what = "write at offset " + std::to_string(start_ + written_) + ": " + std::strerror(err);
        return err;
      }
      data += w;
      n -= static_cast<size_t>(w);
      written_ += static_cast<uint64_t>(w);
    }
    return 0;
  }
  void Rewind() override { written_ = 0; }
  uint64_t written() const { return written_; }

 private:
  int fd_;
  uint64_t start_, limit_;
  uint64_t written_ = 0;
};

// A store that ignores Range answers 200 with the object from its first byte:
// right only when the range started there.
Status CheckRangeHonoured(const std::string& what, const S3HttpResult& r, uint64_t offset) {
  if (r.status == 200 && offset != 0) {
    return Status::Error(EPROTO, what + ": the store ignored the range (200, not 206)");
  }
  return Status::Ok();
}

std::string RangeHeader(uint64_t offset, uint64_t length) {
  if (length == S3Client::kToEnd || offset + length < offset) return std::to_string(offset) + "-";
  return std::to_string(offset) + "-" + std::to_string(offset + length - 1);
}

}  // namespace

Result<std::unique_ptr<S3Client>> S3Client::Create(S3ClientOptions options) {
  Result<std::string> endpoint = NormalizeEndpoint(options.endpoint);
  if (!endpoint.ok()) return endpoint.status();
  options.endpoint = *endpoint;
  if (!(options.connect_timeout_seconds > 0) || !(options.stall_timeout_seconds > 0) ||
      !(options.request_timeout_seconds > 0) || options.max_attempts < 1 ||
      options.backoff_initial_seconds < 0 || options.backoff_max_seconds < 0 ||
      options.retry_budget_seconds < 0) {
    return Status::Invalid("S3 client: timeouts must be positive and max_attempts at least 1");
  }
  if (options.credentials.access_key.empty() || options.credentials.secret_key.empty()) {
    return Status::Invalid("S3 client: empty access key or secret key");
  }
  if (Status st = CheckS3Region(options.region); !st.ok()) {
    return Status::Invalid("S3 client: " + st.message());
  }
  if (options.max_redirects < 0) return Status::Invalid("S3 client: max_redirects below 0");
  if (options.addressing == S3Addressing::kVirtual) {
    // BUCKET.HOST must be a name: BUCKET.127.0.0.1 names nothing.
    const size_t begin = options.endpoint.find("://") + 3;
    const std::string host =
        options.endpoint.substr(begin, options.endpoint.find(':', begin) - begin);
    if (host.empty() || host[0] == '[' ||
        host.find_first_not_of("0123456789.") == std::string::npos) {
      return Status::Invalid("S3 client: virtual-hosted addressing needs a host name in the "
                             "endpoint, not an address (" + options.endpoint + ")");
    }
  }
  if (!options.ca_file.empty()) {
    // Checked here so that a wrong path is told as such, not as a certificate
    // that does not verify at the first request.
    struct stat st;
    if (::stat(options.ca_file.c_str(), &st) != 0) {
      return Status::FromErrno("S3 client: CA file " + options.ca_file);
    }
    if (!S_ISREG(st.st_mode)) {
      return Status::Invalid("S3 client: CA file " + options.ca_file + " is not a regular file");
    }
    if (::access(options.ca_file.c_str(), R_OK) != 0) {
      return Status::FromErrno("S3 client: CA file " + options.ca_file);
    }
  }
  return std::unique_ptr<S3Client>(new S3Client(std::move(options)));
}

S3Client::S3Client(S3ClientOptions options)
    : options_(std::move(options)), http_(options_), clock_offset_(options_.clock_offset_seconds) {}

std::string S3Client::Url(const std::string& bucket, const std::string& key,
                          const std::map<std::string, std::string>& query) const {
  std::string url = RequestUrl(options_.endpoint, options_.addressing, bucket, key);
  if (!query.empty()) url += "?" + CanonicalQuery(query);
  return url;
}

Result<S3HttpResult> S3Client::Perform(S3Op op, const std::string& what,
                                       const S3HttpRequest& request, S3ResponseSink* sink,
                                       long also_ok, int* attempts) {
  const Clock::time_point start = Clock::now();
  int made = 0;
  Result<S3HttpResult> r = Attempt(what, request, sink, also_ok, start, &made);
  stats_.RecordCall(op, SecondsSince(start), made, r.ok() ? 0 : r.status().code());
  if (attempts != nullptr) *attempts = made;
  return r;
}

bool S3Client::CorrectClock(const S3HttpResult& reply, int64_t at_least) {
  auto date = reply.headers.find("date");
  if (date == reply.headers.end()) return false;
  int64_t store_now = HttpDateSeconds(date->second);
  if (store_now < 0) return false;
  int64_t offset = store_now - static_cast<int64_t>(time(nullptr));
  int64_t before = clock_offset_.load();
  if (std::llabs(offset - before) < std::max<int64_t>(at_least, 1)) return false;
  // The same offset as before would be signed the same way and refused again.
  if (clock_offset_.exchange(offset) == offset) return false;
  LogWarning("the S3 store at {} refused the time of a request ({} s from its own); signing "
             "at this machine's time {:+} s from now on",
             options_.endpoint, before - offset, offset);
  return true;
}

Result<S3HttpResult> S3Client::Attempt(const std::string& what, const S3HttpRequest& request,
                                       S3ResponseSink* sink, long also_ok,
                                       Clock::time_point start, int* attempts) {
  auto after = [start](double seconds) {
    return start + std::chrono::duration_cast<Clock::duration>(
                       std::chrono::duration<double>(seconds));
  };
  const Clock::time_point deadline = after(options_.request_timeout_seconds);
  const Clock::time_point budget_end =
      after(std::min(options_.retry_budget_seconds, options_.request_timeout_seconds));
  Status last;
  int attempt = 0;
  int counted = 0;  // attempts that count against max_attempts
  bool clock_corrected = false;
  // The request as sent: its URL changes when the store redirects it.
  S3HttpRequest current = request;
  int redirects = 0;
  for (;;) {
    *attempts = ++attempt;
    double remaining = std::chrono::duration<double>(deadline - Clock::now()).count();
    if (sink != nullptr) sink->Rewind();
    S3HttpResult r = http_.Exchange(current, sink, remaining, clock_offset_.load());
    stats_.RecordBytes(r.bytes_sent, r.bytes_received);
    if (r.local_errno == 0 && r.curl_code == 0) replies_.fetch_add(1, std::memory_order_relaxed);
    // How this failure may be retried: not at all; while the retry budget
    // lasts (the store answers, but badly); or max_attempts times (nothing
    // answers, or not in time).
    enum class Retry { kNo, kWithinBudget, kCounted } retry;
    double retry_after = -1;
    if (r.local_errno != 0) {
      // The local fd or buffer failed: the store is not at fault, and sending
      // again would read or write the same file.
      return Status::Error(r.local_errno, what + ": " + r.local_error);
    } else if (r.curl_code != 0) {
      retry = !IsRetryableCurl(r.curl_code)               ? Retry::kNo
              : IsRetryableCurlWithinBudget(r.curl_code) ? Retry::kWithinBudget
                                                          : Retry::kCounted;
      last = Status::Error(ErrnoForCurl(r.curl_code), what + ": " + r.curl_error);
      if (IsCertificateFailure(r.curl_code)) {
        // Never retried, and never worked around by skipping the check.
        return Status::Error(
            EACCES, what + ": the TLS certificate of " + Origin(current.url) +
                        " does not verify against " +
                        (options_.ca_file.empty() ? "the system's CA certificates"
                                                  : "the CA file " + options_.ca_file) +
                        " (" + r.curl_error + "); give the CA that signed it with --ca-file FILE" +
                        Attempts(attempt, SecondsSince(start)));
      }
    } else if ((r.status >= 200 && r.status < 300) || (also_ok != 0 && r.status == also_ok)) {
      return r;
    } else {
      std::string code, message;
      ParseS3Error(r.text, &code, &message);
      std::string text = what + ": HTTP " + std::to_string(r.status);
      if (!code.empty()) text += " " + code;
      if (!message.empty()) text += ": " + message;
      last = Status::Error(ErrnoForS3Error(r.status, code), text);
      const std::string region = RegionOfReply(r.status, code, r.headers, r.text);
      if (!region.empty() && region != options_.region) {
        // Signed for one region, the bucket in another: every request would
        // be refused alike, so it is told at once, with the fix.
        return Status::Error(EACCES, text + " (signed for region " + options_.region +
                                         "): the bucket lives in " + region +
                                         ": add it with --region " + region +
                                         Attempts(attempt, SecondsSince(start)));
      }
      auto location = r.headers.find("location");
      if (r.status >= 300 && r.status < 400 && location != r.headers.end() &&
          !location->second.empty()) {
        // A store that moves this request elsewhere (a 307 to another
        // endpoint while a bucket's name spreads through DNS): the same
        // request there, signed for that host, for this call only.
        Result<std::string> to = RedirectTarget(current.url, location->second);
        if (!to.ok()) {
          return Status::Error(EPROTO, what + ": HTTP " + std::to_string(r.status) +
                                           " redirect refused: " + to.status().message());
        }
        if (++redirects > options_.max_redirects) {
          return Status::Error(EPROTO, what + ": more than " +
                                           std::to_string(options_.max_redirects) +
                                           " redirects (the last to " + Origin(*to) + ")");
        }
        current.url = *to;
        --attempt;  // a redirect is no failed attempt
        continue;
      }
      if (r.status == 301) {
        // Moved for good, and no Location to follow (AWS: the bucket is
        // reached through its region's endpoint only): the configuration
        // must change, so it is refused as a wrong region is.
        std::string endpoint = ParseS3ErrorField(r.text, "Endpoint");
        return Status::Error(EACCES, text + (endpoint.empty()
                                                 ? " (the bucket is served at another endpoint)"
                                                 : " (the bucket is served at " + endpoint +
                                                       "; give that as --endpoint)"));
      }
      // A HEAD's 403 has no body to say RequestTimeTooSkewed: a Date far
      // from the time it was signed at says it instead.
      const bool skewed = code == "RequestTimeTooSkewed" || (r.status == 403 && code.empty());
      if (skewed && !clock_corrected && CorrectClock(r, code.empty() ? kSkewSeconds : 0)) {
        // Signed again at the store's time, at once: nothing is wrong with the
        // store, and this attempt counts against nothing.
        clock_corrected = true;
        continue;
      }
      if (code == "BadDigest") {
        // The store received other bytes than those whose MD5 was sent. When
        // the bytes read while sending are those hashed before, they were
        // damaged on the way and a new attempt may pass; else the file changed
        // meanwhile and would be refused again.
        bool same_file = !request.content_md5_hex.empty() && r.sent_md5 == request.content_md5_hex;
        retry = same_file ? Retry::kCounted : Retry::kNo;
        if (!same_file) {
          last = Status::Io(text + " (the file changed while it was sent)");
        }
      } else {
        retry = IsRetryableS3Error(r.status, code) ? Retry::kWithinBudget : Retry::kNo;
      }
      if (auto it = r.headers.find("retry-after"); it != r.headers.end()) {
        retry_after = RetryAfterSeconds(it->second, static_cast<int64_t>(time(nullptr)));
      }
    }
    double elapsed = SecondsSince(start);
    if (retry == Retry::kNo) {
      return Status::Error(last.code(), last.message() + Attempts(attempt, elapsed));
    }
    if (retry == Retry::kCounted && ++counted >= options_.max_attempts) break;
    double pause = BackoffSeconds(attempt, options_.backoff_initial_seconds,
                                  options_.backoff_max_seconds, UnitRandom());
    pause = std::max(pause, retry_after);
    const Clock::time_point resume = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                        std::chrono::duration<double>(pause));
    if (resume >= deadline) break;
    if (retry == Retry::kWithinBudget && resume >= budget_end) break;
    LogWarning("{}; retrying in {:.2f} s", last.message(), pause);
    std::this_thread::sleep_for(std::chrono::duration<double>(pause));
  }
  return Status::Error(last.code(), last.message() + Attempts(attempt, SecondsSince(start)));
}

Status S3Client::BucketRequest(S3Op op, const char* method, const std::string& what,
                               const std::string& bucket) {
  TIERFS_RETURN_IF_ERROR(CheckBucketName(bucket));
  S3HttpRequest req;
  req.method = method;
  req.url = Url(bucket, "");
  Result<S3HttpResult> r = Perform(op, what + " " + bucket, req, nullptr);
  return r.ok() ? Status::Ok() : r.status();
}

Status S3Client::CreateBucket(const std::string& bucket) {
  if (options_.region == "us-east-1") {
    return BucketRequest(S3Op::kCreateBucket, "PUT", "create bucket", bucket);
  }
  // Elsewhere than AWS's first region, the region is named in the body too
  // (AWS refuses a bucket without it with IllegalLocationConstraintException).
  TIERFS_RETURN_IF_ERROR(CheckBucketName(bucket));
  S3HttpRequest req;
  req.method = "PUT";
  req.url = Url(bucket, "");
  req.headers = {"Content-Type: application/xml"};
  req.body = "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
             "<LocationConstraint>" + options_.region +
             "</LocationConstraint></CreateBucketConfiguration>";
  Result<S3HttpResult> r = Perform(S3Op::kCreateBucket, "create bucket " + bucket, req, nullptr);
  return r.ok() ? Status::Ok() : r.status();
}

Status S3Client::DeleteBucket(const std::string& bucket) {
  return BucketRequest(S3Op::kDeleteBucket, "DELETE", "delete bucket", bucket);
}

Status S3Client::HeadBucket(const std::string& bucket) {
  TIERFS_RETURN_IF_ERROR(CheckBucketName(bucket));
  S3HttpRequest req;
  req.method = "HEAD";
  req.url = Url(bucket, "");
  const std::string what = "HEAD bucket " + bucket;
  Result<S3HttpResult> r = Perform(S3Op::kHeadBucket, what, req, nullptr);
  if (!r.ok()) return r.status();
  // A store that does not hold the signature's region against the bucket's
  // (moto; RGW takes any) still names the bucket's in this reply: AWS would
  // refuse every request of a wrong one, so it is refused here alike, before
  // a volume is made of it.
  auto region = r->headers.find("x-amz-bucket-region");
  if (region != r->headers.end() && !region->second.empty() &&
      region->second != options_.region) {
    return Status::Error(EACCES, what + " (signed for region " + options_.region +
                                     "): the bucket lives in " + region->second +
                                     ": add it with --region " + region->second);
  }
  return Status::Ok();
}

Result<std::string> S3Client::GetBucketVersioning(const std::string& bucket) {
  TIERFS_RETURN_IF_ERROR(CheckBucketName(bucket));
  const std::string what = "get bucket versioning " + bucket;
  S3HttpRequest req;
  req.method = "GET";
  req.url = Url(bucket, "", {{"versioning", ""}});
  Result<S3HttpResult> r = Perform(S3Op::kGetBucketVersioning, what, req, nullptr);
  if (!r.ok()) return r.status();
  Result<std::string> state = ParseBucketVersioning(r->text);
  if (!state.ok()) {
    return Status::Error(state.status().code(), what + ": " + state.status().message());
  }
  return state;
}

Result<std::string> S3Client::PutFromFd(S3Op op, const std::string& what,
                                        S3HttpRequest request) {
  // Hashed before the first byte leaves, so that the store checks the body it
  // receives against it (Content-MD5) and refuses one damaged on the way.
  Result<BodyMd5> md5 = Md5OfFdRange(request.body_fd, request.body_offset, request.body_length);
  if (!md5.ok()) {
    return Status::Error(md5.status().code(), what + ": " + md5.status().message());
  }
  request.content_md5 = md5->base64;
  request.content_md5_hex = md5->hex;
  Result<S3HttpResult> r = Perform(op, what, request, nullptr);
  if (!r.ok()) return r.status();
  auto it = r->headers.find("etag");
  std::string etag = it == r->headers.end() ? "" : UnquoteEtag(it->second);
  // An ETag of an MD5's shape is the MD5 of the bytes stored, but for SSE-KMS
  // and SSE-C (EtagIsNotContentMd5), where only the store's Content-MD5 check
  // vouches for them.
  if (IsMd5Etag(etag) && !EtagIsNotContentMd5(r->headers) &&
      strcasecmp(etag.c_str(), md5->hex.c_str()) != 0) {
    stats_.RecordError(op, EIO);
    return Status::Io(what + ": the store's ETag " + etag + " is not the MD5 " + md5->hex +
                      " of the bytes sent");
  }
  return etag;
}

Result<std::string> S3Client::PutObject(const std::string& bucket, const std::string& key,
                                        int fd, uint64_t offset, uint64_t length,
                                        const S3Metadata& metadata) {
  TIERFS_RETURN_IF_ERROR(CheckBucketName(bucket));
  TIERFS_RETURN_IF_ERROR(CheckObjectKey(key));
  TIERFS_RETURN_IF_ERROR(CheckMetadata(metadata));
  S3HttpRequest req;
  req.method = "PUT";
  req.url = Url(bucket, key);
  req.headers = MetadataHeaders(metadata);
  req.body_fd = fd;
  req.body_offset = offset;
  req.body_length = length;
  return PutFromFd(S3Op::kPutObject, "PUT " + Describe(bucket, key), std::move(req));
}

Result<size_t> S3Client::GetObject(const std::string& bucket, const std::string& key,
                                   uint64_t offset, size_t length, void* buf) {
  TIERFS_RETURN_IF_ERROR(CheckBucketName(bucket));
  TIERFS_RETURN_IF_ERROR(CheckObjectKey(key));
  if (length == 0) return size_t{0};
  S3HttpRequest req;
  req.method = "GET";
  req.url = Url(bucket, key);
  req.range = RangeHeader(offset, length);
  BufferSink sink(buf, length);
  std::string what = "GET " + Describe(bucket, key);
  Result<S3HttpResult> r = Perform(S3Op::kGetObject, what, req, &sink, 416);
  if (!r.ok()) return r.status();
  if (r->status == 416) return size_t{0};  // at or past the end, as pread(2)
  TIERFS_RETURN_IF_ERROR(CheckRangeHonoured(what, *r, offset));
  return sink.used();
}

Result<uint64_t> S3Client::GetObjectToFd(const std::string& bucket, const std::string& key,
                                         uint64_t offset, uint64_t length, int fd,
                                         uint64_t fd_offset) {
  TIERFS_RETURN_IF_ERROR(CheckBucketName(bucket));
  TIERFS_RETURN_IF_ERROR(CheckObjectKey(key));
  if (length == 0) return uint64_t{0};
  S3HttpRequest req;
  req.method = "GET";
  req.url = Url(bucket, key);
  // The whole object without a Range header: a 200 rather than a 206, and the
  // same bytes.
  if (offset != 0 || length != kToEnd) req.range = RangeHeader(offset, length);
  FdSink sink(fd, fd_offset, length);
  std::string what = "GET " + Describe(bucket, key);
  Result<S3HttpResult> r = Perform(S3Op::kGetObject, what, req, &sink, 416);
  if (!r.ok()) return r.status();
  if (r->status == 416) return uint64_t{0};
  TIERFS_RETURN_IF_ERROR(CheckRangeHonoured(what, *r, offset));
  return sink.written();
}

Result<S3ObjectInfo> S3Client::HeadObject(const std::string& bucket, const std::string& key) {
  TIERFS_RETURN_IF_ERROR(CheckBucketName(bucket));
  TIERFS_RETURN_IF_ERROR(CheckObjectKey(key));
  S3HttpRequest req;
  req.method = "HEAD";
  req.url = Url(bucket, key);
  std::string what = "HEAD " + Describe(bucket, key);
  Result<S3HttpResult> r = Perform(S3Op::kHeadObject, what, req, nullptr);
  if (!r.ok()) return r.status();
  S3ObjectInfo info;
  auto length = r->headers.find("content-length");
  if (length == r->headers.end()) return Status::Error(EPROTO, what + ": no Content-Length");
  info.size = std::strtoull(length->second.c_str(), nullptr, 10);
  if (auto it = r->headers.find("etag"); it != r->headers.end()) {
    info.etag = UnquoteEtag(it->second);
  }
  if (auto it = r->headers.find("last-modified"); it != r->headers.end()) {
    info.last_modified = ParseS3Time(it->second);
  }
  info.etag_is_not_content_md5 = EtagIsNotContentMd5(r->headers);
  static constexpr std::string_view kMeta = "x-amz-meta-";
  for (const auto& [name, value] : r->headers) {
    if (name.compare(0, kMeta.size(), kMeta) == 0) info.metadata[name.substr(kMeta.size())] = value;
  }
  return info;
}

Status S3Client::DeleteObject(const std::string& bucket, const std::string& key) {
  TIERFS_RETURN_IF_ERROR(CheckBucketName(bucket));
  TIERFS_RETURN_IF_ERROR(CheckObjectKey(key));
  S3HttpRequest req;
  req.method = "DELETE";
  req.url = Url(bucket, key);
  Result<S3HttpResult> r =
      Perform(S3Op::kDeleteObject, "DELETE " + Describe(bucket, key), req, nullptr);
  return r.ok() ? Status::Ok() : r.status();
}

Result<S3ObjectPage> S3Client::ListObjects(const std::string& bucket, const std::string& prefix,
                                           const std::string& continuation_token,
                                           int max_keys) {
  TIERFS_RETURN_IF_ERROR(CheckBucketName(bucket));
  if (max_keys < 1 || max_keys > 1000) return Status::Invalid("max_keys must be 1 to 1000");
  std::map<std::string, std::string> query = {{"list-type", "2"},
                                              {"max-keys", std::to_string(max_keys)}};
  if (!prefix.empty()) query["prefix"] = prefix;
  if (!continuation_token.empty()) query["continuation-token"] = continuation_token;
  S3HttpRequest req;
  req.method = "GET";
  req.url = Url(bucket, "", query);
  std::string what = "list " + Describe(bucket, prefix);
  Result<S3HttpResult> r = Perform(S3Op::kListObjects, what, req, nullptr);
  if (!r.ok()) return r.status();
  Result<S3ObjectPage> page = ParseListObjectsV2(r->text);
  if (!page.ok()) return Status::Error(page.status().code(), what + ": " + page.status().message());
  return page;
}

Result<std::string> S3Client::CreateMultipartUpload(const std::string& bucket,
                                                    const std::string& key,
                                                    const S3Metadata& metadata) {
  TIERFS_RETURN_IF_ERROR(CheckBucketName(bucket));
  TIERFS_RETURN_IF_ERROR(CheckObjectKey(key));
  TIERFS_RETURN_IF_ERROR(CheckMetadata(metadata));
  S3HttpRequest req;
  req.method = "POST";
  req.url = Url(bucket, key, {{"uploads", ""}});
  req.headers = MetadataHeaders(metadata);
  std::string what = "create multipart upload " + Describe(bucket, key);
  Result<S3HttpResult> r = Perform(S3Op::kCreateMultipartUpload, what, req, nullptr);
  if (!r.ok()) return r.status();
  Result<std::string> id = ParseInitiateMultipartUpload(r->text);
  if (!id.ok()) return Status::Error(id.status().code(), what + ": " + id.status().message());
  return id;
}

Result<std::string> S3Client::UploadPart(const std::string& bucket, const std::string& key,
                                         const std::string& upload_id, int part_number, int fd,
                                         uint64_t offset, uint64_t length) {
  TIERFS_RETURN_IF_ERROR(CheckBucketName(bucket));
  TIERFS_RETURN_IF_ERROR(CheckObjectKey(key));
  if (part_number < 1 || part_number > 10000) {
    return Status::Invalid("part number " + std::to_string(part_number) + " (1 to 10000)");
  }
  S3HttpRequest req;
  req.method = "PUT";
  req.url = Url(bucket, key, {{"partNumber", std::to_string(part_number)},
                              {"uploadId", upload_id}});
  req.body_fd = fd;
  req.body_offset = offset;
  req.body_length = length;
  return PutFromFd(S3Op::kUploadPart,
                   "upload part " + std::to_string(part_number) + " of " + Describe(bucket, key),
                   std::move(req));
}

Result<std::string> S3Client::CompleteMultipartUpload(const std::string& bucket,
                                                      const std::string& key,
                                                      const std::string& upload_id,
                                                      const std::vector<S3CompletedPart>& parts) {
  TIERFS_RETURN_IF_ERROR(CheckBucketName(bucket));
  TIERFS_RETURN_IF_ERROR(CheckObjectKey(key));
  if (parts.empty()) return Status::Invalid("complete multipart upload: no parts");
  S3HttpRequest req;
  req.method = "POST";
  req.url = Url(bucket, key, {{"uploadId", upload_id}});
  req.headers = {"Content-Type: application/xml"};
  req.body = CompleteMultipartUploadBody(parts);
  std::string what = "complete multipart upload " + Describe(bucket, key);
  // The ETag the object must end with when the parts' ETags were their MD5s:
  // a store that joined other bytes, or other parts, reports another.
  std::vector<std::string> part_etags;
  for (const S3CompletedPart& p : parts) part_etags.push_back(p.etag);
  const std::string expected = MultipartEtag(part_etags);
  auto verified = [&](const std::string& etag, bool not_md5) -> Result<std::string> {
    if (expected.empty() || not_md5 || etag.size() != expected.size() ||
        etag.compare(32, std::string::npos, expected, 32, std::string::npos) != 0 ||
        !IsMd5Etag(std::string_view(etag).substr(0, 32))) {
      return etag;  // not of the shape S3 computes from the parts' MD5s
    }
    if (strcasecmp(etag.c_str(), expected.c_str()) == 0) return etag;
    stats_.RecordError(S3Op::kCompleteMultipartUpload, EIO);
    return Status::Io(what + ": the store's ETag " + etag + " is not " + expected +
                      ", the one of the parts sent");
  };
  int attempts = 0;
  Result<S3HttpResult> r =
      Perform(S3Op::kCompleteMultipartUpload, what, req, nullptr, 0, &attempts);
  if (!r.ok()) {
    // A lost reply: the first attempt completed the upload, the retry finds it
    // gone. The object then carries the multipart ETag "MD5-<parts>".
    if (r.status().code() == ENOENT && attempts > 1) {
      Result<S3ObjectInfo> head = HeadObject(bucket, key);
      std::string suffix = "-" + std::to_string(parts.size());
      if (head.ok() && head->etag.size() > suffix.size() &&
          head->etag.compare(head->etag.size() - suffix.size(), suffix.size(), suffix) == 0) {
        return verified(head->etag, head->etag_is_not_content_md5);
      }
    }
    return r.status();
  }
  Result<std::string> etag = ParseCompleteMultipartUpload(r->text);
  if (!etag.ok()) return Status::Error(etag.status().code(), what + ": " + etag.status().message());
  if (etag->empty()) {
    // RGW (16.2) completes with an empty <ETag/>; HEAD has it. The upload is
    // done whatever HEAD answers, so its failure is no failure of this call.
    Result<S3ObjectInfo> head = HeadObject(bucket, key);
    if (head.ok()) return verified(head->etag, head->etag_is_not_content_md5);
    return etag;
  }
  return verified(*etag, EtagIsNotContentMd5(r->headers));
}

Status S3Client::AbortMultipartUpload(const std::string& bucket, const std::string& key,
                                      const std::string& upload_id) {
  TIERFS_RETURN_IF_ERROR(CheckBucketName(bucket));
  TIERFS_RETURN_IF_ERROR(CheckObjectKey(key));
  S3HttpRequest req;
  req.method = "DELETE";
  req.url = Url(bucket, key, {{"uploadId", upload_id}});
  Result<S3HttpResult> r =
      Perform(S3Op::kAbortMultipartUpload, "abort multipart upload " + Describe(bucket, key),
              req, nullptr);
  return r.ok() ? Status::Ok() : r.status();
}

Result<std::vector<S3MultipartUpload>> S3Client::ListMultipartUploads(const std::string& bucket,
                                                                      const std::string& prefix) {
  TIERFS_RETURN_IF_ERROR(CheckBucketName(bucket));
  std::vector<S3MultipartUpload> all;
  std::string key_marker, upload_id_marker, previous_key, previous_id;
  std::string what = "list multipart uploads " + Describe(bucket, prefix);
  for (;;) {
    std::map<std::string, std::string> query = {{"uploads", ""}};
    if (!prefix.empty()) query["prefix"] = prefix;
    if (!key_marker.empty()) query["key-marker"] = key_marker;
    if (!upload_id_marker.empty()) query["upload-id-marker"] = upload_id_marker;
    S3HttpRequest req;
    req.method = "GET";
    req.url = Url(bucket, "", query);
    Result<S3HttpResult> r = Perform(S3Op::kListMultipartUploads, what, req, nullptr);
    if (!r.ok()) return r.status();
    Result<std::vector<S3MultipartUpload>> page =
        ParseListMultipartUploads(r->text, &key_marker, &upload_id_marker);
    if (!page.ok()) return Status::Error(page.status().code(), what + ": " + page.status().message());
    for (S3MultipartUpload& u : *page) all.push_back(std::move(u));
    if (key_marker.empty()) return all;
    // Each page must move the markers on, or the loop would never end.
    if (key_marker == previous_key && upload_id_marker == previous_id) {
      return Status::Error(EPROTO, what + ": the listing repeats its markers");
    }
    previous_key = key_marker;
    previous_id = upload_id_marker;
  }
}

}  // namespace tierfs
