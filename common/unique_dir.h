// UniqueDir: owns one directory stream (opendir(3)) and closes it on scope exit,
// as UniqueFd does for a file descriptor. OpenDir returns an empty UniqueDir
// (errno set by opendir) when the directory cannot be opened.
//
// Move-only. Not thread-safe (readdir on one stream needs one owner).
#pragma once

#include <dirent.h>

#include <memory>
#include <string>

namespace tierfs {

struct DirCloser {
  void operator()(DIR* d) const {
    if (d != nullptr) closedir(d);
  }
};
using UniqueDir = std::unique_ptr<DIR, DirCloser>;

inline UniqueDir OpenDir(const std::string& path) { return UniqueDir(opendir(path.c_str())); }

}  // namespace tierfs
