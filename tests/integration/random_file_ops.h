// A random mix of writes, truncates, fsyncs and relocations on one file of a
// mounted tierfs, with a model of the file's bytes kept in step, so that a test
// can compare what reads back with what must (direct_writes_test.cc,
// no_open_test.cc).
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

// Runs `ops` operations on the file open as `a` and `b` (both O_RDWR) in the
// tierfs mounted at `mnt`; of every 20, on average: 16 writes (made by `write`),
// 1 truncate of `a` to below 4 MiB, 2 fsyncs of `a` or `b`, and 1 fsync followed
// by `fsppadm enforce` of the mount (which may relocate the file). `model` holds
// the file's bytes before and after. Adds the enforces run to `*enforces`.
// Fails the test (fatally: check HasFatalFailure()) when a call fails.
void RunRandomFileOps(const std::string& mnt, int a, int b, int ops, uint32_t seed,
                      const RandomWriter& write, std::string* model, int* enforces);

}  // namespace tierfs::testing
