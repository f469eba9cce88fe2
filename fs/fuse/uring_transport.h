// UringTransport: FUSE requests over io_uring (kernel 6.14 and later), driven by the
// daemon itself because Debian 12's libfuse 3.14 predates it (`tierfs --io_uring`).
//
// Why: on a VM every request served over /dev/fuse wakes a worker thread on another
// CPU and the reply wakes the caller back across; that hand-off, not tierfs's
// code, is most of a request's cost (docs/benchmarks-history.md, "Seventh
// round: where a request's time goes"). Over io_uring the kernel queues each
// request on a ring of the CPU that made it, and threads pinned to that CPU
// serve it there.
//
// How, through libfuse 3.14's public API:
//   - fuse_session_custom_io() routes every read of /dev/fuse and every reply through
//     this class. The INIT request tells whether the kernel offers io_uring (its
//     module parameter /sys/module/fuse/parameters/enable_uring is on). If it does,
//     the rings are made first, and only then is FUSE_OVER_IO_URING added to the
//     INIT reply. Once the kernel has that reply, it holds new requests until every
//     CPU's queue has an entry, so a daemon that could not make its rings must not
//     advertise the flag.
//   - After the INIT reply, kThreadsPerCpu threads per CPU (each pinned, each with a
//     ring of kEntriesPerThread entries) register their entries. A request arrives
//     as a completion: its header, first argument and payload are rebuilt into the
//     /dev/fuse message layout in front of the payload, and
//     fuse_session_process_buf() runs the handler in that thread. The handler's
//     reply reaches the writev hook, which copies it into the entry and commits it
//     (COMMIT_AND_FETCH), which also makes the entry wait for the next request.
//   - INIT, FORGET, INTERRUPT and notifications stay on /dev/fuse (the kernel sends
//     them there), served by the /dev/fuse worker pool (fs/fuse/fuse_worker_pool.h). A
//     REGISTER the kernel refuses turns io_uring off for the connection and
//     requests keep coming over /dev/fuse.
//   - Every request, over either path, is recorded for its handler
//     (fs/fuse/serving_request.h) before libfuse parses it.
//
// The same custom I/O negotiates FUSE_HANDLE_KILLPRIV_V2, which libfuse 3.14 cannot
// ask for: the daemon, not the kernel, then clears setuid/setgid on a write,
// truncate or chown the kernel marks (FUSE_WRITE_KILL_SUIDGID, FATTR_KILL_SUIDGID,
// FUSE_OPEN_KILL_SUIDGID), and the kernel sets SB_NOSEC on the mount. Why: without
// SB_NOSEC the kernel asks for security.capability (a GETXATTR round trip) before
// every write(2), even one the page cache absorbs; with it, only until a write finds
// neither setuid/setgid nor a capability (the inode's S_NOSEC, which a later chmod
// to setuid or a setxattr of security.* clears again). fio's 4 KiB random writes ran
// 2.5x as fast (docs/benchmarks-history.md, tenth round). File capabilities stay the VFS's
// to clear: it removes security.capability itself (security_inode_killpriv, a
// REMOVEXATTR) before a write, truncate or chown of a file that has one.
// Every tierfs handler replies in the thread that runs it; a reply for a ring
// request that reached the hook from another thread would be lost, and is logged.
//
// The ring ABI (struct layouts, command numbers, FUSE_OVER_IO_URING = bit 41 of the
// INIT flags) is Linux's include/uapi/linux/fuse.h (protocol 7.42), which Debian
// 12's headers (7.38) predate; it is declared in uring_transport.cc.
#pragma once

#include <memory>

#include "common/status.h"

struct fuse_session;

namespace tierfs {

class UringTransport {
 public:
  // One entry per thread: the kernel hands a request to any free entry of its
  // CPU's queue, so a request queued on the entry of a thread that is waiting for
  // the disk would wait with it. With 3 threads of 4 entries, cold 4 KiB random
  // reads (4 jobs) ran 17,000-22,000 IOPS at a p99 of 334-553 us; with 8 of 1,
  // 32,000-34,000 at 187-226 us, as over /dev/fuse (docs/benchmarks-history.md,
  // eighth round). 8 threads: as many requests of one CPU may wait for a disk at once.
  static constexpr int kThreadsPerCpu = 8;
  static constexpr int kEntriesPerThread = 1;

  // Installs the transport's I/O on `se`, which must be mounted and not yet
  // serving. The rings are made when `make_rings` (`tierfs --io_uring`) and the
  // kernel's INIT request offers io_uring; otherwise everything stays on
  // /dev/fuse (logged). FUSE_HANDLE_KILLPRIV_V2 is asked for whenever the kernel
  // offers it: with a custom I/O that has no splice hooks libfuse 3.14 never
  // splices a request (do_init leaves FUSE_CAP_SPLICE_READ out), so every message
  // reaches the read hook, and its kill marks the handlers. Errors: EINVAL from
  // fuse_session_custom_io, or a second transport in the process.
  static Result<std::unique_ptr<UringTransport>> Install(fuse_session* se, bool make_rings);
  // Stop() and frees the rings and buffers.
  ~UringTransport();
  UringTransport(const UringTransport&) = delete;
  UringTransport& operator=(const UringTransport&) = delete;

  // Before the session's /dev/fuse descriptor is closed (fuse_session_unmount
  // closes it): waits for the writes to it in progress and makes every later one
  // fail with ENODEV (a ring thread's notification during the stop), so that none
  // reaches a closed or reused descriptor.
  void CloseDevice();
  // After the session loop has ended and the file system is unmounted: ends the
  // ring threads (each notices within 100 ms) and waits for them.
  void Stop();
  // Requests served over the rings so far (0 when the kernel did not offer
  // io_uring or refused the rings). Logged at Stop().
  uint64_t requests() const;

  struct State;  // uring_transport.cc

 private:
  explicit UringTransport(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// While the calling thread serves a request that came over a ring: the ring
// entry's payload buffer, where the kernel takes the reply's data from, if it
// holds `size` bytes; a reply whose data is built there (a READ's bytes) is
// committed without copying them. nullptr otherwise (also over /dev/fuse).
// Only for requests without a payload of their own (READ): a WRITE's bytes are
// in that buffer.
char* UringReplyBuffer(size_t size);

}  // namespace tierfs
