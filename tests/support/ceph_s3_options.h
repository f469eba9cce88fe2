// The S3 client options of a test that talks to the RADOS Gateway of a
// CephCluster (tests/support/ceph_cluster.h) itself: the tests of the S3
// client (tests/objstore/rgw) and the object volume tests through a mounted
// tierfs (tests/store), which check the bucket behind the daemon's back.
#pragma once

#include "fs/objstore/s3_client_options.h"
#include "tests/support/ceph_cluster.h"

namespace tierfs::testing {

// The options for a client of `cluster`: its endpoint and the test user's
// keys, with bounds short enough for fault tests (connect 2 s, stall 5 s,
// 20 s per call, 4 attempts, backoff 0.05 s doubling up to 0.5 s), so that a
// test's own request to a stopped or frozen gateway fails within seconds.
S3ClientOptions CephS3ClientOptions(const CephCluster& cluster);

}  // namespace tierfs::testing
