// PassthroughHeat: keeps heat honest under passthrough opens. The kernel serves
// their reads and writes without the daemon, so a BPF program counts them per
// inode (fs/bpf/passthrough_io_counter.h), and this thread adds those counts to
// the file system's I/O counters (FileSystem::RecordKernelIo) every second, and
// once more when it stops: IOTEMP and ACCESSTEMP then see passthrough I/O as if
// it had reached the daemon.
//
// A mount asks for passthrough only when this starts: without a count, the
// files it serves would look cold to placement (docs/design.md "Passthrough
// opens").
//
// With the page-cache hook the counts key on backing files: this is the
// BackingFileWatcher that tells the counter which inode each serves. The
// daemon's own I/O on an object is never counted twice: the BPF program
// ignores the daemon's process (rather than the daemon ceasing to count what
// it serves), because the daemon's reads and writes of an object are either
// ones it serves and counts itself (a daemon-served open, with `ro` a
// writer's FOPEN_DIRECT_IO opens) or not an application's at all (a
// relocation's copy and verification, size refreshes), and only the daemon
// can tell those apart.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/cond_var.h"
#include "common/mutex.h"
#include "common/status.h"
#include "common/thread_annotations.h"
#include "fs/bpf/passthrough_io_counter.h"
#include "fs/fuse/passthrough.h"
#include "meta/records.h"

namespace tierfs {

class FileSystem;

// Why the page-cache hook cannot count the objects of `volumes`, empty when it
// can; the first volume it cannot count decides. Two kinds of local volume:
//   - on btrfs, fstat(2) gives a file its subvolume's anonymous device while
//     the hook sees the superblock's;
//   - in memory (tmpfs, ramfs), a file's pages are its storage: a read never
//     adds one to a page cache and a write dirties none the way the
//     tracepoints report (measured: 0 bytes counted for reads and writes of
//     a tmpfs volume).
// Either way the hook would count none of the volume's I/O, and its files
// would look cold to every policy (heat silently zero). Object volumes are
// skipped (the daemon reads them; nothing passes through). statfs(2) errors
// count as usable (the mount's own checks report a missing volume).
std::string PageCacheHookUnusable(const std::vector<meta::Volume>& volumes);

class PassthroughHeat : public BackingFileWatcher {
 public:
  // Starts counting for the FUSE mount at `mountpoint` (already mounted, named
  // as the mount table names it: without symbolic links; its device number is
  // read from /proc/self/mountinfo, since a stat(2) of it would wait for the
  // session this daemon has not started serving yet) and
  // the thread that hands the counts to `fs`. Errors: ENOENT when the mount
  // point is not in the mount table; PassthroughIoCounter::Start's (ENOSYS,
  // ENOENT, EPERM: the kernel or the privileges refuse the program), with a
  // message for the log. `options` chooses the hooks (the syscall hook is
  // not allowed with `--passthrough=auto`); the page-cache hook is passed
  // over where PageCacheHookUnusable says why.
  static Result<std::unique_ptr<PassthroughHeat>> Start(
      FileSystem& fs, const std::string& mountpoint, const PassthroughIoCounterOptions& options);
  // Stops the thread after one last drain.
  ~PassthroughHeat() override;

  // BackingFileWatcher: passes the backing files on to the counter
  // (PassthroughIoCounter::WatchBackingFile; nothing for hooks that need none).
  Status Watch(uint64_t ino, dev_t object_dev, ino_t object_ino) override;
  void Forget(dev_t object_dev, ino_t object_ino) override;
  PassthroughHeat(const PassthroughHeat&) = delete;
  PassthroughHeat& operator=(const PassthroughHeat&) = delete;

  // How the counter hooks the kernel ("pagecache", "fexit", "kprobe",
  // "syscall"), for the log and `fsppadm status`.
  const char* hook() const;

 private:
  PassthroughHeat(FileSystem& fs, std::unique_ptr<PassthroughIoCounter> counter);
  void Run() EXCLUDES(mu_);
  // Moves the counts to the file system; the thread and a scan's
  // FileSystem::DrainKernelHeat may call it at once (drain_mu_ orders them).
  void DrainOnce() EXCLUDES(drain_mu_);

  FileSystem& fs_;
  std::unique_ptr<PassthroughIoCounter> counter_;
  Mutex drain_mu_;  // one PassthroughIoCounter::Drain at a time
  Mutex mu_;
  CondVar wake_;  // stopping_ became true
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace tierfs
