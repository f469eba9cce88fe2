#include "fs/fuse/passthrough_mode.h"

namespace tierfs {

std::optional<PassthroughMode> ParsePassthroughMode(std::string_view text) {
  if (text == "off") return PassthroughMode::kOff;
  if (text == "ro") return PassthroughMode::kReadOnly;
  if (text == "rw") return PassthroughMode::kReadWrite;
  if (text == "auto") return PassthroughMode::kAuto;
  return std::nullopt;
}

const char* PassthroughModeName(PassthroughMode mode) {
  switch (mode) {
    case PassthroughMode::kOff:
      return "off";
    case PassthroughMode::kReadOnly:
      return "ro";
    case PassthroughMode::kReadWrite:
      return "rw";
    case PassthroughMode::kAuto:
      return "auto";
  }
  return "off";
}

}  // namespace tierfs
