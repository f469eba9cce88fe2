// How messages spell a number of bytes: "1 byte", "4096 bytes", and from 1 MiB
// on with its size in MiB too, "73400320 bytes (70.0 MiB)", so an administrator
// reads both the exact count and its scale. Used by `tierfs check`'s findings
// and by the volume administration's messages.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace tierfs {

inline std::string Bytes(uint64_t n) {
  std::string text = std::to_string(n) + (n == 1 ? " byte" : " bytes");
  if (n >= (uint64_t{1} << 20)) {
    char mib[32];
    std::snprintf(mib, sizeof mib, " (%.1f MiB)", static_cast<double>(n) / (1 << 20));
    text += mib;
  }
  return text;
}

}  // namespace tierfs
