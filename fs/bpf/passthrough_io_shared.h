// The layout shared by the BPF program (passthrough_io.bpf.c) and its loader
// (passthrough_io_counter.cc): one count map's value, one CPU's bookkeeping,
// and how many nodeids a map holds. Plain C so that both compilers read it; no
// behaviour.
#pragma once

#ifndef __bpf__
#include <linux/types.h>
#endif

// Distinct FUSE nodeids one count map holds between two drains. Past this, the
// counts of nodeids not yet in the map are dropped (and counted in `dropped`).
#define TIERFS_PASSTHROUGH_MAX_NODEIDS 65536

// One nodeid's passthrough I/O since the last drain, as one CPU counted it (the
// count maps are per-CPU: the loader adds up the CPUs). Bytes are what the
// calls returned; ops are calls that returned >= 0.
struct tierfs_passthrough_counts {
  __u64 read_bytes;
  __u64 read_ops;
  __u64 write_bytes;
  __u64 write_ops;
};

// The page-cache hook's key of a backing file: its file system's device, as
// the kernel encodes dev_t (MKDEV: major << 20 | minor), and its inode number.
// The daemon adds one (mapping it to the FUSE nodeid whose opens the kernel
// serves from that file) when it registers a backing file, and removes it when
// the backing id closes.
struct tierfs_backing_key {
  __u64 ino;
  __u32 dev;
  __u32 pad;  // 0: the whole key is compared
};

// Backing files the page-cache hook knows at once: one per file with
// passthrough opens (a full map leaves a new backing file uncounted, and
// says so to the daemon, which then serves that open itself).
#define TIERFS_PASSTHROUGH_MAX_BACKING_FILES 65536

// One CPU's bookkeeping (the value of the per-CPU array `cpu_state`, one
// entry): programs running on this CPU between Enter and Leave, per count map,
// and the counts this CPU dropped. Written only by programs on that CPU; the
// loader reads every CPU's copy and adds them up.
struct tierfs_passthrough_cpu_state {
  __u64 in_flight[2];
  __u64 dropped;
};
