#include "fs/objstore/s3_digest.h"

#include <openssl/evp.h>
#include <strings.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <memory>

namespace tierfs {
namespace {

struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  return std::tolower(static_cast<unsigned char>(c)) - 'a' + 10;
}

BodyMd5 Spell(const unsigned char* digest) {
  static constexpr char kHex[] = "0123456789abcdef";
  BodyMd5 md5;
  for (int i = 0; i < 16; ++i) {
    md5.hex.push_back(kHex[digest[i] >> 4]);
    md5.hex.push_back(kHex[digest[i] & 15]);
  }
  unsigned char b64[32];  // 4 * ceil(16 / 3) = 24, and a NUL
  int n = EVP_EncodeBlock(b64, digest, 16);
  md5.base64.assign(reinterpret_cast<const char*>(b64), static_cast<size_t>(n));
  return md5;
}

}  // namespace

Result<BodyMd5> Md5OfFdRange(int fd, uint64_t offset, uint64_t length) {
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_md5(), nullptr) != 1) {
    return Status::Error(ENOMEM, "MD5 of a body: no digest context");
  }
  constexpr size_t kPiece = 1 << 20;
  std::unique_ptr<char[]> buf(new char[kPiece]);
  uint64_t done = 0;
  while (done < length) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(kPiece, length - done));
    ssize_t n = ::pread(fd, buf.get(), want, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      return Status::Error(err, "read of the body at offset " + std::to_string(offset + done) +
                                    ": " + std::strerror(err));
    }
    if (n == 0) {
      return Status::Io("the body's file ended at offset " + std::to_string(offset + done) +
                        ", before its " + std::to_string(length) + " bytes");
    }
    EVP_DigestUpdate(ctx.get(), buf.get(), static_cast<size_t>(n));
    done += static_cast<uint64_t>(n);
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  EVP_DigestFinal_ex(ctx.get(), digest, &len);
  return Spell(digest);
}

BodyMd5 Md5Of(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_md5(), nullptr);
  return Spell(digest);
}

bool IsMd5Etag(std::string_view etag) {
  if (etag.size() != 32) return false;
  for (char c : etag) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::string MultipartEtag(const std::vector<std::string>& part_etags) {
  if (part_etags.empty()) return "";
  std::string binary;
  for (const std::string& etag : part_etags) {
    if (!IsMd5Etag(etag)) return "";
    for (size_t i = 0; i < 32; i += 2) {
      binary.push_back(static_cast<char>(HexValue(etag[i]) * 16 + HexValue(etag[i + 1])));
    }
  }
  return Md5Of(binary).hex + "-" + std::to_string(part_etags.size());
}

bool EtagIsNotContentMd5(const std::map<std::string, std::string>& headers) {
  if (headers.count("x-amz-server-side-encryption-customer-algorithm") != 0) return true;
  auto it = headers.find("x-amz-server-side-encryption");
  if (it == headers.end()) return false;
  return strncasecmp(it->second.c_str(), "aws:kms", 7) == 0;
}

}  // namespace tierfs
