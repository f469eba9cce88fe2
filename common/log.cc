#include "common/log.h"

#include <syslog.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <vector>

#include <spdlog/logger.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/sinks/syslog_sink.h>

#include "common/mutex.h"
#include "common/thread_annotations.h"

namespace tierfs {
namespace {

Mutex g_mu;  // guards g_logger's replacement
std::shared_ptr<spdlog::logger> g_logger GUARDED_BY(g_mu);  // null: standard error, plain

// "2026-11-24T06:58:01.123+00:00 warning tierfs[1234]: message"
constexpr char kPattern[] = "%Y-%m-%dT%H:%M:%S.%e%z %l tierfs[%P]: %v";

spdlog::level::level_enum SpdLevel(LogLevel level) {
  switch (level) {
    case LogLevel::kInfo: return spdlog::level::info;
    case LogLevel::kWarning: return spdlog::level::warn;
    case LogLevel::kError: return spdlog::level::err;
  }
  return spdlog::level::info;
}

std::shared_ptr<spdlog::logger> Current() {
  MutexLock lock(g_mu);
  return g_logger;
}

}  // namespace

Status InitDaemonLog(const LogOptions& options) {
  std::vector<spdlog::sink_ptr> sinks;
  try {
    if (!options.file.empty()) {
      auto file = std::make_shared<spdlog::sinks::basic_file_sink_mt>(options.file,
                                                                     /*truncate=*/false);
      file->set_pattern(kPattern);
      sinks.push_back(file);
    }
  } catch (const spdlog::spdlog_ex& e) {
    return Status::Error(EIO, "log file " + options.file + ": " + e.what());
  }
  if (options.to_stderr) {
    auto err = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    err->set_pattern(kPattern);
    sinks.push_back(err);
  }
  if (options.to_syslog) {
    // syslog adds its own time, host and ident[pid]; the tag says which mount.
    auto sys = std::make_shared<spdlog::sinks::syslog_sink_mt>("tierfs", LOG_PID, LOG_DAEMON,
                                                               /*enable_formatting=*/true);
    sys->set_pattern(options.tag.empty() ? std::string("%v") : options.tag + ": %v");
    sinks.push_back(sys);
  }
  auto logger = std::make_shared<spdlog::logger>("tierfs", sinks.begin(), sinks.end());
  logger->set_level(spdlog::level::info);
  logger->flush_on(spdlog::level::info);  // a crash loses no line
  MutexLock lock(g_mu);
  g_logger = std::move(logger);
  return Status::Ok();
}

void ShutdownDaemonLog() {
  std::shared_ptr<spdlog::logger> old;
  {
    MutexLock lock(g_mu);
    old = std::move(g_logger);
  }
  if (old) old->flush();
}

void Log(LogLevel level, std::string_view message) {
  if (auto logger = Current()) {
    logger->log(SpdLevel(level), "{}", message);
    return;
  }
  std::fprintf(stderr, "tierfs: %.*s\n", static_cast<int>(message.size()), message.data());
}

}  // namespace tierfs
