// DelayedAttributeFlush: flushes to the database, shortly after a write or a
// release, the attributes (size, times, the FCL "write" record) of files
// written: through handles the kernel never releases (no-open mode,
// fs/core/kernel_open_cache.h), and at the release of any other written file
// (FileSystem::FlushAttributesAtClose), so that closing many small files
// takes the database lock once per batch, not once per file.
//
// In no-open mode nothing marks a close. Instead, every inode whose size a write
// changed is queued once and flushed `delay` after it was queued, with every
// inode that would be due within the next `delay` / 2, in one database batch
// (Metadata::UpdateAttributesEach); what a crash of the daemon may lose of a
// closed file is the last `delay` plus a commit window (docs/reliability.md). A file
// growing without pause is flushed once per `delay`, not once per write; an
// overwrite in place, whose times alone changed, waits for the periodic flush
// (FileSystem::DataWrittenLocked).
#pragma once

#include <chrono>
#include <functional>
#include <thread>
#include <vector>

#include "common/cond_var.h"
#include "common/mutex.h"
#include "common/thread_annotations.h"
#include "fs/core/inode_table.h"

namespace tierfs {

class DelayedAttributeFlush {
 public:
  // Flushes the attributes of the inodes given (in the order they were queued).
  using FlushFn = std::function<void(const std::vector<InodeRef>&)>;

  // Starts the thread that flushes queued inodes `delay` after they were queued.
  DelayedAttributeFlush(std::chrono::milliseconds delay, FlushFn flush);
  // Flushes what is still queued, then stops the thread.
  ~DelayedAttributeFlush();
  DelayedAttributeFlush(const DelayedAttributeFlush&) = delete;
  DelayedAttributeFlush& operator=(const DelayedAttributeFlush&) = delete;

  // Queues `inode` once: `inode.delayed_flush_queued` (its mu held by the
  // caller) says whether it is queued already, and is set here. The flush
  // function must clear it (under mu) before it flushes the inode.
  void EnqueueLocked(const InodeRef& inode) REQUIRES(inode->mu) EXCLUDES(mu_);
  // Flushes everything queued now, in the caller's thread (a tool is about
  // to read the database: fcladm, fsmap, a scan).
  void Drain();

 private:
  struct Queued {
    InodeRef inode;
    std::chrono::steady_clock::time_point due;
  };
  void Run();
  // Takes the queued inodes due by `now` (all when `now` is max) off the queue.
  std::vector<InodeRef> TakeDueLocked(std::chrono::steady_clock::time_point now) REQUIRES(mu_);

  const std::chrono::milliseconds delay_;
  const FlushFn flush_;
  Mutex mu_;  // never held while flushing
  CondVar wake_;
  std::vector<Queued> queue_ GUARDED_BY(mu_);  // in due order
  bool stop_ GUARDED_BY(mu_) = false;
  // Serializes the flush function between the thread and Drain, so a Drain
  // returns only once what was queued before it is flushed.
  Mutex flush_mu_ ACQUIRED_BEFORE(mu_);
  std::thread thread_;
};

}  // namespace tierfs
