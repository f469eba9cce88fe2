// PassthroughMode: which opens the kernel serves by FUSE passthrough
// (`tierfs --passthrough`; fs/fuse/passthrough.h does the rest). Apart, so
// that options can name it without libfuse's headers.
#pragma once

#include <optional>
#include <string_view>

namespace tierfs {

// Which opens of regular files the kernel serves by passthrough.
enum class PassthroughMode {
  kOff,        // none: the daemon serves every read and write
  kReadOnly,   // O_RDONLY opens; a writer of a file already open that way is
               // passthrough too (the kernel's rule) with its reads and writes
               // still sent to the daemon (FOPEN_DIRECT_IO)
  kReadWrite,  // every open
  kAuto,       // kReadWrite where the kernel grants passthrough at INIT and a
               // counter whose cost is acceptable counts its heat (not the
               // one on every system call of the machine), kOff elsewhere:
               // the default (fs/daemon/passthrough_heat.h)
};

// "off", "ro", "rw" or "auto" (what `--passthrough` takes); nullopt for anything else.
std::optional<PassthroughMode> ParsePassthroughMode(std::string_view text);
// The name ParsePassthroughMode takes for `mode`.
const char* PassthroughModeName(PassthroughMode mode);

}  // namespace tierfs
