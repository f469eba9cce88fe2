// PeriodicFlush: the periodic flush (docs/design.md, "Words": a flush writes
// in-memory inode attributes and I/O counters to the database). One pass,
// FlushAll, runs the attribute flush of every inode in the table and drains
// the I/O counters into the iostat buckets (with one FCL "filestats" record per
// file), all in one commit group, then commits it. It runs every
// --flush_seconds on its own thread (Start), and at the start of every scan,
// tool read (`fcladm sync`) and heat-bucket change, and once more at the stop.
//
// Thread: Start and Stop are the session's (one thread, not concurrently);
// the thread they run calls FlushAll, then `after_each` (the volume check and
// retention that ride on it). FlushAll and RestartHeatCounts may run on any
// thread at once. Locks: iostat_mu_, held from the counters' drain until their
// deltas are in the database (or restored), and across RestartHeatCounts, so
// deltas of the old bucket length never meet the new one; taken with no
// inode's lock held.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "common/mutex.h"
#include "common/periodic_thread.h"
#include "common/status.h"
#include "common/thread_annotations.h"
#include "fs/core/inode_table.h"
#include "fs/core/io_accounting.h"
#include "meta/metadata.h"

namespace tierfs {

class PeriodicFlush {
 public:
  // The attribute flush of one inode and what follows it (an entry nothing
  // keeps any more goes idle or is reclaimed): FileSystem::FlushAttributesAndSettle.
  using FlushInodeFn = std::function<Status(const InodeRef&)>;
  // Commits the open commit group and finishes the reclaims that waited for
  // it: FileSystem::SyncMetadata.
  using CommitFn = std::function<Status()>;

  // All of them must outlive the PeriodicFlush.
  PeriodicFlush(meta::Metadata& meta, InodeTable& inodes, IoAccounting& io,
                FlushInodeFn flush_inode, CommitFn commit)
      : meta_(meta),
        inodes_(inodes),
        io_(io),
        flush_inode_(std::move(flush_inode)),
        commit_(std::move(commit)) {}
  // Stops the thread, if started.
  ~PeriodicFlush() { Stop(); }
  PeriodicFlush(const PeriodicFlush&) = delete;
  PeriodicFlush& operator=(const PeriodicFlush&) = delete;

  // One pass (see above). Returns the first error (every inode is still
  // tried; counters that could not be written are kept for the next pass).
  Status FlushAll() EXCLUDES(iostat_mu_);
  // FlushAll, then deletes every iostat bucket, sets the bucket length in the
  // database and restarts the in-memory counts with it (FileSystem::RestartHeatCounts).
  Status RestartHeatCounts(int64_t bucket_seconds) EXCLUDES(iostat_mu_);
  // Starts the thread: every `period`, FlushAll (an error is logged), then
  // `after_each`. Not started twice.
  void Start(std::chrono::milliseconds period, std::function<void()> after_each);
  // Stops the thread after the pass in progress, if any; no pass after it.
  void Stop() { thread_.reset(); }
  // Called with every batch of I/O deltas once the database holds them (the
  // online promoter's history, fs/tiering/online_heat.h), on the flushing
  // thread with iostat_mu_ held: it must not flush. An empty function
  // removes the hook; set and cleared at any time.
  using DrainedFn = std::function<void(const std::vector<meta::IoDelta>&)>;
  void SetDrainedHook(DrainedFn hook) EXCLUDES(hook_mu_) {
    MutexLock lock(hook_mu_);
    drained_hook_ = std::move(hook);
  }

 private:
  // The I/O counters into the database, their "filestats" records after.
  // Counters the database refused are restored for the next pass.
  Status FlushIoCounters() EXCLUDES(iostat_mu_);
  // Appends one FCL "filestats" record per file of a flushed batch.
  void LogFileStats(const std::vector<meta::IoDelta>& deltas);

  meta::Metadata& meta_;
  InodeTable& inodes_;
  IoAccounting& io_;
  const FlushInodeFn flush_inode_;
  const CommitFn commit_;
  Mutex iostat_mu_;  // see the head comment
  Mutex hook_mu_ ACQUIRED_AFTER(iostat_mu_);
  DrainedFn drained_hook_ GUARDED_BY(hook_mu_);
  std::unique_ptr<PeriodicThread> thread_;  // Start's; the session's thread only
};

}  // namespace tierfs
