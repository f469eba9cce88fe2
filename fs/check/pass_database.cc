// Pass "database" (fs/check/fsck.h): PRAGMA integrity_check. No repair is made
// on a database that fails it; live, it runs on an online backup copy so that
// the file system is not stalled for its length.
#include "fs/check/checker.h"

#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/unique_dir.h"

namespace tierfs::fsck {

namespace {

// Removes a private temporary directory and what is in it (one level).
class TempDir {
 public:
  static Result<TempDir> Make(const std::string& parent) {
    std::string pattern = parent + "/tierfs-check-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) return Status::FromErrno("mkdtemp " + pattern);
    TempDir dir;
    dir.path_ = pattern;
    return dir;
  }
  TempDir() = default;
  TempDir(TempDir&& other) noexcept : path_(std::exchange(other.path_, "")) {}
  TempDir& operator=(TempDir&&) = delete;
  ~TempDir() {
    if (path_.empty()) return;
    if (UniqueDir d{opendir(path_.c_str())}) {
      while (dirent* e = readdir(d.get())) {
        std::string name = e->d_name;
        if (name != "." && name != "..") unlink((path_ + "/" + name).c_str());
      }
    }
    rmdir(path_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

void Checker::CheckDatabase() {
  Result<std::vector<std::string>> problems = IntegrityProblems();
  const std::string db = o_.database_path.empty() ? "the database" : o_.database_path;
  if (!problems.ok()) {
    Add("database", FindingSeverity::kNote,
        db + ": integrity_check could not run: " + problems.status().message());
    return;
  }
  for (const std::string& line : *problems) {
    db_ok_ = false;
    CheckFinding& f = Add("database", FindingSeverity::kDamage, db + ": " + line);
    if (o_.repair) {
      f.repair = "not repaired: restore the database from a backup (docs/reliability.md); "
                 "no other repair is made on a damaged database";
    }
  }
}

Result<std::vector<std::string>> Checker::IntegrityProblems() {
  if (!o_.live) return meta_.IntegrityCheck();
  // Live: on an online backup copy, so the daemon's connection is held only for
  // one backup step at a time (meta/backup.cc), never for the whole check.
  std::string parent = o_.snapshot_dir;
  if (parent.empty()) {
    const char* tmp = getenv("TMPDIR");
    parent = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  }
  Result<TempDir> dir = TempDir::Make(parent);
  if (!dir.ok()) return dir.status();
  const std::string copy = dir->path() + "/meta.db";
  TIERFS_RETURN_IF_ERROR(meta_.BackupTo(copy, 256, nullptr));
  Result<std::unique_ptr<meta::Metadata>> snapshot = meta::Metadata::OpenForCheck(copy);
  if (!snapshot.ok()) return snapshot.status();
  return (*snapshot)->IntegrityCheck();
}

}  // namespace tierfs::fsck
