// ObjectVolumeTest: a mounted tierfs (TierfsFixture: classes ssd and hdd) with
// a fresh bucket of this binary's Ceph cluster (tests/support/ceph_cluster.h)
// per test, to be added as object volume class "cloud" with AddStore(), and a
// client of its own (s3_) to look at the bucket behind the daemon's back.
// TearDown brings a stopped or frozen gateway back (gateway_down_), unmounts,
// aborts every multipart upload, empties the bucket and removes it.
//
// Shared by the test files of tests/store (object_volume_test.cc,
// store_fault_test.cc, store_crash_loop_test.cc), with the policies and read
// helpers they use. Every wait is bounded.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "fs/objstore/s3_client.h"
#include "tests/integration/tierfs_fixture.h"
#include "tests/support/ceph_cluster.h"

namespace tierfs::testing {

using Clock = std::chrono::steady_clock;
inline constexpr size_t kMiB = 1 << 20;
// The prefix of the object volume's keys in its bucket (Url()).
inline constexpr char kPrefix[] = "tfs";

// Seconds since `start`.
inline double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A policy that moves every file to class `to` at each enforce; creates name
// the store's class first, which must fall to hdd (a store takes no creates).
std::string ToClassPolicy(const std::string& to);

// Files read in the last hour come back to hdd (IOTEMP nrbytes > 0); creates on hdd.
extern const char kHotBackPolicy[];

// The file's bytes, or "" when it does not exist.
std::string ReadFileIfAny(const std::string& path);

// read(2) of the whole file through a fresh O_DIRECT descriptor, in reads of
// 1 MiB: the errno of the first read (or open) that failed, or 0.
int ReadErrno(const std::string& path);

class ObjectVolumeTest : public TierfsFixture {
 protected:
  void SetUp() override;
  void TearDown() override;

  // fsvoladm add MOUNT s3://bucket/tfs:cloud; asserts success. At `endpoint`
  // when given (a proxy in front of the gateway), else the gateway's.
  void AddStore(const std::string& endpoint = "");
  // The volume's URL: s3://BUCKET/tfs.
  std::string Url() const { return "s3://" + bucket_ + "/" + kPrefix; }

  // Every key in the bucket (a listing that fails fails the test).
  std::vector<std::string> Keys();
  // The multipart uploads in progress in the bucket; a listing that fails
  // fails the test and counts as none.
  size_t Uploads();

  // Objects (regular files) under a local volume's .tierfs/objects.
  static size_t LocalObjects(const std::string& volume);
  // The entries (of any kind) under a local volume's .tierfs/tmp but its
  // recycled objects (empty "free.N" files, VolumeSet): copies of a relocation
  // or a recall not yet renamed into objects/. "" when there are none, else
  // "NAME (SIZE B), ..." (what a failure message shows).
  static std::string TmpLeftovers(const std::string& volume);

  // The state fsvoladm list shows for the volume whose path is Url() ("online",
  // "offline"...), "" when there is none.
  std::string StoreState();
  // Polls StoreState() until it is `want` (bounded by `seconds`); the seconds
  // it took (a failure of the test and `seconds` when it never was).
  double WaitForState(const std::string& want, double seconds);

  // fsppadm enforce MOUNT (bounded at 180 s); asserts exit 0.
  void Enforce();

  // Waits (bounded, 10 s) until the daemon that served the mount has exited
  // (its lock on daemon.lock is free); false when it has not.
  bool DaemonGone();

  CephCluster* cluster_ = nullptr;
  std::unique_ptr<S3Client> s3_;
  std::string bucket_, credentials_;
  // Set by a test that stops or freezes the gateway: TearDown thaws and
  // starts it again for the next test.
  bool gateway_down_ = false;
};

}  // namespace tierfs::testing
