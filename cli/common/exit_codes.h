// Exit statuses shared by the tierfs administration tools (docs/commands.md
// "How the tools find the file system").
// Constants only; thread-safe.
#pragma once

namespace tierfs::cli {

constexpr int kExitOk = 0;           // success
constexpr int kExitFailed = 1;       // the command ran but some of it failed (files not moved...)
constexpr int kExitUsage = 2;        // usage, argument or policy validation error
constexpr int kExitUnreachable = 3;  // no tierfs mount for the path, or its daemon did not answer

}  // namespace tierfs::cli
