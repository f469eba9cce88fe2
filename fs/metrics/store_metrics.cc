// The metrics of object volumes ("metrics per object volume"): what
// each volume's S3 clients sent, by operation, how long it took, how it failed,
// and the bytes that crossed the network. Local volumes have none.
#include "fs/metrics/metrics_collector.h"

#include "fs/objstore/s3_client_stats.h"
#include "fs/volume/object_volume.h"

namespace tierfs {

void MetricsCollector::CollectStores(std::vector<MetricFamily>* out) const {
  const std::string& mount = fs_.options().mountpoint;
  Family requests("tierfs_store_requests_total",
                  "Requests to an object volume's store, by S3 operation (one per call, "
                  "however many attempts its retries took).",
                  MetricType::Counter, mount);
  Family attempts("tierfs_store_request_attempts_total",
                  "HTTP attempts those requests took (attempts beyond requests are retries).",
                  MetricType::Counter, mount);
  Family errors("tierfs_store_request_errors_total",
                "Requests to the store that failed, by operation and kind of error "
                "(not_found, denied, no_space, timeout, unreachable, slow_down, other).",
                MetricType::Counter, mount);
  Family latency("tierfs_store_request_duration_seconds",
                 "Time from a store request's first attempt to its end, retries and their "
                 "pauses included.",
                 MetricType::Histogram, mount);
  Family sent("tierfs_store_sent_bytes_total", "Body bytes sent to the store (uploads).",
              MetricType::Counter, mount);
  Family received("tierfs_store_received_bytes_total",
                  "Body bytes received from the store (reads, recalls, listings).",
                  MetricType::Counter, mount);
  const VolumeSet& volumes = fs_.volumes();
  for (const meta::Volume& v : volumes.volumes()) {
    const ObjectVolume* store = volumes.Store(v.id);
    if (store == nullptr) continue;
    const std::vector<ClientMetric::Label> labels = {{"volume", v.name},
                                                     {"class", v.placement_class}};
    sent.AddValue(labels, static_cast<double>(store->SentBytes()));
    received.AddValue(labels, static_cast<double>(store->ReceivedBytes()));
    for (size_t i = 0; i < static_cast<size_t>(S3Op::kCount); ++i) {
      const S3Op op = static_cast<S3Op>(i);
      const S3ClientStats::Calls calls = store->CallsOf(op);
      if (calls.count == 0) continue;  // one series per operation the volume used
      std::vector<ClientMetric::Label> l = labels;
      l.push_back({"op", std::string(S3OpName(op))});
      requests.AddValue(l, static_cast<double>(calls.count));
      attempts.AddValue(l, static_cast<double>(calls.attempts));
      latency.AddHistogram(l, calls.count, calls.seconds_sum, calls.buckets,
                           S3ClientStats::kLatencyBounds);
      for (size_t k = 0; k < calls.errors.size(); ++k) {
        if (calls.errors[k] == 0) continue;
        std::vector<ClientMetric::Label> e = l;
        e.push_back({"error", std::string(S3ErrorKindName(static_cast<S3ErrorKind>(k)))});
        errors.AddValue(std::move(e), static_cast<double>(calls.errors[k]));
      }
    }
  }
  for (Family* f : {&requests, &attempts, &errors, &latency, &sent, &received}) {
    out->push_back(std::move(f->f));
  }
}

}  // namespace tierfs
