// MetricsCollector: builds the daemon's Prometheus metric families from the
// file system when a scrape or a textfile write asks (MetricsExporter's
// collectable). Internal to fs/metrics; the metrics themselves are listed in
// docs/admin.md, "Monitoring". Thread-safe as far as FileSystem's readers are.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include "fs/core/file_system.h"

namespace tierfs {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

// Builds the metric families from the file system at collection time.
class MetricsCollector : public prometheus::Collectable {
 public:
  explicit MetricsCollector(FileSystem& fs) : fs_(fs) {}
  std::vector<MetricFamily> Collect() const override;

 private:
  // Appends to `out` a family of `type` with one series, labelled with the
  // mount alone, of `value`.
  static void AddSingle(std::vector<MetricFamily>* out, std::string name, std::string help,
                        MetricType type, const std::string& mount, double value);
  // A family of `type`; Add() appends one series with the mount label first.
  struct Family {
    MetricFamily f;
    const std::string& mount;
    Family(std::string name, std::string help, MetricType type, const std::string& mount_point)
        : mount(mount_point) {
      f.name = std::move(name);
      f.help = std::move(help);
      f.type = type;
    }
    ClientMetric& Add(std::vector<ClientMetric::Label> labels) {
      ClientMetric m;
      m.label.push_back({"mount", mount});
      for (auto& l : labels) m.label.push_back(std::move(l));
      f.metric.push_back(std::move(m));
      return f.metric.back();
    }
    // A histogram series: `count` samples summing `sum`, of which buckets[i]
    // (not cumulative) fell at or below bounds[i]; +Inf is added.
    template <typename Buckets, typename Bounds>
    void AddHistogram(std::vector<ClientMetric::Label> labels, uint64_t count, double sum,
                      const Buckets& buckets, const Bounds& bounds) {
      ClientMetric& h = Add(std::move(labels));
      h.histogram.sample_count = count;
      h.histogram.sample_sum = sum;
      uint64_t cumulative = 0;
      for (size_t b = 0; b < buckets.size(); ++b) {
        cumulative += buckets[b];
        h.histogram.bucket.push_back({cumulative, bounds[b]});
      }
      h.histogram.bucket.push_back({count, std::numeric_limits<double>::infinity()});
    }
    void AddValue(std::vector<ClientMetric::Label> labels, double value) {
      ClientMetric& m = Add(std::move(labels));
      if (f.type == MetricType::Counter) {
        m.counter.value = value;
      } else {
        m.gauge.value = value;
      }
    }
  };

  void CollectVolumes(std::vector<MetricFamily>* out) const;
  void CollectRelocations(std::vector<MetricFamily>* out) const;
  void CollectScans(std::vector<MetricFamily>* out) const;
  void CollectRequests(std::vector<MetricFamily>* out) const;
  // fs/metrics/store_metrics.cc: each object volume's requests, errors, bytes
  // and latency (S3ClientStats).
  void CollectStores(std::vector<MetricFamily>* out) const;

  FileSystem& fs_;
};

}  // namespace tierfs
