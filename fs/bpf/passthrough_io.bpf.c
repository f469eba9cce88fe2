// SPDX-License-Identifier: GPL-2.0
// Counts the reads and writes the kernel serves by FUSE passthrough, per FUSE
// nodeid of one mount, for the daemon's heat (fs/bpf/passthrough_io_counter.h
// loads it; README.md says how it is built).
//
// fexit programs on the four passthrough entry points of fs/fuse/passthrough.c.
// Each returns the bytes moved (ssize_t); a negative return is an error or
// -EIOCBQUEUED (an async request whose completion happens elsewhere): neither
// is counted. An op is one call that returned >= 0 (a read at EOF is an op of
// 0 bytes).
//
// Two count maps take turns (double buffering) so that user space can empty one
// while the other takes new counts, without losing or doubling a count: see
// Enter() below and Drain() in passthrough_io_counter.cc.
//
// GPL: fexit programs may only call GPL helpers.

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

// Which count map takes new counts: counts_by_nodeid[generation & 1]. Only user
// space changes it, in Drain.
volatile __u32 generation = 0;
// Programs between Enter and Leave, per map: Drain waits for the map it retired
// to reach 0 before it reads it.
__u64 in_flight[2] = {0, 0};
// Counts lost: a full map (a nodeid not yet in it), or a program that saw the
// generation change twice while it entered (never in practice: Drain runs at
// most once at a time and takes far longer than Enter).
__u64 dropped = 0;

struct counts_map {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(map_flags, BPF_F_NO_PREALLOC);  // memory as nodeids come, not 64k up front
  __uint(max_entries, TIERFS_PASSTHROUGH_MAX_NODEIDS);
  __type(key, u64);                      // FUSE nodeid
  __type(value, struct tierfs_passthrough_counts);
};
struct counts_map counts_a SEC(".maps");
struct counts_map counts_b SEC(".maps");

// Registers this program as writing to one map and returns its index (0 or
// 1), or -1 after two changes of generation (the count is dropped). Paired with
// Drain's "store generation, then read in_flight" (both full barriers): either
// Drain sees our in_flight and waits, or we see its new generation and move on.
static __always_inline int Enter(void) {
  for (int attempt = 0; attempt < 2; attempt++) {
    u32 index = generation & 1;
    // The fetch form (its result used) is the one BPF orders fully on every
    // architecture: the re-read below cannot move before it.
    u64 before = __sync_fetch_and_add(&in_flight[index], 1);
    barrier_var(before);
    if ((generation & 1) == index) return index;
    __sync_fetch_and_sub(&in_flight[index], 1);
  }
  __sync_fetch_and_add(&dropped, 1);
  return -1;
}

static __always_inline void Leave(int index) {
  __sync_fetch_and_sub(&in_flight[index & 1], 1);
}

static __always_inline struct tierfs_passthrough_counts* CountsFor(int index, u64 nodeid) {
  void* map = index ? (void*)&counts_b : (void*)&counts_a;
  struct tierfs_passthrough_counts* counts = bpf_map_lookup_elem(map, &nodeid);
  if (counts) return counts;
  struct tierfs_passthrough_counts zero = {};
  // -EEXIST: another CPU added it first, which is fine; -E2BIG: the map is full.
  long err = bpf_map_update_elem(map, &nodeid, &zero, BPF_NOEXIST);
  if (err && err != -17 /* EEXIST */) return 0;
  return bpf_map_lookup_elem(map, &nodeid);
}

static __always_inline void Count(struct inode* inode, long bytes, bool is_write) {
  if (bytes < 0 || !inode) return;
  if (BPF_CORE_READ(inode, i_sb, s_dev) != target_dev) return;
  struct fuse_inode___tierfs* fi =
      (void*)((char*)inode - bpf_core_field_offset(struct fuse_inode___tierfs, inode));
  u64 nodeid = BPF_CORE_READ(fi, nodeid);

  int index = Enter();
  if (index < 0) return;
  struct tierfs_passthrough_counts* counts = CountsFor(index, nodeid);
  if (!counts) {
    __sync_fetch_and_add(&dropped, 1);
  } else if (is_write) {
    __sync_fetch_and_add(&counts->write_bytes, (u64)bytes);
    __sync_fetch_and_add(&counts->write_ops, 1);
  } else {
    __sync_fetch_and_add(&counts->read_bytes, (u64)bytes);
    __sync_fetch_and_add(&counts->read_ops, 1);
  }
  Leave(index);
}

SEC("fexit/fuse_passthrough_read_iter")
int BPF_PROG(count_read_iter, struct kiocb* iocb, struct iov_iter* iter, long ret) {
  Count(BPF_CORE_READ(iocb, ki_filp, f_inode), ret, false);
  return 0;
}

SEC("fexit/fuse_passthrough_write_iter")
int BPF_PROG(count_write_iter, struct kiocb* iocb, struct iov_iter* iter, long ret) {
  Count(BPF_CORE_READ(iocb, ki_filp, f_inode), ret, true);
  return 0;
}

// sendfile, splice and the kernel's copy_file_range fallback on a passthrough file.
SEC("fexit/fuse_passthrough_splice_read")
int BPF_PROG(count_splice_read, struct file* in, loff_t* ppos, struct pipe_inode_info* pipe,
             size_t len, unsigned int flags, long ret) {
  Count(BPF_CORE_READ(in, f_inode), ret, false);
  return 0;
}

SEC("fexit/fuse_passthrough_splice_write")
int BPF_PROG(count_splice_write, struct pipe_inode_info* pipe, struct file* out, loff_t* ppos,
             size_t len, unsigned int flags, long ret) {
  Count(BPF_CORE_READ(out, f_inode), ret, true);
  return 0;
}
