// A random mix of writes, truncates, fsyncs and relocations on one file of a
// mounted tierfs, with a model of the file's bytes kept in step, so that a test
// can compare what reads back with what must (direct_writes_test.cc,
// no_open_test.cc, passthrough_test.cc, mmap_test.cc). Like fsx, the mix can
// also read and write through MAP_SHARED mappings (RandomFileOpsOptions::mmap).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <random>
#include <string>

namespace tierfs::testing {

// pwrite(2) of all `size` bytes at `from` to `offset` of `fd`, retrying short
// writes; fails the test (fatally) on an error.
void PwriteAll(int fd, const char* from, size_t size, off_t offset);

// What one write of the mix did: `data` written at `offset`.
struct RandomWrite {
  size_t offset = 0;
  std::string data;
};
// Makes the write of operation `op`: `kind` (0..15) is the operation's random
// draw, to pick a descriptor or a shape from; `rng` for sizes and offsets.
using RandomWriter = std::function<RandomWrite(int op, unsigned kind, std::mt19937& rng)>;

// What the mix does besides write(2)s (made by the caller's RandomWriter),
// truncates, fsyncs and enforces.
struct RandomFileOpsOptions {
  // fsx's mapped operations. Of the write draws (16 in 20), 2 in 8 become a
  // read of 1 byte to 256 KiB through a MAP_SHARED, PROT_READ mapping of `a` or
  // `b`, compared with the model; 2 in 8 a write of 1 to 200,000 bytes at an
  // offset below 4 MiB through a MAP_SHARED, PROT_READ|PROT_WRITE mapping
  // (ftruncate(2) first when it ends past the end of the file, as fsx does),
  // followed by msync(MS_SYNC) one time in two, then munmap; 1 in 8 a pread(2)
  // of 1 byte to 256 KiB compared with the model. Without it the mix draws
  // exactly what it drew before the option existed, for the same seed.
  bool mmap = false;
};

// What RunRandomFileOps did, added to the counts already there.
struct RandomFileOpsCounts {
  int enforces = 0;       // fsppadm enforce runs (each may relocate the file)
  int mapped_reads = 0;   // reads through a mapping, compared with the model
  int mapped_writes = 0;  // writes through a mapping
  int extends = 0;        // of them, those that ftruncate'd the file longer first
  int msyncs = 0;         // of them, those followed by msync(MS_SYNC)
  int reads = 0;          // pread(2)s compared with the model
};

// Runs `ops` operations on the file open as `a` and `b` (both O_RDWR) in the
// tierfs mounted at `mnt`; of every 20, on average: 16 writes (made by `write`,
// some of them mapped operations with options.mmap), 1 truncate of `a` to
// below 4 MiB, 2 fsyncs of `a` or `b`, and 1 fsync followed by
// `fsppadm enforce` of the mount (which may relocate the file). `model` holds
// the file's bytes before and after. Adds what it did to `*counts`.
// Fails the test (fatally: check HasFatalFailure()) when a call fails or a
// read (mapped or not) differs from the model, naming the operation and offset.
void RunRandomFileOps(const std::string& mnt, int a, int b, int ops, uint32_t seed,
                      const RandomWriter& write, const RandomFileOpsOptions& options,
                      std::string* model, RandomFileOpsCounts* counts);

// The same without mapped operations; adds the enforces run to `*enforces`.
void RunRandomFileOps(const std::string& mnt, int a, int b, int ops, uint32_t seed,
                      const RandomWriter& write, std::string* model, int* enforces);

}  // namespace tierfs::testing
