#include "tests/bpf/passthrough_fuse_server.h"

#include <fcntl.h>
#include <linux/fuse.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace tierfs {

namespace {

// Debian 12's <linux/fuse.h> is protocol 7.38, older than passthrough (7.40):
// the values below are those of the kernel's UAPI header (the research notes,
// docs/notes/fuse-passthrough.md, section 1).
constexpr uint32_t kInitFlags2Passthrough = 1u << 5;  // FUSE_PASSTHROUGH is bit 37 of flags|flags2
constexpr uint32_t kOpenPassthrough = 1u << 7;        // FOPEN_PASSTHROUGH
constexpr unsigned long kBackingOpen = 0x4010E501;    // _IOW(229, 1, struct fuse_backing_map)
constexpr unsigned long kBackingClose = 0x4004E502;   // _IOW(229, 2, uint32_t)
constexpr uint32_t kMaxWrite = 128 * 1024;

struct BackingMap {  // struct fuse_backing_map
  int32_t fd;
  uint32_t flags;
  uint64_t padding;
};

void FillAttr(uint64_t nodeid, const struct stat& st, fuse_attr* attr) {
  *attr = {};
  attr->ino = nodeid;
  attr->size = st.st_size;
  attr->blocks = st.st_blocks;
  attr->mode = st.st_mode;
  attr->nlink = st.st_nlink;
  attr->blksize = 4096;
}

}  // namespace

Result<std::unique_ptr<PassthroughFuseServer>> PassthroughFuseServer::Mount(
    const std::string& mount_point, const std::string& backing_path) {
  std::unique_ptr<PassthroughFuseServer> server(new PassthroughFuseServer());
  server->backing_fd_ = UniqueFd(::open(backing_path.c_str(), O_RDWR | O_CLOEXEC));
  if (server->backing_fd_.get() < 0) return Status::FromErrno("open " + backing_path);
  server->fuse_fd_ = UniqueFd(::open("/dev/fuse", O_RDWR | O_CLOEXEC));
  if (server->fuse_fd_.get() < 0) return Status::FromErrno("open /dev/fuse");
  std::string options = "fd=" + std::to_string(server->fuse_fd_.get()) +
                        ",rootmode=40000,user_id=0,group_id=0";
  if (::mount("tierfs-bpf-test", mount_point.c_str(), "fuse", MS_NOSUID | MS_NODEV,
              options.c_str()) != 0) {
    return Status::FromErrno("mount " + mount_point);
  }
  server->mount_point_ = mount_point;  // from now on the destructor unmounts
  // The kernel queued INIT at mount; every later request waits for its answer.
  server->thread_ = std::thread([s = server.get()] { s->Serve(); });
  return server;
}

PassthroughFuseServer::~PassthroughFuseServer() {
  if (!mount_point_.empty()) ::umount2(mount_point_.c_str(), MNT_DETACH);
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void PassthroughFuseServer::Serve() {
  // FUSE wants a buffer for the largest request: header plus max_write.
  std::vector<char> buffer(kMaxWrite + 4096);
  while (!stop_) {
    pollfd pfd{fuse_fd_.get(), POLLIN, 0};
    int ready = ::poll(&pfd, 1, 50);  // bounded, so that stop_ is seen
    if (ready <= 0) continue;
    if (pfd.revents & (POLLERR | POLLHUP)) return;  // connection gone (unmounted)
    ssize_t n = ::read(fuse_fd_.get(), buffer.data(), buffer.size());
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == ENOENT) continue;
      return;  // ENODEV: unmounted
    }
    Handle(buffer.data(), static_cast<size_t>(n));
  }
}

void PassthroughFuseServer::Reply(uint64_t unique, int error, const void* payload, size_t size) {
  fuse_out_header out{};
  out.len = sizeof(out) + (error == 0 ? size : 0);
  out.error = -error;
  out.unique = unique;
  iovec iov[2] = {{&out, sizeof(out)}, {const_cast<void*>(payload), error == 0 ? size : 0}};
  (void)::writev(fuse_fd_.get(), iov, 2);
}

void PassthroughFuseServer::Handle(const char* request, size_t size) {
  if (size < sizeof(fuse_in_header)) return;
  fuse_in_header in;
  memcpy(&in, request, sizeof(in));
  const char* body = request + sizeof(in);
  struct stat st {};

  switch (in.opcode) {
    case FUSE_INIT: {
      fuse_init_in init_in{};
      memcpy(&init_in, body, std::min(size - sizeof(in), sizeof(init_in)));
      fuse_init_out out{};
      out.major = FUSE_KERNEL_VERSION;
      out.minor = init_in.minor;
      out.max_readahead = init_in.max_readahead;
      out.flags = FUSE_INIT_EXT;  // no FUSE_WRITEBACK_CACHE: it would turn passthrough off
      out.flags2 = kInitFlags2Passthrough;
      out.unused[0] = 1;  // max_stack_depth (offset 36): backing files on non-stacked file systems
      out.max_write = kMaxWrite;
      Reply(in.unique, 0, &out, sizeof(out));
      return;
    }
    case FUSE_LOOKUP: {
      // "f0".."f3"
      int file = body[0] == 'f' && body[1] >= '0' && body[1] < '0' + kFiles && body[2] == 0
                     ? body[1] - '0'
                     : -1;
      if (in.nodeid != FUSE_ROOT_ID || file < 0) {
        Reply(in.unique, ENOENT, nullptr, 0);
        return;
      }
      fstat(backing_fd_.get(), &st);
      fuse_entry_out out{};
      out.nodeid = kFileNodeid + file;
      out.generation = 1;
      out.entry_valid = 1;
      out.attr_valid = 1;
      FillAttr(out.nodeid, st, &out.attr);
      Reply(in.unique, 0, &out, sizeof(out));
      return;
    }
    case FUSE_GETATTR: {
      if (in.nodeid == FUSE_ROOT_ID) {
        st.st_mode = S_IFDIR | 0755;
        st.st_nlink = 2;
      } else {
        fstat(backing_fd_.get(), &st);  // the backing file's size: passthrough writes change it
      }
      fuse_attr_out out{};
      out.attr_valid = 1;
      FillAttr(in.nodeid, st, &out.attr);
      Reply(in.unique, 0, &out, sizeof(out));
      return;
    }
    case FUSE_OPEN: {
      if (in.nodeid < kFileNodeid || in.nodeid >= kFileNodeid + kFiles) {
        Reply(in.unique, EISDIR, nullptr, 0);
        return;
      }
      size_t file = in.nodeid - kFileNodeid;
      if (backing_ids_[file] <= 0) {
        BackingMap map{backing_fd_.get(), 0, 0};
        backing_ids_[file] = ::ioctl(fuse_fd_.get(), kBackingOpen, &map);
        if (backing_ids_[file] <= 0) {
          Reply(in.unique, errno, nullptr, 0);
          return;
        }
      }
      ++open_handles_[file];
      ++passthrough_opens_;
      fuse_open_out out{};
      out.fh = 1;
      out.open_flags = kOpenPassthrough;
      out.padding = static_cast<uint32_t>(backing_ids_[file]);  // backing_id (offset 12)
      Reply(in.unique, 0, &out, sizeof(out));
      return;
    }
    case FUSE_RELEASE: {
      size_t file = in.nodeid - kFileNodeid;
      if (file < kFiles && --open_handles_[file] == 0 && backing_ids_[file] > 0) {
        uint32_t id = static_cast<uint32_t>(backing_ids_[file]);
        ::ioctl(fuse_fd_.get(), kBackingClose, &id);
        backing_ids_[file] = 0;
      }
      Reply(in.unique, 0, nullptr, 0);
      return;
    }
    case FUSE_FLUSH:
      Reply(in.unique, 0, nullptr, 0);
      return;
    case FUSE_GETXATTR:  // security.capability before each write: there is none
      Reply(in.unique, ENODATA, nullptr, 0);
      return;
    case FUSE_READ:
    case FUSE_WRITE:
      ++data_requests_;
      Reply(in.unique, EIO, nullptr, 0);
      return;
    case FUSE_FORGET:
    case FUSE_BATCH_FORGET:
      return;  // no reply
    default:
      Reply(in.unique, ENOSYS, nullptr, 0);
      return;
  }
}

}  // namespace tierfs
