// Retention: drops FCL records and iostat buckets beyond the bounds of the
// mount's options (FileSystemOptions::fcl_keep_seconds, fcl_max_records,
// iostat_keep_seconds; 0 = no bound).
//
// Runs at the mount (session.cc, before the file system is served: an error
// refuses the mount) and then about once a minute on the periodic flush's
// thread (ApplyIfDue, after each periodic flush). Locks: mu_ guards the time
// of the last run only, and is not held while the database prunes.
#pragma once

#include <chrono>
#include <cstdint>

#include "common/clock.h"
#include "common/mutex.h"
#include "common/status.h"
#include "common/thread_annotations.h"
#include "meta/metadata.h"

namespace tierfs {

class Retention {
 public:
  struct Bounds {
    int64_t fcl_keep_seconds = 0;     // FCL records older than this go
    uint64_t fcl_max_records = 0;     // and those beyond this count
    int64_t iostat_keep_seconds = 0;  // iostat buckets older than this go
  };
  // `meta` and `clock` must outlive the Retention's last call.
  Retention(meta::Metadata& meta, const Clock& clock, Bounds bounds)
      : meta_(meta), clock_(clock), bounds_(bounds) {}
  Retention(const Retention&) = delete;
  Retention& operator=(const Retention&) = delete;

  // Prunes now. Errors: the database's (EIO, ENOSPC).
  Status Apply();
  // Apply, when a minute has passed since the last ApplyIfDue (at once the
  // first time); errors are logged.
  void ApplyIfDue() EXCLUDES(mu_);

 private:
  static constexpr std::chrono::minutes kPeriod{1};

  meta::Metadata& meta_;
  const Clock& clock_;
  const Bounds bounds_;
  Mutex mu_;
  std::chrono::steady_clock::time_point last_run_ GUARDED_BY(mu_){};
};

}  // namespace tierfs
