#include "fs/objstore/s3_http.h"

#include <curl/curl.h>
#include <openssl/evp.h>
#include <strings.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <ctime>
#include <memory>
#include <mutex>

namespace tierfs {
namespace {

constexpr size_t kMaxTextBytes = 16 * 1024 * 1024;
constexpr size_t kMaxIdleHandles = 16;

std::string Hex(const unsigned char* data, unsigned n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  for (unsigned i = 0; i < n; ++i) {
    s.push_back(kHex[data[i] >> 4]);
    s.push_back(kHex[data[i] & 15]);
  }
  return s;
}

std::string Sha256Hex(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned n = 0;
  EVP_Digest(data.data(), data.size(), digest, &n, EVP_sha256(), nullptr);
  return Hex(digest, n);
}

struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};

// The state of one exchange, reached from curl's callbacks.
struct Transfer {
  const S3HttpRequest* request = nullptr;
  S3ResponseSink* sink = nullptr;
  S3HttpResult* result = nullptr;
  CURL* curl = nullptr;
  const std::function<void(uint64_t, uint64_t)>* progress = nullptr;
  // Upload from memory or from the fd.
  uint64_t sent = 0;
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> md5;
  uint64_t last_sent = 0, last_received = 0;
};

size_t ReadBody(char* buf, size_t size, size_t nitems, void* userdata) {
  auto* t = static_cast<Transfer*>(userdata);
  const S3HttpRequest& r = *t->request;
  size_t room = size * nitems;
  if (r.body_fd < 0) {
    size_t n = std::min<size_t>(room, r.body.size() - t->sent);
    std::memcpy(buf, r.body.data() + t->sent, n);
    t->sent += n;
    return n;
  }
  uint64_t left = r.body_length - t->sent;
  size_t want = static_cast<size_t>(std::min<uint64_t>(room, left));
  if (want == 0) return 0;
  ssize_t n;
  do {
    n = ::pread(r.body_fd, buf, want, static_cast<off_t>(r.body_offset + t->sent));
  } while (n < 0 && errno == EINTR);
  if (n <= 0) {
    t->result->local_errno = n < 0 ? errno : EIO;
    t->result->local_error =
        n < 0 ? std::string("read of the body at offset ") +
                    std::to_string(r.body_offset + t->sent) + ": " + std::strerror(errno)
              : "the body's file ended at offset " + std::to_string(r.body_offset + t->sent) +
                    ", before its " + std::to_string(r.body_length) + " bytes";
    return CURL_READFUNC_ABORT;
  }
  EVP_DigestUpdate(t->md5.get(), buf, static_cast<size_t>(n));
  t->sent += static_cast<uint64_t>(n);
  return static_cast<size_t>(n);
}

// curl rewinds the body when it must send it again on the same attempt (a
// redirect or an auth round, neither expected with S3): only to the start.
int SeekBody(void* userdata, curl_off_t offset, int origin) {
  auto* t = static_cast<Transfer*>(userdata);
  if (origin != SEEK_SET || offset != 0) return CURL_SEEKFUNC_CANTSEEK;
  t->sent = 0;
  if (t->md5) EVP_DigestInit_ex(t->md5.get(), EVP_md5(), nullptr);
  return CURL_SEEKFUNC_OK;
}

size_t WriteBody(char* data, size_t size, size_t nmemb, void* userdata) {
  auto* t = static_cast<Transfer*>(userdata);
  size_t n = size * nmemb;
  long status = 0;
  curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &status);
  if (t->sink != nullptr && status >= 200 && status < 300) {
    std::string what;
    int err = t->sink->Write(data, n, &what);
    if (err != 0) {
      t->result->local_errno = err;
      t->result->local_error = what;
      return CURL_WRITEFUNC_ERROR;
    }
    return n;
  }
  if (t->result->text.size() + n > kMaxTextBytes) {
    t->result->local_errno = EPROTO;
    t->result->local_error = "a reply body over 16 MiB";
    return CURL_WRITEFUNC_ERROR;
  }
  t->result->text.append(data, n);
  return n;
}

size_t ReadHeader(char* data, size_t size, size_t nitems, void* userdata) {
  auto* t = static_cast<Transfer*>(userdata);
  size_t n = size * nitems;
  std::string line(data, n);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  // A new status line (after "100 Continue") starts the final reply's headers.
  if (line.compare(0, 5, "HTTP/") == 0) {
    t->result->headers.clear();
    return n;
  }
  size_t colon = line.find(':');
  if (colon == std::string::npos) return n;
  std::string name = line.substr(0, colon);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  size_t v = line.find_first_not_of(' ', colon + 1);
  t->result->headers[name] = v == std::string::npos ? "" : line.substr(v);
  return n;
}

int Progress(void* userdata, curl_off_t /*dltotal*/, curl_off_t dlnow, curl_off_t /*ultotal*/,
             curl_off_t ulnow) {
  auto* t = static_cast<Transfer*>(userdata);
  uint64_t sent = static_cast<uint64_t>(ulnow), received = static_cast<uint64_t>(dlnow);
  if (sent != t->last_sent || received != t->last_received) {
    t->last_sent = sent;
    t->last_received = received;
    (*t->progress)(sent, received);
  }
  return 0;
}

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct SlistFree {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

}  // namespace

S3Http::S3Http(const S3ClientOptions& options)
    : options_(options), sigv4_("aws:amz:" + options.region + ":s3") {
  GlobalInit();
}

S3Http::~S3Http() {
  MutexLock lock(mu_);
  for (CURL* h : idle_) curl_easy_cleanup(h);
}

CURL* S3Http::AcquireHandle() {
  {
    MutexLock lock(mu_);
    if (!idle_.empty()) {
      CURL* h = idle_.back();
      idle_.pop_back();
      return h;
    }
  }
  return curl_easy_init();
}

void S3Http::ReleaseHandle(CURL* handle) {
  // Reset keeps the handle's open connections for the next request.
  curl_easy_reset(handle);
  MutexLock lock(mu_);
  if (idle_.size() < kMaxIdleHandles) {
    idle_.push_back(handle);
    return;
  }
  curl_easy_cleanup(handle);
}

S3HttpResult S3Http::Exchange(const S3HttpRequest& request, S3ResponseSink* sink,
                              double timeout_seconds, int64_t clock_offset_seconds) {
  S3HttpResult result;
  CURL* curl = AcquireHandle();
  if (curl == nullptr) {
    result.curl_code = CURLE_OUT_OF_MEMORY;
    result.curl_error = "curl_easy_init failed";
    return result;
  }
  Transfer t;
  t.request = &request;
  t.sink = sink;
  t.result = &result;
  t.curl = curl;
  char errbuf[CURL_ERROR_SIZE] = "";

  const bool streamed = request.body_fd >= 0;
  std::unique_ptr<curl_slist, SlistFree> headers;
  auto add_header = [&headers](const std::string& h) {
    headers.reset(curl_slist_append(headers.release(), h.c_str()));
  };
  for (const std::string& h : request.headers) add_header(h);
  add_header(std::string("x-amz-content-sha256: ") +
             (streamed ? "UNSIGNED-PAYLOAD" : Sha256Hex(request.body)));
  if (!request.content_md5.empty()) add_header("Content-MD5: " + request.content_md5);
  // Temporary credentials: libcurl signs every header it is given, this one
  // too, as SigV4 wants.
  if (!options_.credentials.session_token.empty()) {
    add_header("x-amz-security-token: " + options_.credentials.session_token);
  }
  if (clock_offset_seconds != 0) {
    // The store's clock and this machine's differ: sign at the store's time
    // (libcurl takes the time to sign with from this header when it is there).
    time_t at = time(nullptr) + static_cast<time_t>(clock_offset_seconds);
    struct tm tm;
    char stamp[32];
    gmtime_r(&at, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    add_header(std::string("x-amz-date: ") + stamp);
  }

  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM for timeouts
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(curl, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);
  // HTTPS: the peer and its name are always verified (curl's defaults, set
  // again so that no reuse of a handle could carry other settings); a private
  // CA replaces the system's.
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
  if (!options_.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, options_.ca_file.c_str());
  // Redirects are S3Client's to follow: it signs the request again for the
  // place it is sent to.
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
  // Larger buffers than curl's 16 KiB / 64 KiB: fewer callbacks per MiB.
  curl_easy_setopt(curl, CURLOPT_BUFFERSIZE, 512L * 1024);
  curl_easy_setopt(curl, CURLOPT_UPLOAD_BUFFERSIZE, 1024L * 1024);
  curl_easy_setopt(curl, CURLOPT_AWS_SIGV4, sigv4_.c_str());
  curl_easy_setopt(curl, CURLOPT_USERNAME, options_.credentials.access_key.c_str());
  curl_easy_setopt(curl, CURLOPT_PASSWORD, options_.credentials.secret_key.c_str());
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                   std::max(1L, static_cast<long>(options_.connect_timeout_seconds * 1000)));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS,
                   std::max(1L, static_cast<long>(timeout_seconds * 1000)));
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME,
                   std::max(1L, static_cast<long>(std::ceil(options_.stall_timeout_seconds))));
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, ReadHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, WriteBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t);
  if (options_.progress) {
    t.progress = &options_.progress;
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, Progress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &t);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  }
  if (!request.range.empty()) curl_easy_setopt(curl, CURLOPT_RANGE, request.range.c_str());

  if (request.method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else if (request.method == "PUT" || request.method == "POST") {
    // Both through the upload path (a read callback and a known length), so a
    // streamed body never sits in memory; CUSTOMREQUEST names the method.
    if (streamed) {
      t.md5.reset(EVP_MD_CTX_new());
      EVP_DigestInit_ex(t.md5.get(), EVP_md5(), nullptr);
    }
    curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(curl, CURLOPT_READFUNCTION, ReadBody);
    curl_easy_setopt(curl, CURLOPT_READDATA, &t);
    curl_easy_setopt(curl, CURLOPT_SEEKFUNCTION, SeekBody);
    curl_easy_setopt(curl, CURLOPT_SEEKDATA, &t);
    curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE,
                     static_cast<curl_off_t>(streamed ? request.body_length : request.body.size()));
    if (request.method == "POST") curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "POST");
  } else if (request.method != "GET") {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.get());

  CURLcode rc = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &result.status);
  curl_off_t sent = 0, received = 0;
  curl_easy_getinfo(curl, CURLINFO_SIZE_UPLOAD_T, &sent);
  curl_easy_getinfo(curl, CURLINFO_SIZE_DOWNLOAD_T, &received);
  result.bytes_sent = static_cast<uint64_t>(std::max<curl_off_t>(sent, 0));
  result.bytes_received = static_cast<uint64_t>(std::max<curl_off_t>(received, 0));
  if (rc != CURLE_OK) {
    result.curl_code = rc;
    result.curl_error = errbuf[0] != '\0' ? errbuf : curl_easy_strerror(rc);
  }
  if (t.md5) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned n = 0;
    EVP_DigestFinal_ex(t.md5.get(), digest, &n);
    result.sent_md5 = Hex(digest, n);
  }
  // The handle keeps a pointer to the header list: drop it before the list goes.
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, nullptr);
  ReleaseHandle(curl);
  return result;
}

}  // namespace tierfs
