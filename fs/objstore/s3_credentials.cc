#include "fs/objstore/s3_credentials.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "common/unique_fd.h"

namespace tierfs {
namespace {

constexpr size_t kMaxFileBytes = 64 * 1024;

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::string OctalMode(mode_t mode) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

}  // namespace

Result<S3Credentials> ParseS3Credentials(const std::string& text, const std::string& origin) {
  S3Credentials creds;
  bool have_access = false, have_secret = false, have_token = false;
  size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = Trim(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    size_t eq = line.find('=');
    // The line is not echoed: it may be a bare secret pasted without its name.
    if (eq == std::string::npos) {
      return Status::Invalid(origin + " line " + std::to_string(line_no) +
                             ": expected NAME = VALUE");
    }
    std::string name = Trim(line.substr(0, eq));
    std::string value = Trim(line.substr(eq + 1));
    std::string where = origin + " line " + std::to_string(line_no);
    bool* seen;
    std::string* field;
    if (name == "access_key") {
      seen = &have_access;
      field = &creds.access_key;
    } else if (name == "secret_key") {
      seen = &have_secret;
      field = &creds.secret_key;
    } else if (name == "session_token") {
      seen = &have_token;
      field = &creds.session_token;
    } else {
      // A name is at most a few words; a long one is more likely a secret.
      if (name.size() > 32 || name.find_first_of(" \t") != std::string::npos) {
        return Status::Invalid(where + ": unknown name (expected access_key, secret_key or "
                               "session_token)");
      }
      return Status::Invalid(where + ": unknown name '" + name +
                             "' (expected access_key, secret_key or session_token)");
    }
    if (*seen) return Status::Invalid(where + ": " + name + " given twice");
    if (value.empty()) return Status::Invalid(where + ": " + name + " is empty");
    *seen = true;
    *field = value;
  }
  if (!have_access) return Status::Invalid(origin + ": no access_key line");
  if (!have_secret) return Status::Invalid(origin + ": no secret_key line");
  return creds;
}

Result<S3Credentials> LoadS3Credentials(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) return Status::FromErrno("credentials file " + path);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return Status::FromErrno("credentials file " + path);
  if (!S_ISREG(st.st_mode)) {
    return Status::Invalid("credentials file " + path + " is not a regular file");
  }
  if ((st.st_mode & 077) != 0) {
    return Status::Error(EACCES, "credentials file " + path + " has mode " +
                                     OctalMode(st.st_mode) +
                                     ": it must not be readable or writable by group or "
                                     "others (chmod 600 " + path + ")");
  }
  if (static_cast<uint64_t>(st.st_size) > kMaxFileBytes) {
    return Status::Invalid("credentials file " + path + " is larger than 64 KiB");
  }
  std::string text;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno("read credentials file " + path);
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > kMaxFileBytes) {
      return Status::Invalid("credentials file " + path + " is larger than 64 KiB");
    }
  }
  return ParseS3Credentials(text, "credentials file " + path);
}

}  // namespace tierfs
