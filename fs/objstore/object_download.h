// DownloadObject: an object into a file descriptor as ranged GETs of a fixed
// size, several in flight, each retried on its own. What the recall of a file
// from an object volume calls.
//
// Why ranges: one GET of a whole object within one call's time bound cannot
// bring a large object over a slow link (a 300 s bound at 100 Mbit/s stops at
// about 3.5 GB), and a failure late in it would start again at byte 0. Here
// every range has the client's bound (S3ClientOptions) to itself, so the
// whole download's time grows with its size, and a range that fails is
// fetched again alone: what was written before it stays (resumes from the
// last byte a finished range wrote, never from 0). The caller verifies the
// whole file afterwards (the recall compares its XXH3-64 with the object's).
//
// Thread-safe as S3Client is; the calling thread waits for its helpers.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "fs/objstore/s3_client.h"

namespace tierfs {

struct DownloadOptions {
  // Bytes per ranged GET (the last may be smaller).
  uint64_t range_bytes = 16ull << 20;
  // Ranged GETs in flight at once (1..16).
  int parallel = 4;
  // Calls per range, the first included: each call already retries what may
  // pass within its own bound; this is for a range whose call gave up (a
  // connection that broke on every attempt), so that one bad minute does not
  // throw away gigabytes already fetched.
  int range_calls = 3;
};

// Writes bytes [0, size) of bucket/key into `fd` at the same offsets (pwrite;
// `size` is the object's size from a HEAD). Returns the bytes written (size),
// or the first error of a range that failed all its calls (the others stop at
// their next range; the file then holds some ranges, which the caller
// discards). EPROTO when the object turns out shorter than `size` (it changed
// since the HEAD); EINVAL for range_bytes 0 or parallel outside 1..16.
Result<uint64_t> DownloadObject(S3Client& client, const std::string& bucket,
                                const std::string& key, uint64_t size, int fd,
                                const DownloadOptions& options = {});

}  // namespace tierfs
