// The consistency check's driver (`tierfs check`; fs/check/fsck.h says what is
// checked and repaired, checker.h how the passes share their tables): it runs
// the passes in their order, which is the algorithm. Read the database's view
// (every regular file's location and size, the pending rows), walk each volume
// with a good label once and list each store, ticking off each object that is
// its file's location and setting the others aside; then classify what was set
// aside (misplaced, pending, orphan), compare sizes, find the files whose
// object was never seen, and check the namespace.
#include "fs/check/fsck.h"

#include <utility>

#include "fs/check/checker.h"

namespace tierfs {
namespace fsck {

Result<CheckReport> Checker::Run() {
  Result<meta::FsInfo> info = meta_.GetFsInfo();
  if (!info.ok()) return info.status();
  info_ = *info;
  Result<std::vector<meta::Volume>> volumes = meta_.ListVolumes();
  if (!volumes.ok()) return volumes.status();
  volumes_ = *volumes;
  if (volumes_.empty()) return Status::Invalid("the database lists no volume");
  Progress("database", 0, 1);
  CheckDatabase();
  Progress("database", 1, 1);
  can_repair_ = o_.repair && db_ok_;
  if (!o_.live) {
    Result<bool> kernel = meta_.CrashedWithPassthroughWrites();
    kernel_wrote_ = kernel.ok() && *kernel;
  }
  CheckLabels();
  if (Status st = LoadFiles(); !st.ok()) return Stopped(st);
  if (Status st = LoadPending(); !st.ok()) return Stopped(st);
  for (size_t i = 0; i < volumes_.size(); ++i) {
    Progress("objects", i, volumes_.size());
    if (Good(volumes_[i].id)) {
      WalkObjects(volumes_[i]);
      if (!o_.live) WalkTmp(volumes_[i]);
    }
  }
  ListStores();
  Progress("objects", volumes_.size(), volumes_.size());
  report_.volumes = good_.size();
  if (Status st = CheckInodeSequence(); !st.ok()) return Stopped(st);
  CheckMisplaced();
  // Sizes before the set-aside objects: a short object's repair may restore its
  // missing range from a relocation's leftover, which goes only after that.
  CheckSizes();
  if (Status st = CheckSetAside(); !st.ok()) return Stopped(st);
  CheckMissing();
  if (!o_.live) CheckPendingRows();
  CheckUploads();
  Progress("namespace", 0, 1);
  if (Status st = CheckNamespace(); !st.ok()) return Stopped(st);
  Progress("namespace", 1, 1);
  report_.files = files_.size();
  return std::move(report_);
}

Result<CheckReport> Checker::Stopped(const Status& st) {
  if (st.code() == ENOMEM || st.code() == EBUSY) return st;
  const std::string db = o_.database_path.empty() ? "the database" : o_.database_path;
  Add("database", FindingSeverity::kDamage, db + ": the check stopped: " + st.message());
  report_.files = files_.size();
  return std::move(report_);
}

void Checker::Progress(const char* phase, uint64_t done, uint64_t total) {
  if (o_.progress) o_.progress(phase, done, total);
}

}  // namespace fsck

Result<CheckReport> CheckFileSystem(meta::Metadata& meta, const CheckOptions& options) {
  if (options.io == nullptr) return Status::Invalid("CheckOptions.io is null");
  return fsck::Checker(meta, options).Run();
}

}  // namespace tierfs
