#include "tests/support/ceph_s3_options.h"

namespace tierfs::testing {

S3ClientOptions CephS3ClientOptions(const CephCluster& cluster) {
  S3ClientOptions o;
  o.endpoint = cluster.endpoint();
  o.credentials.access_key = cluster.access_key();
  o.credentials.secret_key = cluster.secret_key();
  o.connect_timeout_seconds = 2;
  o.stall_timeout_seconds = 5;
  o.request_timeout_seconds = 20;
  o.max_attempts = 4;
  // A store that answers busy or failing is retried for 3 s, not the 20 s of a
  // call: the fault tests that fail every attempt end soon.
  o.retry_budget_seconds = 3;
  o.backoff_initial_seconds = 0.05;
  o.backoff_max_seconds = 0.5;
  return o;
}

}  // namespace tierfs::testing
