// Metadata: scans over the namespace (WalkFiles, PathOf) and over the indexes
// (FilesOnVolumes, ActiveInodes).
//
// Path-name order is the order of paths compared component by component, each
// component by bytes: it is the order of a depth-first walk that visits each
// directory's entries sorted by name, and the order PathOf uses to choose the
// "first" path of a file with several hard links, so WalkFiles reports every
// file at the path PathOf gives (when walking from the root).
//
// Cost: WalkFiles issues one query per directory (plus one per kWalkBatch
// entries in large directories), each an index range on dirents(parent, name),
// so a walk is linear in the number of entries. Batches are read under the
// database lock and visited without it, so a long scan does not stall the file
// system, at the price of not being a snapshot (see metadata.h).
#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <unordered_set>

#include "meta/database.h"
#include "meta/info_table.h"
#include "meta/inode_rows.h"
#include "meta/metadata.h"

namespace tierfs::meta {
namespace {

constexpr int64_t kWalkBatch = 512;
constexpr int64_t kVolumeBatch = 4096;

struct Child {
  std::string name;
  Inode inode;
};

// One directory being walked: the entries of its current batch and where the
// next batch starts.
struct Frame {
  uint64_t dir = 0;
  std::string path;  // "/a/b", or "/" for the root
  std::vector<Child> batch;
  size_t next = 0;
  std::string last_name;  // the next batch starts after this name ("" = from the start)
  bool exhausted = false;
};

std::string ChildPath(const std::string& dir_path, const std::string& name) {
  if (!dir_path.empty() && dir_path.back() == '/') return dir_path + name;
  return dir_path + "/" + name;
}

}  // namespace

Status Metadata::WalkFiles(
    uint64_t root, const std::string& root_path,
    const std::function<bool(const std::string& path, const Inode& inode)>& visit) {
  {
    auto lock = db_->Lock();
    META_ASSIGN_OR_RETURN(Inode inode, LoadInode(db_.get(), root));
    if (!S_ISDIR(inode.mode)) {
      return Status::Error(ENOTDIR, "inode " + std::to_string(root) + " is not a directory");
    }
  }
  // Only files with several names can be met twice; remembering just those
  // keeps the walk's memory independent of the number of files.
  std::unordered_set<uint64_t> seen_multi_linked;
  std::vector<Frame> stack;
  stack.push_back(Frame{root, root_path.empty() ? "/" : root_path, {}, 0, {}, false});
  while (!stack.empty()) {
    Frame& frame = stack.back();
    if (frame.next == frame.batch.size()) {
      if (frame.exhausted) {
        stack.pop_back();
        continue;
      }
      frame.batch.clear();
      frame.next = 0;
      {
        auto lock = db_->Lock();
        Statement st = db_->Prepare("SELECT d.name, " META_INODE_COLUMNS_I
                                    " FROM dirents d JOIN inodes i ON i.ino = d.ino"
                                    " WHERE d.parent = ?1 AND d.name > ?2"
                                    " ORDER BY d.name LIMIT ?3");
        st.BindAll(frame.dir, frame.last_name, kWalkBatch);
        for (;;) {
          META_ASSIGN_OR_RETURN(bool row, st.Step());
          if (!row) break;
          frame.batch.push_back(Child{st.Text(0), InodeFromRow(st, 1)});
        }
      }
      frame.exhausted = frame.batch.size() < static_cast<size_t>(kWalkBatch);
      if (frame.batch.empty()) {
        stack.pop_back();
        continue;
      }
      frame.last_name = frame.batch.back().name;
    }
    Child child = std::move(frame.batch[frame.next++]);
    std::string path = ChildPath(frame.path, child.name);
    if (S_ISDIR(child.inode.mode)) {
      // Invalidates `frame`; it is not used again in this iteration.
      stack.push_back(Frame{child.inode.ino, std::move(path), {}, 0, {}, false});
      continue;
    }
    if (!S_ISREG(child.inode.mode)) continue;
    if (child.inode.nlink > 1 && !seen_multi_linked.insert(child.inode.ino).second) continue;
    if (!visit(path, child.inode)) return Status::Ok();
  }
  return Status::Ok();
}

Result<std::string> Metadata::PathOf(uint64_t ino) {
  if (ino == kRootIno) return std::string("/");
  auto lock = db_->Lock();
  Database* db = db_.get();
  std::vector<std::pair<uint64_t, std::string>> names;  // (parent, name)
  {
    Statement st = db->Prepare("SELECT parent, name FROM dirents WHERE ino = ?1");
    st.BindAll(ino);
    for (;;) {
      META_ASSIGN_OR_RETURN(bool row, st.Step());
      if (!row) break;
      names.emplace_back(st.Uint64(0), st.Text(1));
    }
  }
  if (names.empty()) {
    TIERFS_RETURN_IF_ERROR(LoadInode(db, ino).status());
    return Status::NotFound("inode " + std::to_string(ino) + " has no name");
  }
  // Hard links often share a directory: climb each parent once.
  std::map<uint64_t, std::vector<std::string>> parent_components;
  std::optional<std::vector<std::string>> best;
  for (auto& [parent, name] : names) {
    auto it = parent_components.find(parent);
    if (it == parent_components.end()) {
      META_ASSIGN_OR_RETURN(std::vector<std::string> components, DirectoryComponents(db, parent));
      it = parent_components.emplace(parent, std::move(components)).first;
    }
    std::vector<std::string> path = it->second;
    path.push_back(std::move(name));
    // std::string compares as unsigned bytes, like SQLite's BINARY collation.
    if (!best || path < *best) best = std::move(path);
  }
  return JoinPath(*best);
}

Result<std::vector<Inode>> Metadata::FilesOnVolumes(const std::vector<uint32_t>& volume_ids) {
  std::vector<uint32_t> ids = volume_ids;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<Inode> files;
  for (uint32_t id : ids) {
    // Keyset batches over inodes_by_volume (which carries ino), so the lock is
    // released between batches.
    uint64_t after = 0;
    for (;;) {
      size_t got = 0;
      {
        auto lock = db_->Lock();
        Statement st = db_->Prepare("SELECT " META_INODE_COLUMNS
                                    " FROM inodes WHERE volume_id = ?1 AND ino > ?2"
                                    " ORDER BY ino LIMIT ?3");
        st.BindAll(id, after, kVolumeBatch);
        for (;;) {
          META_ASSIGN_OR_RETURN(bool row, st.Step());
          if (!row) break;
          files.push_back(InodeFromRow(st, 0));
          ++got;
        }
      }
      if (got < static_cast<size_t>(kVolumeBatch)) break;
      after = files.back().ino;
    }
  }
  if (ids.size() > 1) {
    std::sort(files.begin(), files.end(),
              [](const Inode& a, const Inode& b) { return a.ino < b.ino; });
  }
  return files;
}

Result<std::vector<uint64_t>> Metadata::ActiveInodes(int64_t since_s) {
  auto lock = db_->Lock();
  Database* db = db_.get();
  META_ASSIGN_OR_RETURN(int64_t bucket_seconds, GetInfoInt(db, kInfoBucketSeconds));
  // Buckets ending after since_s, FCL records at or after it; inodes that
  // still exist. Both halves are index ranges (iostat_by_bucket, fcl_by_time).
  Statement st = db->Prepare(
      "SELECT a.ino FROM ("
      "  SELECT ino FROM iostat WHERE bucket_start > ?1"
      "  UNION"
      "  SELECT ino FROM fcl WHERE time_ns >= ?2"
      ") a JOIN inodes i ON i.ino = a.ino ORDER BY a.ino");
  st.BindAll(since_s - bucket_seconds, since_s * kNanosPerSecond);
  std::vector<uint64_t> inos;
  for (;;) {
    META_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    inos.push_back(st.Uint64(0));
  }
  return inos;
}

}  // namespace tierfs::meta
