// TempDir: a fresh directory per test, removed (recursively) at the end.
// Test helper; not thread-safe.
#pragma once

#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace tierfs::testing {

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/tierfs-cli-test.XXXXXX";
    char* dir = mkdtemp(tmpl);
    char real[PATH_MAX];
    path_ = dir != nullptr && realpath(dir, real) != nullptr ? real : "";
  }
  ~TempDir() {
    if (path_.empty()) return;
    nftw(
        path_.c_str(),
        [](const char* p, const struct stat*, int, struct FTW*) { return ::remove(p); }, 16,
        FTW_DEPTH | FTW_PHYS);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace tierfs::testing
