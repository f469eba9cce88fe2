// PassthroughIoCounter: counts, per FUSE nodeid of one mount, the reads and
// writes the kernel serves by FUSE passthrough (which the daemon never sees),
// with a BPF program on the kernel's passthrough functions, so that heat
// (IOTEMP, ACCESSTEMP) can still be counted for passthrough opens.
//
// Counted with the fexit and kprobe hooks: read(2)/pread/readv/write/pwrite/
// writev, io_uring and aio requests that complete at submission, sendfile/
// splice, and the kernel's copy_file_range fallback, on files opened with
// FOPEN_PASSTHROUGH. Never counted: mmap page faults and msync (no call the
// program sees carries them), async requests that return -EIOCBQUEUED (their
// bytes are known only at completion), and failed calls. The syscall hook sees
// less (PassthroughIoHook). README.md beside this file has the details.
//
// Thread-safe: Drain and dropped may be called from any thread; Drain calls are
// serialized internally.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "fs/bpf/passthrough_io_shared.h"

namespace tierfs {

// One nodeid's passthrough I/O over one drain interval. Bytes are what the
// kernel's calls returned (bytes moved); ops are calls that returned >= 0
// (a read at EOF is one op of 0 bytes).
struct PassthroughIoCount {
  uint64_t nodeid = 0;
  uint64_t read_bytes = 0;
  uint64_t read_ops = 0;
  uint64_t write_bytes = 0;
  uint64_t write_ops = 0;
};

// How the BPF programs hook the kernel. PassthroughIoHook::kAuto tries them in
// the order below, cheapest and most exact first (fs/bpf/README.md has the
// measurements).
enum class PassthroughIoHook {
  // kPageCache, else fexit, else kprobes, else syscall exits (the last only
  // where the options allow it): what Start uses unless told.
  kAuto,
  // Two BTF tracepoints on the backing files' page cache: a folio inserted (a
  // read that missed the cache, by readahead or an mmap fault) and a folio
  // first dirtied (a write or a store through a shared mapping, which reaches
  // the volume at writeback). Counts what reaches the volume, which is what
  // heat counts (page-cache hits earn none), and costs only page-cache misses
  // and first dirtyings of the mount's backing files (the programs run for
  // every file's, and leave at one hash lookup). Keyed by the backing file:
  // the daemon names each one (WatchBackingFile). Bytes are whole folios
  // (a 1-byte write into a clean page counts the page); ops are folios.
  // Blind to direct I/O, which bypasses the page cache, and to the daemon's
  // own I/O (its process is ignored: it counts what it serves). Needs the
  // tracepoints (Linux 6.1 and later) and BTF tracepoint programs.
  kPageCache,
  // One fexit program per function: the cheapest, and no limit on calls in
  // flight. Needs BPF trampolines (x86-64, arm64...) and an LSM policy that
  // allows tracing programs: some sandboxes refuse them with EPERM.
  kFexit,
  // A kprobe and a kretprobe per function, joined by a per-task map. Works where
  // fexit is refused; costs a map update and delete per call, and misses the
  // return (so the count) of calls beyond the kretprobe's instances in flight
  // at once (the kernel's default: max(10, 2 x CPUs)). Needs CONFIG_KPROBES.
  kKprobe,
  // One BTF tracepoint program on every system call's exit, machine-wide: it
  // counts read/pread/readv/preadv(2), write/pwrite/writev/pwritev(2), sendfile
  // and splice whose fd is a passthrough open of the mount. For kernels that
  // allow none of the above. Costs every system call on the machine a
  // program run (most leave at the first compare); misses io_uring, aio,
  // copy_file_range and 32-bit processes. x86-64 only (elsewhere ENOSYS).
  kSyscall,
};

// "pagecache", "fexit", "kprobe", "syscall" or "auto", for logs.
const char* PassthroughIoHookName(PassthroughIoHook hook);
// The hook ParsePassthroughIoHook's names name; nullopt for anything else.
std::optional<PassthroughIoHook> ParsePassthroughIoHook(std::string_view name);

struct PassthroughIoCounterOptions {
  PassthroughIoHook hook = PassthroughIoHook::kAuto;
  // Whether kAuto may end on the syscall hook, which taxes every system call
  // of the machine: false where that cost is not acceptable (`tierfs
  // --passthrough=auto`); ENOSYS then when nothing cheaper loads.
  bool allow_syscall_hook = true;
  // Whether the page-cache hook ignores the calling process (the daemon, which
  // counts what it serves itself). Off only for benchmarks and tests whose
  // own threads make the I/O to be counted.
  bool ignore_own_process = true;
  // Test seam: hooks Start takes as refused by the kernel (EPERM), as if a
  // policy denied them, so that a test can see what a mount does without them.
  std::vector<PassthroughIoHook> refused = {};
  // Why the page-cache hook cannot count these objects (a volume on btrfs or
  // in memory: fs/daemon/passthrough_heat.h), empty when it can. Set, Start passes over
  // that hook (EOPNOTSUPP with this text), as the kernel's refusal would.
  std::string pagecache_unusable;
  // Distinct nodeids one drain interval can count (per map, allocated as they
  // come, each about 100 bytes plus 32 per possible CPU: the counts are kept
  // per CPU); past it, new nodeids' counts are dropped.
  uint32_t max_nodeids = TIERFS_PASSTHROUGH_MAX_NODEIDS;
};

class PassthroughIoCounter {
 public:
  // Loads and attaches the BPF programs, counting for the FUSE mount whose root
  // has st_dev `mount_dev` (stat(2) of the mount point after the mount, as
  // userspace sees it; converted to the kernel's encoding here), hooked as
  // options.hook says (kAuto: the first of pagecache, fexit, kprobe and, when
  // options.allow_syscall_hook, syscall that loads and attaches; when none
  // does, the message names each failure and the code is the last one's).
  // The programs ignore the calling process (the daemon) where they can tell
  // (the page-cache hook). Counting runs until the counter is destroyed.
  // Errors, each with a message for the daemon's log:
  //   ENOSYS  built without BPF (TIERFS_BPF off), or the kernel has no BTF
  //           (/sys/kernel/btf/vmlinux missing: CONFIG_DEBUG_INFO_BTF), or
  //           kKprobe on a kernel without kprobes (CONFIG_KPROBES), or
  //           kSyscall off x86-64, or kAuto with only the syscall hook left
  //           and options.allow_syscall_hook false;
  //   ENOENT  the kernel lacks fuse_passthrough_read_iter and the others
  //           (FUSE passthrough needs Linux 6.9 and CONFIG_FUSE_PASSTHROUGH)
  //           or its BTF lacks struct fuse_inode;
  //   EPERM   without CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN) in the
  //           effective set, or refused by a security policy (an LSM) although
  //           they are there (the message says which);
  //   EINVAL  max_nodeids is 0;
  //   other   libbpf's errno (ENOMEM, EINVAL from the verifier...).
  static Result<std::unique_ptr<PassthroughIoCounter>> Start(
      dev_t mount_dev, const PassthroughIoCounterOptions& options = {});

  ~PassthroughIoCounter();  // detaches and unloads the program
  PassthroughIoCounter(const PassthroughIoCounter&) = delete;
  PassthroughIoCounter& operator=(const PassthroughIoCounter&) = delete;

  // The counts accumulated since the last Drain (or Start), one entry per
  // nodeid with any I/O, in no particular order, and starts a new interval.
  // No count is lost or counted twice: the program writes to one of two maps;
  // Drain switches it to the other, waits until no program on any CPU is
  // still writing to the first (microseconds; bounded at 100 ms), then reads
  // and deletes it, adding up each nodeid's per-CPU counts.
  // Should that wait time out, the retired map is kept and read at a later
  // Drain (its counts arrive late, not lost), and this Drain returns nothing.
  std::vector<PassthroughIoCount> Drain();

  // Counts (calls) lost since Start because a map already held max_nodeids
  // nodeids when a new one came, over all CPUs. Non-zero means Drain runs too
  // rarely.
  uint64_t dropped() const;

  // The page-cache hook counts the folios of backing files it knows: a
  // backing file with device `dev` and inode number `ino` (fstat(2) of the
  // object, as userspace sees them) serves FUSE nodeid `nodeid` from now on.
  // The daemon calls it before it registers the backing file with the kernel,
  // and ForgetBackingFile when it closes the backing id. Errors: ENOSPC when
  // TIERFS_PASSTHROUGH_MAX_BACKING_FILES are known already (the caller
  // should serve that file itself, so that its I/O is counted), libbpf's
  // errno otherwise. The other hooks find the nodeid themselves: Ok, nothing
  // done.
  Status WatchBackingFile(dev_t dev, ino_t ino, uint64_t nodeid);
  // The backing file `dev`/`ino` no longer serves anything: its folios are
  // not counted from now on. Nothing for the other hooks.
  void ForgetBackingFile(dev_t dev, ino_t ino);

  // The hook in use: never kAuto.
  PassthroughIoHook hook() const { return hook_; }

  struct Impl;  // the libbpf skeleton (passthrough_io_counter.cc)

 private:
  PassthroughIoCounter(std::unique_ptr<Impl> impl, PassthroughIoHook hook);
  std::unique_ptr<Impl> impl_;
  PassthroughIoHook hook_;
};

}  // namespace tierfs
