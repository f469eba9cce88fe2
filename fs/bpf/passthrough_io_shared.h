// The layout shared by the BPF program (passthrough_io.bpf.c) and its loader
// (passthrough_io_counter.cc): one count map's value, and how many nodeids a
// map holds. Plain C so that both compilers read it; no behaviour.
#pragma once

#ifndef __bpf__
#include <linux/types.h>
#endif

// Distinct FUSE nodeids one count map holds between two drains. Past this, the
// counts of nodeids not yet in the map are dropped (and counted in `dropped`).
#define TIERFS_PASSTHROUGH_MAX_NODEIDS 65536

// One nodeid's passthrough I/O since the last drain. Bytes are what the calls
// returned; ops are calls that returned >= 0.
struct tierfs_passthrough_counts {
  __u64 read_bytes;
  __u64 read_ops;
  __u64 write_bytes;
  __u64 write_ops;
};
