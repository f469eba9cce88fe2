#include "fs/tiering/volume_admin.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <thread>

#include "common/byte_count.h"
#include "common/log.h"
#include "common/page.h"
#include "fs/objstore/s3_client_options.h"
#include "fs/volume/object_location.h"
#include "fs/volume/volume_label.h"
#include "policy/evacuation.h"

namespace tierfs {
namespace {

// Room a file needs on its new volume: its size in whole 4 KiB blocks.
uint64_t RoomFor(const meta::Inode& f) { return (f.size + kPageBytes - 1) / kPageBytes * kPageBytes; }

bool IsUnderOrSame(const std::string& dir, const std::string& path) {
  if (dir == "/") return true;
  return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
                         path[dir.size()] == '/');
}

}  // namespace

Result<meta::Volume> VolumeAdmin::Resolve(const std::string& volume) const {
  std::string names;
  for (const meta::Volume& v : fs_.volumes().volumes()) {
    if (v.name == volume || v.path == volume || std::to_string(v.id) == volume) return v;
    names += (names.empty() ? "" : ", ") + v.name;
  }
  // A directory given by another spelling (symlink, trailing slash).
  char real[PATH_MAX];
  if (realpath(volume.c_str(), real) != nullptr) {
    for (const meta::Volume& v : fs_.volumes().volumes()) {
      if (v.path == real) return v;
    }
  }
  return Status::NotFound("no volume \"" + volume + "\" (the volumes are " + names + ")");
}

Result<meta::Volume> VolumeAdmin::AddObjectLocked(const AddVolumeRequest& request) {
  Result<ObjectLocation> location = ParseObjectUrl(request.path);
  if (!location.ok()) return location.status();
  if (request.credentials_file.empty() || request.credentials_file[0] != '/') {
    return Status::Invalid("object volume " + request.path +
                           ": the credentials file must be an absolute path, got \"" +
                           request.credentials_file + "\"");
  }
  if (!request.ca_file.empty() && request.ca_file[0] != '/') {
    return Status::Invalid("object volume " + request.path +
                           ": the CA file must be an absolute path, got \"" + request.ca_file +
                           "\"");
  }
  if (!request.region.empty()) TIERFS_RETURN_IF_ERROR(CheckS3Region(request.region));
  if (!request.addressing.empty()) {
    Result<S3Addressing> addressing = ParseS3Addressing(request.addressing);
    if (!addressing.ok()) return addressing.status();
  }
  meta::Volume row;
  row.path = ObjectUrl(*location);
  row.placement_class = request.placement_class;
  row.media_type = "object";
  row.media_type_source = "configured";
  row.role = "dataonly";
  row.state = "online";
  row.endpoint = request.endpoint;
  row.credentials_file = request.credentials_file;
  row.region = request.region;
  row.addressing = request.addressing;
  row.ca_file = request.ca_file;
  for (const meta::Volume& v : fs_.volumes().volumes()) {
    if (!meta::IsObjectVolume(v)) continue;
    Result<ObjectLocation> other = ParseObjectUrl(v.path);
    if (!other.ok() || other->bucket != location->bucket) continue;
    const std::string a = other->prefix + "/", b = location->prefix + "/";
    if (a.rfind(b, 0) == 0 || b.rfind(a, 0) == 0 || other->prefix.empty() ||
        location->prefix.empty()) {
      return Status::Exists(row.path + " overlaps volume " + v.name + " (" + v.path +
                            ") of this file system");
    }
  }
  auto store = ObjectVolume::Open(row);
  if (!store.ok()) return store.status();
  row.endpoint = (*store)->endpoint();
  if (Status probe = (*store)->CheckUsable(); !probe.ok()) {
    if (probe.code() == ENOENT) {
      return Status::NotFound("bucket " + location->bucket + " does not exist at " +
                              row.endpoint + " (create it first)");
    }
    return Status::Error(probe.code(), "object volume " + row.path + " at " + row.endpoint +
                                           ": " + probe.message());
  }
  // A prefix that holds objects already belongs to someone: never mixed in.
  auto page = (*store)->transfer().ListObjects(location->bucket, ObjectKeyPrefix(*location), "",
                                               1);
  if (!page.ok()) return page.status();
  if (!page->objects.empty()) {
    return Status::Exists(row.path + " already holds objects (" + page->objects.front().key +
                          "); give an unused prefix");
  }
  auto id = fs_.metadata().NextVolumeId();
  if (!id.ok()) return id.status();
  row.id = *id;
  row.name = "vol" + std::to_string(*id);
  TIERFS_RETURN_IF_ERROR(fs_.metadata().AddVolumeWithId(row));
  if (Status st = fs_.SyncMetadata(); !st.ok()) {
    fs_.metadata().RemoveVolume(row.id);
    return st;
  }
  if (Status st = fs_.mutable_volumes().Add(row); !st.ok()) {
    fs_.metadata().RemoveVolume(row.id);
    return st;
  }
  LogInfo("object volume {} ({} at {}, region {}, {} addressing, class {}) added", row.name,
          row.path, row.endpoint, row.region.empty() ? "us-east-1" : row.region,
          row.addressing.empty() ? "path" : row.addressing, row.placement_class);
  return row;
}

Result<meta::Volume> VolumeAdmin::Add(const AddVolumeRequest& request) {
  if (request.path.rfind("s3://", 0) == 0) {
    TIERFS_RETURN_IF_ERROR(CheckSimpleName(request.placement_class, "class name"));
    MutexLock admin(admin_mu_);
    return AddObjectLocked(request);
  }
  if (!request.endpoint.empty() || !request.credentials_file.empty() ||
      !request.region.empty() || !request.addressing.empty() || !request.ca_file.empty()) {
    return Status::Invalid("--endpoint, --credentials, --region, --addressing and --ca-file are "
                           "for s3:// volumes, not " + request.path);
  }
  if (request.path.empty() || request.path[0] != '/') {
    return Status::Invalid("the volume directory must be an absolute path, got \"" +
                           request.path + "\"");
  }
  TIERFS_RETURN_IF_ERROR(CheckSimpleName(request.placement_class, "class name"));
  const std::string& media = request.media_type;
  if (media != "ssd" && media != "hdd" && media != "mixed" && media != "unknown") {
    return Status::Invalid("media type must be ssd, hdd, mixed or unknown, got \"" + media + "\"");
  }
  if (request.media_type_source != "detected" && request.media_type_source != "configured") {
    return Status::Invalid("media_type_source must be detected or configured");
  }
  MutexLock admin(admin_mu_);
  VolumeIo& io = fs_.volumes().io();
  struct stat st;
  if (io.Stat(request.path, &st) != 0) {
    const int err = errno;
    if (err == ENOENT) return Status::NotFound(request.path + " does not exist");
    return Status::FromErrno(err, request.path);
  }
  if (!S_ISDIR(st.st_mode)) return Status::Error(ENOTDIR, request.path + " is not a directory");
  char real_buf[PATH_MAX];
  if (realpath(request.path.c_str(), real_buf) == nullptr) {
    return Status::FromErrno("cannot resolve " + request.path);
  }
  const std::string dir = real_buf;
  const std::string& mount = fs_.options().mountpoint;
  if (!mount.empty() && (IsUnderOrSame(dir, mount) || IsUnderOrSame(mount, dir))) {
    return Status::Invalid("the mount point " + mount + " and the volume " + dir +
                           " may not contain one another");
  }
  for (const meta::Volume& v : fs_.volumes().volumes()) {
    struct stat vst;
    const bool same = v.path == dir || (io.Stat(v.path, &vst) == 0 &&
                                        vst.st_dev == st.st_dev && vst.st_ino == st.st_ino);
    if (same) return Status::Exists(dir + " is already volume " + v.name + " of this file system");
    if (IsUnderOrSame(v.path, dir) || IsUnderOrSame(dir, v.path)) {
      return Status::Invalid(dir + " and volume " + v.name + " (" + v.path +
                             ") may not contain one another");
    }
  }
  struct stat lst;
  if (io.Lstat(MetadataDbPath(dir), &lst) == 0) {
    return Status::Exists(dir + " holds a tierfs metadata database (" + MetadataDbPath(dir) +
                          "); refusing to use it as a volume");
  }
  if (io.Lstat(VolumeLabelPath(dir), &lst) == 0) {
    Result<VolumeLabel> label = ReadVolumeLabel(dir, io);
    if (!label.ok()) {
      return Status::Exists(dir + " has a tierfs label that cannot be read (" +
                            label.status().message() + "); refusing to overwrite it");
    }
    // A retired label, or a label of this file system for a volume it no
    // longer has (a crash during an earlier add), may be replaced.
    const bool ours = label->fs_uuid == fs_.info().uuid;
    if (!label->retired && !(ours && fs_.volumes().Find(label->volume_id) == nullptr)) {
      return Status::Exists(dir + " is already a tierfs volume (volume " + label->volume_name +
                            " of file system " +
                            (label->fs_name.empty() ? label->fs_uuid : label->fs_name) + ")");
    }
  }

  auto id = fs_.metadata().NextVolumeId();
  if (!id.ok()) return id.status();
  meta::Volume row;
  row.id = *id;
  row.name = "vol" + std::to_string(*id);
  row.path = dir;
  row.placement_class = request.placement_class;
  row.media_type = request.media_type;
  row.media_type_source = request.media_type_source;
  row.role = "dataonly";
  row.state = "online";
  VolumeLabel label{fs_.info().uuid, fs_.info().name, row.id, row.name, false};
  TIERFS_RETURN_IF_ERROR(WriteVolumeLabel(dir, label, io));
  auto retire_label = [&] {
    VolumeLabel retired = label;
    retired.retired = true;
    WriteVolumeLabel(dir, retired, io);
  };
  Status st_row = fs_.metadata().AddVolumeWithId(row);
  // Durable before the volume is used (group commit would hold the row back).
  if (st_row.ok()) st_row = fs_.SyncMetadata();
  if (!st_row.ok()) {
    retire_label();
    return st_row;
  }
  if (Status st_set = fs_.mutable_volumes().Add(row); !st_set.ok()) {
    Status undo = fs_.metadata().RemoveVolume(row.id);
    if (undo.ok()) retire_label();
    return st_set;
  }
  LogInfo("volume {} ({}, class {}) added", row.name, row.path, row.placement_class);
  return row;
}

Result<meta::Volume> VolumeAdmin::SetClass(const std::string& volume,
                                           const std::string& placement_class) {
  TIERFS_RETURN_IF_ERROR(CheckSimpleName(placement_class, "class name"));
  MutexLock admin(admin_mu_);
  auto v = Resolve(volume);
  if (!v.ok()) return v.status();
  meta::Volume changed = *v;
  changed.placement_class = placement_class;
  TIERFS_RETURN_IF_ERROR(fs_.metadata().UpdateVolume(changed));
  TIERFS_RETURN_IF_ERROR(fs_.SyncMetadata());
  if (Status st = fs_.mutable_volumes().SetClass(v->id, placement_class); !st.ok()) {
    fs_.metadata().UpdateVolume(*v);  // back to the class the set still has
    return st;
  }
  LogInfo("volume {} is now class {} (was {})", v->name, placement_class, v->placement_class);
  return *v;
}

Result<std::vector<meta::Inode>> VolumeAdmin::FilesOn(uint32_t id) {
  return fs_.metadata().FilesOnVolumes({id});
}

policy::CreatePlacement VolumeAdmin::PlacementOf(const meta::Inode& file) {
  if (!fs_.policy()) return {};
  auto path = fs_.metadata().PathOf(file.ino);
  if (!path.ok()) return {};  // unlinked: the default allocator
  return fs_.CreatePlacementFor(file.uid, file.gid, *path);
}

Result<RemoveVolumeReport> VolumeAdmin::Remove(const std::string& volume,
                                               const EvacuationProgress& progress) {
  MutexLock admin(admin_mu_);
  auto found = Resolve(volume);
  if (!found.ok()) return found.status();
  const meta::Volume v = *found;
  if (v.id == fs_.volumes().metadata_volume_id()) {
    return Status::Invalid("volume " + v.name + " (" + v.path +
                           ") holds the metadata database and cannot be removed");
  }
  if (fs_.volumes().Health(v.id) == VolumeHealth::kOffline) {
    return Status::Io("volume " + v.name + " (" + v.path +
                      ") is offline: its files cannot be moved until its device is back");
  }
  // Sizes written in memory reach the database first: they are what is copied.
  TIERFS_RETURN_IF_ERROR(fs_.FlushAll());
  auto files = FilesOn(v.id);
  if (!files.ok()) return files.status();
  std::vector<policy::EvacuationFile> wanted;
  uint64_t total_bytes = 0;
  for (const meta::Inode& f : *files) {
    wanted.push_back({f.ino, RoomFor(f), PlacementOf(f)});
    total_bytes += RoomFor(f);
  }
  const policy::EvacuationPlan plan =
      policy::PlanEvacuation(wanted, fs_.volumes().Space(/*fresh=*/true), v.id);
  if (!plan.fits()) {
    return Status::NoSpace("cannot remove " + v.name + ": the other volumes lack room for " +
                           std::to_string(plan.unplaced_files) + " of its " +
                           std::to_string(files->size()) + " files; " +
                           Bytes(plan.unplaced_bytes) + " missing (it holds " +
                           Bytes(total_bytes) + "). Nothing was changed.");
  }

  RemoveVolumeReport report;
  report.volume = v;
  TIERFS_RETURN_IF_ERROR(fs_.mutable_volumes().SetDraining(v.id, true));
  Status evacuated = Evacuate(v, progress, &report);
  if (evacuated.ok()) evacuated = fs_.metadata().RemoveVolume(v.id);
  // The row's removal is durable before the label is retired: a crash between
  // must never leave a row whose directory refuses to mount.
  if (evacuated.ok()) evacuated = fs_.SyncMetadata();
  if (!evacuated.ok()) {
    fs_.mutable_volumes().SetDraining(v.id, false);
    return Status::Error(evacuated.code(),
                         "volume " + v.name + " stays in the file system (" +
                             std::to_string(report.files_moved) +
                             " files were moved off it, every file is readable): " +
                             evacuated.message());
  }
  // The row is gone: the volume is no longer part of the file system.
  if (Status st = fs_.mutable_volumes().Remove(v.id); !st.ok()) {
    LogError("dropping volume {} from the live set: {}", v.name, st.ToString());
  }
  VolumeLabel retired{fs_.info().uuid, fs_.info().name, v.id, v.name, true};
  if (meta::IsObjectVolume(v)) {
    // A bucket has no label to retire.
  } else if (Status st = WriteVolumeLabel(v.path, retired, fs_.volumes().io()); !st.ok()) {
    report.label_warning = "could not mark the label of " + v.path + " retired: " + st.message();
  }
  LogInfo("volume {} ({}) removed after moving {} files ({} bytes)", v.name, v.path,
          report.files_moved, report.bytes_moved);
  return report;
}

Status VolumeAdmin::Evacuate(const meta::Volume& v, const EvacuationProgress& progress,
                             RemoveVolumeReport* report) {
  std::map<uint64_t, int> busy_tries;  // ino -> background attempts that were busy
  std::string first_error;
  uint64_t done = 0;
  for (int round = 0; round < kEvacuationRounds; ++round) {
    auto files = FilesOn(v.id);
    if (!files.ok()) return files.status();
    if (files->empty()) break;
    if (round > 0) {
      // Give writers of busy files a moment before the next pass.
      std::this_thread::sleep_for(std::chrono::milliseconds(50 * round));
    }
    const uint64_t total = done + files->size();
    for (const meta::Inode& f : *files) {
      bool outside = false;
      std::optional<uint32_t> target = policy::ChooseEvacuationVolume(
          PlacementOf(f), fs_.volumes().Space(/*fresh=*/false), v.id, RoomFor(f), &outside);
      if (!target) {
        if (first_error.empty()) {
          first_error = "inode " + std::to_string(f.ino) + ": no other volume has room for " +
                        Bytes(RoomFor(f));
        }
        continue;
      }
      const bool hold = busy_tries[f.ino] >= kEvacuationBackgroundTries;
      auto outcome = relocator_.Relocate(
          f.ino, *target, hold ? Relocator::Mode::kHoldWriters : Relocator::Mode::kBackground,
          v.id, /*move_unlinked=*/true);
      if (!outcome.ok()) {
        // EINVAL "already on that volume" and the like: look again next round.
        if (first_error.empty()) {
          first_error = "inode " + std::to_string(f.ino) + ": " + outcome.status().message();
        }
        continue;
      }
      if (outcome->outcome == "moved") {
        if (outcome->bytes > 0 || !hold) {
          report->files_moved++;
          report->bytes_moved += outcome->bytes;
          if (outside) report->outside_create_classes++;
        }
        if (progress) progress(++done, total, report->bytes_moved);
      } else if (outcome->outcome == "busy") {
        busy_tries[f.ino]++;
        report->busy_retries++;
      } else if (outcome->outcome == "gone") {
        if (progress) progress(++done, total, report->bytes_moved);
      } else if (first_error.empty()) {
        first_error = "inode " + std::to_string(f.ino) + ": " + outcome->outcome;
      }
    }
  }
  // Objects a crash or a failed move left as pending on the volume.
  if (auto pending = fs_.metadata().ListPendingObjects(); pending.ok()) {
    for (const meta::PendingObject& p : *pending) {
      if (p.volume_id != v.id) continue;
      // Never the object of a file still there (one busy all along).
      std::optional<uint64_t> keep;
      if (auto inode = fs_.metadata().GetInode(p.ino);
          inode.ok() && inode->volume_id == p.volume_id && inode->generation == p.generation) {
        keep = inode->store_version;
      }
      if (fs_.volumes().RemoveLeftovers(p.volume_id, p.ino, p.generation, keep).ok()) {
        fs_.metadata().RemovePendingObject(p.ino, p.volume_id);
      }
    }
  }
  auto left = FilesOn(v.id);
  if (!left.ok()) return left.status();
  if (!left->empty()) {
    return Status::Error(EBUSY, std::to_string(left->size()) + " file(s) could not be moved" +
                                    (first_error.empty() ? "" : " (first failure: " +
                                                                    first_error + ")"));
  }
  return Status::Ok();
}

}  // namespace tierfs
