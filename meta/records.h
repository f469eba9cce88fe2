// Plain records exchanged with the metadata database (meta/).
//
// These are value types with no behaviour: the rows of the tables described in
// docs/design.md ("The metadata database"). Times are nanoseconds since the
// Unix epoch unless a field name says otherwise (`_s` = seconds).
#pragma once

#include <cstdint>
#include <string>

namespace tierfs::meta {

// The root directory's inode number (FUSE_ROOT_ID).
constexpr uint64_t kRootIno = 1;

// The most names a non-directory may have, as on ext4 (EXT4_LINK_MAX): Link gives
// EMLINK beyond it. Directories have no such bound (ext4's dir_nlink).
constexpr uint32_t kMaxLinks = 65000;

// One file system object: a row of `inodes`.
struct Inode {
  uint64_t ino = 0;         // INTEGER PRIMARY KEY; stable across remounts
  uint64_t generation = 0;  // bumps when an inode number is reused; part of the object name
  uint32_t mode = 0;        // st_mode: file type bits | permission bits
  uint32_t uid = 0;
  uint32_t gid = 0;
  uint32_t nlink = 0;       // 0 = unlinked but still open (an orphan, reclaimed at last close)
  uint64_t size = 0;        // bytes
  int64_t atime_ns = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  uint64_t rdev = 0;        // device number for S_IFCHR / S_IFBLK
  std::string symlink;      // target, for S_IFLNK only
  uint32_t volume_id = 0;   // volume holding the object, for S_IFREG only; 0 otherwise
  // 512-byte blocks allocated to the object as last flushed; -1 unknown
  // (never recorded, or the size or the volume changed since): stat the object.
  int64_t blocks = -1;
  // On an object volume: which upload of the file its object is (its key's
  // ".v<N>", fs/volume/object_location.h; 0 = the unversioned key). Kept when
  // the file leaves the store: the next upload is store_version + 1.
  uint64_t store_version = 0;
  // Not a column: the database's change count (Database::ChangeEpoch) the row
  // reflects: when it was read, or right after the change that returned it. Of
  // two rows of one inode, the one with the higher epoch is never the older,
  // so a cache can take rows in any order and keep the newest (FileSystem::
  // ApplyRowLocked). 0: not a row of the database.
  uint64_t row_epoch = 0;
};

// Attribute bits for Metadata::UpdateAttributes: which fields of an Inode to write.
constexpr uint32_t kAttrMode = 1u << 0;
constexpr uint32_t kAttrUid = 1u << 1;
constexpr uint32_t kAttrGid = 1u << 2;
constexpr uint32_t kAttrSize = 1u << 3;
constexpr uint32_t kAttrAtime = 1u << 4;
constexpr uint32_t kAttrMtime = 1u << 5;
constexpr uint32_t kAttrCtime = 1u << 6;
// Writes `blocks`. A size change without it forgets the recorded blocks (NULL).
constexpr uint32_t kAttrBlocks = 1u << 7;

// One volume of the set, a row of `volumes`: a backing directory, or (an object
// volume) a bucket and key prefix on an S3-compatible store.
struct Volume {
  uint32_t id = 0;                // 1-based; 1 is the metadata volume
  std::string name;               // "vol1", unique within the file system
  // Absolute path of the backing directory, or "s3://BUCKET/PREFIX" for an object
  // volume (fs/volume/object_location.h spells and parses it).
  std::string path;
  std::string placement_class;    // "ssd", "hdd", "ssdmetadata", "tier0"...
  std::string media_type;         // "ssd" | "hdd" | "mixed"
  std::string media_type_source;  // "detected" | "configured"
  std::string role;               // "metadataok" | "dataonly"
  std::string state = "online";   // "online" | "offline" | "removing"
  // Object volumes only ("" for a directory): the store's "http[s]://HOST[:PORT]"
  // and the path of the credentials file the daemon reads at mount. The secret
  // itself is never in the database.
  std::string endpoint;
  std::string credentials_file;
  // Object volumes only, "" for the default: the region requests are signed
  // for ("" = us-east-1), "path" or "virtual" addressing ("" = path), and the
  // path of a PEM file of CA certificates for an HTTPS endpoint ("" = the
  // system's).
  std::string region;
  std::string addressing;
  std::string ca_file;
};

// Whether `v` keeps its objects on an S3-compatible store (its path is an
// s3:// URL) rather than in a directory.
inline bool IsObjectVolume(const Volume& v) { return v.path.rfind("s3://", 0) == 0; }

// How much of a volume the file system uses, from the inodes table.
struct VolumeUsage {
  uint32_t volume_id = 0;
  uint64_t files = 0;  // regular files whose object is on this volume (orphans included)
  uint64_t bytes = 0;  // sum of their sizes
};

// File-system-wide facts: rows of `fs_info`.
// The range of FsInfo::iostat_bucket_seconds (the heat resolution): 1 s to 1 day.
inline constexpr int64_t kMinIoBucketSeconds = 1;
inline constexpr int64_t kMaxIoBucketSeconds = 86400;
inline constexpr int64_t kDefaultIoBucketSeconds = 3600;

struct FsInfo {
  std::string uuid;                     // written into every volume's label
  std::string name;                     // the FSNAME given to mkdstfs
  int64_t created_ns = 0;
  // Length of one iostat bucket, s (kMinIoBucketSeconds..kMaxIoBucketSeconds); set
  // by mkdstfs --heat-bucket, changed by Metadata::RestartIoStats.
  int64_t iostat_bucket_seconds = kDefaultIoBucketSeconds;
};

// One directory entry as readdir returns it.
struct Dirent {
  std::string name;
  uint64_t ino = 0;
  uint32_t mode = 0;    // st_mode of the target inode (type bits used by readdir)
  int64_t cookie = 0;   // stable position: pass it back as `offset` to continue after it
  Inode attr;           // the target inode as stored (readdirplus answers from it)
};

// I/O counted in memory for one file, added to one iostat bucket on flush.
struct IoDelta {
  uint64_t ino = 0;
  int64_t bucket_start_s = 0;  // multiple of FsInfo::iostat_bucket_seconds
  uint64_t rbytes = 0;
  uint64_t wbytes = 0;
  uint64_t rops = 0;
  uint64_t wops = 0;
};

// One row of `iostat`: a file's counters over [bucket_start_s, bucket_start_s + bucket_seconds).
struct IoBucket {
  uint64_t ino = 0;
  int64_t bucket_start_s = 0;
  int64_t bucket_seconds = 0;
  uint64_t rbytes = 0;
  uint64_t wbytes = 0;
  uint64_t rops = 0;
  uint64_t wops = 0;
};

// How the metadata database's lock was used (Database::lock_waits).
struct LockWaits {
  uint64_t taken = 0;  // times taken
  uint64_t count = 0;  // times a caller found it taken and waited
  uint64_t nanos = 0;  // ns those callers waited, summed
};

// One File Change Log record.
struct FclRecord {
  int64_t seq = 0;      // strictly increasing, never reused
  int64_t time_ns = 0;
  std::string event;    // create mkdir symlink mknod link unlink rmdir rename setattr truncate
                        // write-open xattr relocate delete policy fcl
  uint64_t ino = 0;
  uint64_t parent = 0;  // directory of `name`, 0 when not a namespace event
  std::string name;
  std::string detail;   // event-specific text, e.g. "to=/new/parent/name" or "vol2->vol1"
};

// An object that may exist on `volume_id` without being inode `ino`'s location
// (a relocation's copy before its commit, or its source after): removed, and its
// record dropped, once the relocation finishes or at the next mount.
struct PendingObject {
  uint64_t ino = 0;
  uint64_t generation = 0;
  uint32_t volume_id = 0;
};

// One relocation attempt, for `fsppadm status` and the FCL.
struct RelocationRecord {
  int64_t time_ns = 0;
  uint64_t ino = 0;
  uint32_t from_volume = 0;
  uint32_t to_volume = 0;
  uint64_t bytes = 0;
  double seconds = 0;
  std::string outcome;  // "moved" | "busy" | "nospace" | "error: ..."
};

// One enforce/analyze run, for `fsppadm status`.
struct ScanRecord {
  int64_t id = 0;
  int64_t started_ns = 0;
  double seconds = 0;
  std::string kind;      // "enforce" | "analyze"
  std::string options;   // e.g. "-C -T ssd /dir"
  uint64_t files_scanned = 0;
  uint64_t files_moved = 0;
  uint64_t bytes_moved = 0;
  uint64_t errors = 0;
  uint64_t files_deleted = 0;  // by DELETE statements
  std::string failure;         // why the run failed or was refused; empty = it did not
};

// The assigned placement policy.
struct PolicyRecord {
  std::string name;
  std::string xml;
  int64_t assigned_ns = 0;
};

}  // namespace tierfs::meta
