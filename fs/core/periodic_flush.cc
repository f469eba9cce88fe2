#include "fs/core/periodic_flush.h"

#include <map>
#include <optional>
#include <string>

#include "common/log.h"

namespace tierfs {

Status PeriodicFlush::FlushAll() {
  Status first;
  // One commit for the whole flush (below), not one per group commit window.
  std::optional<meta::Metadata::BatchScope> batch(std::in_place, meta_);
  for (const InodeRef& inode : inodes_.Snapshot()) {
    Status st = flush_inode_(inode);
    if (!st.ok() && first.ok()) first = st;
  }
  if (Status st = FlushIoCounters(); !st.ok() && first.ok()) first = st;
  // A scan, `fcladm sync` and the periodic flush see (and leave) everything
  // committed, reclaims that waited for a commit included.
  batch.reset();
  Status synced = commit_();
  if (first.ok()) first = synced;
  return first;
}

Status PeriodicFlush::FlushIoCounters() {
  std::vector<meta::IoDelta> deltas;
  Status st;
  {
    MutexLock lock(iostat_mu_);
    deltas = io_.Drain();
    if (!deltas.empty()) {
      st = meta_.AddIoStats(deltas);
      if (!st.ok()) {
        io_.Restore(deltas);
      } else {
        MutexLock hook_lock(hook_mu_);
        if (drained_hook_) drained_hook_(deltas);
      }
    }
  }
  if (st.ok() && !deltas.empty()) LogFileStats(deltas);
  return st;
}

Status PeriodicFlush::RestartHeatCounts(int64_t bucket_seconds) {
  // Attributes and the counts so far reach the database (and their FCL
  // "filestats" records) before the buckets go.
  TIERFS_RETURN_IF_ERROR(FlushAll());
  MutexLock lock(iostat_mu_);
  TIERFS_RETURN_IF_ERROR(meta_.RestartIoStats(bucket_seconds));
  // Counts made since FlushAll fell in buckets of the old length: Restart drops them.
  io_.Restart(bucket_seconds);
  return Status::Ok();
}

void PeriodicFlush::Start(std::chrono::milliseconds period, std::function<void()> after_each) {
  thread_ = std::make_unique<PeriodicThread>(period, [this, after = std::move(after_each)] {
    if (Status st = FlushAll(); !st.ok()) LogError("periodic flush: {}", st.ToString());
    after();
  });
}

void PeriodicFlush::LogFileStats(const std::vector<meta::IoDelta>& deltas) {
  // One "filestats" FCL record per file and flush (VxFS's VX_FCL_FILESTATS): the
  // I/O since the previous record. Temperatures come from the iostat buckets; the
  // FCL copy is for administrators and FCL consumers.
  std::map<uint64_t, meta::IoDelta> per_file;
  for (const meta::IoDelta& d : deltas) {
    meta::IoDelta& sum = per_file[d.ino];
    sum.rbytes += d.rbytes;
    sum.wbytes += d.wbytes;
    sum.rops += d.rops;
    sum.wops += d.wops;
  }
  std::vector<meta::FclRecord> records;
  records.reserve(per_file.size());
  for (const auto& [ino, d] : per_file) {
    meta::FclRecord& record = records.emplace_back();
    record.event = "filestats";
    record.ino = ino;
    record.detail = "rbytes=" + std::to_string(d.rbytes) + " wbytes=" + std::to_string(d.wbytes) +
                    " reads=" + std::to_string(d.rops) + " writes=" + std::to_string(d.wops);
  }
  (void)meta_.AppendFclRecords(&records);  // on an error the counters are safe in iostat
}

}  // namespace tierfs
