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
        std::lock_guard guard(mu_);
        opened_ = true;
      }
      cv_.notify_one();
    });
  }
  thread_ = std::thread([this] { Run(); });
}

GroupCommitter::~GroupCommitter() {
  {
    std::lock_guard guard(mu_);
    stop_ = true;
  }
  cv_.notify_one();
  thread_.join();
  auto lock = db_->Lock();
  Status st = db_->CommitGroup();
  if (!st.ok()) LogError("group commit: {}", st.ToString());
}

void GroupCommitter::Hold() {
  std::lock_guard guard(mu_);
  holds_++;
}

void GroupCommitter::Release() {
  {
    std::lock_guard guard(mu_);
    holds_--;
  }
  cv_.notify_one();
}

void GroupCommitter::Run() {
  std::unique_lock guard(mu_);
  while (!stop_) {
    cv_.wait(guard, [this] { return opened_ || stop_; });
    if (stop_) break;
    opened_ = false;
    // Let the group gather the changes of the window; a stop ends it early. A
    // batch in progress keeps it open (bounded), and its end commits at once.
    cv_.wait_for(guard, window_, [this] { return stop_; });
    const auto deadline = std::chrono::steady_clock::now() + kMaxBatchDeferral;
    cv_.wait_until(guard, deadline, [this] { return stop_ || holds_ == 0; });
    guard.unlock();
    Status st;
    {
      auto lock = db_->Lock();
      st = db_->CommitGroup();
    }
    if (!st.ok()) LogError("group commit: {}", st.ToString());
    if (after_commit_) after_commit_();
    guard.lock();
    // A failed commit leaves the group open, and no new change will announce it
    // again: retry after another window.
    if (!st.ok()) opened_ = true;
  }
}

}  // namespace tierfs::meta
