#include "fs/core/relocator.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/log.h"
#include "fs/core/file_handle.h"
#include "fs/volume/object_hash.h"
#include "fs/core/seam_fd.h"
#include "fs/volume/io_steps.h"
#include "fs/volume/range_copy.h"

namespace tierfs {
namespace {

// The ioprio_set(2) ABI (linux/ioprio.h). Not included: since linux-libc-dev
// 6.1.192 that header defines an inline function with a parameter named
// `class`, which no C++ compiler accepts.
constexpr int kIoprioWhoProcess = 1;  // IOPRIO_WHO_PROCESS
constexpr int kIoprioClassBe = 2;     // IOPRIO_CLASS_BE
constexpr int kIoprioClassShift = 13;  // IOPRIO_CLASS_SHIFT
constexpr int IoprioValue(int io_class, int level) { return (io_class << kIoprioClassShift) | level; }

// Copies the data segments of src below `size` (holes stay holes), then sets the
// copy's size to `size`: bytes of src beyond it are not the file's.
Status CopySparse(VolumeIo& io, int src, int dst, off_t size) {
  off_t pos = 0;
  while (pos < size) {
    off_t data = lseek(src, pos, SEEK_DATA);
    if (data < 0) {
      if (errno == ENXIO) break;  // only a hole is left
      return Status::FromErrno("seek data");
    }
    if (data >= size) break;
    off_t hole = lseek(src, data, SEEK_HOLE);
    if (hole < 0) return Status::FromErrno("seek hole");
    hole = std::min(hole, size);
    TIERFS_RETURN_IF_ERROR(CopyRange(io, src, dst, data, hole - data));
    pos = hole;
  }
  if (io.Ftruncate(dst, size) != 0) return Status::FromErrno("set size of copy");
  return Status::Ok();
}

std::string DirOf(const std::string& path) { return path.substr(0, path.rfind('/')); }

// Lowers the calling thread's I/O priority for the duration of a copy, so that
// foreground I/O keeps priority over relocation (design.md, "Performance
// principles"). Effective with the BFQ/CFQ schedulers; harmless elsewhere.
class LowIoPriority {
 public:
  explicit LowIoPriority(bool enable) {
    if (!enable) return;
    saved_ = static_cast<int>(syscall(SYS_ioprio_get, kIoprioWhoProcess, 0));
    syscall(SYS_ioprio_set, kIoprioWhoProcess, 0, IoprioValue(kIoprioClassBe, 7));
  }
  ~LowIoPriority() {
    if (saved_ >= 0) syscall(SYS_ioprio_set, kIoprioWhoProcess, 0, saved_);
  }
  LowIoPriority(const LowIoPriority&) = delete;
  LowIoPriority& operator=(const LowIoPriority&) = delete;

 private:
  int saved_ = -1;
};

// Whether `inode` has a handle open for writing (an open(2) the kernel
// reported; no-open mode's stand-in handle does not count: writes there are
// seen by write_gen).
bool OpenForWriting(InodeState& inode) {
  MutexLock lock(inode.mu);
  for (OpenHandle* h = inode.handles; h != nullptr; h = h->next) {
    if (h->directory) continue;
    const auto* fh = static_cast<const FileHandle*>(h);
    if (!fh->kernel_open && (fh->flags & O_ACCMODE) != O_RDONLY) return true;
  }
  return false;
}

}  // namespace

// Whether something outside the daemon still has the object of `attr` open for
// writing: with passthrough opens, a shared mapping made through one outlives
// the file's last close (the kernel's backing file stays with the mapping),
// and writes through it would land in the source object after a commit, never
// in the file. Asked only when the daemon holds no descriptor of the object
// (its own would count). A volume that takes no lease cannot say: the file is
// taken as written, and the log says why once.
bool WrittenOutsideTheDaemon(const VolumeSet& volumes, const meta::Inode& attr) {
  VolumeIo& io = volumes.io();
  const std::string path = volumes.ObjectPath(attr.volume_id, attr.ino, attr.generation);
  SeamFd fd(io, io.Open(path, O_RDONLY | O_CLOEXEC, 0));
  if (fd.get() < 0) return false;  // no object (an empty file): nothing maps it
  const int writers = io.HasWriters(fd.get());
  if (writers < 0) {
    static std::atomic<bool> logged{false};
    if (!logged.exchange(true)) {
      LogWarning("relocation: {}: {}; files of passthrough mounts stay where they are there",
                 path, Status::FromErrno("cannot tell whether a mapping still writes it "
                                         "(no read lease)").message());
    }
    return true;
  }
  return writers == 1;
}

Result<int> Relocator::CopyAndVerify(const meta::Inode& attr, uint32_t to_volume,
                                     uint64_t* bytes) {
  const VolumeSet& volumes = fs_.volumes();
  VolumeIo& io = volumes.io();
  auto src_fd = volumes.OpenObject(attr.volume_id, attr.ino, attr.generation,
                                   /*create=*/attr.size == 0);
  if (!src_fd.ok()) return src_fd.status();
  SeamFd src(io, *src_fd);
  const off_t size = static_cast<off_t>(attr.size);

  const std::string tmp = volumes.TmpPath(to_volume, attr.ino, attr.generation);
  SeamFd dst(io, io.Open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (dst.get() < 0) return Status::FromErrno("create " + tmp);
  Status st_copy = CopySparse(io, src.get(), dst.get(), size);
  if (st_copy.ok() && io.Fsync(dst.get(), /*datasync=*/false) != 0) {
    st_copy = Status::FromErrno("fsync copy");
  }
  if (st_copy.ok()) {
    auto a = HashObject(io, src.get(), size);
    auto b = HashObject(io, dst.get(), size);
    if (!a.ok()) st_copy = a.status();
    else if (!b.ok()) st_copy = b.status();
    else if (*a != *b) st_copy = Status::Io("copy of inode " + std::to_string(attr.ino) +
                                            " does not match its source (xxh3)");
  }
  const std::string final_path = volumes.ObjectPath(to_volume, attr.ino, attr.generation);
  // Before the copy takes its object name, record it as pending: a crash from here
  // to the commit leaves a copy the next mount knows to remove.
  if (st_copy.ok()) {
    st_copy = fs_.metadata().AddPendingObject({attr.ino, attr.generation, to_volume});
    // Durable before the copy takes its name (group commit would hold it back).
    if (st_copy.ok()) st_copy = fs_.SyncMetadata();
  }
  if (st_copy.ok()) {
    io.Mkdir(DirOf(final_path), 0700);
    if (io.Rename(tmp, final_path) != 0) {
      st_copy = Status::FromErrno("rename copy");
      fs_.metadata().RemovePendingObject(attr.ino, to_volume);
    }
  }
  if (!st_copy.ok()) {
    io.Unlink(tmp);
    return st_copy;
  }
  (void)SyncDirectory(io, DirOf(final_path));
  io.ReachPoint("relocate-after-copy");
  *bytes = attr.size;
  return dst.release();
}

RelocationOutcome Relocator::CommitLocked(InodeState& inode, uint32_t from_volume,
                                          uint32_t to_volume, int new_fd, bool* durable) {
  // sync_mu orders this commit with the attribute flushes and setattrs of the entry.
  MutexLock sync(inode.sync_mu);
  *durable = false;
  auto row = fs_.metadata().SetInodeVolume(inode.ino, from_volume, to_volume);
  if (!row.ok()) return RelocationOutcome::Failed(row.status());
  MutexLock lock(inode.mu);
  if (inode.fd >= 0 && fs_.volumes().io().Dup2(new_fd, inode.fd) < 0) {
    // Cannot happen with valid fds; the database already points at the copy.
    std::abort();
  }
  ForgetDirectFdLocked(inode, fs_.volumes().io());  // it still points at the old object
  return FinishCommitLocked(inode, *row, durable);
}

RelocationOutcome Relocator::FinishCommitLocked(InodeState& inode, const meta::Inode& row,
                                                bool* durable) {
  // The row the commit returned, with its epoch: a refresh that read the row
  // before the commit and applies it after leaves the entry on the new volume.
  ApplyRow(inode, row);
  inode.ForgetDurableLayout();  // the next fdatasync commits the move too
  // No open handle reads the store's bytes it fetched before the move: the
  // object under the same key may hold other bytes after a recall, a write and
  // a new upload.
  for (OpenHandle* h = inode.handles; h != nullptr; h = h->next) {
    if (h->directory) continue;
    auto* fh = static_cast<FileHandle*>(h);
    if (fh->store_readahead) fh->store_readahead->Invalidate();
  }
  // Committed at once, since the source object goes next. Should the commit
  // fail, the change stays in the open group, which commits later or is undone
  // whole by a crash; either way pending_objects says which object to remove at
  // the next mount, so the source stays until then.
  *durable = fs_.SyncMetadata().ok();
  return RelocationOutcome{"moved", 0, 0, 0};
}

Status Relocator::CheckMove(const meta::Inode& attr, uint32_t to_volume) const {
  if (!S_ISREG(attr.mode)) {
    return Status::Invalid("inode " + std::to_string(attr.ino) + " is not a regular file");
  }
  if (fs_.volumes().Find(to_volume) == nullptr) {
    return Status::Invalid("no volume " + std::to_string(to_volume));
  }
  if (attr.volume_id == to_volume) return Status::Invalid("already on that volume");
  if (fs_.volumes().IsObjectVolume(attr.volume_id) && fs_.volumes().IsObjectVolume(to_volume)) {
    return Status::Invalid("inode " + std::to_string(attr.ino) +
                           ": moves between two object volumes are not supported");
  }
  return Status::Ok();
}

Relocator::Snapshot Relocator::SnapshotLocked(InodeState& inode, meta::Inode* attr) {
  MutexLock lock(inode.mu);
  *attr = inode.attr;
  return Snapshot{inode.write_gen.load(), inode.passthrough_opens > 0, inode.fd >= 0};
}

bool Relocator::BusyBeforeCopy(InodeState& inode, const meta::Inode& attr, const Snapshot& snap,
                               uint32_t to_volume) {
  const VolumeSet& volumes = fs_.volumes();
  // The kernel serves the file's open passthrough handles from this object
  // and would keep doing so after a commit: busy until the last one closes
  // (and an open during the copy moves write_gen: AdmitPassthrough).
  if (snap.passthrough) return true;
  // A mapping kept after close still writes the object: busy until unmapped
  // (a new open to map again moves write_gen, so this is asked once).
  if (fs_.passthrough() && !volumes.IsObjectVolume(attr.volume_id)) {
    if (!snap.daemon_holds_object) {
      if (WrittenOutsideTheDaemon(volumes, attr)) return true;
      fs_.ObjectFoundUnwritten(inode, snap.write_gen);
    } else if (fs_.MayHaveWritableMapping(attr.ino)) {
      // The daemon's own descriptor writes the object too, so a lease cannot
      // tell: busy until the daemon closes it and a lease can answer.
      return true;
    }
  }
  // Files on a store are never written: one open for writing stays local
  // until it is closed (the next enforce moves it).
  return volumes.IsObjectVolume(to_volume) && OpenForWriting(inode);
}

RelocationOutcome Relocator::CopyFailed(const Status& st, bool written_meanwhile) {
  // A write during the copy explains a checksum mismatch or a short source:
  // the move is busy (retried by the next scan), not failed.
  if (written_meanwhile) return RelocationOutcome{"busy", 0, 0, 0};
  return RelocationOutcome::Failed(st);
}

RelocationOutcome Relocator::CommitStoreIfUnwrittenLocked(InodeState& inode, uint32_t from_volume,
                                                          uint32_t to_volume, uint64_t gen_before,
                                                          StoreCopy& copy, bool empty,
                                                          bool* durable) {
  uint32_t now_on;
  {
    MutexLock lock(inode.mu);
    now_on = inode.attr.volume_id;
  }
  if (inode.write_gen.load() != gen_before || now_on != from_volume) {
    return RelocationOutcome{"busy", 0, 0, 0};
  }
  RelocationOutcome result = CommitStoreLocked(inode, from_volume, to_volume, copy, empty, durable);
  result.bytes = copy.bytes;
  return result;
}

void Relocator::FinishStoreMove(const meta::Inode& attr, uint32_t from_volume, uint32_t to_volume,
                                StoreCopy& copy, bool durable, RelocationOutcome* result) {
  if (result->outcome != "moved") {
    result->bytes = 0;
    DiscardStoreCopy(attr, to_volume, copy);
    return;
  }
  fs_.volumes().io().ReachPoint("relocate-after-commit");
  if (durable && fs_.volumes()
                     .RemoveAnyObject(from_volume, attr.ino, attr.generation, attr.store_version)
                     .ok()) {
    fs_.metadata().RemovePendingObject(attr.ino, from_volume);
  }
}

void Relocator::RemoveStaleObject(const meta::Inode& attr, uint32_t from_volume,
                                  uint32_t to_volume, const RelocationOutcome& result,
                                  bool durable) {
  if (result.outcome == "moved") fs_.volumes().io().ReachPoint("relocate-after-commit");
  // The object that is not the file's location: the source after a commit, the
  // copy otherwise. Its pending record goes only once it is really gone.
  const uint32_t stale = result.outcome == "moved" ? from_volume : to_volume;
  if (durable && fs_.volumes().RemoveObject(stale, attr.ino, attr.generation).ok()) {
    fs_.metadata().RemovePendingObject(attr.ino, stale);
  }
}

void Relocator::RecordOutcome(uint64_t ino, uint32_t from_volume, uint32_t to_volume,
                              RelocationOutcome* result) {
  if (result->error == ENOSPC || result->error == EDQUOT) {
    // The destination was found full by the copy itself (a store over its
    // quota, a local volume that filled since the plan): "nospace" in the
    // history and the metrics, as enforce reports it, not an error.
    LogInfo("inode {}: not moved to {}: {}", ino, fs_.volumes().NameOf(to_volume),
            result->outcome);
    result->outcome = "nospace";
  }
  meta::RelocationRecord record;
  record.time_ns = fs_.clock().NowNanos();
  record.ino = ino;
  record.from_volume = from_volume;
  record.to_volume = to_volume;
  record.bytes = result->bytes;
  record.seconds = result->seconds;
  record.outcome = result->outcome;
  fs_.metadata().RecordRelocation(record);
  fs_.metrics().RecordRelocation(from_volume, to_volume, result->outcome, result->bytes);
}

Result<RelocationOutcome> Relocator::Relocate(uint64_t ino, uint32_t to_volume, Mode mode,
                                              uint32_t only_from, bool move_unlinked) {
  const auto start = std::chrono::steady_clock::now();
  auto attr = fs_.CurrentAttr(ino);
  if (!attr.ok() && attr.status().code() != ENOENT) return attr.status();
  if (!attr.ok() || (attr->nlink == 0 && !move_unlinked)) {
    // Unlinked between the scan and now: nothing to move (its reclaim is pending).
    return RelocationOutcome{"gone", 0, 0, 0};
  }
  // Moved by another mover since the caller looked (enforce planned it, the
  // online path moved it meanwhile): nothing to do, and no error.
  if (only_from != 0 && attr->volume_id != only_from) {
    RelocationOutcome moved_meanwhile{"moved", 0, 0, 0};
    moved_meanwhile.skipped = true;
    return moved_meanwhile;
  }
  TIERFS_RETURN_IF_ERROR(CheckMove(*attr, to_volume));

  auto held = fs_.HoldInode(ino, Hold::kPin);
  if (!held.ok()) {
    if (held.status().code() == ENOENT) return RelocationOutcome{"gone", 0, 0, 0};
    return held.status();
  }
  InodeRef inode = *held;
  // One move of a file at a time: a move another mover has begun is waited
  // for, and the snapshot below then finds the file where it left it (the
  // move is skipped when that is no longer `only_from`, or is `to_volume`).
  MutexLock one_move(inode->relocate_mu, std::defer_lock);
  if (!one_move.TryLock()) {
    fs_.volumes().io().ReachPoint("relocate-wait");
    one_move.Lock();
  }
  const bool hold_writers = mode != Mode::kBackground;
  const bool empty_recall =
      mode == Mode::kEmptyRecall && fs_.volumes().IsObjectVolume(attr->volume_id);
  WriterLock io(inode->io_lock);
  const Snapshot snap = SnapshotLocked(*inode, &*attr);
  // kHoldWriters keeps the lock through the commit: no write can start before.
  if (!hold_writers) io.Unlock();
  fs_.volumes().io().ReachPoint("relocate-snapshot");
  RelocationOutcome result;
  const uint32_t from_volume = attr->volume_id;
  // Moved meanwhile (by a writer that met ENOSPC): nothing left to do.
  const bool skipped =
      from_volume == to_volume || (only_from != 0 && from_volume != only_from);
  if (skipped) {
    result.outcome = "moved";
    result.skipped = true;
  } else if (BusyBeforeCopy(*inode, *attr, snap, to_volume)) {
    result.outcome = "busy";
  } else if (fs_.volumes().IsObjectVolume(from_volume) ||
             fs_.volumes().IsObjectVolume(to_volume)) {
    // To or from a store (store_relocation.cc): the same order of steps.
    StoreCopy copy = fs_.volumes().IsObjectVolume(to_volume)
                         ? UploadCopy(*attr, to_volume)
                         : RecallCopy(*attr, to_volume, empty_recall);
    bool durable = true;
    if (!copy.status.ok()) {
      result = CopyFailed(copy.status, inode->write_gen.load() != snap.write_gen);
    } else {
      if (!hold_writers) io.Lock();
      inode->io_lock.AssertHeld();
      result = CommitStoreIfUnwrittenLocked(*inode, from_volume, to_volume, snap.write_gen, copy,
                                            empty_recall, &durable);
      io.Unlock();
    }
    FinishStoreMove(*attr, from_volume, to_volume, copy, durable, &result);
  } else {
    LowIoPriority low_priority(!hold_writers);  // a writer waits on this copy
    auto copy = CopyAndVerify(*attr, to_volume, &result.bytes);
    if (!copy.ok()) {
      result = CopyFailed(copy.status(), inode->write_gen.load() != snap.write_gen);
    } else {
      SeamFd new_fd(fs_.volumes().io(), *copy);
      bool durable = true;  // whether the outcome's location is committed
      if (!hold_writers) io.Lock();
      inode->io_lock.AssertHeld();  // taken again just above, or kept since the snapshot
      if (inode->write_gen.load() != snap.write_gen) {
        result.outcome = "busy";
      } else {
        const uint64_t bytes = result.bytes;
        result = CommitLocked(*inode, from_volume, to_volume, new_fd.get(), &durable);
        result.bytes = bytes;
      }
      io.Unlock();
      RemoveStaleObject(*attr, from_volume, to_volume, result, durable);
    }
  }
  io.UnlockIfHeld();
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  fs_.ReleaseHold(inode, Hold::kPin);
  if (!skipped) RecordOutcome(ino, from_volume, to_volume, &result);
  return result;
}

}  // namespace tierfs
