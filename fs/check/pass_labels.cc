// Pass "label" (fs/check/fsck.h): every local volume's .tierfs/label must name
// this file system and this volume, and its objects/ must be there. Nothing on
// a volume that fails is examined or touched: an unmounted disk looks like an
// empty directory, and "repairing" its files would zero them all.
#include "fs/check/checker.h"

#include <sys/stat.h>

#include <cerrno>

#include "fs/volume/volume_label.h"

namespace tierfs::fsck {

void Checker::CheckLabels() {
  for (const meta::Volume& v : volumes_) {
    if (meta::IsObjectVolume(v)) continue;  // a bucket has no label (CheckStores)
    Result<VolumeLabel> label = ReadVolumeLabel(v.path, *o_.io);
    std::string problem;
    if (!label.ok()) {
      problem = label.status().message();
    } else if (label->fs_uuid != info_.uuid) {
      problem = "its label belongs to another file system (" +
                (label->fs_name.empty() ? "" : label->fs_name + ", ") + "uuid " +
                label->fs_uuid + "), not to " + info_.name + " (uuid " + info_.uuid + ")";
    } else if (label->volume_id != v.id) {
      problem = "its label names volume " + std::to_string(label->volume_id) + " (" +
                label->volume_name + ") of this file system, not volume " +
                std::to_string(v.id);
    }
    if (problem.empty()) {
      struct stat st;
      const std::string objects = ObjectsDir(v.path);
      const int rc = o_.io->Stat(objects, &st);
      if (rc != 0 && errno != ENOENT && errno != ENOTDIR) {
        VolumeUnreadable(v, objects, errno);
        continue;
      }
      if (rc != 0 || !S_ISDIR(st.st_mode)) {
        problem = "its objects directory " + objects + " is missing";
      }
    }
    if (problem.empty()) {
      good_.insert(v.id);
      continue;
    }
    CheckFinding& f = Add("label", FindingSeverity::kDamage,
                          "volume " + VolumeText(v.id) + ": " + problem +
                              "; its files and objects were not checked");
    if (o_.repair) {
      f.repair = "not repaired: mount the right device there, or restore its label; "
                 "nothing on this volume was touched";
    }
  }
  report_.volumes = good_.size();
}

}  // namespace tierfs::fsck
