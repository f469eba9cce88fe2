// Where the daemon's metrics go (fs/metrics/metrics_exporter.h): the tierfs options
// --metrics_listen and --metrics_textfile (docs/admin.md, "Monitoring").
#pragma once

#include <string>

#include "common/status.h"

namespace tierfs {

struct MetricsOptions {
  std::string listen;    // "ADDR:PORT" ("127.0.0.1:9105", "[::1]:9105"); empty = no endpoint
  std::string textfile;  // absolute path of a .prom file; empty = none
  int textfile_interval_s = 15;  // seconds between textfile writes, >= 1
};

// Checks `listen` ("HOST:PORT", port 1..65535, HOST not empty). EINVAL naming
// the option and the value. Pure.
Status ValidateMetricsListen(const std::string& listen);

}  // namespace tierfs
