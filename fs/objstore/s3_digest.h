// The digests an upload is verified with: the MD5 of a body, sent as
// Content-MD5 so that the store checks what it received, and compared with the
// ETag the store returns when that ETag is an MD5; the ETag a multipart upload
// should end with. docs/design.md "Object volumes" says what this verifies and
// what it does not.
//
// Pure functions but Md5OfFdRange (which reads a file); thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace tierfs {

// The MD5 of a body in the two spellings S3 uses.
struct BodyMd5 {
  std::string hex;     // 32 lower-case hex digits: what a plain ETag holds
  std::string base64;  // 24 characters: the value of a Content-MD5 header
};

// The MD5 of `length` bytes of `fd` from `offset` (pread: the fd's offset
// stays). The errno of a failed read (EIO, EBADF...), or EIO when the file
// ends before offset + length. Reads the range once, in 1 MiB pieces.
Result<BodyMd5> Md5OfFdRange(int fd, uint64_t offset, uint64_t length);

// The MD5 of `data` (a small body held in memory).
BodyMd5 Md5Of(std::string_view data);

// Whether `etag` (unquoted) is 32 hex digits, the shape of an MD5.
bool IsMd5Etag(std::string_view etag);

// The ETag S3 gives an object completed from parts whose ETags are
// `part_etags` (in part order, each a hex MD5): the hex MD5 of their 16-byte
// binary MD5s one after another, then "-" and their count. "" when a part's
// ETag is not a hex MD5 (nothing to compare with then).
std::string MultipartEtag(const std::vector<std::string>& part_etags);

// Whether a reply (headers by lower-case name) says the object is encrypted
// with a key the store does not hold alone (SSE-KMS: x-amz-server-side-
// encryption "aws:kms" or "aws:kms:dsse"; SSE-C: x-amz-server-side-encryption-
// customer-algorithm). Its ETag is then no MD5 of the bytes, even when it has
// the shape of one, and only the store's own Content-MD5 check verified the
// body. SSE-S3 ("AES256") leaves the ETag the MD5 of the plain bytes.
bool EtagIsNotContentMd5(const std::map<std::string, std::string>& headers);

}  // namespace tierfs
