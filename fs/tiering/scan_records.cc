#include "fs/tiering/scan_records.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "common/owner_names.h"

namespace tierfs {
namespace {

std::vector<std::string> SplitPath(const std::string& path) {
  std::vector<std::string> parts;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t next = path.find('/', pos);
    if (next == std::string::npos) next = path.size();
    std::string part = path.substr(pos, next - pos);
    if (!part.empty() && part != ".") parts.push_back(part);
    pos = next + 1;
  }
  return parts;
}

// "/a/b" for any spelling of the same path ("a/b/", "//a/./b").
std::string NormalizePath(const std::string& path) {
  std::string out;
  for (const std::string& part : SplitPath(path)) out += "/" + part;
  return out;
}

bool IsUnder(const std::string& path, const std::string& root) {
  if (root.empty()) return true;
  return path == root || (path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
                          path[root.size()] == '/');
}

bool UsesTags(const policy::PlacementPolicy& policy) {
  for (const policy::Rule& rule : policy.rules) {
    for (const policy::Select& select : rule.selects) {
      if (!select.tags.empty()) return true;
    }
  }
  return false;
}

using Candidate = std::pair<std::string, meta::Inode>;

// How often (in files found) the gathering reports progress.
constexpr size_t kProgressEvery = 1000;

Status CollectCandidates(FileSystem& fs, const ScanSelection& sel, std::vector<Candidate>* out,
                         const GatherProgress& progress) {
  std::vector<std::string> roots;
  for (const std::string& p : sel.paths) roots.push_back(NormalizePath(p));
  if (roots.empty()) roots.push_back("");
  std::unordered_set<uint64_t> seen;
  auto add = [&](const std::string& path, const meta::Inode& inode) {
    if (S_ISREG(inode.mode) && inode.nlink > 0 && seen.insert(inode.ino).second) {
      out->emplace_back(path, inode);
      if (progress && out->size() % kProgressEvery == 0) progress(out->size());
    }
  };

  if (sel.active_only || sel.use_volumes) {
    // -C / -T: start from the indexes, not from a tree walk (design.md).
    std::unordered_set<uint64_t> wanted;
    if (sel.active_only) {
      auto active = fs.metadata().ActiveInodes(sel.active_since_s);
      if (!active.ok()) return active.status();
      wanted.insert(active->begin(), active->end());
    }
    if (sel.use_volumes) {
      auto on = fs.metadata().FilesOnVolumes(sel.volume_ids);
      if (!on.ok()) return on.status();
      for (const meta::Inode& inode : *on) wanted.insert(inode.ino);
    }
    for (uint64_t ino : wanted) {
      auto inode = fs.metadata().GetInode(ino);
      if (!inode.ok() || !S_ISREG(inode->mode)) continue;
      auto path = fs.metadata().PathOf(ino);
      if (!path.ok()) continue;  // unlinked since
      bool under = std::any_of(roots.begin(), roots.end(),
                               [&](const std::string& r) { return IsUnder(*path, r); });
      if (under) add(*path, *inode);
    }
  } else {
    for (const std::string& root : roots) {
      auto inode = ResolvePath(fs, root);
      if (!inode.ok()) return inode.status();
      if (!S_ISDIR(inode->mode)) {
        add(root, *inode);
        continue;
      }
      Status st = fs.metadata().WalkFiles(inode->ino, root,
                                          [&](const std::string& path, const meta::Inode& file) {
                                            add(path, file);
                                            return true;
                                          });
      if (!st.ok()) return st;
    }
  }
  // Path-name order compares component by component ("/a/z" before "/a.txt"), as
  // Metadata::WalkFiles does: '/' sorts before every other byte.
  // A single tree walk yields that order already: checking costs one comparison
  // per file, sorting twenty.
  auto before = [](const Candidate& a, const Candidate& b) {
    return std::lexicographical_compare(
        a.first.begin(), a.first.end(), b.first.begin(), b.first.end(), [](char x, char y) {
          auto key = [](char c) { return c == '/' ? -1 : static_cast<unsigned char>(c); };
          return key(x) < key(y);
        });
  };
  if (!std::is_sorted(out->begin(), out->end(), before)) std::sort(out->begin(), out->end(), before);
  return Status::Ok();
}

}  // namespace

Result<meta::Inode> ResolvePath(FileSystem& fs, const std::string& path) {
  uint64_t ino = meta::kRootIno;
  for (const std::string& part : SplitPath(path)) {
    if (part == "..") return Status::Invalid("\"..\" in path " + path);
    auto next = fs.metadata().Lookup(ino, part);
    if (!next.ok()) return Status::NotFound("no such file or directory: " + path);
    ino = *next;
  }
  return fs.metadata().GetInode(ino);
}

Result<ScanInputs> GatherScanInputs(FileSystem& fs, const policy::PlacementPolicy& policy,
                                    const ScanSelection& selection, int64_t now_s,
                                    const GatherProgress& progress) {
  std::vector<Candidate> candidates;
  TIERFS_RETURN_IF_ERROR(CollectCandidates(fs, selection, &candidates, progress));

  const std::vector<double> windows = policy.WindowHours();
  const bool uses_tags = UsesTags(policy);
  OwnerNames names;
  ScanInputs inputs;
  std::unordered_map<uint64_t, size_t> index;
  inputs.files.reserve(candidates.size());
  for (auto& [path, inode] : candidates) {
    policy::FileRecord r;
    r.ino = inode.ino;
    r.path = std::move(path);
    r.uid = inode.uid;
    r.gid = inode.gid;
    r.user = names.User(inode.uid);
    r.group = names.Group(inode.gid);
    r.size = inode.size;
    r.atime_s = inode.atime_ns / kNanosPerSecond;
    r.mtime_s = inode.mtime_ns / kNanosPerSecond;
    r.volume_id = inode.volume_id;
    if (uses_tags) {
      if (auto tags = fs.metadata().GetXattr(inode.ino, policy::kFileTagsXattr); tags.ok()) {
        r.tags = policy::ParseFileTags(*tags);
      }
    }
    r.windows.assign(windows.size(), policy::IoCounters{});
    index.emplace(r.ino, inputs.files.size());
    inputs.files.push_back(std::move(r));
  }
  std::vector<Candidate>().swap(candidates);  // their paths moved into the records
  if (windows.empty()) return inputs;

  // One pass over the buckets of the longest window: per-file windows for the
  // candidates, and per-file activity over the AveragePeriod for the average.
  //
  // Buckets are keyed by whole seconds while the scan starts somewhere inside
  // second `now_s`: the windows end at now_s + 1, so I/O done in the scan's own
  // second (in a bucket that starts then, at an hour boundary) is not lost.
  const int64_t end_s = now_s + 1;
  const std::vector<double> average_window = {policy.average_period_hours};
  const int64_t since = end_s - static_cast<int64_t>(windows.back() * kSecondsPerHour);
  // The buckets come in inode order (Metadata::ForEachIoBucket), so each file's
  // windows and its activity over the AveragePeriod gather in one place and are
  // settled when the next inode begins: one index look-up per file, no map.
  uint64_t current_ino = 0;
  std::vector<policy::IoCounters>* current_windows = nullptr;  // null: not a candidate
  std::vector<policy::IoCounters> current_average(1);
  auto settle = [&] {
    const policy::IoCounters c = current_average.front();
    current_average.assign(1, policy::IoCounters{});
    if (current_ino == 0 || c.rbytes + c.wbytes + c.rops + c.wops <= 0) return;  // not active
    uint64_t size;
    if (auto it = index.find(current_ino); it != index.end()) {
      size = inputs.files[it->second].size;
    } else {
      auto inode = fs.metadata().GetInode(current_ino);
      if (!inode.ok()) return;  // deleted: its activity no longer counts
      size = inode->size;
    }
    policy::AddActivity(c, size, &inputs.totals);
  };
  Status st = fs.metadata().ForEachIoBucket(since, [&](const meta::IoBucket& b) {
    if (b.ino != current_ino) {
      if (policy.UsesAverage()) settle();
      current_ino = b.ino;
      auto it = index.find(b.ino);
      current_windows = it == index.end() ? nullptr : &inputs.files[it->second].windows;
    }
    policy::IoCounters c{static_cast<double>(b.rbytes), static_cast<double>(b.wbytes),
                         static_cast<double>(b.rops), static_cast<double>(b.wops)};
    if (current_windows != nullptr) {
      policy::AccumulateBucket(windows, end_s, b.bucket_start_s, b.bucket_seconds, c,
                               current_windows);
    }
    if (policy.UsesAverage()) {
      policy::AccumulateBucket(average_window, end_s, b.bucket_start_s, b.bucket_seconds, c,
                               &current_average);
    }
  });
  if (!st.ok()) return st;
  if (policy.UsesAverage()) settle();
  return inputs;
}

}  // namespace tierfs
