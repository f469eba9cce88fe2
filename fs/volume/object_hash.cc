#include "fs/volume/object_hash.h"

#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

namespace tierfs {

Result<uint64_t> HashObject(VolumeIo& io, int fd, off_t size) {
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(XXH3_createState(),
                                                                  &XXH3_freeState);
  XXH3_64bits_reset(state.get());
  std::vector<char> buf(1 << 20);
  off_t off = 0;
  while (off < size) {
    ssize_t n = io.Pread(fd, buf.data(), std::min<off_t>(static_cast<off_t>(buf.size()), size - off),
                         off);
    if (n < 0) return Status::FromErrno("read for checksum");
    if (n == 0) break;
    XXH3_64bits_update(state.get(), buf.data(), static_cast<size_t>(n));
    off += n;
  }
  return static_cast<uint64_t>(XXH3_64bits_digest(state.get()));
}

std::string Xxh3Hex(uint64_t hash) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

}  // namespace tierfs
