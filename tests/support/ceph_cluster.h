// CephCluster: a single-node Ceph cluster with an S3 gateway (one monitor, one
// memstore OSD, radosgw on a loopback port), started for a test binary by
// tests/ceph/ceph_cluster.sh, and CephEnvironment, the GoogleTest environment
// that starts one per binary and stops it at the end.
//
// The cluster lives in a fresh directory under $TMPDIR (or /tmp); its daemons
// are stopped by the pids the script recorded, each wait bounded, also when
// tests fail; and a watcher started with it stops it when the test binary dies
// without stopping it (a crash, kill -9). Where Ceph is not installed or does
// not come up in time, Start fails with the reason and the tail of the log of
// the daemon that failed: tests then fail, never skip.
//
// Not thread-safe: one test thread drives it (the client calls it makes may
// run on others).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>

#include "common/status.h"

namespace tierfs::testing {

class CephCluster {
 public:
  // Starts a cluster on free loopback ports; `memstore_bytes` bounds the data
  // the OSD holds in memory (the pool is full beyond it). Bounded by the
  // script's 60 s plus a margin; EIO with the script's output on failure,
  // ENOENT when the Ceph packages are missing. With `tls`, the gateway serves
  // HTTPS too (https_endpoint()), with a certificate for 127.0.0.1 and
  // localhost signed by a CA made for the cluster (ca_file()).
  static Result<std::unique_ptr<CephCluster>> Start(uint64_t memstore_bytes = 2ull << 30,
                                                    bool tls = false);
  // Stops the cluster (Stop()) if still running.
  ~CephCluster();
  CephCluster(const CephCluster&) = delete;
  CephCluster& operator=(const CephCluster&) = delete;

  // Stops every daemon (SIGTERM, SIGKILL after 10 s) and removes the directory.
  Status Stop();
  // The gateway alone: stopped (SIGTERM, or SIGKILL when `kill`, as in a crash),
  // started again (returns once S3 answers), frozen (SIGSTOP: connections are
  // accepted by the kernel, nothing answers) and thawed (SIGCONT).
  Status StopGateway(bool kill = false);
  Status StartGateway();
  Status FreezeGateway();
  Status ThawGateway();
  // Caps what `bucket` may hold at `bytes`: later writes beyond it get 403
  // QuotaExceeded at once. How tests make a full store (a full memstore OSD
  // would stall writes instead: without a manager nothing marks it full).
  Status SetBucketQuota(const std::string& bucket, uint64_t bytes);

  const std::string& endpoint() const { return endpoint_; }  // http://127.0.0.1:PORT
  // With Start's `tls`: "https://127.0.0.1:PORT" and the PEM file of the CA that
  // signed its certificate (under dir()); "" without.
  const std::string& https_endpoint() const { return https_endpoint_; }
  const std::string& ca_file() const { return ca_file_; }
  const std::string& access_key() const { return access_key_; }
  const std::string& secret_key() const { return secret_key_; }
  const std::string& dir() const { return dir_; }
  double start_seconds() const { return start_seconds_; }
  // The resident memory of the running daemons (mon, osd, rgw), bytes.
  uint64_t ResidentBytes() const;

 private:
  CephCluster() = default;
  Status Run(const std::vector<std::string>& args, int timeout_seconds, std::string* output);

  std::string dir_, endpoint_, access_key_, secret_key_, https_endpoint_, ca_file_;
  double start_seconds_ = 0;
  bool running_ = false;
};

// The cluster of this test binary, started by the environment before the first
// test and stopped after the last. Register it in main (or with
// ::testing::AddGlobalTestEnvironment); tests reach it with Cluster().
class CephEnvironment : public ::testing::Environment {
 public:
  // `tls`: the cluster's gateway serves HTTPS too (CephCluster::Start).
  explicit CephEnvironment(bool tls = false) : tls_(tls) {}
  void SetUp() override;
  void TearDown() override;

  // The running cluster, or nullptr with *why set (the start's error).
  static CephCluster* Cluster(std::string* why);

 private:
  const bool tls_;
};

}  // namespace tierfs::testing
