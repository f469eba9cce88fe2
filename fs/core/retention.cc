#include "fs/core/retention.h"

#include "common/log.h"

namespace tierfs {

Status Retention::Apply() {
  TIERFS_RETURN_IF_ERROR(meta_.PruneFcl(bounds_.fcl_keep_seconds, bounds_.fcl_max_records));
  if (bounds_.iostat_keep_seconds <= 0) return Status::Ok();
  return meta_.PruneIoStats(clock_.NowSeconds() - bounds_.iostat_keep_seconds);
}

void Retention::ApplyIfDue() {
  {
    MutexLock lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    if (now - last_run_ <= kPeriod) return;
    last_run_ = now;
  }
  if (Status st = Apply(); !st.ok()) LogError("retention: {}", st.ToString());
}

}  // namespace tierfs
