// GroupCommitter: the thread that ends each commit group of a Database a fixed
// window after it opened (docs/design.md, "Group commit").
//
// Namespace changes of many FUSE requests share one SQLite write transaction:
// each page the group touches reaches the WAL once per group instead of once
// per change (a create in a warm directory touches about a dozen pages). The
// committer wakes when a group opens (Database::EnableGroupCommit's callback),
// sleeps `window`, takes the database lock and commits. Anyone may commit
// earlier (Metadata::Sync: fsync, fsyncdir, unmount, an object about to be
// removed); the committer then finds nothing open and goes back to waiting.
//
// What a crash (kill -9, power loss) may lose: changes acknowledged in the
// last `window` (plus the time a commit takes), never anything an fsync or
// fsyncdir acknowledged, and never a part of one change: a group commits whole.
#pragma once

#include <chrono>
#include <functional>
#include <thread>

#include "common/cond_var.h"
#include "common/mutex.h"
#include "common/thread_annotations.h"

namespace tierfs::meta {

class Database;

class GroupCommitter {
 public:
  // Turns group commit on for `db` and starts the thread. `window` > 0: how long
  // a group stays open. `after_commit` (may be empty) runs after every commit the
  // committer makes, with no lock held. `db` must outlive the committer.
  GroupCommitter(Database* db, std::chrono::microseconds window,
                 std::function<void()> after_commit);
  // Stops the thread after committing the open group.
  ~GroupCommitter();
  GroupCommitter(const GroupCommitter&) = delete;
  GroupCommitter& operator=(const GroupCommitter&) = delete;

  // A batch of many changes (an attribute flush of thousands of inodes, an I/O
  // statistics flush) is under way: while any hold lasts, the committer lets the
  // group stay open past its window, by whole windows, for at most
  // kMaxBatchDeferral, so the batch reaches the WAL in one commit instead of one
  // per window (each commit rewrites every page the batch touched so far).
  // Explicit commits (Metadata::Sync) are not held back. Thread-safe; every
  // Hold() needs one Release().
  void Hold() EXCLUDES(mu_);
  void Release() EXCLUDES(mu_);
  static constexpr std::chrono::milliseconds kMaxBatchDeferral{1000};

 private:
  void Run() EXCLUDES(mu_);

  Database* db_;
  const std::chrono::microseconds window_;
  const std::function<void()> after_commit_;
  Mutex mu_;
  CondVar cv_;
  bool opened_ GUARDED_BY(mu_) = false;  // a group opened since the committer last looked
  bool stop_ GUARDED_BY(mu_) = false;
  int holds_ GUARDED_BY(mu_) = 0;  // Hold() calls not yet released
  std::thread thread_;
};

}  // namespace tierfs::meta
