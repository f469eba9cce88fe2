// FileSystem: opening, attributes, attribute flushes and policy; the periodic
// flush, retention and reclaim are in periodic_flush.cc, retention.cc and reclaimer.cc.
// Entry operations are in fs/core/entry_ops.cc, file data in fs/core/file_ops.cc, directories
// and xattrs in fs/core/dir_ops.cc, what the mount does after a crash in
// fs/core/crash_recovery.cc.
#include "fs/core/file_system.h"
#include "fs/core/relocator.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>

#include "common/log.h"
#include "fs/volume/volume_label.h"
#include "policy/loader.h"

namespace tierfs {

Result<std::unique_ptr<FileSystem>> FileSystem::Mount(const std::string& metadata_dir,
                                                      const FileSystemOptions& options) {
  VolumeIo& io = options.volume_io != nullptr ? *options.volume_io : VolumeIo::Posix();
  Result<VolumeLabel> label = ReadVolumeLabel(metadata_dir, io);
  if (!label.ok()) return label.status();
  meta::MetadataOptions mopts;
  mopts.sync_full = options.sync_full;
  mopts.clock = options.clock;
  // The database's calls and SQLite's writes go through the volumes' seam (a
  // fault plan reaches the database volume too), and so the connection goes
  // through the database VFS, which will also ask the reserve for room; the
  // reserve file itself is made only once the database and the volumes passed
  // their checks, so a refused mount creates nothing.
  mopts.io = &io;
  mopts.cached_dentries = options.cached_dentries;
  auto meta = meta::Metadata::Open(MetadataDbPath(metadata_dir), mopts);
  if (!meta.ok()) return meta.status();
  auto info = (*meta)->GetFsInfo();
  if (!info.ok()) return info.status();
  if (info->uuid != label->fs_uuid) {
    return Status::Invalid("the database in " + metadata_dir + " belongs to file system " +
                           info->uuid + ", the label to " + label->fs_uuid);
  }
  auto volume_rows = (*meta)->ListVolumes();
  if (!volume_rows.ok()) return volume_rows.status();
  auto volumes = VolumeSet::Open(*volume_rows, info->uuid, *options.clock, io);
  if (!volumes.ok()) return volumes.status();

  uint64_t reserve_bytes = options.metadata_reserve_bytes;
  if (reserve_bytes == 0) {
    struct stat db;
    struct statvfs vol;
    const uint64_t db_bytes =
        io.Stat(MetadataDbPath(metadata_dir), &db) == 0 ? uint64_t(db.st_size) : 0;
    const uint64_t vol_bytes = io.StatVfs(metadata_dir, &vol) == 0
                                   ? uint64_t{vol.f_blocks} * vol.f_frsize
                                   : 0;
    reserve_bytes = meta::DefaultReserveBytes(db_bytes, vol_bytes);
  }
  auto reserve = meta::SpaceReserve::Install(TierfsDir(metadata_dir) + "/meta.reserve",
                                             reserve_bytes, io);
  if (!reserve.ok()) return reserve.status();
  (*volumes)->SetMetadataReserve(reserve->get());
  if ((*reserve)->depleted()) {
    LogWarning("the metadata volume {} has room for only {} of the {} bytes reserved for the "
               "database: it takes no data until it has",
               metadata_dir, (*reserve)->held_bytes(), reserve_bytes);
  }

  std::unique_ptr<FileSystem> fs(new FileSystem(std::move(*reserve), std::move(*meta),
                                                std::move(*volumes), *info, options));
  // Orphans: inodes unlinked while open when the daemon stopped (or crashed, or a
  // crash between an unlink's commit and its object's removal).
  auto orphans = fs->meta_->ListOrphans();
  if (!orphans.ok()) return orphans.status();
  for (const meta::Inode& orphan : *orphans) fs->Reclaim(orphan);
  TIERFS_RETURN_IF_ERROR(fs->RemovePendingObjects());
  TIERFS_RETURN_IF_ERROR(fs->ReloadPolicy());
  // "The kernel may have written" is recorded while recovering, whatever this
  // mount's mode: a crash in the recovery must not make the next mount forget
  // what the last served one was.
  auto kernel_wrote = fs->meta_->SwapPassthroughWrites(true);
  if (!kernel_wrote.ok()) return kernel_wrote.status();
  auto was_clean = fs->meta_->SwapCleanUnmount(false);
  if (!was_clean.ok()) return was_clean.status();
  if (!*was_clean) {
    TIERFS_RETURN_IF_ERROR(fs->TrimObjectsAfterCrash(/*keep_longer=*/*kernel_wrote));
    TIERFS_RETURN_IF_ERROR(fs->RemoveOrphanObjects());
  }
  // Not yet: only INIT says whether the kernel may (EnablePassthrough).
  if (auto now = fs->meta_->SwapPassthroughWrites(false); !now.ok()) return now.status();
  // Started last: the recovery above commits change by change.
  FileSystem* raw = fs.get();
  fs->meta_->StartGroupCommit(std::chrono::microseconds(options.commit_window_us),
                              [raw] { raw->reclaimer_.ReclaimCommitted(); });
  return fs;
}

Status FileSystem::EnablePassthrough() {
  // Before the INIT reply: no passthrough open exists before it is recorded.
  auto before = meta_->SwapPassthroughWrites(true);
  if (!before.ok()) return before.status();
  // A mapping may outlive its file's close and keep writing the object it
  // mapped: an object given to a new file would take those writes.
  volumes_->KeepNoRecycledObjects();
  passthrough_.store(true);
  return Status::Ok();
}

FileSystem::FileSystem(std::unique_ptr<meta::SpaceReserve> reserve,
                       std::unique_ptr<meta::Metadata> meta, std::unique_ptr<VolumeSet> volumes,
                       meta::FsInfo info, const FileSystemOptions& options)
    : reserve_(std::move(reserve)),
      meta_(std::move(meta)),
      volumes_(std::move(volumes)),
      info_(std::move(info)),
      options_(options),
      inodes_(options.cached_inodes),
      io_(*options.clock, info_.iostat_bucket_seconds),
      reclaimer_(*meta_, *volumes_),
      retention_(*meta_, *options.clock,
                 {options.fcl_keep_seconds, options.fcl_max_records, options.iostat_keep_seconds}),
      flush_(
          *meta_, inodes_, io_,
          [this](const InodeRef& inode) { return FlushAttributesAndSettle(inode); },
          [this] { return SyncMetadata(); }) {
  kernel_opens_ = std::make_unique<KernelOpenCache>(
      options.cached_opens,
      [this](uint64_t ino) -> Result<FileHandle*> {
        // Stands for every open of the file, reads too: not an open for
        // writing (a file on an object volume is recalled by its first write).
        auto inode = HoldInode(ino, Hold::kOpen);
        if (!inode.ok()) return inode.status();
        auto fh = OpenHeld(*inode, O_RDWR, /*created=*/false);
        if (fh.ok()) (*fh)->kernel_open = true;
        return fh;
      },
      [this](FileHandle* fh) {
        if (Status st = Release(fh); !st.ok()) {
          LogError("attribute flush of a file the kernel no longer uses: {}", st.ToString());
        }
      });
  delayed_flush_ = std::make_unique<DelayedAttributeFlush>(
      kAttributeFlushDelay, [this](const std::vector<InodeRef>& inodes) { FlushDelayed(inodes); });
}

void FileSystem::DataWrittenLocked(const FileHandle& fh, uint64_t size_before) {
  MarkDirty(*fh.inode);
  fh.inode->data_written = true;
  if (fh.kernel_open && fh.inode->attr.size != size_before) {
    delayed_flush_->EnqueueLocked(fh.inode);
  }
}

void FileSystem::FlushDelayed(const std::vector<InodeRef>& inodes) {
  meta::Metadata::BatchScope batch(*meta_);  // one commit group for all of them
  for (const InodeRef& inode : inodes) {
    MutexLock lock(inode->mu);
    inode->delayed_flush_queued = false;  // a write from now on queues it again
  }
  FlushAttributesEach(inodes);
}

Status FileSystem::FlushAttributesAndSettle(const InodeRef& inode) {
  TIERFS_RETURN_IF_ERROR(FlushAttributes(inode, {}));
  if (inodes_.MaybeErase(inode)) Reclaim(inode->Attributes());
  return Status::Ok();
}

FileSystem::~FileSystem() {
  StopPeriodicFlush();  // the session stopped it already; the last flush is below
  // Released as RELEASEs would be, before the handles of opens the kernel never
  // released (which would otherwise count them) and the final flush.
  delayed_flush_.reset();
  kernel_opens_->DropAll();
  if (size_t released = ReleaseUnreleasedHandles(); released > 0) {
    LogInfo("released {} handles whose RELEASE the kernel never sent", released);
  }
  Status st = FlushAll();
  if (!st.ok()) LogError("final flush: {}", st.ToString());
  // The last reclaims need their unlinks committed first.
  if (Status synced = SyncMetadata(); !synced.ok()) {
    LogError("final commit: {}", synced.ToString());
    st = synced;
  }
  for (const InodeRef& inode : inodes_.Snapshot()) {
    MutexLock lock(inode->mu);
    CloseObjectLocked(*inode, volumes_->io());
  }
  if (Status reclaimed = ReclaimUnlinkedAtStop(); !reclaimed.ok()) {
    LogError("reclaiming unlinked inodes: {}", reclaimed.ToString());
    st = reclaimed;
  }
  volumes_->DropRecycledObjects();
  if (st.ok()) {
    auto marked = meta_->SwapCleanUnmount(true);
    if (!marked.ok()) {
      LogError("marking a clean unmount: {}", marked.status().ToString());
    }
  }
  meta_.reset();  // closes the database while its reserve still stands
  volumes_->SetMetadataReserve(nullptr);
}

size_t FileSystem::ReleaseUnreleasedHandles() {
  size_t released = 0;
  for (const InodeRef& inode : inodes_.Snapshot()) {
    for (;;) {
      OpenHandle* handle;
      {
        MutexLock lock(inode->mu);
        handle = inode->handles;
      }
      if (handle == nullptr) break;
      if (handle->directory) {
        ReleaseDir(static_cast<DirHandle*>(handle));
      } else if (Status st = Release(static_cast<FileHandle*>(handle)); !st.ok()) {
        LogError("release of a handle of inode {} at the stop: {}", inode->ino, st.ToString());
      }
      ++released;
    }
  }
  return released;
}

Status FileSystem::ReclaimUnlinkedAtStop() {
  auto orphans = meta_->ListOrphans();
  if (!orphans.ok()) return orphans.status();
  if (orphans->empty()) return Status::Ok();
  LogInfo("reclaiming {} unlinked inodes the kernel still held at the unmount", orphans->size());
  for (const meta::Inode& orphan : *orphans) Reclaim(orphan);
  return SyncMetadata();
}

void FileSystem::CheckVolumes() {
  volumes_->CheckHealth();
  if (reserve_ && reserve_->depleted()) {
    Status st = reserve_->Refill();
    if (!st.ok()) LogError("{}", st.ToString());
  }
}

Status FileSystem::ReloadPolicy() {
  auto record = meta_->GetPolicy();
  if (!record.ok()) return record.status();
  std::shared_ptr<const policy::PlacementPolicy> loaded;
  if (record->has_value()) {
    policy::LoadResult result = policy::LoadPolicy((*record)->xml);
    if (!result.ok()) {
      std::string why = result.errors.empty() ? "" : result.errors.front().ToString();
      return Status::Invalid("assigned policy " + (*record)->name + " no longer loads: " + why);
    }
    loaded = std::make_shared<const policy::PlacementPolicy>(std::move(*result.policy));
  }
  MutexLock lock(policy_mu_);
  policy_ = std::move(loaded);
  return Status::Ok();
}

std::shared_ptr<const policy::PlacementPolicy> FileSystem::policy() const {
  MutexLock lock(policy_mu_);
  return policy_;
}

meta::Inode FileSystem::Remember(const meta::Inode& attr) { return inodes_.Remember(attr, 1); }

Result<meta::Inode> FileSystem::CurrentAttr(uint64_t ino) {
  if (InodeRef inode = inodes_.Find(ino)) {
    MutexLock lock(inode->mu);
    RefreshFromObjectLocked(*inode);  // writes the kernel made by passthrough opens
    return inode->attr;
  }
  return meta_->GetInode(ino);
}

Result<InodeRef> FileSystem::HoldInode(uint64_t ino, Hold how) {
  InodeTable::Holding holding = inodes_.TryHold(ino, how);
  if (holding.entry) return holding.entry;
  auto row = meta_->GetInode(ino);
  if (!row.ok()) return row.status();
  InodeTable::Held held = inodes_.HoldRow(*row, holding.ticket, how);
  if (!held.current) {
    // A change since the ticket may be newer than `row`; the entry, active
    // now, takes whichever row is newest.
    auto again = meta_->GetInode(ino);
    if (!again.ok()) {
      ReleaseHold(held.entry, how);
      return again.status();
    }
    inodes_.Apply(*again);
  }
  return held.entry;
}

void FileSystem::ReleaseHold(const InodeRef& inode, Hold how) {
  bool reclaim;
  uint64_t write_gen = 0;
  meta::Inode attr;
  if (how == Hold::kPin) {
    reclaim = inodes_.Unpin(inode);
  } else {
    {
      MutexLock lock(inode->mu);
      if (--inode->nopen > 0) return;
      CloseObjectLocked(*inode, volumes_->io());
      write_gen = inode->write_gen.load();
      attr = inode->attr;
    }
    // The daemon no longer holds the object: a lease can tell now whether a
    // mapping a passthrough writer made still writes it.
    if (passthrough() && MayHaveWritableMapping(attr.ino) &&
        !volumes_->IsObjectVolume(attr.volume_id) && !WrittenOutsideTheDaemon(*volumes_, attr)) {
      ObjectFoundUnwritten(*inode, write_gen);
    }
    reclaim = inodes_.MaybeErase(inode);
  }
  if (reclaim) Reclaim(inode->Attributes());
}

void FileSystem::RefreshCached(uint64_t ino) {
  InodeRef inode = inodes_.Changed(ino);
  if (!inode) return;  // idle or unknown: the next reader reads the row
  // A concurrent change may apply a newer row first: ApplyRow keeps the newer.
  auto fresh = meta_->GetInode(ino);
  if (!fresh.ok()) return;  // deleted: nothing left to show
  MutexLock lock(inode->mu);
  ApplyRow(*inode, *fresh);
}

void FileSystem::ApplyCached(const meta::Inode& row) { inodes_.Apply(row); }

void FileSystem::AfterNameRemoved(const meta::Inode& after) {
  if (std::optional<meta::Inode> gone = inodes_.NameRemoved(after)) Reclaim(*gone);
}

void FileSystem::Forget(uint64_t ino, uint64_t n) {
  bool forgotten = false;
  if (std::optional<meta::Inode> gone = inodes_.Forget(ino, n, &forgotten)) Reclaim(*gone);
  // No file of the kernel's is open on an inode it forgot: its kernel-open handle
  // goes (its release reclaims an unlinked file).
  if (forgotten) kernel_opens_->Drop(ino);
}

Status FileSystem::SyncMetadata() {
  Status st = meta_->Sync();
  reclaimer_.ReclaimCommitted();
  return st;
}

Result<meta::Inode> FileSystem::GetAttr(uint64_t ino) {
  InodeTable::Holding found = inodes_.Peek(ino);
  if (found.entry) {
    MutexLock lock(found.entry->mu);
    RefreshFromObjectLocked(*found.entry);  // passthrough writes since
    return found.entry->attr;
  }
  auto row = meta_->GetInode(ino);
  // The kernel asks again for what it works in (a directory's attributes after
  // every change in it, for its permission checks): keep the row at hand.
  if (row.ok()) inodes_.Keep(*row, found.ticket);
  return row;
}

uint64_t FileSystem::AllocatedBlocks(const meta::Inode& attr) {
  switch (attr.mode & S_IFMT) {
    case S_IFREG:
      // On an object volume: no local blocks, and nothing to ask the store.
      if (volumes_->IsObjectVolume(attr.volume_id)) return 0;
      if (attr.volume_id != 0) {
        struct stat st;
        // An open file: its object as it is now (writes may have grown it).
        if (InodeRef inode = inodes_.Find(attr.ino)) {
          MutexLock lock(inode->mu);
          if (inode->fd >= 0 && volumes_->io().Fstat(inode->fd, &st) == 0) {
            return static_cast<uint64_t>(st.st_blocks);
          }
        }
        // A closed one: as recorded at its last attribute flush, without a stat(2) of
        // the object (that would read the object's inode from disk when cold).
        if (attr.blocks >= 0) return static_cast<uint64_t>(attr.blocks);
        const std::string path = volumes_->ObjectPath(attr.volume_id, attr.ino, attr.generation);
        if (volumes_->io().Stat(path, &st) == 0) return static_cast<uint64_t>(st.st_blocks);
      }
      return 0;  // no object yet: nothing allocated
    case S_IFDIR:
      return kDirectorySize / 512;
    case S_IFLNK:
      // ext4 keeps a target shorter than 60 bytes in the inode ("fast" symlink).
      return attr.size < 60 ? 0 : (attr.size + kPageBytes - 1) / kPageBytes * (kPageBytes / 512);
    default:
      return 0;  // devices, FIFOs and sockets have no data
  }
}

std::optional<FileSystem::AttributeFlush> FileSystem::PrepareFlush(const InodeRef& inode,
                                                                    std::string_view event) {
  AttributeFlush flush;
  flush.update.fields = meta::kAttrSize | meta::kAttrAtime | meta::kAttrMtime | meta::kAttrCtime;
  MutexLock lock(inode->mu);
  if (!inode->dirty) return std::nullopt;
  flush.update.values = inode->attr;
  flush.seq = inode->change_seq;
  flush.data_written = inode->data_written;
  // The object's allocation now, so stat of the closed file needs no stat(2).
  struct stat st;
  if (S_ISREG(inode->attr.mode) && inode->fd >= 0 && volumes_->io().Fstat(inode->fd, &st) == 0) {
    flush.update.values.blocks = static_cast<int64_t>(st.st_blocks);
    flush.update.fields |= meta::kAttrBlocks;
  } else if (S_ISREG(inode->attr.mode) && inode->fd < 0 && inode->attr.blocks >= 0) {
    // Closed since: the allocation its release saw (FlushAttributesAtClose).
    flush.update.fields |= meta::kAttrBlocks;
  }
  flush.update.fcl_event = !event.empty() ? event : flush.data_written ? "write" : "";
  inode->data_written = false;
  return flush;
}

Status FileSystem::FinishFlush(const InodeRef& inode, const AttributeFlush& flush,
                               const Result<meta::Inode>& row) {
  MutexLock lock(inode->mu);
  if (!row.ok()) {
    if (row.status().code() == ENOENT && inode->attr.nlink == 0) {
      // Reclaimed meanwhile (an unlinked file's last reference went away while
      // this flush ran): there is nothing left to write to.
      inode->dirty = false;
      return Status::Ok();
    }
    inode->data_written = inode->data_written || flush.data_written;  // log it next time
    return row.status();
  }
  // Still dirty if the data path changed the entry while the row was written.
  if (inode->change_seq == flush.seq) {
    inode->dirty = false;
    inode->lazy_times = false;
  }
  ApplyRow(*inode, *row);
  return Status::Ok();
}

Status FileSystem::FlushAttributes(const InodeRef& inode, std::string_view event) {
  MutexLock sync(inode->sync_mu);
  std::optional<AttributeFlush> flush = PrepareFlush(inode, event);
  if (!flush) return Status::Ok();
  const meta::AttributeUpdate& u = flush->update;
  return FinishFlush(inode, *flush, meta_->UpdateAttributes(u.values, u.fields, u.fcl_event));
}

namespace {

// The sync_mu of several inodes, each taken only if free, given back together.
// Not annotated: the analysis cannot name a set of locks chosen at run time.
class SyncLocks {
 public:
  SyncLocks() = default;
  SyncLocks(const SyncLocks&) = delete;
  SyncLocks& operator=(const SyncLocks&) = delete;
  ~SyncLocks() NO_THREAD_SAFETY_ANALYSIS("the set was taken by TryTake") {
    for (Mutex* mu : held_) mu->Unlock();
  }
  // Takes `mu` if it is free; true when it is now held until the destructor.
  bool TryTake(Mutex& mu) NO_THREAD_SAFETY_ANALYSIS("released by the destructor") {
    if (!mu.TryLock()) return false;
    held_.push_back(&mu);
    return true;
  }

 private:
  std::vector<Mutex*> held_;
};

}  // namespace

void FileSystem::FlushAttributesEach(const std::vector<InodeRef>& inodes) {
  for (size_t first = 0; first < inodes.size(); first += meta::Metadata::kAttributeBatch) {
    const size_t last = std::min(inodes.size(), first + meta::Metadata::kAttributeBatch);
    std::vector<InodeRef> busy;  // a setattr or another flush holds its sync_mu
    {
      SyncLocks sync;
      std::vector<InodeRef> flushed;
      std::vector<AttributeFlush> flushes;
      std::vector<meta::AttributeUpdate> updates;
      for (size_t i = first; i < last; ++i) {
        const InodeRef& inode = inodes[i];
        if (!sync.TryTake(inode->sync_mu)) {
          busy.push_back(inode);
          continue;
        }
        std::optional<AttributeFlush> flush = PrepareFlush(inode, {});
        if (!flush) continue;
        flushed.push_back(inode);
        updates.push_back(flush->update);
        flushes.push_back(std::move(*flush));
      }
      std::vector<Result<meta::Inode>> rows = meta_->UpdateAttributesEach(updates);
      for (size_t i = 0; i < flushed.size(); ++i) {
        if (Status st = FinishFlush(flushed[i], flushes[i], rows[i]); !st.ok()) {
          // Still dirty: the periodic flush tries again.
          LogWarning("attribute flush of inode {}: {}", flushed[i]->ino, st.ToString());
        }
      }
    }
    for (const InodeRef& inode : busy) {
      if (Status st = FlushAttributes(inode, {}); !st.ok()) {
        LogWarning("attribute flush of inode {}: {}", inode->ino, st.ToString());
      }
    }
  }
  for (const InodeRef& inode : inodes) {
    if (inodes_.MaybeErase(inode)) Reclaim(inode->Attributes());
  }
}

Status FileSystem::RestartHeatCounts(int64_t bucket_seconds) {
  if (bucket_seconds < meta::kMinIoBucketSeconds || bucket_seconds > meta::kMaxIoBucketSeconds) {
    return Status::Invalid("the heat bucket must be 1 to 86400 s, got " +
                           std::to_string(bucket_seconds));
  }
  return flush_.RestartHeatCounts(bucket_seconds);
}

void FileSystem::StartPeriodicFlush(std::chrono::milliseconds period) {
  flush_.Start(period, [this] {
    CheckVolumes();  // lost or regained volumes, full ones with room again
    retention_.ApplyIfDue();
  });
}

Result<struct statvfs> FileSystem::StatFs() {
  struct statvfs out {};
  constexpr uint64_t kBlock = kPageBytes;
  out.f_bsize = kBlock;
  out.f_frsize = kBlock;
  out.f_namemax = 255;
  uint64_t total = 0, free = 0, avail = 0;
  for (const meta::Volume& v : volumes_->volumes()) {
    // df counts local capacity: a store's is unknown.
    if (meta::IsObjectVolume(v)) continue;
    auto st = volumes_->Statvfs(v.id);
    if (!st.ok()) return st.status();
    total += uint64_t{st->f_blocks} * st->f_frsize;
    free += uint64_t{st->f_bfree} * st->f_frsize;
    avail += uint64_t{st->f_bavail} * st->f_frsize;
  }
  out.f_blocks = total / kBlock;
  out.f_bfree = free / kBlock;
  out.f_bavail = avail / kBlock;
  auto used = meta_->CountInodes();
  if (!used.ok()) return used.status();
  // Inodes are database rows: the limit is the metadata volume's space.
  auto meta_st = volumes_->Statvfs(volumes_->volumes().front().id);
  uint64_t ffree = meta_st.ok() ? meta_st->f_ffree : 0;
  out.f_files = *used + ffree;
  out.f_ffree = ffree;
  out.f_favail = ffree;
  return out;
}

}  // namespace tierfs
