// FileSystem: directory streams and extended attributes.
#include <sys/xattr.h>

#include "fs/core/file_system.h"

namespace tierfs {
namespace {

// Asked by the kernel before every write; absence is cached per inode.
constexpr std::string_view kCapabilityXattr = "security.capability";

// Namespaces tierfs stores. The kernel already enforces who may touch trusted.*
// and which inode types take user.*; system.* (ACLs) is not supported.
Status CheckXattrName(std::string_view name) {
  if (name.empty()) return Status::Error(ERANGE, "empty xattr name");
  if (name.size() > XATTR_NAME_MAX) return Status::Error(ERANGE, "xattr name too long");
  for (std::string_view prefix : {"user.", "trusted.", "security."}) {
    if (name.size() > prefix.size() && name.substr(0, prefix.size()) == prefix) {
      return Status::Ok();
    }
  }
  return Status::Error(EOPNOTSUPP, "xattr namespace not supported: " + std::string(name));
}

// "." is offset 1 and ".." offset 2; stored entries use their cookie + 2.
constexpr off_t kFirstEntryOffset = 2;

}  // namespace

Result<DirHandle*> FileSystem::OpenDir(uint64_t ino) {
  auto inode = HoldInode(ino, Hold::kPin);
  if (!inode.ok()) return inode.status();
  bool dir;
  {
    MutexLock lock((*inode)->mu);
    dir = S_ISDIR((*inode)->attr.mode);
  }
  if (!dir) {
    ReleaseHold(*inode, Hold::kPin);
    return Status::Error(ENOTDIR, "not a directory");
  }
  auto* dh = new DirHandle;
  dh->inode = *inode;
  MutexLock lock(dh->inode->mu);
  LinkHandleLocked(dh);
  return dh;
}

void FileSystem::ReleaseDir(DirHandle* dh) {
  InodeRef inode = dh->inode;
  {
    MutexLock lock(dh->inode->mu);
    UnlinkHandleLocked(dh);
  }
  delete dh;
  ReleaseHold(inode, Hold::kPin);
}

void FileSystem::TouchDirAtime(const InodeRef& dir) {
  MutexLock sync(dir->sync_mu);
  meta::Inode values;
  {
    MutexLock lock(dir->mu);
    if (!AtimeIsStale(dir->attr)) return;
    values = dir->attr;
  }
  values.atime_ns = clock().NowNanos();
  // Straight to the database: a directory's times are the database's (inode_table.h).
  auto row = meta_->UpdateAttributes(values, meta::kAttrAtime);
  if (!row.ok()) return;  // atime is advisory; the listing goes on
  MutexLock lock(dir->mu);
  ApplyRow(*dir, *row);
}

Status FileSystem::ReadDir(
    DirHandle* dh, off_t offset, bool plus, size_t room,
    const std::function<bool(const std::string&, const meta::Inode&, off_t)>& emit) {
  // Every getdents(2) on ext4 is an access of the directory (relatime applies).
  TouchDirAtime(dh->inode);
  meta::Inode self;
  {
    MutexLock lock(dh->inode->mu);
    self = dh->inode->attr;
  }
  if (offset < 1 && !emit(".", self, 1)) return Status::Ok();
  if (offset < 2) {
    // ".." names the parent (d_ino as on ext4); readdirplus ignores its attributes.
    meta::Inode parent = self;
    if (auto up = meta_->ParentOf(self.ino); up.ok() && *up != self.ino) {
      parent.ino = *up;
    }
    if (!emit("..", parent, 2)) return Status::Ok();
  }
  const int64_t cookie = std::max<int64_t>(0, offset - kFirstEntryOffset);
  // Entries go to the buffer as each batch of rows arrives (the visitor runs
  // without the database lock), and the rows stop when the buffer is full.
  return meta_->ReadDir(
      self.ino, cookie,
      [&](const meta::Dirent& d) {
        meta::Inode attr;
        if (plus) {
          // The cached inode when the kernel knows it (it may be newer: a file being
          // written), else the row that came with the entry.
          if (InodeRef cached = inodes_.Find(d.ino)) {
            MutexLock lock(cached->mu);
            attr = cached->attr;
          } else {
            attr = d.attr;
          }
        } else {
          attr.ino = d.ino;
          attr.mode = d.mode;
        }
        if (!emit(d.name, attr, d.cookie + kFirstEntryOffset)) return false;
        if (plus) Remember(attr);  // the kernel now holds a lookup on it
        return true;
      },
      std::clamp<size_t>(room, 1, meta::Metadata::kDefaultReadDirBatch));
}

Status FileSystem::SetXattr(uint64_t ino, std::string_view name, std::string_view value,
                            int flags) {
  TIERFS_RETURN_IF_ERROR(CheckXattrName(name));
  if (name == kCapabilityXattr) {
    if (InodeRef inode = inodes_.Find(ino)) {
      MutexLock lock(inode->mu);
      inode->no_capability_xattr = false;  // before the write: never a stale "absent"
      inode->capability_sets++;
    }
  }
  TIERFS_RETURN_IF_ERROR(meta_->SetXattr(ino, name, value, flags));
  RefreshCached(ino);
  return Status::Ok();
}

Result<std::string> FileSystem::GetXattr(uint64_t ino, std::string_view name) {
  TIERFS_RETURN_IF_ERROR(CheckXattrName(name));
  const bool capability = name == kCapabilityXattr;
  InodeRef inode = capability ? inodes_.Find(ino) : nullptr;
  uint64_t sets_before = 0;
  if (inode) {
    MutexLock lock(inode->mu);
    if (inode->no_capability_xattr) return Status::Error(ENODATA, "no such attribute");
    sets_before = inode->capability_sets;
  }
  auto value = meta_->GetXattr(ino, name);
  if (inode && !value.ok() && value.status().code() == ENODATA) {
    MutexLock lock(inode->mu);
    if (inode->capability_sets == sets_before) inode->no_capability_xattr = true;
  }
  return value;
}

Result<std::vector<std::string>> FileSystem::ListXattr(uint64_t ino, bool privileged) {
  auto names = meta_->ListXattr(ino);
  if (!names.ok() || privileged) return names;
  // listxattr(2) on ext4 lists trusted.* only to CAP_SYS_ADMIN; the kernel leaves
  // that filtering to FUSE file systems.
  std::vector<std::string> visible;
  for (std::string& name : *names) {
    if (name.rfind("trusted.", 0) != 0) visible.push_back(std::move(name));
  }
  return visible;
}

Status FileSystem::RemoveXattr(uint64_t ino, std::string_view name) {
  TIERFS_RETURN_IF_ERROR(CheckXattrName(name));
  TIERFS_RETURN_IF_ERROR(meta_->RemoveXattr(ino, name));
  RefreshCached(ino);
  return Status::Ok();
}

}  // namespace tierfs
