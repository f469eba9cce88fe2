#include "fs/relocator.h"

#include <fcntl.h>
#include <linux/ioprio.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/unique_fd.h"

namespace tierfs {
namespace {

// Copies [offset, offset+length) from src to dst at the same offsets.
Status CopyRange(int src, int dst, off_t offset, off_t length) {
  off_t in = offset, out = offset;
  while (length > 0) {
    ssize_t n = copy_file_range(src, &in, dst, &out, static_cast<size_t>(length), 0);
    if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EOPNOTSUPP || errno == EINVAL)) {
      // Old kernels or file systems without copy_file_range across them: plain copy.
      std::vector<char> buf(1 << 20);
      n = pread(src, buf.data(), std::min<off_t>(length, buf.size()), in);
      if (n > 0 && pwrite(dst, buf.data(), n, out) != n) return Status::FromErrno("copy write");
      if (n > 0) {
        in += n;
        out += n;
      }
    }
    if (n < 0) return Status::FromErrno("copy");
    if (n == 0) break;  // source shrank: the write-generation check catches it
    length -= n;
  }
  return Status::Ok();
}

// Copies the data segments of src (holes stay holes), then sets the size.
Status CopySparse(int src, int dst, off_t size) {
  off_t pos = 0;
  while (pos < size) {
    off_t data = lseek(src, pos, SEEK_DATA);
    if (data < 0) {
      if (errno == ENXIO) break;  // only a hole is left
      return Status::FromErrno("seek data");
    }
    off_t hole = lseek(src, data, SEEK_HOLE);
    if (hole < 0) return Status::FromErrno("seek hole");
    TIERFS_RETURN_IF_ERROR(CopyRange(src, dst, data, hole - data));
    pos = hole;
  }
  if (ftruncate(dst, size) != 0) return Status::FromErrno("set size of copy");
  return Status::Ok();
}

Result<XXH64_hash_t> HashFile(int fd) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  std::vector<char> buf(1 << 20);
  off_t off = 0;
  while (true) {
    ssize_t n = pread(fd, buf.data(), buf.size(), off);
    if (n < 0) {
      XXH3_freeState(state);
      return Status::FromErrno("read for checksum");
    }
    if (n == 0) break;
    XXH3_64bits_update(state, buf.data(), static_cast<size_t>(n));
    off += n;
  }
  XXH64_hash_t h = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return h;
}

std::string DirOf(const std::string& path) { return path.substr(0, path.rfind('/')); }

void FsyncDir(const std::string& dir) {
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    fsync(fd);
    close(fd);
  }
}

// Lowers the calling thread's I/O priority for the duration of a copy, so that
// foreground I/O keeps priority over relocation (design.md, "Performance
// principles"). Effective with the BFQ/CFQ schedulers; harmless elsewhere.
class LowIoPriority {
 public:
  LowIoPriority() {
    saved_ = static_cast<int>(syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, 0));
    syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 7));
  }
  ~LowIoPriority() {
    if (saved_ >= 0) syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, saved_);
  }
  LowIoPriority(const LowIoPriority&) = delete;
  LowIoPriority& operator=(const LowIoPriority&) = delete;

 private:
  int saved_ = -1;
};

// Test hook: with TIERFS_CRASH_AT=<name> in the daemon's environment, the daemon
// dies (as in a power cut, without cleanup) when it reaches the named point.
// Integration tests use it to prove the crash ordering above; unset, it costs one
// getenv per relocation.
void CrashPoint(const char* name) {
  const char* want = std::getenv("TIERFS_CRASH_AT");
  if (want != nullptr && std::strcmp(want, name) == 0) _exit(70);
}

}  // namespace

Result<int> Relocator::CopyAndVerify(const meta::Inode& attr, uint32_t to_volume,
                                     uint64_t* bytes) {
  LowIoPriority low_priority;
  const VolumeSet& volumes = fs_.volumes();
  auto src_fd = volumes.OpenObject(attr.volume_id, attr.ino, attr.generation,
                                   /*create=*/attr.size == 0);
  if (!src_fd.ok()) return src_fd.status();
  UniqueFd src(*src_fd);
  struct stat st;
  if (fstat(src.get(), &st) != 0) return Status::FromErrno("stat source object");

  const std::string tmp = volumes.TmpPath(to_volume, attr.ino, attr.generation);
  UniqueFd dst(open(tmp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (dst.get() < 0) return Status::FromErrno("create " + tmp);
  Status st_copy = CopySparse(src.get(), dst.get(), st.st_size);
  if (st_copy.ok() && fsync(dst.get()) != 0) st_copy = Status::FromErrno("fsync copy");
  if (st_copy.ok()) {
    auto a = HashFile(src.get());
    auto b = HashFile(dst.get());
    if (!a.ok()) st_copy = a.status();
    else if (!b.ok()) st_copy = b.status();
    else if (*a != *b) st_copy = Status::Io("copy of inode " + std::to_string(attr.ino) +
                                            " does not match its source (xxh3)");
  }
  const std::string final_path = volumes.ObjectPath(to_volume, attr.ino, attr.generation);
  // Before the copy takes its object name, record it as pending: a crash from here
  // to the commit leaves a copy the next mount knows to remove.
  if (st_copy.ok()) {
    st_copy = fs_.metadata().AddPendingObject({attr.ino, attr.generation, to_volume});
  }
  if (st_copy.ok()) {
    mkdir(DirOf(final_path).c_str(), 0700);
    if (rename(tmp.c_str(), final_path.c_str()) != 0) {
      st_copy = Status::FromErrno("rename copy");
      fs_.metadata().RemovePendingObject(attr.ino, to_volume);
    }
  }
  if (!st_copy.ok()) {
    unlink(tmp.c_str());
    return st_copy;
  }
  FsyncDir(DirOf(final_path));
  CrashPoint("relocate-after-copy");
  *bytes = static_cast<uint64_t>(st.st_size);
  return dst.release();
}

Result<RelocationOutcome> Relocator::Relocate(uint64_t ino, uint32_t to_volume) {
  const auto start = std::chrono::steady_clock::now();
  auto attr = fs_.CurrentAttr(ino);
  if (!attr.ok() && attr.status().code() != ENOENT) return attr.status();
  if (!attr.ok() || attr->nlink == 0) {
    // Unlinked between the scan and now: nothing to move (its reclaim is pending).
    return RelocationOutcome{"gone", 0, 0};
  }
  if (!S_ISREG(attr->mode)) return Status::Invalid("inode " + std::to_string(ino) +
                                                   " is not a regular file");
  if (fs_.volumes().Find(to_volume) == nullptr) {
    return Status::Invalid("no volume " + std::to_string(to_volume));
  }
  if (attr->volume_id == to_volume) return Status::Invalid("already on that volume");

  InodeRef inode = fs_.inodes().Pin(*attr);
  const uint32_t from_volume = attr->volume_id;
  const uint64_t gen_before = inode->write_gen.load();
  RelocationOutcome result;

  auto copy = CopyAndVerify(*attr, to_volume, &result.bytes);
  if (!copy.ok()) {
    result.outcome = "error: " + copy.status().message();
  } else {
    UniqueFd new_fd(*copy);
    std::unique_lock io(inode->io_lock);
    if (inode->write_gen.load() != gen_before) {
      result.outcome = "busy";
    } else if (Status st = fs_.metadata().SetInodeVolume(ino, from_volume, to_volume); !st.ok()) {
      result.outcome = "error: " + st.message();
    } else {
      std::lock_guard lock(inode->mu);
      if (inode->fd >= 0 && dup2(new_fd.get(), inode->fd) < 0) {
        // Cannot happen with valid fds; the database already points at the copy.
        std::abort();
      }
      inode->attr.volume_id = to_volume;
      result.outcome = "moved";
    }
    io.unlock();
    if (result.outcome == "moved") CrashPoint("relocate-after-commit");
    // The object that is not the file's location: the source after a commit, the
    // copy otherwise. Its pending record goes only once it is really gone.
    const uint32_t stale = result.outcome == "moved" ? from_volume : to_volume;
    if (fs_.volumes().RemoveObject(stale, ino, attr->generation).ok()) {
      fs_.metadata().RemovePendingObject(ino, stale);
    }
  }
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  meta::Inode after;
  {
    std::lock_guard lock(inode->mu);
    after = inode->attr;
  }
  if (fs_.inodes().Unpin(inode)) fs_.Reclaim(after);

  meta::RelocationRecord record;
  record.time_ns = fs_.clock().NowNanos();
  record.ino = ino;
  record.from_volume = from_volume;
  record.to_volume = to_volume;
  record.bytes = result.bytes;
  record.seconds = result.seconds;
  record.outcome = result.outcome;
  fs_.metadata().RecordRelocation(record);
  return result;
}

}  // namespace tierfs
