#include "fs/core/reclaimer.h"

#include <sys/stat.h>

#include <algorithm>
#include <optional>

#include "common/log.h"

namespace tierfs {

void Reclaimer::Reclaim(const meta::Inode& attr) {
  if (std::optional<uint64_t> ticket = meta_.UncommittedTicket()) {
    // Removing the object before nlink 0 is durable would let a crash bring back
    // a name whose bytes are gone.
    MutexLock lock(mu_);
    waiting_.emplace_back(*ticket, attr);
    return;
  }
  ReclaimNow(attr);
}

std::vector<meta::Inode> Reclaimer::TakeCommitted() {
  std::vector<meta::Inode> ready;
  MutexLock lock(mu_);
  if (waiting_.empty()) return ready;
  const uint64_t committed = meta_.CommittedTickets();  // one look for the batch
  auto still_waiting =
      std::partition(waiting_.begin(), waiting_.end(),
                     [committed](const auto& entry) { return entry.first > committed; });
  for (auto it = still_waiting; it != waiting_.end(); ++it) ready.push_back(it->second);
  waiting_.erase(still_waiting, waiting_.end());
  return ready;
}

void Reclaimer::ReclaimCommitted() {
  std::vector<meta::Inode> ready = TakeCommitted();
  if (ready.empty()) return;
  // The rows of all of them in one change: one savepoint, not one each.
  std::vector<uint64_t> removed;
  for (const meta::Inode& attr : ready) {
    if (RemoveObjectOf(attr)) removed.push_back(attr.ino);
  }
  auto kept = meta_.DeleteInodes(removed);
  if (!kept.ok()) {
    LogError("delete {} reclaimed inodes: {}", removed.size(), kept.status().ToString());
  }
}

bool Reclaimer::RemoveObjectOf(const meta::Inode& attr) {
  if (!S_ISREG(attr.mode) || attr.volume_id == 0) return true;
  // On an object volume a DELETE of its key (the store may be offline: retried).
  Status st =
      volumes_.RemoveAnyObject(attr.volume_id, attr.ino, attr.generation, attr.store_version);
  if (!st.ok()) {
    // Keep the nlink-0 row: the next mount retries. Nothing is lost either way.
    LogError("reclaim inode {}: {}", attr.ino, st.ToString());
    return false;
  }
  return true;
}

void Reclaimer::ReclaimNow(const meta::Inode& attr) {
  if (!RemoveObjectOf(attr)) return;
  Status st = meta_.DeleteInode(attr.ino);
  // ENOENT: another path already finished this reclaim (reclaim is idempotent).
  if (!st.ok() && st.code() != ENOENT) {
    LogError("delete inode {}: {}", attr.ino, st.ToString());
  }
}

}  // namespace tierfs
