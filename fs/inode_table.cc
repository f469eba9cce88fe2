#include "fs/inode_table.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "common/log.h"

namespace tierfs {

void ApplyRow(InodeState& inode, const meta::Inode& row) {
  meta::Inode& a = inode.attr;
  if (row.row_epoch < a.row_epoch) return;  // older than what the entry shows
  if (inode.dirty) {
    // Size and times of a file being written live in memory until writeback.
    const meta::Inode keep = a;
    a = row;
    a.size = keep.size;
    a.atime_ns = keep.atime_ns;
    a.mtime_ns = keep.mtime_ns;
    a.ctime_ns = std::max(keep.ctime_ns, row.ctime_ns);
  } else {
    a = row;
  }
}

InodeRef InodeTable::GetOrInsert(const meta::Inode& attr, uint64_t lookups) {
  std::lock_guard lock(mu_);
  auto [it, inserted] = map_.try_emplace(attr.ino, nullptr);
  if (inserted) it->second = std::make_shared<InodeState>(attr);
  std::lock_guard ilock(it->second->mu);
  // A row read after the entry's (a lookup racing a change whose row reached
  // the table before the entry existed) is the newer word.
  if (!inserted) ApplyRow(*it->second, attr);
  it->second->nlookup += lookups;
  return it->second;
}

InodeRef InodeTable::Find(uint64_t ino) const {
  std::lock_guard lock(mu_);
  auto it = map_.find(ino);
  return it == map_.end() ? nullptr : it->second;
}

bool InodeTable::Forget(uint64_t ino, uint64_t n) {
  std::lock_guard lock(mu_);
  auto it = map_.find(ino);
  if (it == map_.end()) return false;
  InodeRef inode = it->second;
  std::lock_guard ilock(inode->mu);
  if (inode->nlookup < n) {
    // The kernel never forgets more than it looked up: a broken invariant.
    LogError("forget({}, {}) with lookup count {}", ino, n, inode->nlookup);
    std::abort();
  }
  inode->nlookup -= n;
  return EraseIfUnusedLocked(inode);
}

InodeRef InodeTable::Pin(const meta::Inode& attr) {
  std::lock_guard lock(mu_);
  auto [it, inserted] = map_.try_emplace(attr.ino, nullptr);
  if (inserted) it->second = std::make_shared<InodeState>(attr);
  std::lock_guard ilock(it->second->mu);
  it->second->pins++;
  return it->second;
}

bool InodeTable::Unpin(const InodeRef& inode) {
  std::lock_guard lock(mu_);
  std::lock_guard ilock(inode->mu);
  inode->pins--;
  return EraseIfUnusedLocked(inode);
}

bool InodeTable::MaybeErase(const InodeRef& inode) {
  std::lock_guard lock(mu_);
  std::lock_guard ilock(inode->mu);
  return EraseIfUnusedLocked(inode);
}

bool InodeTable::EraseIfUnusedLocked(const InodeRef& inode) {
  if (inode->nlookup > 0 || inode->nopen > 0 || inode->pins > 0) return false;
  // Attributes not yet written back stay until FlushAll writes them (and erases
  // the entry then); an unlinked inode has nothing left worth writing.
  if (inode->dirty && inode->attr.nlink > 0) return false;
  auto it = map_.find(inode->attr.ino);
  if (it == map_.end() || it->second != inode) return false;  // already erased
  map_.erase(it);
  return inode->attr.nlink == 0;
}

std::vector<InodeRef> InodeTable::Snapshot() const {
  std::lock_guard lock(mu_);
  std::vector<InodeRef> out;
  out.reserve(map_.size());
  for (const auto& [ino, inode] : map_) out.push_back(inode);
  return out;
}

}  // namespace tierfs
