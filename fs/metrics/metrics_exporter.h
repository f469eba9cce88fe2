// MetricsExporter: the daemon's metrics in the Prometheus text format, served
// over HTTP by prometheus-cpp's pull exposer (`--metrics_listen ADDR:PORT`,
// path /metrics) and/or written to a node_exporter textfile
// (`--metrics_textfile PATH`). Off unless one of them is given. The metrics and
// their labels: docs/admin.md, "Monitoring".
//
// The values are read when asked (a scrape, or each textfile write): the
// counters of fs/core/daemon_metrics.h, each volume's capacity and use (statvfs),
// its files (one grouped query of the database), its state, and the FCL's size.
// The endpoint has no authentication: bind it to localhost, or to an address
// only the monitoring host reaches.
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "common/cond_var.h"
#include "common/mutex.h"
#include "common/status.h"
#include "common/thread_annotations.h"
#include "fs/core/file_system.h"
#include "fs/metrics/metrics_options.h"

namespace prometheus {
class Exposer;
}  // namespace prometheus

namespace tierfs {

class MetricsCollector;  // fs/metrics/metrics_collector.h: a prometheus::Collectable

class MetricsExporter {
 public:
  // Starts the endpoint and the textfile writer; turns request timing on in
  // fs.metrics(). EINVAL for a malformed listen address or a relative textfile
  // path; EADDRINUSE (or the bind's error) when the address cannot be bound,
  // naming it. `fs` must outlive the exporter.
  static Result<std::unique_ptr<MetricsExporter>> Start(FileSystem& fs,
                                                        const MetricsOptions& options);
  // Stops serving and writes the textfile one last time.
  ~MetricsExporter();
  MetricsExporter(const MetricsExporter&) = delete;
  MetricsExporter& operator=(const MetricsExporter&) = delete;

  // Every metric now, in the Prometheus text format (what /metrics answers).
  std::string Text() const;

 private:
  MetricsExporter(FileSystem& fs, const MetricsOptions& options);
  // Writes the textfile atomically (a temporary beside it, then rename), so
  // node_exporter never reads half of it. Errors are logged, not fatal.
  void WriteTextfile() const;
  void TextfileLoop() EXCLUDES(mu_);

  FileSystem& fs_;
  const MetricsOptions options_;
  std::shared_ptr<MetricsCollector> collector_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  Mutex mu_;
  CondVar cv_;
  bool stop_ GUARDED_BY(mu_) = false;
  std::thread textfile_thread_;
};

}  // namespace tierfs
