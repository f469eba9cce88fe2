#include "meta/group_committer.h"

#include <cstdio>

#include "common/log.h"
#include "meta/database.h"

namespace tierfs::meta {

GroupCommitter::GroupCommitter(Database* db, std::chrono::microseconds window,
                               std::function<void()> after_commit)
    : db_(db), window_(window), after_commit_(std::move(after_commit)) {
  {
    auto lock = db_->Lock();
    db_->EnableGroupCommit([this] {
      // Called with the database lock held; mu_ is never held while taking it.
      {
        MutexLock guard(mu_);
        opened_ = true;
      }
      cv_.NotifyOne();
    });
  }
  thread_ = std::thread([this] { Run(); });
}

GroupCommitter::~GroupCommitter() {
  {
    MutexLock guard(mu_);
    stop_ = true;
  }
  cv_.NotifyOne();
  thread_.join();
  auto lock = db_->Lock();
  Status st = db_->CommitGroup();
  if (!st.ok()) LogError("group commit: {}", st.ToString());
}

void GroupCommitter::Hold() {
  MutexLock guard(mu_);
  holds_++;
}

void GroupCommitter::Release() {
  {
    MutexLock guard(mu_);
    holds_--;
  }
  cv_.NotifyOne();
}

void GroupCommitter::Run() {
  MutexLock guard(mu_);
  while (!stop_) {
    while (!opened_ && !stop_) cv_.Wait(mu_);
    if (stop_) break;
    opened_ = false;
    // Let the group gather the changes of the window; a stop ends it early. A
    // batch in progress keeps it open (bounded), and its end commits at once.
    const auto window_end = std::chrono::steady_clock::now() + window_;
    while (!stop_ && cv_.WaitUntil(mu_, window_end)) {
    }
    const auto deadline = std::chrono::steady_clock::now() + kMaxBatchDeferral;
    while (!stop_ && holds_ != 0 && cv_.WaitUntil(mu_, deadline)) {
    }
    guard.Unlock();
    Status st;
    {
      auto lock = db_->Lock();
      st = db_->CommitGroup();
    }
    if (!st.ok()) LogError("group commit: {}", st.ToString());
    if (after_commit_) after_commit_();
    guard.Lock();
    // A failed commit leaves the group open, and no new change will announce it
    // again: retry after another window.
    if (!st.ok()) opened_ = true;
  }
}

}  // namespace tierfs::meta
