#include "fs/metrics/metrics_exporter.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <vector>

#include <prometheus/exposer.h>
#include <prometheus/text_serializer.h>

#include "common/log.h"
#include "fs/metrics/metrics_collector.h"

namespace tierfs {

Status ValidateMetricsListen(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  auto bad = [&] {
    return Status::Invalid("--metrics_listen: \"" + listen +
                           "\" is not HOST:PORT (e.g. 127.0.0.1:9105)");
  };
  if (colon == std::string::npos || colon == 0 || colon + 1 == listen.size()) return bad();
  const std::string port = listen.substr(colon + 1);
  if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos) return bad();
  const int n = std::stoi(port);
  if (n < 1 || n > 65535) return bad();
  return Status::Ok();
}

MetricsExporter::MetricsExporter(FileSystem& fs, const MetricsOptions& options)
    : fs_(fs), options_(options), collector_(std::make_shared<MetricsCollector>(fs)) {}

Result<std::unique_ptr<MetricsExporter>> MetricsExporter::Start(FileSystem& fs,
                                                                const MetricsOptions& options) {
  if (!options.listen.empty()) TIERFS_RETURN_IF_ERROR(ValidateMetricsListen(options.listen));
  if (!options.textfile.empty() && options.textfile.front() != '/') {
    return Status::Invalid("--metrics_textfile: \"" + options.textfile +
                           "\" is not an absolute path");
  }
  std::unique_ptr<MetricsExporter> exporter(new MetricsExporter(fs, options));
  if (!options.listen.empty()) {
    try {
      exporter->exposer_ = std::make_unique<prometheus::Exposer>(options.listen, 1);
    } catch (const std::exception& e) {
      return Status::Error(EADDRINUSE, "--metrics_listen: cannot listen on " + options.listen +
                                           ": " + e.what());
    }
    exporter->exposer_->RegisterCollectable(exporter->collector_);
  }
  fs.metrics().set_timing(true);
  if (!options.textfile.empty()) {
    exporter->WriteTextfile();
    exporter->textfile_thread_ = std::thread([e = exporter.get()] { e->TextfileLoop(); });
  }
  return exporter;
}

MetricsExporter::~MetricsExporter() {
  {
    MutexLock lock(mu_);
    stop_ = true;
  }
  cv_.NotifyAll();
  if (textfile_thread_.joinable()) textfile_thread_.join();
  exposer_.reset();
  if (!options_.textfile.empty()) WriteTextfile();
  fs_.metrics().set_timing(false);
}

std::string MetricsExporter::Text() const {
  return prometheus::TextSerializer().Serialize(collector_->Collect());
}

void MetricsExporter::WriteTextfile() const {
  const std::string tmp = options_.textfile + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << Text();
    if (!out.good()) {
      LogError("metrics textfile {}: cannot write", tmp);
      unlink(tmp.c_str());
      return;
    }
  }
  if (rename(tmp.c_str(), options_.textfile.c_str()) != 0) {
    LogError("metrics textfile {}: {}", options_.textfile, std::strerror(errno));
    unlink(tmp.c_str());
  }
}

void MetricsExporter::TextfileLoop() {
  MutexLock lock(mu_);
  while (true) {
    const auto due =
        std::chrono::steady_clock::now() + std::chrono::seconds(options_.textfile_interval_s);
    while (!stop_ && cv_.WaitUntil(mu_, due)) {
    }
    if (stop_) return;
    lock.Unlock();
    WriteTextfile();
    lock.Lock();
  }
}

}  // namespace tierfs
