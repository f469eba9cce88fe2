#!/usr/bin/python3
"""How long writes to a file wait while another thread fdatasyncs it: the
pattern of a database's write-ahead log, where one backend flushes the log
while others append to it. Run by hand, on any directory (a tierfs mount, a
mergerfs mount, the disk itself), as whoever may write there:

    bench/fsync_stall.py DIR [--seconds 5] [--size 16] [--write_kib 8]

It preallocates DIR/fsync_stall.dat (--size MiB, synced), then for --seconds
one thread fdatasyncs it back to back while the main thread overwrites it
in --write_kib pieces, front to back and around. Prints the writes done, their
median and 99th-percentile latency, and the fdatasyncs done; removes the file.

Why it exists: on FUSE the kernel holds the file's inode lock for the whole
of an FSYNC request, the daemon's round trip and its fdatasync of the backing
file included, and a passthrough write takes the same lock, so a write that
arrives during an fdatasync waits for all of it. A local file system waits
for its journal without that lock. docs/benchmarks.md ("pgbench and the
inode lock of an fsync") has the numbers.
"""
import argparse
import os
import threading
import time


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("dir")
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--size", type=int, default=16, help="file size, MiB")
    p.add_argument("--write_kib", type=int, default=8, help="size of each write, KiB")
    a = p.parse_args()
    path = os.path.join(a.dir, "fsync_stall.dat")
    size, piece = a.size << 20, a.write_kib << 10
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.pwrite(fd, b"\0" * size, 0)
        os.fsync(fd)
        stop = threading.Event()
        syncs = [0]

        def syncer():
            while not stop.is_set():
                os.fdatasync(fd)
                syncs[0] += 1

        thread = threading.Thread(target=syncer)
        thread.start()
        latencies, data, offset = [], os.urandom(piece), 0
        end = time.monotonic() + a.seconds
        try:
            while time.monotonic() < end:
                t0 = time.perf_counter()
                os.pwrite(fd, data, offset)
                latencies.append(time.perf_counter() - t0)
                offset = (offset + piece) % size
        finally:
            stop.set()
            thread.join()
        latencies.sort()
        print(f"{a.dir}: {len(latencies)} writes of {a.write_kib} KiB, "
              f"p50 {latencies[len(latencies) // 2] * 1e6:.0f} us, "
              f"p99 {latencies[int(len(latencies) * 0.99)] * 1e6:.0f} us; "
              f"{syncs[0]} fdatasyncs ({a.seconds / max(syncs[0], 1) * 1e6:.0f} us each)")
    finally:
        os.close(fd)
        os.unlink(path)


if __name__ == "__main__":
    main()
