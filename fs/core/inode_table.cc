#include "fs/core/inode_table.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "common/log.h"

namespace tierfs {

void CloseObjectLocked(InodeState& inode, VolumeIo& io) {
  ForgetDirectFdLocked(inode, io);
  if (inode.fd >= 0) io.Close(inode.fd);
  inode.fd = -1;
}

void ForgetDirectFdLocked(InodeState& inode, VolumeIo& io) {
  if (inode.direct_fd >= 0) io.Close(inode.direct_fd);
  inode.direct_fd = -1;
  inode.direct_refused = false;
}

void ApplyRow(InodeState& inode, const meta::Inode& row) {
  meta::Inode& a = inode.attr;
  if (row.row_epoch < a.row_epoch) return;  // older than what the entry shows
  if (inode.dirty) {
    // Size and times of a file being written live in memory until an attribute flush.
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

InodeTable::InodeTable(size_t keep_idle, size_t shards) {
  shards = std::max<size_t>(shards, 1);
  shards_.reserve(shards);
  for (size_t i = 0; i < shards; ++i) {
    shards_.push_back(
        std::make_unique<Shard>(keep_idle / shards + (i < keep_idle % shards ? 1 : 0), &events_));
  }
  ShardOf(meta::kRootIno).KnowRoot();
}

void InodeTable::Shard::KnowRoot() {
  MutexLock lock(mu_);
  known_[meta::kRootIno].nlookup = 1;
}

meta::Inode InodeTable::Remember(const meta::Inode& row, uint64_t lookups,
                                 uint64_t keep_ticket) {
  return ShardOf(row.ino).Remember(row, lookups, keep_ticket, /*created=*/false);
}

meta::Inode InodeTable::RememberCreated(const meta::Inode& row, uint64_t ticket) {
  return ShardOf(row.ino).Remember(row, 1, ticket, /*created=*/true);
}

InodeRef InodeTable::Find(uint64_t ino) const { return ShardOf(ino).Find(ino); }

std::optional<meta::Inode> InodeTable::RememberHeld(uint64_t ino, uint64_t lookups) {
  return ShardOf(ino).RememberHeld(ino, lookups);
}

InodeTable::Holding InodeTable::TryHold(uint64_t ino, Hold how) {
  return ShardOf(ino).TryHold(ino, how);
}

InodeTable::Holding InodeTable::Peek(uint64_t ino) { return ShardOf(ino).Peek(ino); }

void InodeTable::Keep(const meta::Inode& row, uint64_t ticket) {
  ShardOf(row.ino).Keep(row, ticket);
}

uint64_t InodeTable::Ticket() const { return events_.load(std::memory_order_acquire); }

InodeTable::Held InodeTable::HoldRow(const meta::Inode& row, uint64_t ticket, Hold how,
                                     uint64_t lookups) {
  return ShardOf(row.ino).HoldRow(row, ticket, how, lookups);
}

bool InodeTable::Unpin(const InodeRef& inode) { return ShardOf(inode->ino).Settle(inode, true); }

bool InodeTable::MaybeErase(const InodeRef& inode) {
  return ShardOf(inode->ino).Settle(inode, false);
}

void InodeTable::Apply(const meta::Inode& row) { ShardOf(row.ino).Apply(row); }

void InodeTable::ApplyAndKeep(const meta::Inode& row, uint64_t ticket) {
  ShardOf(row.ino).ApplyAndKeep(row, ticket);
}

InodeRef InodeTable::Changed(uint64_t ino) { return ShardOf(ino).Changed(ino); }

std::optional<meta::Inode> InodeTable::NameRemoved(const meta::Inode& row) {
  return ShardOf(row.ino).NameRemoved(row);
}

std::optional<meta::Inode> InodeTable::Forget(uint64_t ino, uint64_t n, bool* forgotten) {
  return ShardOf(ino).Forget(ino, n, forgotten);
}

std::vector<InodeRef> InodeTable::Snapshot() const {
  std::vector<InodeRef> out;
  for (const auto& shard : shards_) shard->AppendActive(&out);
  return out;
}

InodeTable::Counts InodeTable::Count() const {
  Counts total;
  for (const auto& shard : shards_) {
    const Counts c = shard->Count();
    total.known += c.known;
    total.active += c.active;
  }
  return total;
}

uint64_t InodeTable::LookupCount(uint64_t ino) const { return ShardOf(ino).LookupCount(ino); }

// ---- one shard ----------------------------------------------------------------

meta::Inode InodeTable::Shard::Remember(const meta::Inode& row, uint64_t lookups,
                                        uint64_t keep_ticket, bool created) {
  MutexLock lock(mu_);
  if (lookups > 0) AddLookupsLocked(row.ino, lookups);
  auto it = active_.find(row.ino);
  if (it == active_.end()) {
    if (keep_ticket != kDoNotKeep) KeepLocked(row, keep_ticket, created);
    return row;
  }
  it->second->referenced = true;
  MutexLock ilock(it->second->mu);
  // A row read after the entry's (a lookup racing a change whose row reached
  // the table first) is the newer word.
  ApplyRow(*it->second, row);
  return it->second->attr;
}

std::optional<meta::Inode> InodeTable::Shard::RememberHeld(uint64_t ino, uint64_t lookups) {
  MutexLock lock(mu_);
  auto it = active_.find(ino);
  if (it == active_.end()) return std::nullopt;
  if (lookups > 0) AddLookupsLocked(ino, lookups);
  it->second->referenced = true;
  MutexLock ilock(it->second->mu);
  return it->second->attr;
}

InodeRef InodeTable::Shard::Find(uint64_t ino) const {
  MutexLock lock(mu_);
  auto it = active_.find(ino);
  if (it == active_.end()) return nullptr;
  it->second->referenced = true;
  return it->second;
}

void InodeTable::Shard::AddHold(InodeState& entry, Hold how) {
  if (how == Hold::kPin) {
    entry.pins++;
  } else {
    entry.nopen++;
  }
}

uint64_t InodeTable::Shard::LookupsLocked(uint64_t ino) const {
  auto it = known_.find(ino);
  return it == known_.end() ? 0 : it->second.nlookup;
}

void InodeTable::Shard::AddLookupsLocked(uint64_t ino, uint64_t n) {
  auto [it, inserted] = known_.try_emplace(ino);
  // Changes reported before the kernel knew the inode count for its slot too.
  if (inserted) it->second.changed = unknown_changed_;
  it->second.nlookup += n;
}

void InodeTable::Shard::NoteChangeLocked(uint64_t ino) {
  auto it = known_.find(ino);
  (it != known_.end() ? it->second.changed : unknown_changed_) = events_.fetch_add(1) + 1;
}

InodeTable::Holding InodeTable::Shard::TryHold(uint64_t ino, Hold how) {
  MutexLock lock(mu_);
  auto it = active_.find(ino);
  if (it == active_.end()) return {nullptr, events_.load()};
  it->second->referenced = true;
  MutexLock ilock(it->second->mu);
  AddHold(*it->second, how);
  return {it->second, events_.load()};
}

InodeTable::Holding InodeTable::Shard::Peek(uint64_t ino) {
  MutexLock lock(mu_);
  auto it = active_.find(ino);
  if (it == active_.end()) return {nullptr, events_.load()};
  it->second->referenced = true;
  return {it->second, events_.load()};
}

void InodeTable::Shard::Keep(const meta::Inode& row, uint64_t ticket) {
  MutexLock lock(mu_);
  KeepLocked(row, ticket);
}

void InodeTable::Shard::KeepLocked(const meta::Inode& row, uint64_t ticket, bool created) {
  if (keep_idle_ == 0 || row.nlink == 0) return;
  auto slot = known_.find(row.ino);
  // A change reported since the ticket (a set of an xattr through a name
  // readdirplus handed out meanwhile) may be newer than `row`.
  if (slot == known_.end() || slot->second.changed > ticket) return;
  MakeKeptLocked(row, created);
}

void InodeTable::Shard::MakeKeptLocked(const meta::Inode& row, bool created) {
  auto [it, inserted] = active_.try_emplace(row.ino, nullptr);
  if (!inserted) return;  // made active meanwhile, from a row at least as new
  it->second = std::make_shared<InodeState>(row);
  if (created) {
    MutexLock ilock(it->second->mu);  // no one else has the entry yet
    it->second->no_capability_xattr = true;
  }
  it->second->kept_idle = true;
  it->second->referenced = true;
  kept_.push_back(it->second);
  DropKeptLocked(it->second.get());
}

InodeTable::Held InodeTable::Shard::HoldRow(const meta::Inode& row, uint64_t ticket, Hold how,
                                            uint64_t lookups) {
  Held held;
  MutexLock lock(mu_);
  auto it = active_.find(row.ino);
  if (it == active_.end()) {
    auto slot = known_.find(row.ino);
    held.current = (slot != known_.end() ? slot->second.changed : unknown_changed_) <= ticket;
    it = active_.emplace(row.ino, std::make_shared<InodeState>(row)).first;
    held.made = true;
  }
  if (lookups > 0) AddLookupsLocked(row.ino, lookups);
  held.entry = it->second;
  held.entry->referenced = true;
  MutexLock ilock(held.entry->mu);
  ApplyRow(*held.entry, row);  // an entry made just now has it already
  AddHold(*held.entry, how);
  return held;
}

bool InodeTable::Shard::Settle(const InodeRef& inode, bool unpin) {
  MutexLock lock(mu_);
  MutexLock ilock(inode->mu);
  if (unpin) inode->pins--;
  return SettleLocked(inode);
}

bool InodeTable::Shard::SettleLocked(const InodeRef& entry) {
  if (entry->nopen > 0 || entry->pins > 0 || entry->fd >= 0) return false;
  const bool unlinked = entry->attr.nlink == 0;
  // Attributes not yet flushed stay until FlushAll writes them (and
  // settles the entry then); an unlinked inode has nothing left worth writing.
  if (entry->dirty && !unlinked) return false;
  const uint64_t ino = entry->ino;
  const bool known = LookupsLocked(ino) > 0;
  // An unlinked inode the kernel still knows stays active: its last Forget
  // reclaims it from the entry's attributes.
  if (unlinked && known) return false;
  auto it = active_.find(ino);
  if (it == active_.end() || it->second != entry) return false;  // already gone
  if (!unlinked && known && keep_idle_ > 0) {
    // Kept while it is among the most recently used idle ones.
    if (!entry->kept_idle) {
      entry->kept_idle = true;
      kept_.push_back(entry);
    }
    DropKeptLocked(entry.get());
    return false;
  }
  MakeIdleLocked(entry);
  return unlinked;
}

void InodeTable::Shard::MakeIdleLocked(const InodeRef& entry) {
  active_.erase(entry->ino);
  // A row read while it was active may be older than the entry was.
  NoteChangeLocked(entry->ino);
}

void InodeTable::Shard::DropKeptLocked(const InodeState* settling) {
  // Each entry passed over loses its second chance. A bounded step per call
  // keeps the table lock short when every kept entry was used since the last
  // turn (a whole turn of 16,384 would hold it for a millisecond): the ring
  // may then exceed keep_idle_ for a few calls, each of which clears as many
  // second chances as a whole request could have set.
  for (int step = 0; kept_.size() > keep_idle_ && step < kMaxDropSteps; ++step) {
    InodeRef entry = std::move(kept_.front());
    kept_.pop_front();
    auto it = active_.find(entry->ino);
    if (it == active_.end() || it->second != entry) {
      entry->kept_idle = false;  // dropped meanwhile (forgotten, unlinked)
      continue;
    }
    if (entry->referenced || entry.get() == settling) {
      entry->referenced = false;
      kept_.push_back(std::move(entry));
      continue;
    }
    MutexLock lock(entry->mu, std::defer_lock);
    entry->kept_idle = false;
    // Busy (a holder has its mu) or in use again: it is kept again when it
    // settles next.
    if (!lock.TryLock()) continue;
    const bool idle = entry->nopen == 0 && entry->pins == 0 && entry->fd < 0 &&
                      !entry->dirty && entry->attr.nlink > 0;
    if (idle) MakeIdleLocked(entry);
  }
}

void InodeTable::Shard::Apply(const meta::Inode& row) {
  MutexLock lock(mu_);
  auto it = active_.find(row.ino);
  if (it == active_.end()) {
    NoteChangeLocked(row.ino);
    return;
  }
  MutexLock ilock(it->second->mu);
  ApplyRow(*it->second, row);
}

void InodeTable::Shard::ApplyAndKeep(const meta::Inode& row, uint64_t ticket) {
  MutexLock lock(mu_);
  auto it = active_.find(row.ino);
  if (it != active_.end()) {
    MutexLock ilock(it->second->mu);
    ApplyRow(*it->second, row);
    return;
  }
  auto slot = known_.find(row.ino);
  // Another change reported since the ticket may be newer than `row`.
  const bool newest = slot != known_.end() && slot->second.changed <= ticket;
  NoteChangeLocked(row.ino);
  if (newest && keep_idle_ > 0 && row.nlink > 0) MakeKeptLocked(row);
}

InodeRef InodeTable::Shard::Changed(uint64_t ino) {
  MutexLock lock(mu_);
  auto it = active_.find(ino);
  if (it != active_.end()) return it->second;
  NoteChangeLocked(ino);
  return nullptr;
}

std::optional<meta::Inode> InodeTable::Shard::NameRemoved(const meta::Inode& row) {
  MutexLock lock(mu_);
  auto it = active_.find(row.ino);
  if (it == active_.end()) {
    if (LookupsLocked(row.ino) == 0) {
      if (row.nlink == 0) return row;  // no one knows it: reclaim now
      return std::nullopt;
    }
    NoteChangeLocked(row.ino);
    // The kernel still knows the unlinked inode: keep it for its last Forget.
    if (row.nlink == 0) active_.emplace(row.ino, std::make_shared<InodeState>(row));
    return std::nullopt;
  }
  InodeRef entry = it->second;
  MutexLock ilock(entry->mu);
  ApplyRow(*entry, row);
  if (entry->attr.nlink > 0 || !SettleLocked(entry)) return std::nullopt;
  return entry->attr;
}

std::optional<meta::Inode> InodeTable::Shard::Forget(uint64_t ino, uint64_t n,
                                                      bool* forgotten) {
  MutexLock lock(mu_);
  auto slot = known_.find(ino);
  if (slot == known_.end()) return std::nullopt;
  if (slot->second.nlookup < n) {
    // The kernel never forgets more than it looked up: a broken invariant.
    LogError("forget({}, {}) with lookup count {}", ino, n, slot->second.nlookup);
    std::abort();
  }
  slot->second.nlookup -= n;
  if (slot->second.nlookup > 0) return std::nullopt;
  if (forgotten != nullptr) *forgotten = true;
  // Its changes now count among those of unknown inodes, for a HoldRow whose
  // ticket is older.
  unknown_changed_ = std::max(unknown_changed_, slot->second.changed);
  known_.erase(slot);
  auto it = active_.find(ino);
  if (it == active_.end()) return std::nullopt;
  InodeRef entry = it->second;
  MutexLock ilock(entry->mu);
  if (!SettleLocked(entry)) return std::nullopt;
  return entry->attr;
}

void InodeTable::Shard::AppendActive(std::vector<InodeRef>* out) const {
  MutexLock lock(mu_);
  out->reserve(out->size() + active_.size());
  for (const auto& [ino, entry] : active_) out->push_back(entry);
}

InodeTable::Counts InodeTable::Shard::Count() const {
  MutexLock lock(mu_);
  return {known_.size(), active_.size()};
}

uint64_t InodeTable::Shard::LookupCount(uint64_t ino) const {
  MutexLock lock(mu_);
  return LookupsLocked(ino);
}

}  // namespace tierfs
