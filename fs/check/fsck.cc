// The consistency check: see fs/check/fsck.h for what is checked, what is repaired, and
// the live (mounted) mode.
//
// Shape of a run: read the database's view (every regular file's location and
// size, the pending_objects rows), then walk each volume with a good label once,
// ticking off each object that is its file's location and keeping the others
// aside; then classify what was kept aside (misplaced, pending, orphan), compare
// sizes, find the files whose object was never seen, and finally check the
// namespace with two SQL queries (entries that cannot stand, link counts). Every
// finding about a file or an object is looked at again (fresh stat, current
// attributes) before it is reported or repaired, which is what makes the live
// mode sound while the daemon keeps serving, and what lets a repair see its own
// earlier repairs.
//
// Why one file of about 1,100 lines: the passes are the members of one class,
// Checker, and share its tables (files_, set_aside_, pending_); their order is
// the algorithm, and reads top to bottom here.
#include "fs/check/fsck.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/unique_dir.h"
#include "fs/check/store_check.h"
#include "fs/volume/io_steps.h"
#include "fs/volume/object_hash.h"
#include "fs/volume/object_location.h"
#include "fs/volume/object_volume.h"
#include "fs/volume/object_walk.h"
#include "fs/volume/range_copy.h"
#include "fs/volume/volume_label.h"

namespace tierfs {
namespace {

using nlohmann::json;

constexpr char kLostFound[] = "lost+found";

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

// One regular file as the database has it, and what the walk found for it.
struct FileEntry {
  uint64_t generation = 0;
  uint32_t volume_id = 0;
  uint64_t size = 0;
  uint32_t nlink = 0;
  bool found = false;        // its object was seen at its location
  uint64_t object_size = 0;  // when found
};

// An object that is not its file's location (pending, misplaced or orphan).
struct ObjectEntry {
  uint32_t volume_id = 0;
  uint64_t ino = 0;
  uint64_t generation = 0;
  uint64_t size = 0;
  std::string path;           // a local object's path; a store's object's s3:// URL
  std::string key;            // on a store: the object's key ("" for a local object)
  bool wrong_subdir = false;  // a good name in the wrong objects/xx directory
  bool consumed = false;      // became a misplaced file's object
};

const char* TypeName(uint32_t mode) {
  switch (mode & S_IFMT) {
    case S_IFREG: return "regular file";
    case S_IFDIR: return "directory";
    case S_IFLNK: return "symlink";
    case S_IFCHR: return "character device";
    case S_IFBLK: return "block device";
    case S_IFIFO: return "fifo";
    case S_IFSOCK: return "socket";
    default: return "inode of unknown type";
  }
}

std::string Bytes(uint64_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

class Checker {
 public:
  Checker(meta::Metadata& meta, const CheckOptions& options) : meta_(meta), o_(options) {
    report_.live = options.live;
    report_.repair = options.repair;
  }

  Result<CheckReport> Run() {
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

 private:
  // A query failed half-way (a damaged database, or EIO): the report so far, and
  // why it stops there. ENOMEM and EBUSY are not damage: the check could not run.
  Result<CheckReport> Stopped(const Status& st) {
    if (st.code() == ENOMEM || st.code() == EBUSY) return st;
    const std::string db = o_.database_path.empty() ? "the database" : o_.database_path;
    Add("database", FindingSeverity::kDamage, db + ": the check stopped: " + st.message());
    report_.files = files_.size();
    return std::move(report_);
  }

  void Progress(const char* phase, uint64_t done, uint64_t total) {
    if (o_.progress) o_.progress(phase, done, total);
  }

  CheckFinding& Add(const char* kind, FindingSeverity severity, std::string message) {
    CheckFinding f;
    f.kind = kind;
    f.severity = severity;
    f.message = std::move(message);
    report_.findings.push_back(std::move(f));
    return report_.findings.back();
  }
  // Records the outcome of a repair on `f`.
  static void Repaired(CheckFinding& f, const Status& st, const std::string& what) {
    f.repaired = st.ok();
    f.repair = st.ok() ? what : "repair failed: " + st.message();
  }

  const meta::Volume* VolumeById(uint32_t id) const {
    for (const meta::Volume& v : volumes_) {
      if (v.id == id) return &v;
    }
    return nullptr;
  }
  std::string VolumeText(uint32_t id) const {
    const meta::Volume* v = VolumeById(id);
    if (v == nullptr) return "unknown volume " + std::to_string(id);
    return v->name + " (" + v->path + ")";
  }
  bool Good(uint32_t id) const { return good_.count(id) != 0; }
  std::string ObjectPath(uint32_t volume_id, uint64_t ino, uint64_t generation) const {
    const meta::Volume* v = VolumeById(volume_id);
    return v == nullptr ? std::string() : ObjectPathIn(v->path, ino, generation);
  }
  // "/a/b (inode 5)", or "inode 5 (no name)".
  std::string Describe(uint64_t ino) {
    Result<std::string> path = meta_.PathOf(ino);
    if (path.ok()) return *path + " (inode " + std::to_string(ino) + ")";
    return "inode " + std::to_string(ino) + " (no name)";
  }
  // The inode as it stands now (the daemon's view when live).
  Result<meta::Inode> Current(uint64_t ino) {
    if (o_.current_attr) return o_.current_attr(ino);
    return meta_.GetInode(ino);
  }

  // The size in bytes of the regular file at `path` (an object), through the seam;
  // nullopt when there is none (ENOENT, ENOTDIR, or not a regular file). An lstat
  // that fails otherwise (EIO) is an error: reported once as "unreadable" and
  // returned, so that nothing is repaired on what could not be seen.
  Result<std::optional<uint64_t>> ObjectSize(const std::string& path) {
    struct stat st;
    if (o_.io->Lstat(path, &st) == 0) {
      if (!S_ISREG(st.st_mode)) return std::optional<uint64_t>();
      return std::optional<uint64_t>(static_cast<uint64_t>(st.st_size));
    }
    if (errno == ENOENT || errno == ENOTDIR) return std::optional<uint64_t>();
    const Status error = Status::FromErrno("cannot stat " + path);
    Unreadable(error.message() + "; left as it is");
    return error;
  }
  // Whether an object is surely there; and surely not there. Both false when it
  // could not be seen (ObjectSize's error).
  bool HasObject(const std::string& path) {
    Result<std::optional<uint64_t>> size = ObjectSize(path);
    return size.ok() && size->has_value();
  }
  bool LacksObject(const std::string& path) {
    Result<std::optional<uint64_t>> size = ObjectSize(path);
    return size.ok() && !size->has_value();
  }
  // The same for the object of (ino, generation) on volume `volume_id`, of
  // either kind: a store's is asked with a HEAD (its listing may be old: live,
  // or after a repair). Nullopt on a volume the database does not know.
  Result<std::optional<uint64_t>> ObjectSizeOn(uint32_t volume_id, uint64_t ino,
                                               uint64_t generation) {
    ObjectVolume* store = Store(volume_id);
    if (store == nullptr) {
      if (VolumeById(volume_id) == nullptr) return std::optional<uint64_t>();
      return ObjectSize(ObjectPath(volume_id, ino, generation));
    }
    const std::string key = store->Key(ino, generation);
    Result<S3ObjectInfo> head = store->transfer().HeadObject(store->location().bucket, key);
    if (head.ok()) return std::optional<uint64_t>(head->size);
    if (head.status().code() == ENOENT) return std::optional<uint64_t>();
    const Status error = Status::Error(head.status().code(), head.status().message());
    Unreadable(error.message() + "; left as it is");
    return error;
  }
  bool HasObjectOn(uint32_t volume_id, uint64_t ino, uint64_t generation) {
    Result<std::optional<uint64_t>> size = ObjectSizeOn(volume_id, ino, generation);
    return size.ok() && size->has_value();
  }
  bool LacksObjectOn(uint32_t volume_id, uint64_t ino, uint64_t generation) {
    Result<std::optional<uint64_t>> size = ObjectSizeOn(volume_id, ino, generation);
    return size.ok() && !size->has_value();
  }
  // Whether set-aside object `o` is still there.
  bool StillThere(const ObjectEntry& o) {
    return o.key.empty() ? HasObject(o.path) : HasObjectOn(o.volume_id, o.ino, o.generation);
  }
  // How messages name the object of (ino, generation) on `volume_id`.
  std::string ObjectName(uint32_t volume_id, uint64_t ino, uint64_t generation) const {
    if (const ObjectVolume* store = Store(volume_id)) return store->Url(store->Key(ino, generation));
    return ObjectPath(volume_id, ino, generation);
  }

  // The length and XXH3-64 of the object of (ino, generation) on `volume_id`: a
  // local object is read and hashed; an object on a store carries the hash it
  // was uploaded with (x-amz-meta-xxh3, checked against the source before the
  // upload committed). Nullopt when it cannot be read or has no hash.
  std::optional<std::pair<uint64_t, std::string>> LengthAndHash(uint32_t volume_id, uint64_t ino,
                                                                uint64_t generation) {
    if (ObjectVolume* store = Store(volume_id)) {
      Result<S3ObjectInfo> head =
          store->transfer().HeadObject(store->location().bucket, store->Key(ino, generation));
      if (!head.ok()) return std::nullopt;
      auto hash = head->metadata.find(kObjectHashMetadata);
      if (hash == head->metadata.end()) return std::nullopt;
      return std::make_pair(head->size, hash->second);
    }
    const std::string path = ObjectPath(volume_id, ino, generation);
    int fd = o_.io->Open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0);
    if (fd < 0) return std::nullopt;
    struct stat st;
    std::optional<std::pair<uint64_t, std::string>> out;
    if (o_.io->Fstat(fd, &st) == 0) {
      Result<uint64_t> hash = HashObject(*o_.io, fd, st.st_size);
      if (hash.ok()) out.emplace(static_cast<uint64_t>(st.st_size), Xxh3Hex(*hash));
    }
    o_.io->Close(fd);
    return out;
  }

  // An error finding: something the check could not read. Once per message: null
  // when it was made before.
  CheckFinding* Unreadable(std::string message) {
    if (!unreadable_seen_.insert(message).second) return nullptr;
    return &Add("unreadable", FindingSeverity::kError, std::move(message));
  }
  // Volume `v` could not be read at `path`: none of its files or objects is checked
  // (as with a bad label), and no file anywhere is taken for one whose object is
  // missing, since its object may be there (see CheckMissing).
  void VolumeUnreadable(const meta::Volume& v, const std::string& path, int error) {
    good_.erase(v.id);
    unreadable_volumes_.insert(v.id);
    CheckFinding* f = Unreadable("volume " + VolumeText(v.id) + ": " +
                                 Status::FromErrno(error, "cannot read " + path).message() +
                                 "; its files and objects were not checked");
    if (f != nullptr && o_.repair) f->repair = "not repaired: nothing on this volume was touched";
  }

  // ---- database and labels ----------------------------------------------------------

  void CheckDatabase() {
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

  Result<std::vector<std::string>> IntegrityProblems() {
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

  void CheckLabels() {
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

  // ---- object volumes (fs/check/store_check.h) -------------------------------------------

  // Lists every object volume's store whole and files its objects as the walk
  // of a local volume does (Take): each one that is its file's location ticks
  // the file off, the others are set aside for the passes below, which judge
  // them by the same rules as local objects. A store that cannot be opened or
  // listed is not checked at all (as an unreadable volume), and one that holds
  // no object while files of size > 0 are there is taken for a wrong bucket or
  // prefix: its files are not judged missing.
  void ListStores() {
    for (const meta::Volume& v : volumes_) {
      if (!meta::IsObjectVolume(v)) continue;
      const std::string who = "object volume " + v.name + " (" + v.path + " at " + v.endpoint + ")";
      Result<std::unique_ptr<ObjectVolume>> opened = ObjectVolume::Open(v);
      Result<StoreListing> listing =
          opened.ok() ? ListStore(**opened) : Result<StoreListing>(opened.status());
      if (!listing.ok()) {
        unreadable_volumes_.insert(v.id);
        CheckFinding* f = Unreadable(who + ": " + listing.status().message() +
                                     "; its objects were not checked");
        if (f != nullptr && o_.repair) f->repair = "not repaired: nothing on this store was touched";
        continue;
      }
      if (listing->objects.empty() && HasNonEmptyFilesOn(v.id)) {
        unreadable_volumes_.insert(v.id);
        CheckFinding& f = Add("label", FindingSeverity::kDamage,
                              who + ": holds no object, while the database has files with "
                                    "bytes there (a wrong bucket, prefix or account?); its "
                                    "files were not checked");
        if (o_.repair) f.repair = "not repaired: nothing on this store was touched";
        continue;
      }
      ObjectVolume& store = **opened;
      for (const std::string& url : listing->strays) {
        Add("stray", FindingSeverity::kNote, url + ": not named like an object; left alone");
      }
      for (const StoreObject& so : listing->objects) {
        ++report_.objects;
        max_object_ino_ = std::max(max_object_ino_, so.ino);
        auto it = files_.find(so.ino);
        if (it != files_.end() && it->second.volume_id == v.id &&
            it->second.generation == so.generation) {
          it->second.found = true;
          it->second.object_size = so.size;
          continue;
        }
        ObjectEntry o;
        o.volume_id = v.id;
        o.ino = so.ino;
        o.generation = so.generation;
        o.size = so.size;
        o.path = store.Url(so.key);
        o.key = so.key;
        set_aside_.push_back(std::move(o));
      }
      uploads_[v.id] = std::move(listing->uploads);
      stores_[v.id] = std::move(*opened);
      good_.insert(v.id);
    }
  }

  bool HasNonEmptyFilesOn(uint32_t volume_id) const {
    for (const auto& [ino, f] : files_) {
      if (f.volume_id == volume_id && f.nlink > 0 && f.size > 0) return true;
    }
    return false;
  }

  // The opened store of object volume `id`, or null for a local volume (or a
  // store that could not be listed).
  ObjectVolume* Store(uint32_t id) const {
    auto it = stores_.find(id);
    return it == stores_.end() ? nullptr : it->second.get();
  }

  // Multipart uploads a crash cut short: leftovers, aborted by an offline
  // repair (a live daemon may be uploading).
  void CheckUploads() {
    for (const auto& [id, uploads] : uploads_) {
      ObjectVolume* store = Store(id);
      for (const S3MultipartUpload& u : uploads) {
        CheckFinding& f =
            Add("upload", FindingSeverity::kLeftover,
                store->Url(u.key) + ": a multipart upload in progress (begun at " +
                    std::to_string(u.initiated) +
                    " s since the epoch; a crash mid-upload leaves one)");
        if (!can_repair_ || o_.live) continue;
        Status st = store->transfer().AbortMultipartUpload(store->location().bucket, u.key,
                                                           u.upload_id);
        if (st.code() == ENOENT) st = Status::Ok();  // ended meanwhile
        Repaired(f, st, "aborted");
      }
    }
  }

  // ---- the database's view of the files -----------------------------------------------

  Status LoadFiles() {
    return meta_.ForEachRegularFile([&](const meta::Inode& inode) {
      FileEntry& e = files_[inode.ino];
      e.generation = inode.generation;
      e.volume_id = inode.volume_id;
      e.size = inode.size;
      e.nlink = inode.nlink;
    });
  }

  Status LoadPending() {
    pending_.clear();
    Result<std::vector<meta::PendingObject>> rows = meta_.ListPendingObjects();
    if (!rows.ok()) return rows.status();
    for (const meta::PendingObject& p : *rows) pending_[{p.ino, p.volume_id}] = p.generation;
    return Status::Ok();
  }

  bool IsPending(const ObjectEntry& o) const {
    auto it = pending_.find({o.ino, o.volume_id});
    return it != pending_.end() && it->second == o.generation && !o.wrong_subdir;
  }

  // ---- walking the volumes ------------------------------------------------------------

  // Walks one volume's objects (fs/volume/object_walk.h): ticks off each file
  // whose location an object is and sets the others aside. Anything unreadable
  // there leaves the whole volume unchecked, as a bad label does: a file whose
  // object was not seen must not be taken for one whose object is missing.
  void WalkObjects(const meta::Volume& v) {
    const size_t aside_before = set_aside_.size();
    std::optional<std::pair<std::string, int>> unreadable;
    ObjectWalkCallbacks walk;
    walk.stray = [&](const std::string& path) {
      Add("stray", FindingSeverity::kNote,
          path + ": not an objects/xx directory of tierfs; left alone");
    };
    walk.unreadable = [&](const std::string& path, int error) {
      if (!unreadable) unreadable.emplace(path, error);
    };
    walk.entry = [&](const WalkedObject& w) { Take(v, w); };
    WalkObjectStore(*o_.io, v.path, ObjectWalkDepth::kAttributes, walk);
    if (unreadable) {
      set_aside_.erase(set_aside_.begin() + static_cast<ptrdiff_t>(aside_before), set_aside_.end());
      VolumeUnreadable(v, unreadable->first, unreadable->second);
    }
  }

  // One entry of volume `v`'s objects/xx directories.
  void Take(const meta::Volume& v, const WalkedObject& w) {
    if (!S_ISREG(w.st.st_mode) || !w.id) {
      Add("stray", FindingSeverity::kNote,
          w.path + ": not named like an object (" + std::string(TypeName(w.st.st_mode)) +
              "); left alone");
      return;
    }
    ++report_.objects;
    max_object_ino_ = std::max(max_object_ino_, w.id->ino);
    ObjectEntry o;
    o.volume_id = v.id;
    o.ino = w.id->ino;
    o.generation = w.id->generation;
    o.size = static_cast<uint64_t>(w.st.st_size);
    o.path = w.path;
    o.wrong_subdir = w.wrong_subdir;
    auto it = files_.find(o.ino);
    if (!o.wrong_subdir && it != files_.end() && it->second.volume_id == v.id &&
        it->second.generation == o.generation) {
      it->second.found = true;
      it->second.object_size = o.size;
      return;
    }
    set_aside_.push_back(std::move(o));
  }

  void WalkTmp(const meta::Volume& v) {
    const std::string tmp = TmpDir(v.path);
    std::vector<std::string> names;
    if (o_.io->ListDir(tmp, &names) != 0) {
      // No tmp/ is no leftover (VolumeSet recreates it at mount).
      if (errno != ENOENT) {
        Unreadable(Status::FromErrno("cannot read " + tmp).message() +
                   "; its leftovers were not checked");
      }
      return;
    }
    std::vector<std::string> leftovers;
    for (const std::string& name : names) {
      // Empty "free.<n>" files are a mounted volume's recycled objects (VolumeSet):
      // inodes kept for the next creates, not leftovers.
      if (name.rfind("free.", 0) == 0) {
        struct stat st;
        if (o_.io->Lstat(tmp + "/" + name, &st) == 0 && S_ISREG(st.st_mode) &&
            st.st_size == 0) {
          continue;
        }
      }
      leftovers.push_back(tmp + "/" + name);
    }
    std::sort(leftovers.begin(), leftovers.end());
    for (const std::string& path : leftovers) {
      struct stat st;
      if (o_.io->Lstat(path, &st) != 0) {
        if (errno != ENOENT) Unreadable(Status::FromErrno("cannot stat " + path).message());
        continue;
      }
      CheckFinding& f = Add("tmp", FindingSeverity::kLeftover,
                            path + " (" + Bytes(static_cast<uint64_t>(st.st_size)) +
                                "): relocation leftover; the next mount removes it");
      if (!can_repair_) continue;
      if (S_ISDIR(st.st_mode)) {
        f.repair = "not repaired: a directory; remove it by hand";
        continue;
      }
      Status rm = o_.io->Unlink(path) == 0 || errno == ENOENT
                      ? Status::Ok()
                      : Status::FromErrno("unlink " + path);
      Repaired(f, rm, "removed");
    }
  }

  // ---- inode numbers ------------------------------------------------------------------

  // New inodes must not get the number of an object that exists (a restored
  // database older than its volumes): the new file would open those bytes. Runs
  // before any repair creates an inode (lost+found).
  Status CheckInodeSequence() {
    uint64_t highest = max_object_ino_;
    for (const auto& [key, generation] : pending_) highest = std::max(highest, key.first);
    if (highest == 0) return Status::Ok();
    Result<uint64_t> last = meta_.LastInodeNumber();
    if (!last.ok()) return last.status();
    if (highest <= *last) return Status::Ok();
    CheckFinding& f = Add("sequence", FindingSeverity::kDamage,
                          "the next inode number is " + std::to_string(*last + 1) +
                              ", but objects of inodes up to " + std::to_string(highest) +
                              " exist on the volumes (a restored database?): a new file would "
                              "reuse an old object's bytes");
    if (can_repair_) {
      Repaired(f, meta_.RepairInodeSequence(highest),
               "new inodes start after " + std::to_string(highest));
    }
    return Status::Ok();
  }

  // ---- objects that are not their file's location -------------------------------------

  // A file whose object is missing at its location but present under its exact name
  // on exactly one other good volume, of either kind: point the file there. This
  // is what a database restored from a backup older than a relocation looks like
  // (local to local, local to a store, a store to local).
  void CheckMisplaced() {
    std::unordered_map<uint64_t, std::vector<size_t>> by_ino;
    for (size_t i = 0; i < set_aside_.size(); ++i) {
      if (!set_aside_[i].wrong_subdir) by_ino[set_aside_[i].ino].push_back(i);
    }
    for (auto& [ino, indexes] : by_ino) {
      auto it = files_.find(ino);
      if (it == files_.end()) continue;
      FileEntry& file = it->second;
      if (file.found || file.nlink == 0) continue;
      if (VolumeById(file.volume_id) != nullptr && !Good(file.volume_id)) continue;
      std::vector<size_t> matches;
      for (size_t i : indexes) {
        if (set_aside_[i].generation == file.generation) matches.push_back(i);
      }
      if (matches.size() != 1) continue;
      ObjectEntry& o = set_aside_[matches[0]];
      // Still so now? (live: a relocation may have committed meanwhile)
      Result<meta::Inode> now = Current(ino);
      if (!now.ok() || now->volume_id != file.volume_id || now->generation != o.generation ||
          now->nlink == 0 || !StillThere(o) ||
          !LacksObjectOn(file.volume_id, ino, file.generation)) {
        continue;
      }
      o.consumed = true;
      CheckFinding& f = Add("misplaced", FindingSeverity::kDamage,
                            Describe(ino) + ": no object on " + VolumeText(file.volume_id) +
                                " where the database says, but its object " + o.path +
                                " is on " + VolumeText(o.volume_id));
      if (can_repair_) {
        meta::InodeRepair fix;
        fix.ino = ino;
        fix.volume_id = o.volume_id;
        fix.why = "misplaced object: volume " + std::to_string(file.volume_id) + "->" +
                  std::to_string(o.volume_id);
        Status st = meta_.RepairInode(fix);
        if (st.ok()) {
          file.volume_id = o.volume_id;
          if (IsPending(o)) {
            st = meta_.RemovePendingObject(o.ino, o.volume_id);
            pending_.erase({o.ino, o.volume_id});
          }
        }
        Repaired(f, st, "the file now points at " + o.path);
      }
      // Either way its sizes are compared against this object from now on.
      file.found = true;
      file.object_size = o.size;
    }
  }

  // Pending leftovers and orphans.
  Status CheckSetAside() {
    if (o_.live && !set_aside_.empty()) {
      // Relocations may have started or finished while the volumes were walked.
      TIERFS_RETURN_IF_ERROR(LoadPending());
    }
    std::sort(set_aside_.begin(), set_aside_.end(),
              [](const ObjectEntry& a, const ObjectEntry& b) { return a.path < b.path; });
    for (ObjectEntry& o : set_aside_) {
      if (o.consumed) continue;
      if (!StillThere(o)) continue;  // gone meanwhile (live), or unreadable
      if (IsPending(o)) {
        if (o_.live) continue;  // a relocation in flight
        CheckPendingLeftover(o);
        continue;
      }
      std::optional<std::string> why = OrphanReason(o);
      if (!why) continue;  // it is its inode's location after all (live)
      CheckFinding& f = Add("orphan", FindingSeverity::kDamage,
                            "object " + o.path + " (" + Bytes(o.size) + ") on " +
                                VolumeText(o.volume_id) + ": " + *why);
      if (!can_repair_) continue;
      if (o.key.empty()) {
        Adopt(o, f);
      } else {
        SettleStoreOrphan(o, f);
      }
    }
    return Status::Ok();
  }

  // A relocation's other copy that pending_objects records (the next mount
  // deletes it). The repair deletes it only once the file's own object was
  // seen where its row points, or the file is gone: a copy whose file's
  // location could not be read may be the only one left.
  void CheckPendingLeftover(const ObjectEntry& o) {
    CheckFinding& f = Add("pending", FindingSeverity::kLeftover,
                          "object " + o.path + " (" + Bytes(o.size) + ") on " +
                              VolumeText(o.volume_id) +
                              ": relocation leftover recorded in pending_objects; the "
                              "next mount removes it");
    if (!can_repair_) return;
    auto file = files_.find(o.ino);
    if (file != files_.end() && file->second.nlink > 0 && !file->second.found) {
      f.repair = "not repaired: the file's own object was not seen on " +
                 VolumeText(file->second.volume_id) + ", and this may be its only copy";
      return;
    }
    Status st = DeleteObject(o);
    if (st.ok()) st = meta_.RemovePendingObject(o.ino, o.volume_id);
    if (st.ok()) pending_.erase({o.ino, o.volume_id});
    Repaired(f, st, "removed, and its pending_objects row cleared");
  }

  // Deletes set-aside object `o` (unlink, or DELETE on its store).
  Status DeleteObject(const ObjectEntry& o) {
    if (ObjectVolume* store = Store(o.volume_id); store != nullptr && !o.key.empty()) {
      return store->transfer().DeleteObject(store->location().bucket, o.key);
    }
    return o_.io->Unlink(o.path) == 0 || errno == ENOENT ? Status::Ok()
                                                         : Status::FromErrno("unlink " + o.path);
  }

  // The repair of an orphan on a store, which has no rename to move it into
  // /lost+found: nothing the user stored is deleted unless another copy holds
  // the same bytes or the user asked for it (options.delete_orphans).
  //  - no inode of its number: the inode comes back under its own number in
  //    /lost+found (#<ino>.<generation>), and its key is its object;
  //  - its file's object is elsewhere and holds the same bytes (length and
  //    XXH3-64): deleted, a duplicate;
  //  - anything else: kept and reported, or deleted with delete_orphans.
  void SettleStoreOrphan(const ObjectEntry& o, CheckFinding& f) {
    Result<meta::Inode> inode = Current(o.ino);
    if (!inode.ok() && inode.status().code() == ENOENT && !o_.delete_orphans) {
      return AdoptInPlace(o, f);
    }
    if (inode.ok() && S_ISREG(inode->mode) && inode->generation == o.generation &&
        inode->volume_id != o.volume_id) {
      auto mine = LengthAndHash(o.volume_id, o.ino, o.generation);
      auto theirs = LengthAndHash(inode->volume_id, o.ino, o.generation);
      if (mine && theirs && *mine == *theirs) {
        return Repaired(f, DeleteObject(o),
                        "deleted: the file's object " +
                            ObjectName(inode->volume_id, o.ino, o.generation) +
                            " holds the same " + Bytes(mine->first) + " (xxh3 " +
                            mine->second + ")");
      }
      if (!o_.delete_orphans) {
        f.repair = "not repaired: kept, because the file's object " +
                   ObjectName(inode->volume_id, o.ino, o.generation) +
                   (theirs ? " holds other bytes" : " could not be read") +
                   "; read it with your S3 client, then run --delete-orphans";
        return;
      }
    }
    if (!o_.delete_orphans) {
      f.repair = "not repaired: kept (nothing claims it; --delete-orphans deletes it)";
      return;
    }
    Repaired(f, DeleteObject(o), "deleted from the store, as --delete-orphans asks");
  }

  // An orphan of an inode number the database does not know (a file created
  // after a restored backup): that inode again, in /lost+found, without moving
  // a byte (Metadata::RepairAdoptObject; CheckInodeSequence has already made new
  // inode numbers start above it).
  void AdoptInPlace(const ObjectEntry& o, CheckFinding& f) {
    Result<uint64_t> lf = LostFound();
    if (!lf.ok()) return Repaired(f, lf.status(), "");
    Result<std::string> name =
        FreeName(*lf, "#" + std::to_string(o.ino) + "." + std::to_string(o.generation));
    if (!name.ok()) return Repaired(f, name.status(), "");
    Repaired(f, meta_.RepairAdoptObject(*lf, *name, o.ino, o.generation, o.volume_id, o.size),
             "now /lost+found/" + *name + " (inode " + std::to_string(o.ino) + ", its object " +
                 "where it is)");
  }

  // Why `o` is an orphan, or nullopt when it is its inode's location now.
  std::optional<std::string> OrphanReason(const ObjectEntry& o) {
    if (o.wrong_subdir) {
      return "in the wrong directory (objects of inode " + std::to_string(o.ino) + " live in " +
             ObjectSubdirName(o.ino) + "/)";
    }
    Result<meta::Inode> inode = Current(o.ino);
    if (!inode.ok()) return "no inode " + std::to_string(o.ino);
    if (!S_ISREG(inode->mode)) {
      return "inode " + std::to_string(o.ino) + " is a " + TypeName(inode->mode);
    }
    if (inode->volume_id == o.volume_id && inode->generation == o.generation) {
      return std::nullopt;
    }
    if (inode->generation != o.generation) {
      return Describe(o.ino) + " has generation " + std::to_string(inode->generation);
    }
    return Describe(o.ino) + " is on " + VolumeText(inode->volume_id);
  }

  // ---- sizes and missing objects -------------------------------------------------------

  void CheckSizes() {
    std::vector<uint64_t> inos;
    for (const auto& [ino, file] : files_) {
      if (file.found && file.nlink > 0 && file.object_size != file.size) inos.push_back(ino);
    }
    std::sort(inos.begin(), inos.end());
    for (uint64_t ino : inos) {
      const FileEntry& file = files_[ino];
      if (!Good(file.volume_id)) continue;
      // Again, now: an open file's size may not be flushed yet (live), and a repair
      // above may have changed the file.
      Result<meta::Inode> now = Current(ino);
      if (!now.ok() || now->nlink == 0 || now->volume_id != file.volume_id ||
          now->generation != file.generation) {
        continue;
      }
      const std::string path = ObjectName(file.volume_id, ino, file.generation);
      Result<std::optional<uint64_t>> seen = ObjectSizeOn(file.volume_id, ino, file.generation);
      if (!seen.ok() || !*seen || **seen == now->size) continue;
      const std::optional<uint64_t> object_size = *seen;
      const uint64_t size = now->size;
      const bool on_store = Store(file.volume_id) != nullptr;
      if (*object_size > size) {
        CheckFinding& f =
            Add("long", FindingSeverity::kDamage,
                Describe(ino) + ": object " + path + " has " + Bytes(*object_size) +
                    ", the file " + Bytes(size) + " (" + Bytes(*object_size - size) +
                    (kernel_wrote_ ? " written by the kernel through passthrough opens)"
                                   : " never acknowledged)"));
        if (!can_repair_) continue;
        if (o_.trust_objects || kernel_wrote_) {
          Repaired(f, SetSize(ino, *object_size, kernel_wrote_ ? "long object, passthrough"
                                                               : "long object, trusted"),
                   "size set to " + Bytes(*object_size) + " (the object's length)");
        } else if (on_store) {
          f.repair = "not repaired: an object on a store is never rewritten; reads stop at "
                     "the file's size (--trust-objects takes the object's length)";
        } else {
          Repaired(f, TrimFile(*o_.io, path, size, /*durable=*/true),
                   "object trimmed to " + Bytes(size));
        }
      } else {
        const uint64_t missing = size - *object_size;
        CheckFinding& f = Add("short", FindingSeverity::kDamage,
                              Describe(ino) + ": object " + path + " has " + Bytes(*object_size) +
                                  ", the file " + Bytes(size) + " (" + Bytes(missing) +
                                  " of acknowledged data missing at its end)");
        if (!can_repair_) continue;
        std::optional<std::string> other;
        if (!on_store) other = OtherCopyCovering(ino, file, path, *object_size, size);
        if (other) {
          // A relocation's other object (its source, kept by crash recovery because
          // the location is short) that holds the same bytes as far as the location
          // goes: the missing range was never written after the location took over,
          // or the location would reach past it.
          Repaired(f, CopyTail(*other, path, *object_size, size),
                   "restored the missing " + Bytes(missing) + " from " + *other +
                       " (the relocation's other object)");
          continue;
        }
        Status st = SetSize(ino, *object_size, "short object");
        f.data_loss = st.ok();
        Repaired(f, st,
                 "cannot restore " + Bytes(missing) + " (no other object of the file holds "
                 "them); size set to " + Bytes(*object_size) + ": DATA LOST (" + Bytes(missing) +
                     " at the end of the file)");
      }
    }
  }

  void CheckMissing() {
    std::vector<uint64_t> inos;
    for (const auto& [ino, file] : files_) {
      // A file on a volume the database does not know cannot even be opened empty.
      const bool unknown_volume = VolumeById(file.volume_id) == nullptr;
      if (!file.found && file.nlink > 0 && (file.size > 0 || unknown_volume)) inos.push_back(ino);
    }
    std::sort(inos.begin(), inos.end());
    for (uint64_t ino : inos) {
      const FileEntry& file = files_[ino];
      if (VolumeById(file.volume_id) != nullptr && !Good(file.volume_id)) continue;
      Result<meta::Inode> now = Current(ino);
      if (!now.ok() || now->nlink == 0) continue;
      const bool unknown_volume = VolumeById(now->volume_id) == nullptr;
      if (now->size == 0 && !unknown_volume) continue;
      const std::string path = ObjectName(now->volume_id, ino, now->generation);
      if (VolumeById(now->volume_id) != nullptr &&
          (!Good(now->volume_id) || !LacksObjectOn(now->volume_id, ino, now->generation))) {
        continue;  // moved meanwhile, or an interrupted lost+found move just finished
      }
      std::string where = VolumeById(now->volume_id) == nullptr
                              ? "is on " + VolumeText(now->volume_id)
                              : "has no object on " + VolumeText(now->volume_id) + " (" +
                                    path + ")";
      CheckFinding& f = Add("missing", FindingSeverity::kDamage,
                            Describe(ino) + ", " + Bytes(now->size) + ", " + where);
      if (!can_repair_) continue;
      if (!unreadable_volumes_.empty()) {
        f.repair = "not repaired: a volume could not be read, and the object may be there";
        continue;
      }
      meta::InodeRepair fix;
      fix.ino = ino;
      fix.size = 0;
      fix.why = "missing object: size " + std::to_string(now->size) + "->0";
      // A file on a volume the database does not know gets the first volume: its
      // next open creates an empty object there.
      if (VolumeById(now->volume_id) == nullptr) fix.volume_id = volumes_.front().id;
      Status st = meta_.RepairInode(fix);
      f.data_loss = st.ok() && now->size > 0;
      std::string what = now->size > 0 ? "size set to 0: DATA LOST (" + Bytes(now->size) + ")"
                                       : "size 0";
      if (fix.volume_id) what += ", on " + VolumeText(*fix.volume_id);
      Repaired(f, st, what);
    }
  }

  // pending_objects rows whose object was not seen as a leftover: the object is its
  // inode's location (the row outlived a committed relocation) or is gone.
  void CheckPendingRows() {
    for (const auto& [key, generation] : pending_) {
      const auto [ino, volume_id] = key;
      if (!Good(volume_id)) continue;
      Result<std::optional<uint64_t>> seen = ObjectSizeOn(volume_id, ino, generation);
      if (!seen.ok()) continue;  // reported as unreadable
      const bool present = seen->has_value();
      if (present) {
        auto it = files_.find(ino);
        const bool is_location = it != files_.end() && it->second.volume_id == volume_id &&
                                 it->second.generation == generation;
        if (!is_location) continue;  // reported with the objects above
      }
      CheckFinding& f =
          Add("pending", FindingSeverity::kLeftover,
              "pending_objects row (inode " + std::to_string(ino) + ", " +
                  VolumeText(volume_id) + "): " +
                  (present ? "its object is the inode's location" : "its object is gone") +
                  "; the next mount clears it");
      if (can_repair_) {
        Repaired(f, meta_.RemovePendingObject(ino, volume_id), "row cleared");
      }
    }
  }

  // ---- the namespace ------------------------------------------------------------------

  Status CheckNamespace() {
    Result<std::vector<meta::DirentProblem>> dirents = meta_.DirentProblems();
    if (!dirents.ok()) return dirents.status();
    for (const meta::DirentProblem& p : *dirents) {
      std::string why;
      if (p.inode_missing) why = "names inode " + std::to_string(p.ino) + ", which does not exist";
      if (p.parent_missing) {
        why += std::string(why.empty() ? "" : "; ") + "its directory does not exist";
      } else if (p.parent_not_directory) {
        why += std::string(why.empty() ? "" : "; ") + "its parent is not a directory";
      }
      CheckFinding& f = Add("dirent", FindingSeverity::kDamage,
                            "entry '" + p.name + "' of " +
                                (p.parent_missing ? "inode " + std::to_string(p.parent)
                                                  : Describe(p.parent)) +
                                " -> inode " + std::to_string(p.ino) + ": " + why);
      if (can_repair_) {
        Repaired(f, meta_.RepairRemoveDirent(p.parent, p.name),
                 p.inode_missing ? "entry removed"
                                 : "entry removed (its inode, if no other entry names it, "
                                   "goes to /lost+found)");
      }
    }
    Result<std::vector<meta::LinkCountProblem>> links = meta_.LinkCountProblems();
    if (!links.ok()) return links.status();
    std::map<uint64_t, size_t> nlink_findings;  // ino -> index in findings
    for (const meta::LinkCountProblem& p : *links) {
      const bool is_dir = S_ISDIR(p.mode);
      const bool is_root = p.ino == meta::kRootIno;
      if (!is_root && p.names == 0) {
        CheckFinding& f =
            Add("unnamed", FindingSeverity::kDamage,
                "inode " + std::to_string(p.ino) + " (" + TypeName(p.mode) + ", nlink " +
                    std::to_string(p.nlink) + ") has no name");
        if (can_repair_) Reconnect(p, f);
        continue;
      }
      if (is_dir && p.names != (is_root ? 0u : 1u)) {
        CheckFinding& f = Add("dirent", FindingSeverity::kDamage,
                              Describe(p.ino) + ": a directory named by " +
                                  std::to_string(p.names) + " entries");
        if (o_.repair) f.repair = "not repaired: remove the extra entries by hand";
      }
      if (p.nlink == p.expected) continue;
      std::string expected =
          is_dir ? std::to_string(p.expected) + " (2 + " + std::to_string(p.subdirs) +
                       " subdirectories)"
                 : std::to_string(p.expected) + " (the entries naming it)";
      Add("nlink", FindingSeverity::kDamage,
          Describe(p.ino) + ", " + TypeName(p.mode) + ": nlink " + std::to_string(p.nlink) +
              ", expected " + expected);
      nlink_findings[p.ino] = report_.findings.size() - 1;
    }
    if (!can_repair_) return Status::Ok();
    // Link counts once every entry is in place (removals, lost+found), from a fresh
    // count: also fixes the counts the reconnections changed.
    links = meta_.LinkCountProblems();
    if (!links.ok()) return links.status();
    for (const meta::LinkCountProblem& p : *links) {
      if (p.names == 0 && p.ino != meta::kRootIno) continue;  // could not be reconnected
      meta::InodeRepair fix;
      fix.ino = p.ino;
      fix.nlink = p.expected;
      Status st = meta_.RepairInode(fix);
      auto it = nlink_findings.find(p.ino);
      if (it != nlink_findings.end()) {
        Repaired(report_.findings[it->second], st,
                 "nlink set to " + std::to_string(p.expected));
      } else if (!st.ok()) {
        Add("nlink", FindingSeverity::kDamage,
            Describe(p.ino) + ": nlink " + std::to_string(p.nlink) + ", expected " +
                std::to_string(p.expected) + " after the repairs; " + st.message());
      }
    }
    return Status::Ok();
  }

  // ---- repairs ------------------------------------------------------------------------

  Status SetSize(uint64_t ino, uint64_t size, const std::string& why) {
    meta::InodeRepair fix;
    fix.ino = ino;
    fix.size = size;
    fix.why = why + ": size ->" + std::to_string(size);
    return meta_.RepairInode(fix);
  }

  // The path of an object of `file` (same inode and generation) on another good
  // volume that is at least `size` bytes long and whose first `short_size` bytes
  // equal those of `location` (the short object), if any: a copy of the same
  // contents, not a stale one that later writes made differ.
  std::optional<std::string> OtherCopyCovering(uint64_t ino, const FileEntry& file,
                                               const std::string& location,
                                               uint64_t short_size, uint64_t size) {
    for (const meta::Volume& v : volumes_) {
      if (v.id == file.volume_id || !Good(v.id) || Store(v.id) != nullptr) continue;
      const std::string other = ObjectPath(v.id, ino, file.generation);
      Result<std::optional<uint64_t>> other_size = ObjectSize(other);
      if (other_size.ok() && *other_size && **other_size >= size &&
          SamePrefix(location, other, short_size)) {
        return other;
      }
    }
    return std::nullopt;
  }

  // Whether the first `n` bytes of files `a` and `b` are equal (false on any error).
  bool SamePrefix(const std::string& a, const std::string& b, uint64_t n) {
    int fa = o_.io->Open(a, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0);
    int fb = o_.io->Open(b, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0);
    bool same = fa >= 0 && fb >= 0;
    std::vector<char> ba(1 << 20), bb(1 << 20);
    for (uint64_t at = 0; same && at < n;) {
      const size_t want = static_cast<size_t>(std::min<uint64_t>(ba.size(), n - at));
      const ssize_t ra = o_.io->Pread(fa, ba.data(), want, static_cast<off_t>(at));
      const ssize_t rb = o_.io->Pread(fb, bb.data(), want, static_cast<off_t>(at));
      same = ra > 0 && ra == rb && std::equal(ba.begin(), ba.begin() + ra, bb.begin());
      at += ra > 0 ? static_cast<uint64_t>(ra) : 0;
    }
    if (fa >= 0) o_.io->Close(fa);
    if (fb >= 0) o_.io->Close(fb);
    return same;
  }

  // Copies bytes [from, to) of `source` into `target` at the same offsets, and
  // fsyncs `target`.
  Status CopyTail(const std::string& source, const std::string& target, uint64_t from,
                  uint64_t to) {
    int in = o_.io->Open(source, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0);
    if (in < 0) return Status::FromErrno("open " + source);
    int out = o_.io->Open(target, O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0);
    Status st = out < 0 ? Status::FromErrno("open " + target)
                        : CopyRange(*o_.io, in, out, static_cast<off_t>(from),
                                    static_cast<off_t>(to - from));
    if (st.ok() && o_.io->Fsync(out, false) != 0) st = Status::FromErrno("fsync " + target);
    o_.io->Close(in);
    if (out >= 0) o_.io->Close(out);
    return st;
  }

  // /lost+found, created (mode 0700, root) when missing.
  Result<uint64_t> LostFound() {
    if (lost_found_) return *lost_found_;
    Result<meta::Inode> existing = meta_.LookupInode(meta::kRootIno, kLostFound);
    if (existing.ok()) {
      if (!S_ISDIR(existing->mode)) {
        return Status::Error(ENOTDIR, "/lost+found exists and is not a directory");
      }
      lost_found_ = existing->ino;
      return *lost_found_;
    }
    if (existing.status().code() != ENOENT) return existing.status();
    meta::Inode proto;
    proto.mode = S_IFDIR | 0700;
    Result<meta::Inode> created = meta_.Create(meta::kRootIno, kLostFound, proto);
    if (!created.ok()) return created.status();
    lost_found_ = created->ino;
    return *lost_found_;
  }

  // `base`, or `base`-2, -3... whichever is free in `dir`.
  Result<std::string> FreeName(uint64_t dir, const std::string& base) {
    for (int n = 1; n < 1000; ++n) {
      std::string name = n == 1 ? base : base + "-" + std::to_string(n);
      Result<uint64_t> taken = meta_.Lookup(dir, name);
      if (!taken.ok() && taken.status().code() == ENOENT) return name;
      if (!taken.ok()) return taken.status();
    }
    return Status::Exists("no free name for " + base + " in /lost+found");
  }

  // Moves orphan `o` into /lost+found as a new file (see the file comment of fsck.h).
  void Adopt(const ObjectEntry& o, CheckFinding& f) {
    Result<uint64_t> lf = LostFound();
    if (!lf.ok()) return Repaired(f, lf.status(), "");
    const std::string base = "#" + std::to_string(o.ino) + "." + std::to_string(o.generation);
    const meta::Volume* v = VolumeById(o.volume_id);
    // An earlier repair that stopped between its commit and its rename left
    // /lost+found/#I.G pointing at no object on this volume: finish it.
    std::optional<meta::Inode> target;
    bool resumed = false;
    std::string name = base;
    if (Result<meta::Inode> prior = meta_.LookupInode(*lf, base);
        prior.ok() && S_ISREG(prior->mode) && prior->volume_id == o.volume_id &&
        LacksObject(ObjectPathIn(v->path, prior->ino, prior->generation))) {
      target = *prior;
      resumed = true;
      if (prior->size != o.size) {
        Status st = SetSize(prior->ino, o.size, "lost+found");
        if (!st.ok()) return Repaired(f, st, "");
      }
    } else {
      Result<std::string> free_name = FreeName(*lf, base);
      if (!free_name.ok()) return Repaired(f, free_name.status(), "");
      name = *free_name;
      meta::Inode proto;
      proto.mode = S_IFREG | 0600;
      proto.volume_id = o.volume_id;
      proto.size = o.size;
      Result<meta::Inode> created = meta_.Create(*lf, name, proto);
      if (!created.ok()) return Repaired(f, created.status(), "");
      target = *created;
    }
    const std::string to = ObjectPathIn(v->path, target->ino, target->generation);
    const std::string to_dir = ObjectsDir(v->path) + "/" + ObjectSubdirName(target->ino);
    Status st;
    if (o_.io->Mkdir(to_dir, 0700) != 0 && errno != EEXIST) {
      st = Status::FromErrno("mkdir " + to_dir);
    } else if (o_.io->Rename(o.path, to) != 0) {
      st = Status::FromErrno("rename " + o.path + " to " + to);
    }
    if (!st.ok()) {
      // Do not leave a name without its bytes: unlinked, the next mount reclaims it.
      if (!resumed) (void)meta_.Unlink(*lf, name);
      return Repaired(f, st, "");
    }
    const std::string from_dir = o.path.substr(0, o.path.rfind('/'));
    st = SyncDirectory(*o_.io, to_dir);
    if (st.ok() && from_dir != to_dir) st = SyncDirectory(*o_.io, from_dir);
    Repaired(f, st,
             std::string(resumed ? "finished an interrupted move: " : "") + "now /lost+found/" +
                 name + " (inode " + std::to_string(target->ino) + ")");
  }

  // Links an inode no entry names into /lost+found as #<ino>.
  void Reconnect(const meta::LinkCountProblem& p, CheckFinding& f) {
    Result<uint64_t> lf = LostFound();
    if (!lf.ok()) return Repaired(f, lf.status(), "");
    if (p.ino == *lf) return Repaired(f, Status::Invalid("lost+found itself"), "");
    Result<std::string> name = FreeName(*lf, "#" + std::to_string(p.ino));
    if (!name.ok()) return Repaired(f, name.status(), "");
    Repaired(f, meta_.RepairAddDirent(*lf, *name, p.ino), "linked as /lost+found/" + *name);
  }

  meta::Metadata& meta_;
  const CheckOptions& o_;
  CheckReport report_;
  meta::FsInfo info_;
  std::vector<meta::Volume> volumes_;
  std::set<uint32_t> good_;  // volumes whose label (and objects/) are right
  std::set<uint32_t> unreadable_volumes_;  // volumes an I/O error kept from being checked
  std::set<std::string> unreadable_seen_;  // messages of "unreadable" findings made
  bool db_ok_ = true;
  bool can_repair_ = false;
  // Offline, after a crash of a mount with passthrough opens: long objects hold
  // bytes the kernel wrote (msync may have made them durable), kept as the next
  // mount would keep them (Metadata::CrashedWithPassthroughWrites).
  bool kernel_wrote_ = false;
  std::unordered_map<uint64_t, FileEntry> files_;
  std::map<std::pair<uint64_t, uint32_t>, uint64_t> pending_;  // (ino, volume) -> generation
  std::vector<ObjectEntry> set_aside_;
  uint64_t max_object_ino_ = 0;  // the highest inode number in an object's name
  std::optional<uint64_t> lost_found_;
  // Object volumes listed whole, and their multipart uploads in progress.
  std::map<uint32_t, std::unique_ptr<ObjectVolume>> stores_;
  std::map<uint32_t, std::vector<S3MultipartUpload>> uploads_;
};

FindingSeverity SeverityFromName(const std::string& name) {
  if (name == "error") return FindingSeverity::kError;
  if (name == "leftover") return FindingSeverity::kLeftover;
  if (name == "note") return FindingSeverity::kNote;
  return FindingSeverity::kDamage;
}

}  // namespace

const char* FindingSeverityName(FindingSeverity severity) {
  switch (severity) {
    case FindingSeverity::kDamage: return "damage";
    case FindingSeverity::kLeftover: return "leftover";
    case FindingSeverity::kNote: return "note";
    case FindingSeverity::kError: return "error";
  }
  return "damage";
}

size_t CheckReport::UnrepairedDamage() const {
  return static_cast<size_t>(std::count_if(findings.begin(), findings.end(), [](const auto& f) {
    return f.severity == FindingSeverity::kDamage && !f.repaired;
  }));
}

size_t CheckReport::Errors() const {
  return static_cast<size_t>(std::count_if(findings.begin(), findings.end(), [](const auto& f) {
    return f.severity == FindingSeverity::kError;
  }));
}

size_t CheckReport::Repaired() const {
  return static_cast<size_t>(
      std::count_if(findings.begin(), findings.end(), [](const auto& f) { return f.repaired; }));
}

json CheckReport::ToJson() const {
  json out = json::array();
  for (const CheckFinding& f : findings) {
    out.push_back({{"kind", f.kind},
                   {"severity", FindingSeverityName(f.severity)},
                   {"message", f.message},
                   {"repaired", f.repaired},
                   {"repair", f.repair},
                   {"data_loss", f.data_loss}});
  }
  return json{{"findings", out}, {"volumes", volumes}, {"files", files},
              {"objects", objects}, {"live", live}, {"repair", repair}};
}

Result<CheckReport> CheckReport::FromJson(const json& j) {
  if (!j.is_object() || !j.contains("findings") || !j["findings"].is_array()) {
    return Status::Invalid("check report without findings");
  }
  try {
    CheckReport r;
    for (const json& f : j["findings"]) {
      CheckFinding finding;
      finding.kind = f.at("kind").get<std::string>();
      finding.severity = SeverityFromName(f.at("severity").get<std::string>());
      finding.message = f.at("message").get<std::string>();
      finding.repaired = f.value("repaired", false);
      finding.repair = f.value("repair", "");
      finding.data_loss = f.value("data_loss", false);
      r.findings.push_back(std::move(finding));
    }
    r.volumes = j.value("volumes", uint64_t{0});
    r.files = j.value("files", uint64_t{0});
    r.objects = j.value("objects", uint64_t{0});
    r.live = j.value("live", false);
    r.repair = j.value("repair", false);
    return r;
  } catch (const json::exception& e) {
    return Status::Invalid(std::string("malformed check report: ") + e.what());
  }
}

Result<CheckReport> CheckFileSystem(meta::Metadata& meta, const CheckOptions& options) {
  if (options.io == nullptr) return Status::Invalid("CheckOptions.io is null");
  return Checker(meta, options).Run();
}

}  // namespace tierfs
