// Metadata: opening and formatting the database, file-system facts, volumes.
// The other methods live beside this file by family (namespace_ops.cc,
// rename.cc, xattr_ops.cc, walk.cc, iostat.cc, fcl.cc, history.cc).
#include "meta/metadata.h"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

#include "meta/database.h"
#include "meta/group_committer.h"
#include "meta/info_table.h"
#include "meta/schema.h"

namespace tierfs::meta {
namespace {

constexpr char kInsertVolume[] =
    "INSERT INTO volumes(id, name, path, placement_class, media_type, media_type_source, role, "
    "state, endpoint, credentials_file, region, addressing, ca_file) VALUES (NULLIF(?1, 0), ?2, "
    "?3, ?4, ?5, ?6, ?7, ?8, NULLIF(?9, ''), NULLIF(?10, ''), NULLIF(?11, ''), NULLIF(?12, ''), "
    "NULLIF(?13, ''))";

Status InsertVolume(Database* db, Volume* volume) {
  Statement st = db->Prepare(kInsertVolume);
  st.BindAll(volume->id, volume->name, volume->path, volume->placement_class,
             volume->media_type, volume->media_type_source, volume->role, volume->state,
             volume->endpoint, volume->credentials_file, volume->region, volume->addressing,
             volume->ca_file);
  TIERFS_RETURN_IF_ERROR(st.Run());
  volume->id = static_cast<uint32_t>(db->LastInsertRowId());
  return Status::Ok();
}

// Fills the empty database file at `db_path`.
Status FormatFile(const std::string& db_path, const FsInfo& info,
                  const std::vector<Volume>& volumes, uid_t root_uid, gid_t root_gid,
                  const Clock& clock, FileIo* io) {
  Database::Settings settings;
  settings.io = io;
  META_ASSIGN_OR_RETURN(Database db,
                        Database::Open(db_path, Database::OpenMode::kExisting, settings));
  auto lock = db.Lock();
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(&db));
  TIERFS_RETURN_IF_ERROR(CreateSchema(&db));
  const int64_t now = clock.NowNanos();
  TIERFS_RETURN_IF_ERROR(SetInfoText(&db, kInfoUuid, info.uuid));
  TIERFS_RETURN_IF_ERROR(SetInfoText(&db, kInfoName, info.name));
  TIERFS_RETURN_IF_ERROR(
      SetInfoInt(&db, kInfoCreatedNs, info.created_ns != 0 ? info.created_ns : now));
  TIERFS_RETURN_IF_ERROR(SetInfoInt(&db, kInfoBucketSeconds, info.iostat_bucket_seconds));
  TIERFS_RETURN_IF_ERROR(SetInfoText(&db, kInfoFclState, "on"));
  // A new file system has no objects: its first mount has nothing to recover.
  TIERFS_RETURN_IF_ERROR(SetInfoInt(&db, kInfoCleanUnmount, 1));
  for (size_t i = 0; i < volumes.size(); ++i) {
    Volume volume = volumes[i];
    volume.id = static_cast<uint32_t>(i + 1);
    TIERFS_RETURN_IF_ERROR(InsertVolume(&db, &volume));
  }
  Statement root = db.Prepare(
      "INSERT INTO inodes(ino, generation, mode, uid, gid, nlink, size, atime_ns, mtime_ns, "
      "ctime_ns, rdev, symlink, volume_id) VALUES (?1, 1, ?2, ?3, ?4, 2, 0, ?5, ?5, ?5, 0, NULL, "
      "NULL)");
  root.BindAll(kRootIno, S_IFDIR | 0755, root_uid, root_gid, now);
  TIERFS_RETURN_IF_ERROR(root.Run());
  return txn.Commit();
}

// Metadata::Open's checks (CheckDatabase on an OpenForCheck connection), with
// errors naming the file: "metadata database /v/.tierfs/meta.db is damaged (...)".
Status CheckBeforeOpen(const std::string& db_path, FileIo& io) {
  Status status = [&]() -> Status {
    META_ASSIGN_OR_RETURN(Database db, Database::OpenForCheck(db_path, io));
    auto lock = db.Lock();
    return CheckDatabase(&db);
  }();
  if (status.ok() || status.code() == ENOENT) return status;
  if (status.code() == EUCLEAN && status.message().rfind("damaged", 0) == 0) {
    return Status::Error(EUCLEAN, "metadata database " + db_path + " is " + status.message());
  }
  if (status.code() == EUCLEAN) {
    return Status::Error(EUCLEAN, "metadata database " + status.message());
  }
  return Status::Error(status.code(), "metadata database " + db_path + ": " + status.message());
}

}  // namespace

Metadata::Metadata(std::unique_ptr<Database> db, const MetadataOptions& options)
    : db_(std::move(db)), options_(options), dentries_(options.cached_dentries) {
  // A lost group took back changes the cache already shows.
  db_->SetGroupLostHook([this] { dentries_.Disable(); });
}

Metadata::~Metadata() = default;

void Metadata::StartGroupCommit(std::chrono::microseconds window,
                                std::function<void()> after_commit) {
  if (window.count() <= 0 || committer_ != nullptr) return;
  committer_ = std::make_unique<GroupCommitter>(db_.get(), window, std::move(after_commit));
}

Metadata::ChangeLock Metadata::LockForChange() {
  auto lock = db_->Lock();
  return ChangeLock{std::move(lock), options_.clock->NowNanos()};
}

Metadata::BatchScope::BatchScope(Metadata& meta) : committer_(meta.committer_.get()) {
  if (committer_ != nullptr) committer_->Hold();
}

Metadata::BatchScope::~BatchScope() {
  if (committer_ != nullptr) committer_->Release();
}

Status Metadata::Sync() {
  auto lock = db_->Lock();
  return db_->CommitGroup();
}

std::optional<uint64_t> Metadata::UncommittedTicket() { return db_->UncommittedTicket(); }

uint64_t Metadata::CommittedTickets() { return db_->CommittedTickets(); }

meta::LockWaits Metadata::LockWaits() const { return db_->lock_waits(); }

Status Metadata::Format(const std::string& db_path, const FsInfo& info,
                        const std::vector<Volume>& volumes, uid_t root_uid, gid_t root_gid,
                        const Clock& clock, FileIo* io) {
  if (volumes.empty()) return Status::Invalid("a file system needs at least one volume");
  if (info.iostat_bucket_seconds < kMinIoBucketSeconds ||
      info.iostat_bucket_seconds > kMaxIoBucketSeconds) {
    return Status::Invalid("iostat bucket must be 1 to 86400 s, got " +
                           std::to_string(info.iostat_bucket_seconds));
  }
  // O_EXCL: never format over an existing file. 0600: the database is the
  // daemon's; tools reach it through the daemon.
  FileIo& calls = io != nullptr ? *io : FileIo::Posix();
  int fd = calls.Open(db_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return Status::FromErrno("create " + db_path);
  if (calls.Close(fd) != 0) {
    Status status = Status::FromErrno("create " + db_path);
    calls.Unlink(db_path);
    return status;
  }
  Status status = FormatFile(db_path, info, volumes, root_uid, root_gid, clock, io);
  if (!status.ok()) {
    // Leave nothing half-made behind, so that a retry can succeed.
    for (const char* suffix : {"", "-wal", "-shm"}) {
      if (calls.Unlink(db_path + suffix) != 0 && errno != ENOENT) {
        return Status::Error(status.code(), status.message() + "; " + db_path + suffix +
                                                " is left behind: " + std::strerror(errno));
      }
    }
  }
  return status;
}

Result<std::unique_ptr<Metadata>> Metadata::Open(const std::string& db_path,
                                                 const MetadataOptions& options) {
  if (options.clock == nullptr) return Status::Invalid("MetadataOptions.clock is null");
  // Checks first, on a connection that changes nothing, so that a database
  // refused here is left exactly as it was (the read-write open below may
  // checkpoint a WAL, create one, or write the header of an empty file).
  TIERFS_RETURN_IF_ERROR(CheckBeforeOpen(
      db_path, options.io != nullptr ? *options.io : FileIo::Posix()));
  Database::Settings settings;
  settings.sync_full = options.sync_full;
  settings.io = options.io;
  META_ASSIGN_OR_RETURN(Database db,
                        Database::Open(db_path, Database::OpenMode::kExisting, settings));
  {
    auto lock = db.Lock();
    TIERFS_RETURN_IF_ERROR(Migrate(&db));
  }
  return std::unique_ptr<Metadata>(
      new Metadata(std::make_unique<Database>(std::move(db)), options));
}

Result<FsInfo> Metadata::GetFsInfo() {
  auto lock = db_->Lock();
  FsInfo info;
  META_ASSIGN_OR_RETURN(info.uuid, GetInfoText(db_.get(), kInfoUuid));
  META_ASSIGN_OR_RETURN(info.name, GetInfoText(db_.get(), kInfoName));
  META_ASSIGN_OR_RETURN(info.created_ns, GetInfoInt(db_.get(), kInfoCreatedNs));
  META_ASSIGN_OR_RETURN(info.iostat_bucket_seconds, GetInfoInt(db_.get(), kInfoBucketSeconds));
  return info;
}

Result<std::vector<Volume>> Metadata::ListVolumes() {
  auto lock = db_->Lock();
  Statement st = db_->Prepare(
      "SELECT id, name, path, placement_class, media_type, media_type_source, role, state, "
      "coalesce(endpoint, ''), coalesce(credentials_file, ''), coalesce(region, ''), "
      "coalesce(addressing, ''), coalesce(ca_file, '') FROM volumes ORDER BY id");
  std::vector<Volume> volumes;
  TIERFS_RETURN_IF_ERROR(st.AppendRows(&volumes, [](const Statement& r) {
    Volume v;
    v.id = static_cast<uint32_t>(r.Int64(0));
    v.name = r.Text(1);
    v.path = r.Text(2);
    v.placement_class = r.Text(3);
    v.media_type = r.Text(4);
    v.media_type_source = r.Text(5);
    v.role = r.Text(6);
    v.state = r.Text(7);
    v.endpoint = r.Text(8);
    v.credentials_file = r.Text(9);
    v.region = r.Text(10);
    v.addressing = r.Text(11);
    v.ca_file = r.Text(12);
    return v;
  }));
  return volumes;
}

Status Metadata::AddVolume(Volume* volume) {
  auto lock = db_->Lock();
  volume->id = 0;  // the database assigns the next id
  return InsertVolume(db_.get(), volume);
}

Result<uint32_t> Metadata::NextVolumeId() {
  auto lock = db_->Lock();
  Statement st = db_->Prepare("SELECT coalesce(max(id), 0) FROM volumes");
  META_ASSIGN_OR_RETURN(bool row, st.Step());
  int64_t last = row ? st.Int64(0) : 0;
  Result<int64_t> recorded = GetInfoInt(db_.get(), kInfoLastVolumeId);
  if (recorded.ok()) last = std::max(last, *recorded);
  return static_cast<uint32_t>(last + 1);
}

Status Metadata::AddVolumeWithId(const Volume& volume) {
  if (volume.id == 0) return Status::Invalid("AddVolumeWithId: volume id 0");
  auto lock = db_->Lock();
  Volume copy = volume;
  return InsertVolume(db_.get(), &copy);
}

Status Metadata::RemoveVolume(uint32_t id) {
  if (id == 1) return Status::Invalid("volume 1 holds the metadata and cannot be removed");
  auto lock = db_->Lock();
  META_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db_.get()));
  {
    Statement exists = db_->Prepare("SELECT count(*) FROM volumes WHERE id = ?1");
    exists.BindAll(id);
    META_ASSIGN_OR_RETURN(bool row, exists.Step());
    if (!row || exists.Int64(0) == 0) {
      return Status::NotFound("no volume " + std::to_string(id));
    }
  }
  {
    Statement files = db_->Prepare("SELECT count(*) FROM inodes WHERE volume_id = ?1");
    files.BindAll(id);
    META_ASSIGN_OR_RETURN(bool row, files.Step());
    const int64_t n = row ? files.Int64(0) : 0;
    if (n > 0) {
      return Status::Error(EBUSY, std::to_string(n) + " file(s) still have their object on volume " +
                                      std::to_string(id));
    }
  }
  Statement pending = db_->Prepare("DELETE FROM pending_objects WHERE volume_id = ?1");
  pending.BindAll(id);
  TIERFS_RETURN_IF_ERROR(pending.Run());
  Statement del = db_->Prepare("DELETE FROM volumes WHERE id = ?1");
  del.BindAll(id);
  TIERFS_RETURN_IF_ERROR(del.Run());
  Result<int64_t> recorded = GetInfoInt(db_.get(), kInfoLastVolumeId);
  const int64_t last = recorded.ok() ? std::max<int64_t>(*recorded, id) : id;
  TIERFS_RETURN_IF_ERROR(SetInfoInt(db_.get(), kInfoLastVolumeId, last));
  return txn.Commit();
}

Status Metadata::UpdateVolume(const Volume& volume) {
  auto lock = db_->Lock();
  Statement st = db_->Prepare(
      "UPDATE volumes SET path = ?2, placement_class = ?3, media_type = ?4, "
      "media_type_source = ?5, role = ?6, state = ?7 WHERE id = ?1");
  st.BindAll(volume.id, volume.path, volume.placement_class, volume.media_type,
             volume.media_type_source, volume.role, volume.state);
  TIERFS_RETURN_IF_ERROR(st.Run());
  if (db_->Changes() == 0) return Status::NotFound("no volume " + std::to_string(volume.id));
  return Status::Ok();
}

Result<uint64_t> Metadata::CountInodes() {
  auto lock = db_->Lock();
  Statement st = db_->Prepare("SELECT count(*) FROM inodes");
  META_ASSIGN_OR_RETURN(bool row, st.Step());
  return row ? st.Uint64(0) : 0;
}

Result<std::vector<VolumeUsage>> Metadata::UsageByVolume() {
  auto lock = db_->Lock();
  Statement st = db_->Prepare(
      "SELECT v.id, count(i.ino), coalesce(sum(i.size), 0) FROM volumes v "
      "LEFT JOIN inodes i ON i.volume_id = v.id GROUP BY v.id ORDER BY v.id");
  std::vector<VolumeUsage> usage;
  TIERFS_RETURN_IF_ERROR(st.AppendRows(&usage, [](const Statement& r) {
    return VolumeUsage{static_cast<uint32_t>(r.Int64(0)), r.Uint64(1), r.Uint64(2)};
  }));
  return usage;
}

}  // namespace tierfs::meta
