// The daemon's log (docs/admin.md, "Monitoring"): one line per event, with an
// ISO-8601 timestamp and a level, to the log file `<metadata volume>/.tierfs/
// tierfs.log` (or standard error in the foreground) and to syslog (the journal
// on systemd machines), through spdlog.
//
// Before InitDaemonLog, and in the command-line tools, which never call it, a
// message goes to standard error as "tierfs: <message>", as it always did, so
// code shared with the tools (meta/, fs/ support) may log freely.
// Thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include <spdlog/fmt/fmt.h>

#include "common/status.h"

namespace tierfs {

enum class LogLevel { kInfo, kWarning, kError };

struct LogOptions {
  std::string file;        // append here ("" = no file); opened O_APPEND, so
                           // logrotate's copytruncate works
  bool to_stderr = false;  // also to standard error (the foreground daemon)
  bool to_syslog = true;   // also to syslog: ident "tierfs", facility LOG_DAEMON
  std::string tag;         // put before each syslog message, e.g. the mount point
};

// Sends every later message where `options` says. EIO naming the file when the
// log file cannot be opened (nothing changes then). Call once, early.
Status InitDaemonLog(const LogOptions& options);
// Flushes and closes the sinks; later messages go to standard error again.
void ShutdownDaemonLog();

// One message, without a trailing newline.
void Log(LogLevel level, std::string_view message);

// fmt-style formatting ("inode {} moved to {}", ino, name).
template <typename... Args>
void LogInfo(fmt::format_string<Args...> format, Args&&... args) {
  Log(LogLevel::kInfo, fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
void LogWarning(fmt::format_string<Args...> format, Args&&... args) {
  Log(LogLevel::kWarning, fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
void LogError(fmt::format_string<Args...> format, Args&&... args) {
  Log(LogLevel::kError, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace tierfs
