// FileSystem: the mounted tierfs, as the FUSE handlers see it.
//
// Owns the metadata database, the volume set, the inode table, the I/O counters and
// the cached placement policy. Every method is one file-system operation that
// returns a Status or Result (errno + message); fs/fuse/fuse_ops.cc holds the thin shims
// that unpack a FUSE request, call one of these, and reply once.
//
// Threading: all methods are safe to call from the multi-threaded FUSE loop, the
// periodic flush and control-channel threads at once. Locks: see inode_table.h.
// Its background jobs are classes of their own, owned here: the periodic flush
// (periodic_flush.h), retention (retention.h) and the reclaim of unlinked
// inodes (reclaimer.h).
// Ordering rules (docs/design.md, "Namespace and objects"): the database may point at a
// missing object only for an empty file (a create's row commits first, its object
// follows, and opening an empty file re-creates it); an object is removed only
// after the row that points at it is marked nlink 0, and the row only after that.
#pragma once

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "common/clock.h"
#include "common/mutex.h"
#include "common/page.h"
#include "common/status.h"
#include "common/thread_annotations.h"
#include "fs/core/daemon_metrics.h"
#include "fs/core/file_handle.h"
#include "fs/core/inode_table.h"
#include "fs/core/io_accounting.h"
#include "fs/core/kernel_open_cache.h"
#include "fs/volume/volume_io.h"
#include "fs/volume/volume_set.h"
#include "fs/core/delayed_attribute_flush.h"
#include "fs/core/periodic_flush.h"
#include "fs/core/reclaimer.h"
#include "fs/core/retention.h"
#include "meta/metadata.h"
#include "meta/space_reserve.h"
#include "policy/create_placement.h"
#include "policy/policy.h"

namespace tierfs {

// What stat(2) shows as a directory's size: one ext4 block. Directories keep
// no bytes of their own in tierfs; applications (and tests comparing with ext4)
// expect a non-zero size.
inline constexpr uint64_t kDirectorySize = kPageBytes;

// Who is asking (from fuse_req_ctx), for ownership of new inodes and for the few
// permission rules the kernel leaves to a FUSE file system.
struct Caller {
  uid_t uid = 0;
  gid_t gid = 0;
  pid_t pid = 0;
  std::vector<gid_t> groups;  // supplementary groups, filled only where needed

  // Whether the caller is in group `g` (its fsgid or a supplementary group).
  bool InGroup(gid_t g) const {
    if (g == gid) return true;
    for (gid_t x : groups) {
      if (x == g) return true;
    }
    return false;
  }
};

// Whether a change by `caller` to a file of mode `mode` and group `gid` drops its
// setgid bit the way the VFS does for ext4 (setattr_should_drop_sgid): the kernel
// already clears it when group-execute is set, but FUSE's own rule skips the case
// of setgid without group-execute written, truncated or chowned by someone who is
// neither privileged (root stands for CAP_FSETID) nor in the file's group.
inline bool DropsSetgidWithoutGroupExec(const Caller& caller, uint32_t mode, gid_t gid) {
  return S_ISREG(mode) && (mode & (S_ISGID | S_IXGRP)) == S_ISGID && caller.uid != 0 &&
         !caller.InGroup(gid);
}

// `mode` after the kernel's kill of FUSE_HANDLE_KILLPRIV_V2 (a marked write,
// truncate or chown; fs/fuse/serving_request.h): setuid goes, and setgid when
// group-execute is set (the VFS's rule); a directory keeps both.
inline uint32_t ModeAfterKillPriv(uint32_t mode) {
  if (S_ISDIR(mode)) return mode;
  mode &= ~static_cast<uint32_t>(S_ISUID);
  if ((mode & S_IXGRP) != 0) mode &= ~static_cast<uint32_t>(S_ISGID);
  return mode;
}

struct FileSystemOptions {
  std::string mountpoint;        // absolute; for reports and the control channel
  bool sync_full = false;        // SQLite synchronous=FULL
  const Clock* clock = &SystemClock::Get();
  // Retention (ApplyRetention): FCL records older than this or beyond this count,
  // iostat buckets older than this. 0 = no bound.
  int64_t fcl_keep_seconds = 14 * 24 * 3600;
  uint64_t fcl_max_records = 1'000'000;
  int64_t iostat_keep_seconds = 31 * 24 * 3600;
  // The seam for every system call on volume objects; null = the plain calls.
  // Tests pass a FaultInjectingVolumeIo. Must outlive the FileSystem.
  VolumeIo* volume_io = nullptr;
  // Bytes of the metadata volume kept for the database alone (meta/space_reserve.h);
  // 0 = meta::DefaultReserveBytes of the database and the volume.
  uint64_t metadata_reserve_bytes = 0;
  // Group commit window, microseconds: namespace changes gather this long in one
  // database transaction (meta/group_committer.h); fsync and fsyncdir commit at
  // once. 0 = every change commits on its own.
  int64_t commit_window_us = 5000;
  // Idle inodes whose entries (attributes) the daemon keeps, about 500 bytes
  // each (32 MiB at the default), so a file opened, stat'ed or looked up again
  // needs no database read (fs/core/inode_table.h). 0: none.
  size_t cached_inodes = 65536;
  // Directory entries (names, and names known absent) the daemon keeps, about
  // 100 bytes each (25 MiB at the default), so a lookup needs no database
  // read (meta/dentry_cache.h). 0: none.
  size_t cached_dentries = 262144;
  // When atime moves (relatime rules, as on ext4). false: at an O_RDONLY open,
  // so the kernel keeps the file's cached pages and a warm read costs no
  // request (an O_RDWR open behaves as with true). true: at the first read that
  // reaches the daemon, which needs the kernel to drop the file's cached pages
  // at such an open (a warm re-read then goes through FUSE once).
  // docs/design.md, "Access times".
  bool exact_atime = false;
  // Writes of at least kDirectWriteMinBytes of whole pages from a page-aligned
  // buffer go to the object with O_DIRECT (FileSystem::Write).
  bool direct_writes = true;
  // No-open mode: at most this many files keep their object open between
  // requests (KernelOpen; up to two fds each, the second for O_DIRECT writes).
  size_t cached_opens = 4096;
};

// The smallest write sent to a volume with O_DIRECT, bytes. Such a write skips
// the daemon's copy into the volume's page cache (the kernel's page cache of the
// tierfs file already holds the bytes) but waits for the device; a page of
// the kernel's writeback (random 4 KiB writes) is cheaper to copy than to wait for.
inline constexpr size_t kDirectWriteMinBytes = size_t{128} << 10;

// How soon after a write through a kernel-open handle (no-open mode) the file's
// size and times are flushed to the database (fs/core/delayed_attribute_flush.h):
// the release that flushed them after the last close(2) never comes in that mode.
inline constexpr std::chrono::milliseconds kAttributeFlushDelay{50};

// A create needs this much room above a volume's reserve: a new file's size is
// not known, and a volume with only a few blocks left would send its first write
// into ENOSPC and a move (design.md, "Living with full volumes").
inline constexpr uint64_t kCreateHeadroomBytes = 1 << 20;

class FileSystem {
 public:
  // Brings the file system of `metadata_dir` up, ready to serve (the mount's
  // first step; Open(ino, flags) opens a file): opens <metadata_dir>/.tierfs/meta.db,
  // verifies every volume's label, installs the database's space reserve
  // (.tierfs/meta.reserve), recovers from a crash (fs/core/crash_recovery.cc),
  // reclaims orphans (unlinked inodes a crash left behind) and loads the policy.
  // Errors name the volume or file at fault.
  static Result<std::unique_ptr<FileSystem>> Mount(const std::string& metadata_dir,
                                                   const FileSystemOptions& options);
  ~FileSystem();
  FileSystem(const FileSystem&) = delete;
  FileSystem& operator=(const FileSystem&) = delete;

  // ---- Entries (each successful call that returns an inode adds one kernel lookup)
  Result<meta::Inode> Lookup(uint64_t parent, std::string_view name);
  // Drops `n` kernel lookups; reclaims the inode if it was the last reference.
  void Forget(uint64_t ino, uint64_t n);
  // The kernel's GETATTR: the attributes as they are now; an idle inode's row,
  // read from the database, joins the kept idle entries (--cached_inodes).
  // ENOENT for no such inode.
  Result<meta::Inode> GetAttr(uint64_t ino);
  // 512-byte blocks really allocated to the inode: the object's st_blocks for a
  // regular file (sparse files and relocated copies report what they use), and for
  // other types what ext4 reports (a directory block, a slow symlink's block).
  uint64_t AllocatedBlocks(const meta::Inode& attr);
  // The stat(2) view of `attr` as ext4 would show it (a directory is one block
  // of kPageBytes; st_blksize kPageBytes).
  void FillStat(const meta::Inode& attr, struct stat* st);
  // `to_set` is a FUSE_SET_ATTR_* mask; `fh` may be null (truncate(2) by path).
  // `caller` (with its groups) for a size or owner change by an unprivileged user:
  // see DropsSetgidWithoutGroupExec. FUSE_SET_ATTR_KILL_SUID | FUSE_SET_ATTR_KILL_SGID
  // (either) carry the kernel's FUSE_HANDLE_KILLPRIV_V2 mark (fs/fuse/serving_request.h):
  // the mode becomes ModeAfterKillPriv's, in the same commit as the rest.
  Result<meta::Inode> SetAttr(uint64_t ino, const struct stat& attr, int to_set, FileHandle* fh,
                              const Caller* caller = nullptr);
  // mknod/mkdir/symlink: `mode` carries the file type. `target` only for symlinks.
  Result<meta::Inode> MakeNode(const Caller& caller, uint64_t parent, std::string_view name,
                               mode_t mode, dev_t rdev, std::string_view target) {
    return MakeNode(caller, parent, name, mode, rdev, target, nullptr);
  }
  Result<std::string> ReadLink(uint64_t ino);
  Status Unlink(uint64_t parent, std::string_view name);
  Status Rmdir(uint64_t parent, std::string_view name);
  Status Rename(uint64_t parent, std::string_view name, uint64_t new_parent,
                std::string_view new_name, unsigned int flags);
  Result<meta::Inode> Link(uint64_t ino, uint64_t new_parent, std::string_view new_name);
  // Removes `name` from `parent` for a policy DELETE, only while it still names
  // inode `ino` (ESTALE otherwise: renamed or replaced since the scan), then tells
  // the kernel to drop its cached entry (the kernel did not ask for this unlink).
  Status UnlinkForPolicy(uint64_t parent, std::string_view name, uint64_t ino);

  // ---- Regular files
  // Creates and opens a regular file placed by the policy's CREATE rules
  // (docs/policies.md "CREATE: where new files go"); ENOSPC when no allowed class
  // has room (kCreateHeadroomBytes above its reserve), EIO when the only allowed
  // volumes are offline.
  Result<std::pair<meta::Inode, FileHandle*>> Create(const Caller& caller, uint64_t parent,
                                                     std::string_view name, mode_t mode,
                                                     int flags);
  // Opens a regular file; an O_RDONLY open (without O_NOATIME) moves atime by the
  // relatime rule unless FileSystemOptions::exact_atime. EISDIR for a
  // directory, ENXIO for a special file, EIO when its volume is offline.
  Result<FileHandle*> Open(uint64_t ino, int flags);
  // Reads up to `size` bytes at `offset` into `buf`; returns bytes read (0 at EOF).
  // Moves atime by the relatime rule unless `noatime` or the handle was opened
  // with O_NOATIME.
  Result<size_t> Read(FileHandle* fh, char* buf, size_t size, off_t offset,
                      bool noatime = false);
  // Writes `size` bytes at `offset`; returns bytes written (short only when a
  // later part failed; the next call reports the error). A write that meets
  // ENOSPC (or EDQUOT) on the file's volume moves the file, open descriptors and
  // all, to a volume of the next class its CREATE rule allows (MoveOnNoSpace) and
  // goes on there; ENOSPC only when every allowed volume is full. A write to the
  // metadata volume while the database reserve is depleted is treated the same way.
  // Sets *setgid_check when the file has setgid without group-execute: the caller
  // then asks DropSetgidAfterWrite with the writer's credentials.
  Result<size_t> Write(FileHandle* fh, const char* buf, size_t size, off_t offset,
                       bool* setgid_check = nullptr);
  // After a successful fsync of `fh`'s file under the writeback cache, whose
  // kernel keeps the file's attributes and refreshes nothing after writeback:
  // whether the object's allocation (st_blocks) changed since an fsync last
  // returned true here (always true the first time, and after a truncate,
  // fallocate or relocation). The caller then marks the kernel's attributes
  // stale, so stat shows st_blocks as ext4 would; an overwrite in place (a
  // database's log) needs no GETATTR afterwards, nor the GETXATTR of
  // security.capability that follows each attribute refresh (the kernel clears
  // S_NOSEC then). True when the object cannot be stat'ed.
  bool BlocksChangedSinceFsync(FileHandle* fh);
  // With the FUSE writeback cache (set once, at FUSE init) the kernel keeps mtime
  // and ctime of the files it caches, stamps them at write(2) and sends them after
  // the pages as a setattr, which may overtake a WRITE of background writeback:
  // Write() then leaves the times alone, so a late WRITE never puts the daemon's
  // clock over the kernel's mtime.
  void SetKernelKeepsWriteTimes(bool on) { kernel_keeps_write_times_.store(on); }
  // INIT granted passthrough (fs/fuse/passthrough.h): from now on the kernel may
  // read, write and map objects itself, past the daemon's view. Records it in
  // the database first (the next mount after a crash takes an object longer
  // than its file at its length: msync'ed bytes past the recorded size never
  // reached the daemon), then recycles no object (a mapping may outlive its
  // file's last close and would write into the file that took its object
  // over), and a relocation first asks the object whether anyone still writes
  // it (VolumeIo::HasWriters). A mount that never passes through does none of
  // this. Errors: the database's; passthrough must then stay off.
  Status EnablePassthrough();
  // Whether EnablePassthrough has run.
  bool passthrough() const { return passthrough_.load(); }
  // Clears setgid (no group-execute) after a write by `caller` when the VFS would.
  void DropSetgidAfterWrite(FileHandle* fh, const Caller& caller);
  // Before a WRITE or an OPEN the kernel marked to clear setuid/setgid
  // (FUSE_HANDLE_KILLPRIV_V2; fs/fuse/serving_request.h): SetAttr with only
  // FUSE_SET_ATTR_KILL_SUID | FUSE_SET_ATTR_KILL_SGID when ModeAfterKillPriv would
  // change the mode; a look at memory otherwise (every O_DIRECT write of an
  // unprivileged caller carries the mark). `fh` may be null. Returns whether the
  // mode changed: the kernel's cached attributes are then stale. Errors: those of
  // SetAttr (ENOENT, EIO, ENOSPC).
  Result<bool> KillSuidSgid(uint64_t ino, FileHandle* fh);
  Status Fsync(FileHandle* fh, bool datasync);
  // Closes the handle (deletes it); reclaims an unlinked inode at its last close.
  Status Release(FileHandle* fh);
  Status Fallocate(FileHandle* fh, int mode, off_t offset, off_t length);

  // ---- Passthrough opens (fs/fuse/passthrough.h; docs/design.md "Passthrough opens")
  // Decides whether `fh`, just made by Open or Create and not yet known to the
  // kernel, is served by passthrough. The kernel serves an inode's opens all by
  // passthrough (naming one backing file) or all through the daemon, never
  // both: `fh` is passthrough when its inode has passthrough opens, is not when
  // the inode has other open handles, and is when `wanted` otherwise.
  // `direct_io`: its reads and writes still reach the daemon (only mmap goes to
  // the object). Returns the object fd to register as the backing file (valid
  // while `fh` is open), or -1 when the daemon serves the open. A relocation in
  // progress then finds the file busy (the kernel will hold its object).
  int AdmitPassthrough(FileHandle* fh, bool wanted, bool direct_io);
  // Undoes AdmitPassthrough for a handle the kernel will serve through the
  // daemon after all (its backing file could not be registered).
  void WithdrawPassthrough(FileHandle* fh);
  // Whether a passthrough open for writing of `ino` was admitted since a lease
  // last found its object unwritten (ObjectFoundUnwritten): a shared writable
  // mapping made through it may outlive every close and write the object past
  // the daemon, which a lease cannot tell while the daemon holds the object
  // open itself (Relocator::BusyBeforeCopy). Kept apart from the inode's
  // state, which may be dropped while such a mapping lives.
  bool MayHaveWritableMapping(uint64_t ino) const EXCLUDES(writable_mappings_mu_);
  // A lease found the object of `inode` unwritten when its write_gen was
  // `write_gen`: no mapping writes it, unless a passthrough open came since.
  void ObjectFoundUnwritten(InodeState& inode, uint64_t write_gen)
      EXCLUDES(writable_mappings_mu_);
  // Heat of I/O the kernel served by passthrough (counted by fs/bpf/): adds to
  // inode `ino`'s counters as if those calls had reached the daemon, and the
  // bytes to the metrics of the volume that holds the file now (volume 0,
  // "unknown", when the inode is gone).
  void RecordKernelIo(uint64_t ino, uint64_t read_bytes, uint64_t read_ops, uint64_t write_bytes,
                      uint64_t write_ops);
  Result<off_t> Lseek(FileHandle* fh, off_t offset, int whence);
  // copy_file_range(2) between two open files of this file system, done by the
  // backing file systems (reflink or in-kernel copy) when both objects allow it.
  // Returns bytes copied; counted as a read of `in` and a write of `out`.
  // `noatime`: the source's open file has O_NOATIME now (as for Read).
  Result<size_t> CopyFileRange(FileHandle* in, off_t in_offset, FileHandle* out,
                               off_t out_offset, size_t length, unsigned int flags,
                               bool noatime = false);

  // ---- No-open mode (fs/core/kernel_open_cache.h)
  // The handle standing for the kernel's unreported opens of regular file `ino`
  // (requests with file handle 0), opened as an O_RDWR open(2) would be at the
  // first request that needs it; the caller keeps it for the request's length.
  // Errors: Open's (ENOENT, EIO when its volume is offline).
  Result<std::shared_ptr<FileHandle>> KernelOpen(uint64_t ino);
  // Inodes with a kernel-open handle now (at most FileSystemOptions::cached_opens).
  size_t KernelOpenCount() const { return kernel_opens_->size(); }
  // Flushes now the attributes of files written through kernel-open handles
  // whose delayed flush is still due (kAttributeFlushDelay): before a tool reads
  // the database.
  void DrainDelayedFlushes() { delayed_flush_->Drain(); }
  // The kernel's passthrough counts up to now, into the inodes' counters
  // (RecordKernelIo), before a scan or a tool reads the heat: the counter
  // drains on its own only once a second (fs/daemon/passthrough_heat.h).
  // `drain` is set by the counter's owner while it counts (null: none); it
  // runs under kernel_heat_mu_, so clearing it waits for a drain under way.
  void SetKernelHeatDrain(std::function<void()> drain) EXCLUDES(kernel_heat_mu_) {
    MutexLock lock(kernel_heat_mu_);
    kernel_heat_drain_ = std::move(drain);
  }
  void DrainKernelHeat() EXCLUDES(kernel_heat_mu_) {
    MutexLock lock(kernel_heat_mu_);
    if (kernel_heat_drain_) kernel_heat_drain_();
  }
  // Told by the kernel counter's drain when it brought counts (the online
  // promoter judges them then, not at its next tick: kernel counts arrive a
  // second late already). `hook` runs under heat_arrived_mu_ (null: none), so
  // clearing it waits for a call under way; it must not drain the counter.
  void SetKernelHeatArrivedHook(std::function<void()> hook) EXCLUDES(heat_arrived_mu_) {
    MutexLock lock(heat_arrived_mu_);
    heat_arrived_hook_ = std::move(hook);
  }
  void KernelHeatArrived() EXCLUDES(heat_arrived_mu_) {
    MutexLock lock(heat_arrived_mu_);
    if (heat_arrived_hook_) heat_arrived_hook_();
  }

  // ---- Directories
  Result<DirHandle*> OpenDir(uint64_t ino);
  void ReleaseDir(DirHandle* dh);
  // Lists entries after `offset` ("." and ".." first). `emit(name, attr, next_offset)`
  // returns false when the reply buffer is full. With `plus`, each emitted entry
  // (except . and ..) counts as a kernel lookup. `room`: how many entries the
  // caller can take at most (an upper bound; the database reads no more rows
  // in its first query, since rows read past a full buffer are read again by
  // the next request).
  Status ReadDir(DirHandle* dh, off_t offset, bool plus, size_t room,
                 const std::function<bool(const std::string&, const meta::Inode&, off_t)>& emit);

  // ---- Extended attributes and statfs
  Status SetXattr(uint64_t ino, std::string_view name, std::string_view value, int flags);
  Result<std::string> GetXattr(uint64_t ino, std::string_view name);
  // `privileged`: the caller may see trusted.* names (CAP_SYS_ADMIN; ext4 hides
  // them from everyone else).
  Result<std::vector<std::string>> ListXattr(uint64_t ino, bool privileged);
  Status RemoveXattr(uint64_t ino, std::string_view name);
  Result<struct statvfs> StatFs();

  // ---- Administration
  // Writes every dirty inode's attributes and the in-memory I/O counters to the
  // database (the periodic flush, and the first step of every scan), then
  // commits the open commit group (SyncMetadata). PeriodicFlush::FlushAll.
  Status FlushAll() { return flush_.FlushAll(); }
  // Starts the periodic flush's thread: every `period`, FlushAll, then
  // CheckVolumes, and retention once a minute (Retention::ApplyIfDue). The
  // session's thread only, once; StopPeriodicFlush (or the destructor) stops it.
  void StartPeriodicFlush(std::chrono::milliseconds period);
  void StopPeriodicFlush() { flush_.Stop(); }
  // The periodic volume check (with every periodic flush): labels (offline/online),
  // full volumes that have room again, and the database reserve grown back.
  void CheckVolumes();
  // The database's space reserve, or null when none could be installed.
  const meta::SpaceReserve* reserve() const { return reserve_.get(); }
  // Drops FCL records and iostat buckets beyond the retention bounds of the options.
  Status ApplyRetention() { return retention_.Apply(); }
  // Changes the heat resolution (fsppadm heatbucket): flushes what is dirty,
  // then deletes every iostat bucket and sets iostat_bucket_seconds in the
  // database, and restarts the in-memory counts with the new length. I/O counted
  // before is gone (FCL records are kept). `bucket_seconds`: 1..86400; EINVAL
  // otherwise, and a database error leaves the old length in place. The caller
  // checks the assigned policy against the new length.
  Status RestartHeatCounts(int64_t bucket_seconds);
  // The current iostat bucket length, s (info().iostat_bucket_seconds is the
  // length at mount and goes stale after RestartHeatCounts).
  int64_t heat_bucket_seconds() const { return io_.bucket_seconds(); }
  // The in-memory I/O counters (fs/core/io_accounting.h): the online promoter
  // reads what is not flushed yet with IoAccounting::Peek.
  const IoAccounting& io_accounting() const { return io_; }
  // Sets (or, with an empty function, clears) the function that sees every
  // batch of I/O counts once the periodic flush wrote it to the database
  // (PeriodicFlush::SetDrainedHook).
  void SetIoDrainedHook(PeriodicFlush::DrainedFn hook) { flush_.SetDrainedHook(std::move(hook)); }
  // Called after the daemon removed a name on its own initiative, so the kernel can
  // forget the dentry; the session sets it to fuse_lowlevel_notify_delete. Set once
  // before the file system serves requests.
  using EntryRemovedHook =
      std::function<void(uint64_t parent, uint64_t ino, std::string_view name)>;
  void SetEntryRemovedHook(EntryRemovedHook hook) { entry_removed_hook_ = std::move(hook); }
  // (Re)loads the assigned policy from the database; called after assign/unassign.
  Status ReloadPolicy();
  // The assigned policy, or nullptr when none (placement by free space).
  std::shared_ptr<const policy::PlacementPolicy> policy() const;

  // What the assigned policy's CREATE rules say about a file at `path` (relative
  // to the mount root, "/a/b") owned by uid/gid; not governed (the default
  // allocator) when no policy is assigned. For creates, moves on ENOSPC and the
  // evacuation of a volume being removed (fs/tiering/volume_admin.h).
  policy::CreatePlacement CreatePlacementFor(uint32_t uid, uint32_t gid, const std::string& path);

  meta::Metadata& metadata() { return *meta_; }
  const VolumeSet& volumes() const { return *volumes_; }
  // The volume set for changes at run time (fs/tiering/volume_admin.h, fsvoladm).
  VolumeSet& mutable_volumes() { return *volumes_; }
  InodeTable& inodes() { return inodes_; }
  // The inode's entry, made active (from its row, read if it is idle) and held
  // as `how` says until given back with ReleaseHold. Errors of reading the row
  // (ENOENT: no such inode).
  Result<InodeRef> HoldInode(uint64_t ino, Hold how);
  // Gives back a hold taken with HoldInode (or InodeTable::HoldRow), reclaiming
  // the inode when it was the last thing keeping an unlinked one.
  void ReleaseHold(const InodeRef& inode, Hold how);
  const Clock& clock() const { return *options_.clock; }
  const FileSystemOptions& options() const { return options_; }
  // What the daemon counts for monitoring (fs/core/daemon_metrics.h).
  DaemonMetrics& metrics() { return metrics_; }
  const meta::FsInfo& info() const { return info_; }

  // The attributes as they are now (memory if cached, else the database), without
  // adding a lookup.
  Result<meta::Inode> CurrentAttr(uint64_t ino);
  // Brings a file on an object volume back to the volume of the first class its
  // CREATE rule allows with room (the default allocator when no rule governs
  // it), holding its writers, before `why` ("write", "truncate", "fallocate",
  // "open for writing") proceeds; logged and counted
  // (DaemonMetrics::RecordRecallForWrite). OK at once for a file not on the
  // store. Errors: ENOSPC (no allowed volume has room), EIO (the store is
  // offline or the recall failed; the message says why). The caller holds no
  // io_lock of the inode. Without `bytes_wanted` (a truncate to 0) nothing is
  // fetched: the file comes back empty (Relocator::Mode::kEmptyRecall), even
  // while its store is offline.
  Status RecallForWrite(const InodeRef& inode, const char* why, bool bytes_wanted = true);
  // Removes an inode whose nlink, opens and lookups are all zero: object first, then
  // the row (so a crash in between leaves an nlink-0 row that the next mount finishes).
  // The object goes only once the change that made nlink 0 is committed: at once
  // when it is, else right after its commit group commits (Reclaimer).
  void Reclaim(const meta::Inode& attr) { reclaimer_.Reclaim(attr); }
  // Commits the database's open commit group (fsync, fsyncdir, relocation steps
  // that must be durable before an object moves or goes), then finishes the
  // reclaims that waited for it. Errors from SQLite (EIO, ENOSPC).
  Status SyncMetadata();

 private:
  std::atomic<bool> kernel_keeps_write_times_{false};  // see SetKernelKeepsWriteTimes
  // No-open mode's handles (KernelOpen); emptied first at the stop.
  std::unique_ptr<KernelOpenCache> kernel_opens_;
  // Attribute flushes of files written through them (DataWrittenLocked).
  std::unique_ptr<DelayedAttributeFlush> delayed_flush_;
  // Data went through `fh` (a write, fallocate or copy) into its inode, whose
  // size was `size_before` and whose new size and times are set: marks the
  // inode dirty with data written (its attribute flush logs the FCL "write"),
  // and, with a kernel-open handle and a new size, queues that flush
  // (DelayedAttributeFlush). An overwrite in place (a database's pages) changes
  // only times, which wait for the periodic flush, so it adds no database write
  // every 50 ms. `fh.inode->mu` held.
  void DataWrittenLocked(const FileHandle& fh, uint64_t size_before) REQUIRES(fh.inode->mu);
  // DelayedAttributeFlush's flush function: one database batch for all of `inodes`.
  void FlushDelayed(const std::vector<InodeRef>& inodes);
  // Volumes whose refusal of O_DIRECT was logged (once each: DirectWriteFor).
  // MayHaveWritableMapping's inodes; taken inside an inode's mu.
  Mutex kernel_heat_mu_;
  std::function<void()> kernel_heat_drain_ GUARDED_BY(kernel_heat_mu_);
  Mutex heat_arrived_mu_;  // taken inside kernel_heat_mu_ (a drain asked for)
  std::function<void()> heat_arrived_hook_ GUARDED_BY(heat_arrived_mu_);
  mutable Mutex writable_mappings_mu_;
  std::unordered_set<uint64_t> writable_mappings_ GUARDED_BY(writable_mappings_mu_);
  Mutex direct_refusals_mu_;
  std::vector<uint32_t> direct_refusals_logged_ GUARDED_BY(direct_refusals_mu_);
  FileSystem(std::unique_ptr<meta::SpaceReserve> reserve, std::unique_ptr<meta::Metadata> meta,
             std::unique_ptr<VolumeSet> volumes, meta::FsInfo info,
             const FileSystemOptions& options);

  // Registers a kernel lookup for `attr` and returns the entry's attributes (the
  // newer of its row and `attr`, with its own size and times while dirty).
  meta::Inode Remember(const meta::Inode& attr);
  // After a change of an inode's row that returned no row: re-reads the row into
  // its active entry (keeping dirty size and times); for an idle inode only
  // notes the change (InodeTable::Changed), and the next reader reads the row.
  void RefreshCached(uint64_t ino);
  // Takes `row`, as a change of the database returned it, into the entry of its
  // inode (ApplyRow), with no read of the row; for an idle inode notes the
  // change (InodeTable::Apply). No-op when the entry shows a newer row.
  void ApplyCached(const meta::Inode& row);
  // Applies an nlink change the database reported (unlink, rename over a target) and
  // reclaims the inode now if no one holds it.
  void AfterNameRemoved(const meta::Inode& after);
  // At mount: removes the objects a crash left behind mid-relocation (recorded in
  // pending_objects), unless one is, after all, its inode's location.
  Status RemovePendingObjects();
  // At a mount after a crash (no clean-unmount mark): trims every object longer
  // than its file's recorded size, so bytes never acknowledged (written, but the
  // size never committed) cannot reappear. One stat per regular file; first opens
  // trim too (OpenObjectTrimmedLocked), this makes `tierfs check` clean at once.
  // With `keep_longer` (the crashed mount let the kernel write objects itself,
  // Metadata::SwapPassthroughWrites) such an object is taken at its length
  // instead: the file's size and mtime become the object's, since msync of a
  // passthrough mapping makes bytes past the recorded size durable without the
  // daemon hearing of it (ext4 keeps them through a crash too).
  Status TrimObjectsAfterCrash(bool keep_longer);
  // At the daemon's stop, after the last request: releases every file and directory
  // handle the kernel never released (its RELEASE was still queued when the
  // connection ended), as their RELEASE would have: attribute flush, then the hold.
  // Returns how many there were.
  size_t ReleaseUnreleasedHandles();
  // At the daemon's stop, after the last request: reclaims every inode with nlink 0
  // (Metadata::ListOrphans) and commits. The kernel holds lookups on such inodes
  // while files are open on them, and sends no FORGET for what it still holds
  // when the connection ends (the stop closes /dev/fuse before its lazy unmount;
  // an unmount ends the connection before the inodes are evicted), nor one it
  // queued that the daemon had not read yet. Nothing can reach them through the
  // mount any more, so their objects go now, not at the next mount. Errors: the
  // database's (EIO, ENOSPC).
  Status ReclaimUnlinkedAtStop();
  // At a mount after a crash: removes objects that no inode row owns (a create's
  // object made in a commit group the crash lost). Objects of rows that point
  // elsewhere are left alone (pending_objects and `tierfs check` handle those).
  Status RemoveOrphanObjects();
  // The attribute flush of a release: none while only lazy times are dirty
  // (a read's atime, the kernel's ctime stamp; the periodic flush takes those,
  // see MarkTimesLazilyDirty); queued to the delayed flush when a write changed
  // the size or times of a linked file; done here for an unlinked one.
  Status FlushAttributesAtClose(const InodeRef& inode);
  // Writes one inode's in-memory attributes (size, times, blocks) to the
  // database if dirty, logging `event` (or the FCL "write" for data written).
  Status FlushAttributes(const InodeRef& inode, std::string_view event);
  // One inode's flush (PrepareFlush, then the database, then FinishFlush).
  struct AttributeFlush {
    meta::AttributeUpdate update;  // the entry's values, fields and FCL event
    uint64_t seq = 0;              // InodeState::change_seq when read
    bool data_written = false;     // InodeState::data_written when read (cleared there)
  };
  // Reads what FlushAttributes writes from `inode` (its sync_mu held by the
  // caller); nullopt when it is not dirty. `event` must outlive the flush.
  std::optional<AttributeFlush> PrepareFlush(const InodeRef& inode, std::string_view event);
  // Applies the database's answer `row` to `inode` (its sync_mu still held):
  // clean unless written meanwhile. Returns the error to report (the entry
  // stays dirty), OK for an inode reclaimed meanwhile.
  Status FinishFlush(const InodeRef& inode, const AttributeFlush& flush,
                     const Result<meta::Inode>& row);
  // FlushAttributesAndSettle for each of `inodes`, with the rows of up to
  // meta::Metadata::kAttributeBatch inodes written under one hold of the
  // database lock (UpdateAttributesEach); an inode whose sync_mu is busy is
  // flushed alone. Errors are logged (the entry stays dirty for the periodic
  // flush).
  void FlushAttributesEach(const std::vector<InodeRef>& inodes);
  // FlushAttributes, then lets an entry that nothing keeps active any more go
  // idle (the kernel forgot it while it was dirty, its kernel-open handle went),
  // or reclaims it when it is unlinked. Errors: FlushAttributes' (the entry stays).
  Status FlushAttributesAndSettle(const InodeRef& inode);
  // relatime for a directory being listed: updates its atime (synchronously, a
  // directory is never dirty) when ext4 would.
  void TouchDirAtime(const InodeRef& dir);
  // Copies up to `length` bytes with pread/pwrite when the backing file systems
  // cannot copy_file_range between the two objects.
  Result<size_t> CopyByHand(int src_fd, off_t in_offset, int dst_fd, off_t out_offset,
                            size_t length);
  // Open() of `inode`, already held as kOpen (given back on error); `created`:
  // the file was just made, with atime already its creation time.
  Result<FileHandle*> OpenHeld(const InodeRef& inode, int flags, bool created);
  // Makes a node; with `opened`, a regular file's new entry is held as kOpen
  // there for Create.
  Result<meta::Inode> MakeNode(const Caller& caller, uint64_t parent, std::string_view name,
                               mode_t mode, dev_t rdev, std::string_view target,
                               InodeRef* opened);
  // Passthrough writers change the object without the daemon: reads its size
  // and mtime back into `inode` (its mu held) when they moved, as a write
  // would have set them (dirty, logged as an FCL "write").
  void RefreshFromObjectLocked(InodeState& inode) REQUIRES(inode.mu);
  // Release's part for a passthrough handle (its inode's mu held).
  void EndPassthroughLocked(FileHandle& fh) REQUIRES(fh.inode->mu);
  // Read() of a file on object volume `volume`: bytes of its object by ranged
  // GETs (S3 quick() bounds: a few seconds) through the handle's readahead
  // window (fs/core/store_readahead.h). EIO naming the volume and the object
  // when the store is offline or does not answer (the volume goes offline at
  // once: MarkStoreOffline). The io_lock held shared.
  Result<size_t> ReadFromStore(FileHandle* fh, uint32_t volume, const meta::Inode& attr,
                               char* buf, size_t size, off_t offset)
      REQUIRES_SHARED(fh->inode->io_lock);
  // Opens the inode's shared backing fd if it is not open yet (inode->mu held).
  Status EnsureFdLocked(InodeState& inode) REQUIRES(inode.mu);
  // How Write sends `count` bytes from `bytes` at `offset` to `inode`'s object
  // with O_DIRECT (FileSystemOptions::direct_writes): the object's O_DIRECT fd
  // (opened on first use) and the whole pages of the write to send through it;
  // fd -1 to send the write through the page cache (too small, not on a page,
  // or refused). The io_lock held (shared).
  struct DirectWrite {
    int fd = -1;
    size_t count = 0;
  };
  DirectWrite DirectWriteFor(InodeState& inode, const char* bytes, size_t count, off_t offset)
      REQUIRES_SHARED(inode.io_lock);
  // Opens the inode's object (inode->mu held) and trims it to the recorded size:
  // bytes past it were never acknowledged (a crash after unsynced writes, or a
  // write whose size never reached the database) and must not reappear when the
  // file is read or extended. Returns the fd (the caller owns it).
  Result<int> OpenObjectTrimmedLocked(const meta::Inode& attr);
  // Picks the volume for a new regular file under `parent`/`name`.
  Result<uint32_t> ChooseVolume(const Caller& caller, uint64_t parent, std::string_view name);
  // A write met ENOSPC on `full_volume`: moves the file (kHoldWriters) to the volume
  // ChooseCreateVolume picks for its path with that volume excluded, needing room
  // for its size plus `more_bytes`. OK also when another writer moved it first;
  // ENOSPC naming the classes when no allowed volume has room.
  Status MoveOnNoSpace(const InodeRef& inode, uint32_t full_volume, uint64_t more_bytes);
  // ftruncate(2) of the inode's object (inode.mu held); attributes are the caller's.
  Status TruncateLocked(InodeState& inode, uint64_t size) REQUIRES(inode.mu);
  // SetAttr's steps. What one setattr commits: the row's new values and which
  // fields of them, the FCL event, and what the commit checks afterwards.
  struct AttrChange {
    meta::Inode values;
    uint32_t fields = 0;           // meta::kAttr*
    uint32_t requested_times = 0;  // atime/mtime set by this call (not by the dirty entry)
    uint64_t seq = 0;              // the entry's change_seq the values stand for
    bool deferred = false;         // the kernel's times of written data: memory only
    std::string event;             // "setattr", "truncate" or "write"
    bool log_write = false;        // a "write" record goes first
  };
  // Under the entry's mu: the truncate (TruncateEntryLocked), the request's
  // fields, and either the kernel's times kept in memory (KeepKernelTimesLocked,
  // change->deferred) or the commit prepared (PrepareCommitLocked). Errors of
  // the truncate (EISDIR, EINVAL, the object's).
  Status PlanAttrChangeLocked(InodeState& inode, const struct stat& in, int to_set,
                              const Caller* caller, AttrChange* change) REQUIRES(inode.mu);
  // A truncate's object and entry: the size, and mtime and ctime `now`, dirty
  // at once (the object has its size already, whatever the commit does).
  Status TruncateEntryLocked(InodeState& inode, uint64_t size, int64_t now) REQUIRES(inode.mu);
  // Whether the change is the kernel's setattr of written data's times or
  // its ctime stamp, which stay in memory (dirty, or lazily dirty) for the
  // next attribute flush instead of a commit of their own; applies them then.
  bool KeepKernelTimesLocked(InodeState& inode, int to_set, const AttrChange& change)
      REQUIRES(inode.mu);
  // A committed setattr carries the dirty entry's size and times (and the
  // object's allocation) and the "write" record of data written since the
  // last attribute flush.
  void PrepareCommitLocked(InodeState& inode, int to_set, AttrChange* change) REQUIRES(inode.mu);
  // Commits the change (its sync_mu held) and takes the row into the entry.
  // Errors: the database's (the data written is then logged by the next flush).
  Status CommitAttrChange(InodeState& inode, const AttrChange& change)
      REQUIRES(inode.sync_mu) EXCLUDES(inode.mu);
  // relatime: whether reading now would update atime (inode.mu held).
  bool AtimeIsStale(const meta::Inode& attr) const;
  void UpdateAtimeOnRead(InodeState& inode) REQUIRES(inode.mu);

  // Declared before meta_, so the database closes before its reserve goes.
  std::unique_ptr<meta::SpaceReserve> reserve_;
  std::unique_ptr<meta::Metadata> meta_;
  std::unique_ptr<VolumeSet> volumes_;
  const meta::FsInfo info_;
  const FileSystemOptions options_;
  std::atomic<bool> passthrough_{false};  // EnablePassthrough
  InodeTable inodes_;
  IoAccounting io_;
  DaemonMetrics metrics_;
  // The background jobs, after what they use (destroyed, the flush thread
  // stopped, before it goes).
  Reclaimer reclaimer_;
  Retention retention_;
  PeriodicFlush flush_;

  EntryRemovedHook entry_removed_hook_;  // set once at mount, then read-only
  mutable Mutex policy_mu_;
  std::shared_ptr<const policy::PlacementPolicy> policy_ GUARDED_BY(policy_mu_);
};

}  // namespace tierfs
