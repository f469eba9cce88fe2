// The metrics of an object volume ("metrics per object volume:
// requests, errors, bytes, latency"), read from the daemon's textfile after a
// relocation to the store, reads from it and a gateway that went away and came
// back: each S3 operation counted with its latency, the probe's failures as
// "unreachable", the bytes both ways, and no capacity for a store.
#include <string>

#include "tests/store/object_volume_fixture.h"
#include "tests/support/metric_samples.h"

namespace tierfs::testing {
namespace {

// The sum of every sample of `name` whose labels contain all of `labels`
// (R"(op="put_object")"...): the volume's name need not be known.
double Sum(const MetricSamples& samples, const std::string& name,
           const std::vector<std::string>& labels) {
  double sum = 0;
  bool any = false;
  for (const auto& [key, value] : samples) {
    if (key.compare(0, name.size() + 1, name + "{") != 0) continue;
    bool all = true;
    for (const std::string& l : labels) all = all && key.find(l) != std::string::npos;
    if (!all) continue;
    sum += value;
    any = true;
  }
  return any ? sum : -1;
}

using StoreMetricsTest = ObjectVolumeTest;

TEST_F(StoreMetricsTest, RequestsErrorsBytesAndLatencyAreCountedPerOperation) {
  const std::string textfile = root_ + "/tierfs.prom";
  Unmount();
  Mount({"--metrics_textfile", textfile});
  AddStore();
  AssignPolicy(ToClassPolicy("cloud"));
  constexpr size_t kBig = 3 * kMiB, kSmall = 200 * 1024;
  WriteFile(Path("big"), RandomBytes(kBig, 1));
  WriteFile(Path("small"), RandomBytes(kSmall, 2));
  sync();
  Enforce();
  ASSERT_EQ(ClassOf("big"), "cloud");
  ASSERT_EQ(ClassOf("small"), "cloud");
  // O_DIRECT: past the page cache, so the daemon reads from the store.
  ASSERT_EQ(ReadErrno(Path("big")), 0);

  // The probe fails while the gateway is down, and finds it back.
  gateway_down_ = true;
  ASSERT_TRUE(cluster_->StopGateway().ok());
  WaitForState("offline", 20);
  ASSERT_TRUE(cluster_->StartGateway().ok());
  gateway_down_ = false;
  WaitForState("online", 20);
  Unmount();  // the textfile is written a last time at unmount

  const MetricSamples s = ReadMetricSamples(textfile);
  const std::string cloud = R"(class="cloud")";
  EXPECT_EQ(Sum(s, "tierfs_store_requests_total", {cloud, R"(op="put_object")"}), 2);
  // Each upload verified by a HEAD.
  EXPECT_GE(Sum(s, "tierfs_store_requests_total", {cloud, R"(op="head_object")"}), 2);
  EXPECT_GE(Sum(s, "tierfs_store_requests_total", {cloud, R"(op="get_object")"}), 1);
  // The probe asks every second.
  const double probes = Sum(s, "tierfs_store_requests_total", {cloud, R"(op="head_bucket")"});
  EXPECT_GE(probes, 2);
  EXPECT_GE(Sum(s, "tierfs_store_request_attempts_total", {cloud, R"(op="head_bucket")"}),
            probes);
  EXPECT_GE(Sum(s, "tierfs_store_request_errors_total",
                {cloud, R"(op="head_bucket")", R"(error="unreachable")"}),
            1);
  EXPECT_EQ(Sum(s, "tierfs_store_request_errors_total", {cloud, R"(op="put_object")"}), -1)
      << "no upload failed";
  // Every request in the histogram.
  EXPECT_EQ(Sum(s, "tierfs_store_request_duration_seconds_count", {cloud, R"(op="put_object")"}),
            2);
  EXPECT_EQ(Sum(s, "tierfs_store_request_duration_seconds_bucket",
                {cloud, R"(op="put_object")", R"(le="+Inf")"}),
            2);
  EXPECT_GT(Sum(s, "tierfs_store_request_duration_seconds_sum", {cloud, R"(op="put_object")"}),
            0);
  EXPECT_GE(Sum(s, "tierfs_store_sent_bytes_total", {cloud}), double(kBig + kSmall));
  EXPECT_GE(Sum(s, "tierfs_store_received_bytes_total", {cloud}), double(kBig));
  // A store's capacity is not known: no 1 PiB of "room" shows.
  EXPECT_EQ(Sum(s, "tierfs_volume_capacity_bytes", {cloud}), -1);
  EXPECT_EQ(Sum(s, "tierfs_volume_files", {cloud}), 2);
  // Local volumes have no store series.
  EXPECT_EQ(Sum(s, "tierfs_store_requests_total", {R"(class="ssd")"}), -1);
}

}  // namespace
}  // namespace tierfs::testing
