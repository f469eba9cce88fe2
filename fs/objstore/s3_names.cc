#include "fs/objstore/s3_names.h"

namespace tierfs {
namespace {

bool IsUnreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
         c == '-' || c == '_' || c == '.' || c == '~';
}

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

}  // namespace

std::string UriEncode(std::string_view s, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (IsUnreserved(c) || (keep_slash && c == '/')) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string ObjectPath(std::string_view bucket, std::string_view key) {
  std::string path = "/" + UriEncode(bucket, false);
  if (!key.empty()) path += "/" + UriEncode(key, true);
  return path;
}

std::string CanonicalQuery(const std::map<std::string, std::string>& params) {
  std::string q;
  for (const auto& [name, value] : params) {
    if (!q.empty()) q += '&';
    q += UriEncode(name, false) + "=" + UriEncode(value, false);
  }
  return q;
}

Status CheckBucketName(std::string_view b) {
  bool ok = b.size() >= 3 && b.size() <= 63 && IsLowerAlnum(b.front()) && IsLowerAlnum(b.back());
  for (char c : b) ok = ok && (IsLowerAlnum(c) || c == '-' || c == '.');
  if (!ok) {
    return Status::Invalid("bucket name '" + std::string(b) +
                           "': 3 to 63 characters of a-z 0-9 . -, starting and ending "
                           "with a letter or digit");
  }
  return Status::Ok();
}

Status CheckObjectKey(std::string_view key) {
  if (key.empty()) return Status::Invalid("empty object key");
  if (key.size() > 1024) {
    return Status::Error(ENAMETOOLONG, "object key of " + std::to_string(key.size()) +
                                           " bytes (at most 1024)");
  }
  if (key.find('\0') != std::string_view::npos) return Status::Invalid("object key with a NUL");
  return Status::Ok();
}

Status CheckMetadata(const std::map<std::string, std::string>& metadata) {
  size_t total = 0;
  for (const auto& [name, value] : metadata) {
    bool ok = !name.empty() && name.size() <= 64;
    for (char c : name) ok = ok && (IsLowerAlnum(c) || c == '-' || c == '_');
    if (!ok) {
      return Status::Invalid("metadata name '" + name + "': 1 to 64 characters of a-z 0-9 - _");
    }
    for (unsigned char c : value) {
      if (c < 0x20 || c > 0x7e) {
        return Status::Invalid("metadata " + name + ": the value must be printable ASCII");
      }
    }
    total += name.size() + value.size();
  }
  if (total > 2048) return Status::Invalid("metadata over 2 KiB");
  return Status::Ok();
}

std::string RequestUrl(std::string_view endpoint, S3Addressing addressing,
                       std::string_view bucket, std::string_view key) {
  if (addressing == S3Addressing::kPath) return std::string(endpoint) + ObjectPath(bucket, key);
  const size_t host = endpoint.find("://") + 3;
  return std::string(endpoint.substr(0, host)) + std::string(bucket) + "." +
         std::string(endpoint.substr(host)) + "/" + UriEncode(key, /*keep_slash=*/true);
}

const char* S3AddressingName(S3Addressing addressing) {
  return addressing == S3Addressing::kVirtual ? "virtual" : "path";
}

Result<S3Addressing> ParseS3Addressing(const std::string& name) {
  if (name == "path") return S3Addressing::kPath;
  if (name == "virtual") return S3Addressing::kVirtual;
  return Status::Invalid("addressing '" + name + "': expected path or virtual");
}

Status CheckS3Region(const std::string& region) {
  bool ok = !region.empty() && region.size() <= 64;
  for (char c : region) ok = ok && (IsLowerAlnum(c) || c == '-');
  if (!ok) return Status::Invalid("region '" + region + "': expected 1 to 64 of a-z 0-9 -");
  return Status::Ok();
}

Result<std::string> NormalizeEndpoint(std::string_view e) {
  std::string_view rest;
  if (e.substr(0, 7) == "http://") {
    rest = e.substr(7);
  } else if (e.substr(0, 8) == "https://") {
    rest = e.substr(8);
  } else {
    return Status::Invalid("endpoint '" + std::string(e) + "': must start with http:// or https://");
  }
  if (!rest.empty() && rest.back() == '/') {
    rest.remove_suffix(1);
    e.remove_suffix(1);
  }
  if (rest.empty() || rest.find_first_of("/?#@ ") != std::string_view::npos) {
    return Status::Invalid("endpoint '" + std::string(e) +
                           "': expected http[s]://HOST[:PORT] without a path");
  }
  return std::string(e);
}

}  // namespace tierfs
