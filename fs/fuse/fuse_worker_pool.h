// FuseWorkerPool: the threads that serve a FUSE session over /dev/fuse.
//
// libfuse's multi-threaded loop keeps every idle thread blocked in read(2) on
// /dev/fuse, and the kernel hands each request to one of them: on a machine
// with few CPUs, nearly every request costs a thread wake-up and two context
// switches, even when the thread that just replied could take the next
// request at once. With 4 clients on 2 CPUs, renames cost 8.5 context switches
// for their 4 requests with 16 threads, 2.9 with 2 (docs/benchmarks-history.md,
// ninth round).
//
// This pool keeps `runners` threads (the number of CPUs) reading and serving,
// and parks the others. A runner that is about to block on a device (a
// BlockingSection: volume I/O, the database's file I/O) while no other thread
// is reading lets a parked thread take its place (or starts one, up to
// `max_threads`), so requests keep being served while it waits; a thread back
// from such a call parks again once more than `runners` threads run. It hands
// over only for kinds of calls (BlockingKind) that took longer of late than a
// wake-up costs: a write into the page cache returns before a woken thread
// would run. Requests served from memory and the database's cache (lookups,
// getattr, rename, unlink) therefore pass from one request to the next on the
// same threads without sleeping, and requests that wait for a disk still run
// concurrently.
//
// Used when the session is served over /dev/fuse (not over io_uring rings,
// whose threads are the transport's own).
#pragma once

struct fuse_session;

namespace tierfs {

struct FuseWorkerPoolOptions {
  int max_threads = 16;  // >= 1: threads serving at most, parked ones included
  int runners = 2;       // threads reading and serving at once, not blocked (1..max_threads)
  // Read requests into ReceiveBuffers (fs/fuse/receive_buffer.h), so that a WRITE's
  // bytes start on a page. Only with the session's custom I/O installed
  // (fs/fuse/uring_transport.h), whose read hook keeps to the buffer's size.
  bool page_aligned_writes = false;
};

// How serving a session ended: `error` is 0 when the file system was
// unmounted (the kernel ended the connection) or a signal's handler ended the
// session (then `by_signal`), else the errno of a failed read of /dev/fuse.
struct FuseServeEnd {
  int error = 0;
  bool by_signal = false;
};

// Serves `se` (mounted; its signal handlers installed with
// fuse_set_signal_handlers) until it ends (FuseServeEnd). Blocks the calling
// thread, which must be the main thread: a process-directed SIGTERM reaches it
// (Linux hands such a signal to the main thread first; the workers block the
// stop signals, as libfuse's do). It then ends the workers still waiting for a
// request (pthread_cancel, as libfuse's loop does) and joins them all.
FuseServeEnd ServeFuseSession(fuse_session* se, const FuseWorkerPoolOptions& options);

// The number of runners for this machine: its online CPUs, at least 2, at most
// `max_threads`.
int DefaultFuseRunners(int max_threads);

}  // namespace tierfs
