// Metadata::Rename: rename(2) / renameat2(2) over the dirents table.
//
// The checks follow Linux's order (fs/namei.c do_renameat2 and vfs_rename), so
// that a FUSE rename answers with the errno the same call gives on ext4:
//   1. flags: EINVAL for unknown flags or NOREPLACE together with EXCHANGE;
//   2. both parents must be live directories (ENOENT, ENOTDIR), the source name
//      must exist (ENOENT), and for EXCHANGE the target too (ENOENT);
//   3. NOREPLACE with an existing target: EEXIST (even onto the same inode);
//   4. a directory moved into itself or below itself: EINVAL; a target that is
//      an ancestor of the source: ENOTEMPTY (EINVAL for EXCHANGE);
//   5. source and target the same inode (one name twice, or two hard links):
//      success, nothing changes (POSIX);
//   6. without EXCHANGE, replacing: directory over non-directory ENOTDIR,
//      non-directory over directory EISDIR, over a non-empty directory ENOTEMPTY.
// A moved entry keeps its readdir cookie; a replaced entry's row is deleted.
// Link counts: a directory that changes parent moves one ".." link from the old
// parent to the new; a replaced directory drops to nlink 0 and takes one link
// from the target parent; a replaced non-directory loses one link.
#include <sys/stat.h>

#include <cstdio>  // RENAME_NOREPLACE, RENAME_EXCHANGE (glibc, same values as linux/fs.h)

#include "meta/database.h"
#include "meta/fcl_log.h"
#include "meta/info_table.h"
#include "meta/inode_rows.h"
#include "meta/metadata.h"

namespace tierfs::meta {
namespace {

static_assert(RENAME_NOREPLACE == 1 && RENAME_EXCHANGE == 2, "linux/fs.h values");

Status PointDirent(Database* db, int64_t cookie, uint64_t ino) {
  Statement st = db->Prepare("UPDATE dirents SET ino = ?2 WHERE cookie = ?1");
  st.BindAll(cookie, ino);
  return st.Run();
}

Status MoveDirent(Database* db, int64_t cookie, uint64_t new_parent, std::string_view new_name) {
  Statement st = db->Prepare("UPDATE dirents SET parent = ?2, name = ?3 WHERE cookie = ?1");
  st.BindAll(cookie, new_parent, new_name);
  return st.Run();
}

// The FCL row of a rename; the new path is built only when the FCL is on.
Status LogRename(Database* db, int64_t now, const Inode& moved, uint64_t parent,
                 std::string_view name, uint64_t new_parent, std::string_view new_name,
                 bool exchange, const std::optional<Inode>& replaced) {
  META_ASSIGN_OR_RETURN(bool fcl_on, FclIsOn(db));
  if (!fcl_on) return Status::Ok();
  META_ASSIGN_OR_RETURN(std::vector<std::string> components, DirectoryComponents(db, new_parent));
  components.emplace_back(new_name);
  std::string detail = (exchange ? "exchange=" : "to=") + JoinPath(components);
  if (replaced) detail += " replaced=" + std::to_string(replaced->ino);
  return LogFcl(db, now, "rename", moved.ino, parent, name, detail);
}

// Step 1: the flags.
Status CheckRenameFlags(unsigned int flags) {
  if ((flags & ~unsigned{RENAME_NOREPLACE | RENAME_EXCHANGE}) != 0) {
    return Status::Invalid("unsupported rename flags " + std::to_string(flags));
  }
  if ((flags & RENAME_NOREPLACE) != 0 && (flags & RENAME_EXCHANGE) != 0) {
    return Status::Invalid("RENAME_NOREPLACE with RENAME_EXCHANGE");
  }
  return Status::Ok();
}

// The two ends of a rename, as the checks of steps 2 to 4 found them.
struct RenameEnds {
  DirentRow src;
  Inode src_inode;
  std::optional<DirentRow> dst;  // the target's entry, when the name exists
  std::optional<Inode> dst_inode;
  bool src_dir = false;
  bool dst_dir = false;
};

// Steps 2 to 4, in Linux's order: both parents, the source (and for EXCHANGE
// the target), NOREPLACE, and a directory moved below itself or over one of
// its ancestors.
Result<RenameEnds> LoadRenameEnds(Database* db, uint64_t parent, std::string_view name,
                                  uint64_t new_parent, std::string_view new_name,
                                  unsigned int flags) {
  const bool noreplace = (flags & RENAME_NOREPLACE) != 0;
  const bool exchange = (flags & RENAME_EXCHANGE) != 0;
  const bool same_parent = parent == new_parent;
  RenameEnds e;
  TIERFS_RETURN_IF_ERROR(LoadDirectory(db, parent).status());
  if (!same_parent) TIERFS_RETURN_IF_ERROR(LoadDirectory(db, new_parent).status());
  META_ASSIGN_OR_RETURN(std::optional<DirentRow> src, FindDirent(db, parent, name));
  if (!src) {
    return Status::NotFound("no '" + std::string(name) + "' in directory " +
                            std::to_string(parent));
  }
  e.src = *src;
  META_ASSIGN_OR_RETURN(e.src_inode, LoadInode(db, e.src.ino));
  e.src_dir = S_ISDIR(e.src_inode.mode);
  META_ASSIGN_OR_RETURN(e.dst, FindDirent(db, new_parent, new_name));
  if (!e.dst && exchange) {
    return Status::NotFound("no '" + std::string(new_name) + "' in directory " +
                            std::to_string(new_parent) + " to exchange with");
  }
  if (e.dst && noreplace) {
    return Status::Exists("'" + std::string(new_name) + "' exists in directory " +
                          std::to_string(new_parent));
  }
  if (e.src_dir && !same_parent) {
    META_ASSIGN_OR_RETURN(bool into_itself, IsSameOrAncestor(db, e.src_inode.ino, new_parent));
    if (into_itself) {
      return Status::Invalid("cannot move directory " + std::to_string(e.src_inode.ino) +
                             " into its own subtree");
    }
  }
  if (!e.dst) return e;
  META_ASSIGN_OR_RETURN(e.dst_inode, LoadInode(db, e.dst->ino));
  e.dst_dir = S_ISDIR(e.dst_inode->mode);
  if (e.dst_dir && !same_parent) {
    META_ASSIGN_OR_RETURN(bool above_source, IsSameOrAncestor(db, e.dst_inode->ino, parent));
    if (above_source) {
      return Status::Error(exchange ? EINVAL : ENOTEMPTY,
                           "target directory " + std::to_string(e.dst_inode->ino) +
                               " is an ancestor of the source");
    }
  }
  return e;
}

// The nlink changes a rename makes to its two parents.
struct ParentDeltas {
  int parent = 0;
  int new_parent = 0;
};

// RENAME_EXCHANGE: the two entries swap inodes; the directory of the two, when
// one is and the parents differ, carries its ".." along.
Status ExchangeEntries(Database* db, const RenameEnds& e, bool same_parent, int64_t now,
                       ParentDeltas* deltas) {
  TIERFS_RETURN_IF_ERROR(PointDirent(db, e.src.cookie, e.dst->ino));
  TIERFS_RETURN_IF_ERROR(PointDirent(db, e.dst->cookie, e.src.ino));
  if (!same_parent && e.src_dir != e.dst_dir) {
    deltas->parent = e.src_dir ? -1 : 1;
    deltas->new_parent = -deltas->parent;
  }
  return SetCtime(db, e.dst_inode->ino, now);
}

// Step 6 for an existing target: the type and emptiness checks, then its entry
// goes and its inode loses the link (a directory: both, and its ".." in the
// target parent). Returns the replaced inode as it is now.
Result<Inode> RemoveTarget(Database* db, const RenameEnds& e, std::string_view new_name,
                           int64_t now, ParentDeltas* deltas) {
  if (e.src_dir && !e.dst_dir) {
    return Status::Error(ENOTDIR, "cannot replace non-directory '" + std::string(new_name) +
                                      "' with a directory");
  }
  if (!e.src_dir && e.dst_dir) {
    return Status::Error(EISDIR, "cannot replace directory '" + std::string(new_name) +
                                     "' with a non-directory");
  }
  if (e.dst_dir) {
    Statement st = db->Prepare("SELECT 1 FROM dirents WHERE parent = ?1 LIMIT 1");
    st.BindAll(e.dst->ino);
    META_ASSIGN_OR_RETURN(bool has_children, st.Step());
    if (has_children) {
      return Status::Error(ENOTEMPTY, "directory '" + std::string(new_name) + "' is not empty");
    }
  }
  {
    Statement st = db->Prepare("DELETE FROM dirents WHERE cookie = ?1");
    st.BindAll(e.dst->cookie);
    TIERFS_RETURN_IF_ERROR(st.Run());
  }
  Inode replaced = *e.dst_inode;
  replaced.nlink = e.dst_dir ? 0 : replaced.nlink - 1;
  replaced.ctime_ns = now;
  TIERFS_RETURN_IF_ERROR(SetLinksAndCtime(db, replaced.ino, replaced.nlink, now));
  if (e.dst_dir) deltas->new_parent -= 1;
  return replaced;
}

// The parents' new times and link counts, in the order the result lists them.
Status TouchParents(Database* db, uint64_t parent, uint64_t new_parent, int64_t now,
                    const ParentDeltas& deltas, RenameResult* result) {
  if (parent == new_parent) {
    META_ASSIGN_OR_RETURN(Inode dir_after,
                          TouchDirectory(db, parent, now, deltas.parent + deltas.new_parent));
    result->changed.push_back(std::move(dir_after));
    return Status::Ok();
  }
  META_ASSIGN_OR_RETURN(Inode dir_after, TouchDirectory(db, parent, now, deltas.parent));
  result->changed.push_back(std::move(dir_after));
  META_ASSIGN_OR_RETURN(Inode new_dir_after, TouchDirectory(db, new_parent, now, deltas.new_parent));
  result->changed.push_back(std::move(new_dir_after));
  return Status::Ok();
}

}  // namespace

Result<RenameResult> Metadata::Rename(uint64_t parent, std::string_view name,
                                      uint64_t new_parent, std::string_view new_name,
                                      unsigned int flags) {
  TIERFS_RETURN_IF_ERROR(CheckRenameFlags(flags));
  const bool exchange = (flags & RENAME_EXCHANGE) != 0;
  TIERFS_RETURN_IF_ERROR(ValidateName(new_name));
  const bool same_parent = parent == new_parent;

  auto [lock, now] = LockForChange();
  Database* db = db_.get();
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  META_ASSIGN_OR_RETURN(RenameEnds e,
                        LoadRenameEnds(db, parent, name, new_parent, new_name, flags));
  if (e.dst && e.dst->ino == e.src.ino) {  // step 5, the same file: nothing to do
    RenameResult unchanged;
    unchanged.moved = e.src.ino;
    return unchanged;
  }
  ParentDeltas deltas;
  std::optional<Inode> replaced;
  if (exchange) {
    TIERFS_RETURN_IF_ERROR(ExchangeEntries(db, e, same_parent, now, &deltas));
  } else {
    if (e.dst) {
      META_ASSIGN_OR_RETURN(replaced, RemoveTarget(db, e, new_name, now, &deltas));
    }
    TIERFS_RETURN_IF_ERROR(MoveDirent(db, e.src.cookie, new_parent, new_name));
    if (e.src_dir && !same_parent) {
      deltas.parent -= 1;
      deltas.new_parent += 1;
    }
  }
  Inode src_inode = e.src_inode;
  TIERFS_RETURN_IF_ERROR(SetCtime(db, src_inode.ino, now));
  RenameResult result;
  TIERFS_RETURN_IF_ERROR(TouchParents(db, parent, new_parent, now, deltas, &result));
  TIERFS_RETURN_IF_ERROR(
      LogRename(db, now, src_inode, parent, name, new_parent, new_name, exchange, replaced));
  TIERFS_RETURN_IF_ERROR(txn.Commit());
  if (exchange) {
    dentries_.Put(parent, name, e.dst->ino);
  } else {
    dentries_.PutAbsent(parent, name);
    if (e.dst_dir) dentries_.DropDirectory(e.dst->ino);
  }
  dentries_.Put(new_parent, new_name, e.src.ino);
  // The inode rows were written before the parents were touched: the last
  // parent's epoch covers them all.
  const uint64_t epoch = result.changed.back().row_epoch;
  src_inode.ctime_ns = now;
  src_inode.row_epoch = epoch;
  result.changed.push_back(src_inode);
  if (exchange) {
    Inode dst_inode = *e.dst_inode;
    dst_inode.ctime_ns = now;
    dst_inode.row_epoch = epoch;
    result.changed.push_back(dst_inode);
  }
  if (replaced) replaced->row_epoch = epoch;
  result.replaced = std::move(replaced);
  result.moved = src_inode.ino;
  result.exchanged = exchange ? e.dst_inode->ino : 0;
  return result;
}

}  // namespace tierfs::meta
