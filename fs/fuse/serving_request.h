// The FUSE request a thread is serving, as the kernel sent it: for the request
// fields that Debian 12's libfuse 3.14 reads but does not hand to the handlers.
//
// Which fields: the kernel's "kill setuid/setgid" marks of FUSE_HANDLE_KILLPRIV_V2
// (protocol 7.33; include/uapi/linux/fuse.h): FUSE_WRITE_KILL_SUIDGID in a WRITE's
// write_flags, FATTR_KILL_SUIDGID in a SETATTR's valid, FUSE_OPEN_KILL_SUIDGID in
// an OPEN's open_flags. libfuse 3.14 knows neither the flag nor the marks and
// drops them (do_write, do_setattr and do_open copy only the fields they know).
// A CREATE's mark is not read: tierfs's CREATE always makes a new file, which
// O_TRUNC does not touch.
//
// How: the session's custom I/O (fs/fuse/uring_transport.h) records the message before
// libfuse parses it, in the thread that goes on to run the handler (a /dev/fuse
// worker reads and serves in one thread, as does a ring thread). libfuse splices
// no message through a custom I/O, so it sees every one; without the custom I/O
// (when installing it failed, as the log says) nothing is recorded and
// FUSE_HANDLE_KILLPRIV_V2 is not negotiated, so the kernel sets no mark.
//
// Thread-safe: the record is per thread.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tierfs {

// Records the message `data` (`size` bytes: fuse_in_header, then the request's
// own argument struct) as the one this thread serves next. `data` must stay valid
// until the next call in this thread; nullptr forgets it.
void SetServingRequest(const void* data, size_t size);

// Whether the request this thread serves is a `opcode` (FUSE_WRITE, FUSE_SETATTR
// or FUSE_OPEN, from <linux/fuse.h>) for node `nodeid` that carries
// the kernel's mark to clear setuid/setgid. False when no such message is
// recorded (another opcode or node: a stale record is never trusted).
bool ServingRequestKillsSuidgid(uint32_t opcode, uint64_t nodeid);

}  // namespace tierfs
