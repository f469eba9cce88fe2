// Counts the reads and writes the kernel serves by FUSE passthrough, per FUSE
// nodeid of one mount, for the daemon's heat (fs/bpf/passthrough_io_counter.h
// loads it; README.md says how it is built).
//
// Hooks the four passthrough entry points of fs/fuse/passthrough.c, either
// with fexit programs or with kprobe + kretprobe pairs (the loader picks one
// set and leaves the other unloaded). Each function returns the bytes moved
// (ssize_t); a negative return is an error or -EIOCBQUEUED (an async request
// whose completion happens elsewhere): neither is counted. An op is one call
// that returned >= 0 (a read at EOF is an op of 0 bytes).
//
// Two count maps take turns (double buffering) so that user space can empty one
// while the other takes new counts, without losing or doubling a count: see
// Enter() below and Drain() in passthrough_io_counter.cc.
//
// Everything the program writes on a counted call is per-CPU: the count maps
// (one copy of each nodeid's counts per CPU) and the in-flight and dropped
// counters (cpu_state). Calls on two CPUs, even on one file, then never write
// the same cache line; the loader adds the CPUs' copies up when it drains.
// The one value every CPU reads, `generation`, only user space writes.
//
// The license string is what the kernel checks before it lets a program call
// GPL-only helpers (bpf_probe_read_kernel, behind BPF_CORE_READ).

#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "fs/bpf/passthrough_io_shared.h"

char LICENSE[] SEC("license") = "GPL";

// struct fuse_inode is private to fs/fuse: it is in vmlinux's BTF only when FUSE
// is built in, in the fuse module's BTF otherwise. This local flavour (libbpf
// ignores the ___tierfs suffix when matching) names the two members we read,
// and CO-RE finds their real offsets in whichever BTF has the type at load time.
struct fuse_inode___tierfs {
  struct inode inode;
  u64 nodeid;
} __attribute__((preserve_access_index));

// The mount to count, as the kernel encodes dev_t (MKDEV: major << 20 | minor).
// Set by the loader before load; the verifier then sees it as a constant. The
// globals use the __u types because the generated skeleton, included by C++,
// repeats their declarations.
const volatile __u32 target_dev = 0;

// Which count map takes new counts: counts_b when generation is odd, else
// counts_a. Only user space changes it, in Drain (once a drain interval): the
// programs only read it, so its cache line stays shared by every CPU.
volatile __u32 generation = 0;

// Per CPU (struct tierfs_passthrough_cpu_state): the programs between Enter
// and Leave on that CPU, per count map (Drain waits until every CPU's count
// for the map it retired is 0 before it reads that map), and the counts lost
// there: a full map (a nodeid not yet in it), or a program that saw the
// generation change twice while it entered (never in practice: Drain runs at
// most once at a time and takes far longer than Enter). One entry; a lookup
// returns the running CPU's copy.
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, u32);
  __type(value, struct tierfs_passthrough_cpu_state);
} cpu_state SEC(".maps");

// Per CPU too: a lookup returns the running CPU's copy of the nodeid's counts,
// and an insert by the program sets that copy and zeroes the others. Elements
// are allocated as nodeids come (not max_entries x CPUs up front); README.md
// gives the memory bound.
struct counts_map {
  __uint(type, BPF_MAP_TYPE_PERCPU_HASH);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __uint(max_entries, TIERFS_PASSTHROUGH_MAX_NODEIDS);
  __type(key, u64);                      // FUSE nodeid
  __type(value, struct tierfs_passthrough_counts);
};
struct counts_map counts_a SEC(".maps");
struct counts_map counts_b SEC(".maps");

// Why the per-CPU copies need no more than this CPU's atomics:
// - A program runs with migration disabled (tracing programs at least that,
//   kprobes and most tracepoints with preemption off), so the copies it looks
//   up, and its Enter and Leave, are all on the one CPU it started on.
// - Two programs may still interleave on one CPU (an fexit program can be
//   preempted by a task whose call runs another of ours), so every write to a
//   copy is an atomic read-modify-write: a plain += could lose one. No other
//   CPU writes that line, so the atomic costs no cache-line transfer.

// Registers this program as writing to one map in its CPU's `cpu` state and
// returns the map's index (0 or 1), or -1 after two changes of generation (the
// count is dropped). Paired with Drain's "store generation, then read every
// CPU's in_flight" (both full barriers): either Drain reads this CPU's
// in_flight with our increment in it and waits, or we see its new generation
// and move on. That each CPU has its own counter changes nothing in it: Drain
// reads each CPU's after its store, and this program's increment and
// decrement land on the same CPU's (no migration), so a CPU's count is never
// below its programs still inside.
static __always_inline int Enter(struct tierfs_passthrough_cpu_state* cpu) {
  for (int attempt = 0; attempt < 2; attempt++) {
    u32 index = generation & 1;
    // The fetch form (its result used) is the one BPF orders fully on every
    // architecture: the re-read below cannot move before it.
    u64 before = __sync_fetch_and_add(&cpu->in_flight[index], 1);
    barrier_var(before);
    if ((generation & 1) == index) return index;
    __sync_fetch_and_sub(&cpu->in_flight[index], 1);
  }
  __sync_fetch_and_add(&cpu->dropped, 1);
  return -1;
}

static __always_inline void Leave(struct tierfs_passthrough_cpu_state* cpu, int index) {
  __sync_fetch_and_sub(&cpu->in_flight[index & 1], 1);
}

static __always_inline struct tierfs_passthrough_counts* CountsFor(int index, u64 nodeid) {
  void* map = index ? (void*)&counts_b : (void*)&counts_a;
  struct tierfs_passthrough_counts* counts = bpf_map_lookup_elem(map, &nodeid);
  if (counts) return counts;
  struct tierfs_passthrough_counts zero = {};
  // -EEXIST: another program added it first (on this CPU or another; either
  // way the lookup below finds this CPU's copy), which is fine; -E2BIG: the
  // map is full.
  long err = bpf_map_update_elem(map, &nodeid, &zero, BPF_NOEXIST);
  if (err && err != -17 /* EEXIST */) return 0;
  return bpf_map_lookup_elem(map, &nodeid);
}

// The FUSE nodeid of `inode` when it belongs to the counted mount, else 0
// (never a real nodeid: FUSE numbers from 1, the root).
static __always_inline u64 NodeidOf(struct inode* inode) {
  if (!inode || BPF_CORE_READ(inode, i_sb, s_dev) != target_dev) return 0;
  struct fuse_inode___tierfs* fi =
      (void*)((char*)inode - bpf_core_field_offset(struct fuse_inode___tierfs, inode));
  return BPF_CORE_READ(fi, nodeid);
}

// Adds one call that returned `bytes` to `nodeid`'s counts (nothing for errors
// and -EIOCBQUEUED).
static __always_inline void Count(u64 nodeid, long bytes, bool is_write) {
  if (bytes < 0 || nodeid == 0) return;
  u32 only = 0;
  struct tierfs_passthrough_cpu_state* cpu = bpf_map_lookup_elem(&cpu_state, &only);
  if (!cpu) return;  // never: the array's one entry always exists
  int index = Enter(cpu);
  if (index < 0) return;
  struct tierfs_passthrough_counts* counts = CountsFor(index, nodeid);
  if (!counts) {
    __sync_fetch_and_add(&cpu->dropped, 1);
  } else if (is_write) {
    __sync_fetch_and_add(&counts->write_bytes, (u64)bytes);
    __sync_fetch_and_add(&counts->write_ops, 1);
  } else {
    __sync_fetch_and_add(&counts->read_bytes, (u64)bytes);
    __sync_fetch_and_add(&counts->read_ops, 1);
  }
  Leave(cpu, index);
}

// ---- fexit: one program per function, arguments and return value together.
// The loader's first choice (no per-call map traffic, no limit on calls in
// flight); some kernels refuse it (no BPF trampoline on the architecture, or
// an LSM policy that denies tracing programs), hence the kprobe pairs below.

SEC("fexit/fuse_passthrough_read_iter")
int BPF_PROG(fexit_read_iter, struct kiocb* iocb, struct iov_iter* iter, long ret) {
  Count(NodeidOf(BPF_CORE_READ(iocb, ki_filp, f_inode)), ret, false);
  return 0;
}

SEC("fexit/fuse_passthrough_write_iter")
int BPF_PROG(fexit_write_iter, struct kiocb* iocb, struct iov_iter* iter, long ret) {
  Count(NodeidOf(BPF_CORE_READ(iocb, ki_filp, f_inode)), ret, true);
  return 0;
}

// sendfile, splice and the kernel's copy_file_range fallback on a passthrough file.
SEC("fexit/fuse_passthrough_splice_read")
int BPF_PROG(fexit_splice_read, struct file* in, loff_t* ppos, struct pipe_inode_info* pipe,
             size_t len, unsigned int flags, long ret) {
  Count(NodeidOf(BPF_CORE_READ(in, f_inode)), ret, false);
  return 0;
}

SEC("fexit/fuse_passthrough_splice_write")
int BPF_PROG(fexit_splice_write, struct pipe_inode_info* pipe, struct file* out, loff_t* ppos,
             size_t len, unsigned int flags, long ret) {
  Count(NodeidOf(BPF_CORE_READ(out, f_inode)), ret, true);
  return 0;
}

// ---- kprobe + kretprobe: the entry probe notes the nodeid per task, the
// return probe counts it with the return value. A task is in at most one
// passthrough call of this mount at a time (a backing file on the same mount
// is refused by the kernel's stacking check), so the task is the key. LRU: an
// entry whose return probe was missed (more calls in flight than the
// kretprobe's instances) is overwritten by the task's next call or evicted.

struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __uint(max_entries, 8192);  // tasks inside a passthrough call at once
  __type(key, u64);           // bpf_get_current_pid_tgid()
  __type(value, u64);         // FUSE nodeid
} calls_in_flight SEC(".maps");

static __always_inline void Remember(u64 nodeid) {
  if (nodeid == 0) return;
  u64 task = bpf_get_current_pid_tgid();
  bpf_map_update_elem(&calls_in_flight, &task, &nodeid, BPF_ANY);
}

static __always_inline void Finish(long ret, bool is_write) {
  u64 task = bpf_get_current_pid_tgid();
  u64* nodeid = bpf_map_lookup_elem(&calls_in_flight, &task);
  if (!nodeid) return;
  u64 copy = *nodeid;
  bpf_map_delete_elem(&calls_in_flight, &task);
  Count(copy, ret, is_write);
}

SEC("kprobe/fuse_passthrough_read_iter")
int BPF_KPROBE(kprobe_read_iter, struct kiocb* iocb) {
  Remember(NodeidOf(BPF_CORE_READ(iocb, ki_filp, f_inode)));
  return 0;
}

SEC("kretprobe/fuse_passthrough_read_iter")
int BPF_KRETPROBE(kretprobe_read_iter, long ret) {
  Finish(ret, false);
  return 0;
}

SEC("kprobe/fuse_passthrough_write_iter")
int BPF_KPROBE(kprobe_write_iter, struct kiocb* iocb) {
  Remember(NodeidOf(BPF_CORE_READ(iocb, ki_filp, f_inode)));
  return 0;
}

SEC("kretprobe/fuse_passthrough_write_iter")
int BPF_KRETPROBE(kretprobe_write_iter, long ret) {
  Finish(ret, true);
  return 0;
}

SEC("kprobe/fuse_passthrough_splice_read")
int BPF_KPROBE(kprobe_splice_read, struct file* in) {
  Remember(NodeidOf(BPF_CORE_READ(in, f_inode)));
  return 0;
}

SEC("kretprobe/fuse_passthrough_splice_read")
int BPF_KRETPROBE(kretprobe_splice_read, long ret) {
  Finish(ret, false);
  return 0;
}

SEC("kprobe/fuse_passthrough_splice_write")
int BPF_KPROBE(kprobe_splice_write, struct pipe_inode_info* pipe, struct file* out) {
  Remember(NodeidOf(BPF_CORE_READ(out, f_inode)));
  return 0;
}

SEC("kretprobe/fuse_passthrough_splice_write")
int BPF_KRETPROBE(kretprobe_splice_write, long ret) {
  Finish(ret, true);
  return 0;
}

// ---- syscall exit: the last resort, for kernels that allow neither fexit nor
// kprobes (CONFIG_KPROBES off, and trampolines refused by policy). One BTF
// tracepoint program on every system call's exit, machine-wide: it sees the
// call's number, arguments and result, finds the file behind the fd, and counts
// it when it is a passthrough open of this mount. Blind to I/O that is not one
// of these calls on that fd (io_uring, aio, copy_file_range's in-kernel
// fallback) and to 32-bit processes; x86-64 only (syscall numbers and
// registers are the architecture's).

// What of struct fuse_file (fs/fuse/fuse_i.h) tells a passthrough open: the
// backing file it holds (set only with CONFIG_FUSE_PASSTHROUGH and
// FOPEN_PASSTHROUGH), and FOPEN_DIRECT_IO, which sends read and write to the
// daemon (that counts them itself) even on a passthrough open.
struct fuse_file___tierfs {
  u32 open_flags;
  struct file* passthrough;
} __attribute__((preserve_access_index));

#define TIERFS_FOPEN_DIRECT_IO 1u

// The nodeid behind `fd` of the current task when it is a passthrough open
// (without FOPEN_DIRECT_IO) of the counted mount, else 0.
// A kfunc (Linux 6.2+): the object at `obj` seen as the kernel type `btf_id`,
// read-only. Loads through it are plain instructions that the JIT guards,
// instead of one bpf_probe_read_kernel call each.
extern void* bpf_rdonly_cast(const void* obj, __u32 btf_id) __ksym;

static __always_inline u64 PassthroughNodeidOfFd(struct task_struct* task, long fd) {
  if (fd < 0) return 0;
  // Direct loads where the verifier knows the type (task is trusted); helper
  // reads only for the fd array, which is indexed by a runtime value.
  struct fdtable* fdt = task->files->fdt;
  if (!fdt || fd >= fdt->max_fds) return 0;
  struct file** fds = BPF_CORE_READ(fdt, fd);
  struct file* raw = 0;
  if (bpf_probe_read_kernel(&raw, sizeof(raw), &fds[fd]) || !raw) return 0;
  struct file* file = bpf_rdonly_cast(raw, bpf_core_type_id_kernel(struct file));
  struct inode* inode = file->f_inode;
  // The common case, any file not on this mount, ends here.
  if (!inode || inode->i_sb->s_dev != target_dev) return 0;
  u64 nodeid = NodeidOf(inode);
  if (nodeid == 0) return 0;
  if (!bpf_core_field_exists(struct fuse_file___tierfs, passthrough)) return 0;
  struct fuse_file___tierfs* ff = BPF_CORE_READ(file, private_data);
  if (!ff || !BPF_CORE_READ(ff, passthrough)) return 0;
  if (BPF_CORE_READ(ff, open_flags) & TIERFS_FOPEN_DIRECT_IO) return 0;
  return nodeid;
}

// x86's TS_COMPAT (arch/x86/include/asm/thread_info.h): the task is in a
// 32-bit system call, whose numbers differ (32-bit 19 is lseek, not readv).
#define TIERFS_TS_COMPAT 0x0002u

SEC("tp_btf/sys_exit")
int BPF_PROG(syscall_exit, struct pt_regs* regs, long ret) {
#if defined(__TARGET_ARCH_x86)
  if (ret < 0) return 0;
  // Every system call of the machine passes here: leave as cheaply as possible
  // (a direct load from the trusted regs pointer, no helper call) unless the
  // number is one of ours; x32's numbers (bit 30 set) never are.
  long nr = regs->orig_ax;
  bool is_ours = nr <= 20 ? (nr == 0 || nr == 1 || (nr >= 17 && nr <= 20))
                          : (nr == 40 || nr == 275 || nr == 295 || nr == 296 || nr == 327 ||
                             nr == 328);
  if (!is_ours) return 0;
  struct task_struct* task = bpf_get_current_task_btf();
  if (task->thread_info.status & TIERFS_TS_COMPAT) return 0;
  switch (nr) {
    case 0:    // read
    case 17:   // pread64
    case 19:   // readv
    case 295:  // preadv
    case 327:  // preadv2
      Count(PassthroughNodeidOfFd(task, PT_REGS_PARM1_CORE_SYSCALL(regs)), ret, false);
      break;
    case 1:    // write
    case 18:   // pwrite64
    case 20:   // writev
    case 296:  // pwritev
    case 328:  // pwritev2
      Count(PassthroughNodeidOfFd(task, PT_REGS_PARM1_CORE_SYSCALL(regs)), ret, true);
      break;
    case 40:  // sendfile(out_fd, in_fd, ...)
      Count(PassthroughNodeidOfFd(task, PT_REGS_PARM2_CORE_SYSCALL(regs)), ret, false);
      Count(PassthroughNodeidOfFd(task, PT_REGS_PARM1_CORE_SYSCALL(regs)), ret, true);
      break;
    case 275:  // splice(fd_in, off_in, fd_out, ...)
      Count(PassthroughNodeidOfFd(task, PT_REGS_PARM1_CORE_SYSCALL(regs)), ret, false);
      Count(PassthroughNodeidOfFd(task, PT_REGS_PARM3_CORE_SYSCALL(regs)), ret, true);
      break;
  }
#endif
  return 0;
}

// ---- page cache: where a passthrough file's bytes meet its volume. Two BTF
// tracepoints that fire per folio, not per call: a folio inserted into a
// backing file's page cache (a page-cache miss, read by readahead or a fault,
// or a new page a write fills) and a folio first dirtied (a write, or a store
// through a shared mapping, that will reach the volume at writeback). Heat
// counts the bytes that reach a volume (docs/policies.md: page-cache hits earn
// none), which is exactly what these see; and they cost nothing to the
// system calls that miss no page, on any file of the machine.
//
// The events name the backing file (the object on the volume), not the FUSE
// inode: `backing_files`, filled by the daemon as it registers backing files
// with the kernel, maps the object's device and inode number to the nodeid.
// Blind to direct I/O (no page cache), and to a folio that is already cached
// or already dirty (those bytes reach the volume once, at most, for all the
// calls that touch them).

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, TIERFS_PASSTHROUGH_MAX_BACKING_FILES);
  __type(key, struct tierfs_backing_key);
  __type(value, u64);  // FUSE nodeid
} backing_files SEC(".maps");

// The daemon's own process: its reads and writes of an object (a relocation's
// copy, a read it serves itself) are either counted by the daemon already or
// not an application's I/O, so they earn no heat here. Set before load.
const volatile __u32 daemon_tgid = 0;
// The kernel's page size in bytes (a folio is a power of two of pages). Set
// before load from sysconf(_SC_PAGESIZE).
const volatile __u32 page_size = 4096;

// memdesc_flags_t (6.17 and later) wraps the folio's flags word; older kernels
// have a plain unsigned long there. Either way it is the folio's first word.
// PG_head's number comes from the running kernel's BTF (enum pageflags).
static __always_inline u64 FolioBytes(struct folio* folio) {
  unsigned long flags = 0;
  bpf_probe_read_kernel(&flags, sizeof(flags), &folio->flags);
  u64 pages = 1;
  if (flags & (1ul << bpf_core_enum_value(enum pageflags, PG_head))) {
    // A large folio: its order is the low byte of the first tail page's
    // flags (folio_large_order); 6.18 also caches the page count.
    unsigned long flags_1 = BPF_CORE_READ(folio, _flags_1);
    pages = 1ull << (flags_1 & 0xff);
  }
  return pages * page_size;
}

// Counts `folio` of `mapping` (a backing file's page cache) for its nodeid.
static __always_inline void CountFolio(struct folio* folio, struct address_space* mapping,
                                       bool is_write) {
  if (!mapping || (bpf_get_current_pid_tgid() >> 32) == daemon_tgid) return;
  struct inode* host = BPF_CORE_READ(mapping, host);
  if (!host) return;
  struct tierfs_backing_key key = {
      .ino = BPF_CORE_READ(host, i_ino),
      .dev = BPF_CORE_READ(host, i_sb, s_dev),
  };
  u64* nodeid = bpf_map_lookup_elem(&backing_files, &key);
  if (!nodeid) return;  // not a backing file of this mount: most folios end here
  Count(*nodeid, FolioBytes(folio), is_write);
}

// include/linux/sched.h: the task allocates as if in a file system (no
// recursion into it). Readahead (page_cache_ra_unbounded, page_cache_ra_order:
// every read that misses, and every mmap fault that reads) sets it around the
// folios it adds; a write's write_begin does not, though it adds a folio too
// for a page it is about to fill, which the dirty event counts as a write.
#define TIERFS_PF_MEMALLOC_NOFS 0x00040000u

SEC("tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(pagecache_add, struct folio* folio) {
  struct task_struct* task = bpf_get_current_task_btf();
  if (!(task->flags & TIERFS_PF_MEMALLOC_NOFS)) return 0;  // not readahead: a write's page
  CountFolio(folio, BPF_CORE_READ(folio, mapping), false);
  return 0;
}

SEC("tp_btf/writeback_dirty_folio")
int BPF_PROG(pagecache_dirty, struct folio* folio, struct address_space* mapping) {
  CountFolio(folio, mapping, true);
  return 0;
}
