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
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <thread>

#include "common/cond_var.h"
#include "common/mutex.h"
#include "common/status.h"
#include "common/thread_annotations.h"

namespace tierfs {

class FileSystem;
class PassthroughIoCounter;

class PassthroughHeat {
 public:
  // Starts counting for the FUSE mount at `mountpoint` (already mounted, named
  // as the mount table names it: without symbolic links; its device number is
  // read from /proc/self/mountinfo, since a stat(2) of it would wait for the
  // session this daemon has not started serving yet) and
  // the thread that hands the counts to `fs`. Errors: ENOENT when the mount
  // point is not in the mount table; PassthroughIoCounter::Start's (ENOSYS,
  // ENOENT, EPERM: the kernel or the privileges refuse the program), with a
  // message for the log.
  static Result<std::unique_ptr<PassthroughHeat>> Start(FileSystem& fs,
                                                        const std::string& mountpoint);
  // Stops the thread after one last drain.
  ~PassthroughHeat();
  PassthroughHeat(const PassthroughHeat&) = delete;
  PassthroughHeat& operator=(const PassthroughHeat&) = delete;

  // How the counter hooks the kernel ("fexit", "kprobe", "syscall"), for the log.
  const char* hook() const;

 private:
  PassthroughHeat(FileSystem& fs, std::unique_ptr<PassthroughIoCounter> counter);
  void Run() EXCLUDES(mu_);
  void DrainOnce();

  FileSystem& fs_;
  std::unique_ptr<PassthroughIoCounter> counter_;
  Mutex mu_;
  CondVar wake_;  // stopping_ became true
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace tierfs
