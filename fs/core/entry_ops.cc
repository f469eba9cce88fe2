// FileSystem: entry operations (lookup, setattr, mknod/mkdir/symlink, unlink,
// rmdir, rename, link, readlink) and the choice of a volume for new files.
#include <fuse_lowlevel.h>
#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <limits>

#include "fs/core/file_system.h"
#include "policy/create_placement.h"

namespace tierfs {
namespace {

constexpr size_t kNameMax = 255;

Status CheckName(std::string_view name) {
  if (name.size() > kNameMax) return Status::Error(ENAMETOOLONG, "name longer than 255 bytes");
  return Status::Ok();
}

// The range of seconds ext4 stores (256-byte inodes: 34-bit seconds from 1901);
// the VFS clamps a time set outside it to the nearest end, whole seconds
// (timestamp_truncate). FUSE leaves clamping to the file system.
constexpr int64_t kExt4MinSeconds = INT32_MIN;                         // 1901-12-13
constexpr int64_t kExt4MaxSeconds = (int64_t{1} << 34) - 1 + INT32_MIN;  // 2446-05-10

// A time given by the caller (utimensat), as ext4 would store it, in the
// nanoseconds tierfs keeps. Beyond 2262-04-11 (the end of int64 nanoseconds)
// it saturates there, where ext4 would still keep the value.
int64_t TimespecNanos(const timespec& ts) {
  int64_t sec = ts.tv_sec;
  int64_t nsec = ts.tv_nsec;
  if (sec <= kExt4MinSeconds) return kExt4MinSeconds * kNanosPerSecond;
  if (sec >= kExt4MaxSeconds) sec = kExt4MaxSeconds, nsec = 0;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (sec > (kMax - nsec) / kNanosPerSecond) return kMax;
  return sec * kNanosPerSecond + nsec;
}

// Floor division, so that times before 1970 keep 0 <= tv_nsec < 1e9.
timespec NanosTimespec(int64_t ns) {
  int64_t sec = ns / kNanosPerSecond;
  int64_t rem = ns % kNanosPerSecond;
  if (rem < 0) {
    sec -= 1;
    rem += kNanosPerSecond;
  }
  return timespec{static_cast<time_t>(sec), static_cast<long>(rem)};
}

std::string UserName(uid_t uid) {
  char buf[1024];
  passwd pw, *out = nullptr;
  if (getpwuid_r(uid, &pw, buf, sizeof buf, &out) == 0 && out != nullptr) return out->pw_name;
  return {};
}

std::string GroupName(gid_t gid) {
  char buf[1024];
  group gr, *out = nullptr;
  if (getgrgid_r(gid, &gr, buf, sizeof buf, &out) == 0 && out != nullptr) return out->gr_name;
  return {};
}

}  // namespace

Result<meta::Inode> FileSystem::Lookup(uint64_t parent, std::string_view name) {
  TIERFS_RETURN_IF_ERROR(CheckName(name));
  // From memory when the entry cache knows the name and the inode table the
  // inode: no database lock (docs/design.md, "Lanes every request shares").
  const meta::DentryCache::Hit hit = meta_->CachedLookup(parent, name);
  if (hit.known == meta::DentryCache::Known::kAbsent) {
    return Status::NotFound("no '" + std::string(name) + "' in directory " +
                            std::to_string(parent));
  }
  if (hit.known == meta::DentryCache::Known::kPresent) {
    if (std::optional<meta::Inode> attr = inodes_.RememberHeld(hit.ino, 1)) return *attr;
  }
  const uint64_t ticket = inodes_.Ticket();
  auto attr = meta_->LookupInode(parent, name);
  if (!attr.ok()) return attr.status();
  // A known inode keeps the newer of its row and this one; an idle one keeps
  // this row at hand for the open that often follows.
  return inodes_.Remember(*attr, 1, ticket);
}

namespace {

// A time a setattr sets (atime or mtime): `now` with `now_bit`, else the
// caller's with `set_bit` (as ext4 would store it); adds `field` to *fields.
void SetRequestedTime(int to_set, int now_bit, int set_bit, const timespec& given, int64_t now,
                      uint32_t field, int64_t* out, uint32_t* fields) {
  if ((to_set & (now_bit | set_bit)) == 0) return;
  *out = (to_set & now_bit) != 0 ? now : TimespecNanos(given);
  *fields |= field;
}

// The request's own fields of a setattr, on `values` (the entry's attributes
// after a truncate): what it sets, and ctime with it. `old_gid` is the file's
// group before the change (the setgid rule looks at it). Returns the fields
// set (meta::kAttr*).
uint32_t ApplySetAttrRequest(const struct stat& in, int to_set, int64_t now, const Caller* caller,
                             gid_t old_gid, meta::Inode* values) {
  uint32_t fields = 0;
  if (to_set & FUSE_SET_ATTR_MODE) {
    values->mode = (values->mode & S_IFMT) | (in.st_mode & 07777);
    fields |= meta::kAttrMode;
  }
  if (to_set & FUSE_SET_ATTR_UID) {
    values->uid = in.st_uid;
    fields |= meta::kAttrUid;
  }
  if (to_set & FUSE_SET_ATTR_GID) {
    values->gid = in.st_gid;
    fields |= meta::kAttrGid;
  }
  SetRequestedTime(to_set, FUSE_SET_ATTR_ATIME_NOW, FUSE_SET_ATTR_ATIME, in.st_atim, now,
                   meta::kAttrAtime, &values->atime_ns, &fields);
  SetRequestedTime(to_set, FUSE_SET_ATTR_MTIME_NOW, FUSE_SET_ATTR_MTIME, in.st_mtim, now,
                   meta::kAttrMtime, &values->mtime_ns, &fields);
  // ctime moves with every change the kernel asks for (chmod, chown, utimes,
  // truncate, and a chown(-1, -1), which arrives with no bits at all).
  values->ctime_ns = (to_set & FUSE_SET_ATTR_CTIME) ? TimespecNanos(in.st_ctim) : now;
  fields |= meta::kAttrCtime;
  // The caller comes only with a size, owner or mode change, or with the empty
  // request of the kernel's file_remove_privs (see OpSetattr).
  if (caller != nullptr && DropsSetgidWithoutGroupExec(*caller, values->mode, old_gid)) {
    values->mode &= ~S_ISGID;
    fields |= meta::kAttrMode;
  }
  if ((to_set & (FUSE_SET_ATTR_KILL_SUID | FUSE_SET_ATTR_KILL_SGID)) != 0 &&
      ModeAfterKillPriv(values->mode) != values->mode) {
    values->mode = ModeAfterKillPriv(values->mode);
    fields |= meta::kAttrMode;
  }
  return fields;
}

// Whether a setattr sets mtime and nothing but mtime and ctime: the shape of
// the kernel's own setattr of written data's times (fuse_flush_times) and of
// its ctime stamps (fuse_update_ctime).
bool SetsOnlyMtimeAndCtime(int to_set) {
  return (to_set & ~(FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_CTIME)) == 0 &&
         (to_set & FUSE_SET_ATTR_MTIME) != 0;
}

}  // namespace

Result<meta::Inode> FileSystem::SetAttr(uint64_t ino, const struct stat& in, int to_set,
                                        FileHandle* fh, const Caller* caller) {
  // Held, so the entry stays the inode's (active) while this changes it.
  InodeRef inode = fh != nullptr ? fh->inode : nullptr;
  const bool pinned = fh == nullptr;
  if (pinned) {
    auto held = HoldInode(ino, Hold::kPin);
    if (!held.ok()) return held.status();
    inode = *held;
  }
  const bool truncate = (to_set & FUSE_SET_ATTR_SIZE) != 0;
  if (truncate) {
    // A file on an object volume comes back to a local volume first.
    // To 0: its bytes are not wanted, so none are fetched.
    if (Status back = RecallForWrite(inode, "truncate", /*bytes_wanted=*/in.st_size != 0);
        !back.ok()) {
      if (pinned) ReleaseHold(inode, Hold::kPin);
      return back;
    }
  }
  // A truncate changes data: like a write it holds the io_lock shared, so a
  // relocation never switches the object under it.
  ReaderLock io(inode->io_lock, std::defer_lock);
  if (truncate) io.Lock();
  MutexLock sync(inode->sync_mu);
  AttrChange change;
  change.event = truncate ? "truncate" : "setattr";
  Status st;
  {
    MutexLock lock(inode->mu);
    st = PlanAttrChangeLocked(*inode, in, to_set, caller, &change);
  }
  if (st.ok() && !change.deferred) st = CommitAttrChange(*inode, change);
  sync.Unlock();
  io.UnlockIfHeld();
  meta::Inode out;
  {
    MutexLock lock(inode->mu);
    out = inode->attr;
  }
  if (pinned) ReleaseHold(inode, Hold::kPin);
  if (!st.ok()) return st;
  return out;
}

Status FileSystem::PlanAttrChangeLocked(InodeState& inode, const struct stat& in, int to_set,
                                        const Caller* caller, AttrChange* change) {
  const bool truncate = (to_set & FUSE_SET_ATTR_SIZE) != 0;
  const int64_t now = clock().NowNanos();
  RefreshFromObjectLocked(inode);  // passthrough writes come before this change
  if (truncate) {
    TIERFS_RETURN_IF_ERROR(TruncateEntryLocked(inode, static_cast<uint64_t>(in.st_size), now));
  }
  change->values = inode.attr;
  change->fields =
      ApplySetAttrRequest(in, to_set, now, caller, inode.attr.gid, &change->values);
  change->requested_times = change->fields & (meta::kAttrAtime | meta::kAttrMtime);
  change->deferred = KeepKernelTimesLocked(inode, to_set, *change);
  if (!change->deferred) PrepareCommitLocked(inode, to_set, change);
  return Status::Ok();
}

Status FileSystem::TruncateEntryLocked(InodeState& inode, uint64_t size, int64_t now) {
  if (S_ISDIR(inode.attr.mode)) return Status::Error(EISDIR, "truncate of a directory");
  if (!S_ISREG(inode.attr.mode)) return Status::Invalid("truncate of a special file");
  TIERFS_RETURN_IF_ERROR(TruncateLocked(inode, size));
  // The object already has its new size: the entry follows at once, so a
  // failed commit below still leaves memory true to the data (and dirty).
  // truncate(2), ftruncate(2) and O_TRUNC all arrive as a bare size change,
  // and ext4 stamps mtime and ctime on each, even when the size stays.
  meta::Inode& a = inode.attr;
  a.size = size;
  a.mtime_ns = now;
  a.ctime_ns = now;
  inode.ForgetDurableLayout();
  MarkDirty(inode);
  return Status::Ok();
}

bool FileSystem::KeepKernelTimesLocked(InodeState& inode, int to_set, const AttrChange& change) {
  const bool truncate = (to_set & FUSE_SET_ATTR_SIZE) != 0;
  meta::Inode& a = inode.attr;
  // With the writeback cache the kernel sends the times of written data as a
  // bare mtime+ctime setattr after the pages (fuse_flush_times), at every
  // fsync and close. They are the data path's times: kept in memory with the
  // dirty size and flushed with it (logged as the FCL "write") at the
  // next attribute flush, close or fsync, so that a database fdatasync-ing its log
  // writes nothing to the metadata per commit (design.md, "Group commit").
  const bool kernel_times =
      !truncate && (change.fields & meta::kAttrMode) == 0 && SetsOnlyMtimeAndCtime(to_set);
  // The kernel keeps ctime itself too, and re-stamps it after every unlink,
  // rename, link and xattr change of a file (fuse_update_ctime) with the
  // same bare setattr, carrying the mtime it already has. tierfs stamped
  // ctime in that change's own commit, moments before; the kernel's stamp
  // (from its coarse clock) is usually older and changes nothing, as ctime
  // never goes back (Metadata::UpdateAttributes). A newer one waits in
  // memory for the periodic flush; an unlinked file's is never
  // written. An unlink or a rename then costs no second write to the
  // database, and the FCL shows no "setattr" the user never made. (A
  // utimes that sets mtime to the value it already has looks the same and
  // is treated the same: only ctime moves, as on ext4.)
  const bool written_data_times = kernel_times && inode.dirty && inode.data_written;
  const bool ctime_stamp = kernel_times && (to_set & FUSE_SET_ATTR_CTIME) != 0 &&
                           change.values.mtime_ns == a.mtime_ns && !inode.data_written;
  if (written_data_times) {
    a.mtime_ns = change.values.mtime_ns;
    a.ctime_ns = change.values.ctime_ns;
    MarkDirty(inode);
  } else if (ctime_stamp && change.values.ctime_ns > a.ctime_ns) {
    a.ctime_ns = change.values.ctime_ns;
    if (a.nlink > 0) MarkTimesLazilyDirty(inode);
  }
  return written_data_times || ctime_stamp;  // never both (data_written)
}

void FileSystem::PrepareCommitLocked(InodeState& inode, int to_set, AttrChange* change) {
  const bool truncate = (to_set & FUSE_SET_ATTR_SIZE) != 0;
  // A dirty entry's size and times go with this commit.
  if (inode.dirty) {
    change->fields |= meta::kAttrSize | meta::kAttrAtime | meta::kAttrMtime | meta::kAttrCtime;
  }
  // This commit is the file's attribute flush when it carries the size (a chmod,
  // utimes or truncate of a file with unwritten-back writes): record the
  // object's allocation with it, as FlushAttributes does.
  struct stat object;
  if ((change->fields & meta::kAttrSize) != 0 && S_ISREG(inode.attr.mode) && inode.fd >= 0 &&
      volumes_->io().Fstat(inode.fd, &object) == 0) {
    change->values.blocks = static_cast<int64_t>(object.st_blocks);
    change->fields |= meta::kAttrBlocks;
  }
  change->seq = inode.change_seq;
  // The written data's times with a setgid bit to drop (not deferred above):
  // committed with the written size, it is the file's "write" record.
  if (!truncate && SetsOnlyMtimeAndCtime(to_set) && inode.dirty && inode.data_written) {
    change->event = "write";
    inode.data_written = false;
  }
  // Any other change of a file with data written since its last attribute flush
  // (a chmod or utimes right after the writes, as tar and cp -p make)
  // carries the written size too, and logs the "write" before its own.
  if (inode.dirty && inode.data_written) {
    change->log_write = true;
    inode.data_written = false;
  }
}

Status FileSystem::CommitAttrChange(InodeState& inode, const AttrChange& change) {
  auto row = meta_->UpdateAttributes(change.values, change.fields, change.event, change.log_write);
  MutexLock lock(inode.mu);
  if (!row.ok()) {
    if (change.event == "write" || change.log_write) {
      inode.data_written = true;  // logged by the next attribute flush instead
    }
    return row.status();
  }
  if (inode.change_seq == change.seq) {
    inode.dirty = false;
  } else {
    // The data path moved on meanwhile (mmap writeback): keep its size, but
    // the times this call set explicitly are the newest word on them.
    if (change.requested_times & meta::kAttrAtime) inode.attr.atime_ns = change.values.atime_ns;
    if (change.requested_times & meta::kAttrMtime) inode.attr.mtime_ns = change.values.mtime_ns;
  }
  ApplyRow(inode, *row);
  return Status::Ok();
}

Status FileSystem::TruncateLocked(InodeState& inode, uint64_t size) {
  inode.write_gen.fetch_add(1);
  int fd = inode.fd;
  bool temporary = false;
  if (fd < 0) {
    // Trimmed first: a truncate up must show zeros past the old size, not bytes a
    // crash left there unacknowledged.
    auto opened = OpenObjectTrimmedLocked(inode.attr);
    if (!opened.ok()) return opened.status();
    fd = *opened;
    temporary = true;
  }
  int rc = volumes_->io().Ftruncate(fd, static_cast<off_t>(size));
  int err = errno;
  inode.write_gen.fetch_add(1);
  if (temporary) volumes_->io().Close(fd);
  if (rc != 0) return Status::FromErrno(err, "truncate");
  return Status::Ok();
}

void FileSystem::FillStat(const meta::Inode& a, struct stat* st) {
  std::memset(st, 0, sizeof *st);
  st->st_ino = a.ino;
  st->st_mode = a.mode;
  st->st_nlink = a.nlink;
  st->st_uid = a.uid;
  st->st_gid = a.gid;
  st->st_rdev = a.rdev;
  st->st_size = static_cast<off_t>(S_ISDIR(a.mode) ? kDirectorySize : a.size);
  st->st_blksize = kPageBytes;
  st->st_blocks = static_cast<blkcnt_t>(AllocatedBlocks(a));
  st->st_atim = NanosTimespec(a.atime_ns);
  st->st_mtim = NanosTimespec(a.mtime_ns);
  st->st_ctim = NanosTimespec(a.ctime_ns);
}

Result<meta::Inode> FileSystem::MakeNode(const Caller& caller, uint64_t parent,
                                         std::string_view name, mode_t mode, dev_t rdev,
                                         std::string_view target, InodeRef* opened) {
  TIERFS_RETURN_IF_ERROR(CheckName(name));
  meta::Inode proto;
  proto.mode = mode;
  proto.uid = caller.uid;
  proto.gid = caller.gid;  // a setgid parent's group instead (Metadata::Create)
  proto.rdev = rdev;
  proto.symlink = std::string(target);
  if (S_ISLNK(mode)) proto.size = target.size();
  if (S_ISREG(mode)) {
    auto volume = ChooseVolume(caller, parent, name);
    if (!volume.ok()) return volume.status();
    proto.volume_id = *volume;
  }
  meta::Inode parent_after;
  // Taken before the row exists: the table then knows whether a change of the
  // new inode (through a name readdirplus handed out) came before its entry.
  const uint64_t ticket = inodes_.Ticket();
  auto attr = meta_->Create(parent, name, proto, &parent_after);
  if (!attr.ok()) return attr.status();
  ApplyCached(parent_after);
  if (opened == nullptr) return inodes_.RememberCreated(*attr, ticket);  // kept: used next
  InodeTable::Held held = inodes_.HoldRow(*attr, ticket, Hold::kOpen, /*lookups=*/1);
  if (!held.current) {
    if (auto again = meta_->GetInode(attr->ino); again.ok()) inodes_.Apply(*again);
  }
  *opened = held.entry;
  MutexLock lock(held.entry->mu);
  // A new file has no extended attributes: the kernel's security.capability
  // query before its first write is answered from memory (unless the entry
  // was there before, or a change came first: a set of it, through a name
  // readdirplus handed out meanwhile).
  if (held.made && held.current) held.entry->no_capability_xattr = true;
  return held.entry->attr;
}

Result<std::string> FileSystem::ReadLink(uint64_t ino) {
  auto attr = CurrentAttr(ino);
  if (!attr.ok()) return attr.status();
  if (!S_ISLNK(attr->mode)) return Status::Invalid("not a symbolic link");
  return attr->symlink;
}

Status FileSystem::Unlink(uint64_t parent, std::string_view name) {
  TIERFS_RETURN_IF_ERROR(CheckName(name));
  meta::Inode parent_after;
  auto after = meta_->Unlink(parent, name, 0, &parent_after);
  if (!after.ok()) return after.status();
  ApplyCached(parent_after);
  AfterNameRemoved(*after);
  return Status::Ok();
}

Status FileSystem::UnlinkForPolicy(uint64_t parent, std::string_view name, uint64_t ino) {
  TIERFS_RETURN_IF_ERROR(CheckName(name));
  meta::Inode parent_after;
  auto after = meta_->Unlink(parent, name, ino, &parent_after);
  if (!after.ok()) return after.status();
  ApplyCached(parent_after);
  AfterNameRemoved(*after);
  if (entry_removed_hook_) entry_removed_hook_(parent, ino, name);
  return Status::Ok();
}

Status FileSystem::Rmdir(uint64_t parent, std::string_view name) {
  TIERFS_RETURN_IF_ERROR(CheckName(name));
  meta::Inode parent_after;
  auto after = meta_->Rmdir(parent, name, &parent_after);
  if (!after.ok()) return after.status();
  ApplyCached(parent_after);
  AfterNameRemoved(*after);
  return Status::Ok();
}

Status FileSystem::Rename(uint64_t parent, std::string_view name, uint64_t new_parent,
                          std::string_view new_name, unsigned int flags) {
  TIERFS_RETURN_IF_ERROR(CheckName(name));
  TIERFS_RETURN_IF_ERROR(CheckName(new_name));
  const uint64_t ticket = inodes_.Ticket();
  auto renamed = meta_->Rename(parent, name, new_parent, new_name, flags);
  if (!renamed.ok()) return renamed.status();
  // Both parents, the moved inode and an exchanged one, as the rename left them:
  // kept at hand, as the kernel asks for each next (its ctime setattr of the
  // moved inode, a getattr of the parents).
  for (const meta::Inode& row : renamed->changed) inodes_.ApplyAndKeep(row, ticket);
  if (renamed->replaced) AfterNameRemoved(*renamed->replaced);
  return Status::Ok();
}

Result<meta::Inode> FileSystem::Link(uint64_t ino, uint64_t new_parent,
                                     std::string_view new_name) {
  TIERFS_RETURN_IF_ERROR(CheckName(new_name));
  meta::Inode parent_after;
  auto attr = meta_->Link(ino, new_parent, new_name, &parent_after);
  if (!attr.ok()) return attr.status();
  ApplyCached(parent_after);
  ApplyCached(*attr);  // the linked inode's new row (nlink, ctime)
  return Remember(*attr);
}

policy::CreatePlacement FileSystem::CreatePlacementFor(uint32_t uid, uint32_t gid,
                                                       const std::string& path) {
  std::shared_ptr<const policy::PlacementPolicy> pol = policy();
  if (!pol) return {};  // not governed: the default allocator
  policy::CreateRequest request;
  request.path = path;
  request.uid = uid;
  request.gid = gid;
  if (pol->SelectsByOwnerName()) {  // NSS lookups cost a file read each: only if used
    request.user = UserName(uid);
    request.group = GroupName(gid);
  }
  return policy::ChooseCreateClasses(*pol, request);
}

Result<uint32_t> FileSystem::ChooseVolume(const Caller& caller, uint64_t parent,
                                          std::string_view name) {
  policy::CreatePlacement placement;  // not governed: the default allocator
  if (std::shared_ptr<const policy::PlacementPolicy> pol = policy()) {
    std::string path;
    // The directory's path costs a climb to the root in the database; a policy
    // whose SELECTs name no DIRECTORY (nor a recursive PATTERN) matches the
    // name alone, so "/name" decides the same.
    if (parent != meta::kRootIno && pol->SelectsByDirectory()) {
      auto dir = meta_->PathOf(parent);
      if (!dir.ok()) return dir.status();
      path = *dir;
    }
    path += "/" + std::string(name);
    placement = CreatePlacementFor(caller.uid, caller.gid, path);
  }
  const std::vector<policy::VolumeState> space = volumes_->Space();
  std::optional<uint32_t> volume =
      policy::ChooseCreateVolume(placement, space, kCreateHeadroomBytes);
  if (volume) return *volume;
  // Offline volumes first: "no room" would send the administrator to the wrong
  // problem when the volume the file belongs on is not there at all.
  std::string offline;
  for (const meta::Volume& v : volumes_->volumes()) {
    const bool allowed = placement.classes.empty() || placement.any ||
                         std::find(placement.classes.begin(), placement.classes.end(),
                                   v.placement_class) != placement.classes.end();
    if (allowed && volumes_->Health(v.id) == VolumeHealth::kOffline) {
      offline += (offline.empty() ? "" : ", ") + v.name + " (" + v.path + ")";
    }
  }
  if (!offline.empty()) {
    return Status::Io("no volume can take a new file: offline volume " + offline);
  }
  std::string classes;
  for (const std::string& c : placement.classes) classes += (classes.empty() ? "" : ", ") + c;
  return Status::NoSpace("no volume of class " + (classes.empty() ? "(any)" : classes) +
                         " has room (rule " + placement.rule + ")");
}

}  // namespace tierfs
