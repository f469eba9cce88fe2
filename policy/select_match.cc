#include "policy/select_match.h"

#include <fnmatch.h>

#include <algorithm>

namespace tierfs::policy {
namespace {

// A path split once: its directory components and its name.
struct SplitPath {
  std::vector<std::string_view> dirs;
  std::string_view name;
};

std::vector<std::string_view> Components(std::string_view path) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos < path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > pos) out.push_back(path.substr(pos, slash - pos));
    pos = slash + 1;
  }
  return out;
}

SplitPath Split(std::string_view path) {
  SplitPath s;
  s.dirs = Components(path);
  if (!s.dirs.empty()) {
    s.name = s.dirs.back();
    s.dirs.pop_back();
  }
  return s;
}

// Depth of the matched directory (its component count) when the file's
// parent is `dir` (nonrecursive) or lies under it (recursive); -1 otherwise.
int DirectoryDepth(const Directory& dir, const SplitPath& file) {
  std::vector<std::string_view> d = Components(dir.path);
  if (d.size() > file.dirs.size()) return -1;
  if (!dir.recursive && d.size() != file.dirs.size()) return -1;
  if (!std::equal(d.begin(), d.end(), file.dirs.begin())) return -1;
  return static_cast<int>(d.size());
}

// A pattern matches the name, or, when recursive, a directory component at
// index >= `base` (strictly below the matched DIRECTORY).
bool PatternMatches(const Pattern& p, const SplitPath& file, size_t base) {
  if (GlobMatches(p.glob, file.name)) return true;
  if (!p.recursive) return false;
  for (size_t i = base; i < file.dirs.size(); ++i) {
    if (GlobMatches(p.glob, file.dirs[i])) return true;
  }
  return false;
}

template <typename T, typename V>
bool AnyEquals(const std::vector<Located<T>>& list, const V& value) {
  return std::any_of(list.begin(), list.end(),
                     [&](const Located<T>& l) { return l.value == value; });
}

bool OwnerAndTagsMatch(const Select& s, const FileIdentity& id) {
  if (!s.users.empty() && (id.user.empty() || !AnyEquals(s.users, id.user))) return false;
  if (!s.groups.empty() && (id.group.empty() || !AnyEquals(s.groups, id.group))) return false;
  if (!s.uids.empty() && !AnyEquals(s.uids, id.uid)) return false;
  if (!s.gids.empty() && !AnyEquals(s.gids, id.gid)) return false;
  if (!s.tags.empty()) {
    if (id.tags == nullptr) return false;
    bool any = std::any_of(id.tags->begin(), id.tags->end(),
                           [&](const std::string& t) { return AnyEquals(s.tags, t); });
    if (!any) return false;
  }
  return true;
}

bool PathMatches(const Select& s, const SplitPath& file) {
  auto patterns_ok = [&](size_t base) {
    if (s.patterns.empty()) return true;
    return std::any_of(s.patterns.begin(), s.patterns.end(),
                       [&](const Pattern& p) { return PatternMatches(p, file, base); });
  };
  if (s.directories.empty()) return patterns_ok(0);  // the whole file system
  for (const Directory& dir : s.directories) {
    int depth = DirectoryDepth(dir, file);
    if (depth >= 0 && patterns_ok(static_cast<size_t>(depth))) return true;
  }
  return false;
}

bool MatchesSplit(const Select& s, const SplitPath& file, const FileIdentity& id) {
  return OwnerAndTagsMatch(s, id) && PathMatches(s, file);
}

}  // namespace

bool GlobMatches(const std::string& glob, std::string_view name) {
  std::string n(name);
  return fnmatch(glob.c_str(), n.c_str(), 0) == 0;
}

bool SelectMatches(const Select& select, const FileIdentity& id) {
  return MatchesSplit(select, Split(id.path), id);
}

int GoverningRuleIndex(const PlacementPolicy& policy, const FileIdentity& id) {
  SplitPath file = Split(id.path);
  for (size_t r = 0; r < policy.rules.size(); ++r) {
    const Rule& rule = policy.rules[r];
    if (rule.flags != RuleFlags::kData) continue;
    for (const Select& s : rule.selects) {
      if (MatchesSplit(s, file, id)) return static_cast<int>(r);
    }
  }
  return -1;
}

}  // namespace tierfs::policy
