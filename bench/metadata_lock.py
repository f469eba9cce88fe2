#!/usr/bin/python3
"""How often small-file requests take the metadata database's one lock, and
how long they wait for it: the lane every namespace request of the daemon
shares (docs/design.md "Lanes every request shares"). Run by hand, as root:

    bench/metadata_lock.py [--build build] [--procs 1,2,4] [--files 3000]
                           [--tierfs_args "--cached_inodes 65536"]

For each process count it makes a file system (volumes on a tmpfs), mounts
it with --metrics_listen, and runs three phases, each in N processes at once,
each process in its own directory: create + write 1 KiB + close, stat, unlink
(the small-file lines of the scale benchmark, split so that the counters can
be read between phases). Prints per phase: files/s, the database lock's
holds, waits and microseconds waited per file
(tierfs_metadata_lock_acquisitions_total, _waits_total,
_wait_seconds_total), and the FUSE requests per file. The counts per file
are what to compare between builds; the rates need a quiet machine.
Everything it made is removed at the end.
"""
import argparse
import multiprocessing
import os
import shlex
import subprocess
import sys
import tempfile
import time
import urllib.request

PORT = 9479


def metrics():
    text = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % PORT, timeout=10).read().decode()
    out = {}
    for line in text.splitlines():
        if line.startswith("tierfs_metadata_lock"):
            out[line.split("{")[0]] = float(line.rsplit(" ", 1)[1])
        elif line.startswith("tierfs_fuse_requests_total{"):
            op = line.split('op="')[1].split('"')[0]
            out["op:" + op] = float(line.rsplit(" ", 1)[1])
    return out


def work(directory, files, phase, barrier):
    names = [os.path.join(directory, "f%06d" % k) for k in range(files)]
    barrier.wait()
    for path in names:
        if phase == "create":
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            os.write(fd, b"x" * 1024)
            os.close(fd)
        elif phase == "stat":
            os.stat(path)
        else:
            os.unlink(path)


def run_phases(mnt, procs, files):
    dirs = [os.path.join(mnt, "p%d" % i) for i in range(procs)]
    for d in dirs:
        os.mkdir(d)
    for phase in ("create", "stat", "unlink"):
        barrier = multiprocessing.Barrier(procs + 1)
        workers = [multiprocessing.Process(target=work, args=(d, files, phase, barrier))
                   for d in dirs]
        for w in workers:
            w.start()
        before = metrics()
        barrier.wait(timeout=60)
        start = time.perf_counter()
        for w in workers:
            w.join(timeout=600)
        seconds = time.perf_counter() - start
        after = metrics()
        n = procs * files
        diff = {k: after.get(k, 0) - before.get(k, 0) for k in after}
        ops = " ".join("%s=%.1f" % (k[3:], v / n) for k, v in sorted(diff.items())
                       if k.startswith("op:") and v / n >= 0.05)
        print("p%-2d %-6s %8.0f files/s  lock holds %.2f  waits %.2f  waited %.1f us  | %s" % (
            procs, phase, n / seconds,
            diff.get("tierfs_metadata_lock_acquisitions_total", 0) / n,
            diff.get("tierfs_metadata_lock_waits_total", 0) / n,
            diff.get("tierfs_metadata_lock_wait_seconds_total", 0) / n * 1e6, ops), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--procs", default="1,2,4")
    ap.add_argument("--files", type=int, default=3000)
    ap.add_argument("--tierfs_args", default="")
    a = ap.parse_args()
    cli = os.path.join(a.build, "cli")
    for procs in [int(p) for p in a.procs.split(",")]:
        root = tempfile.mkdtemp(prefix="tierfs-lock-")
        ssd, hdd, mnt = (os.path.join(root, n) for n in ("ssd", "hdd", "mnt"))
        for d in (ssd, hdd, mnt):
            os.mkdir(d)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4g", "bench", ssd], check=True)
        daemon = None
        try:
            subprocess.run([os.path.join(cli, "mkdstfs"), "-f", "--no-mount", mnt, "bench",
                            ssd + ":ssd", hdd + ":hdd"], check=True, capture_output=True)
            subprocess.run([os.path.join(cli, "tierfs"), "--metrics_listen",
                            "127.0.0.1:%d" % PORT] + shlex.split(a.tierfs_args) + [ssd, mnt],
                           check=True)
            daemon = subprocess.run(["pgrep", "-f", "metrics_listen 127.0.0.1:%d" % PORT],
                                    capture_output=True, text=True).stdout.split()
            run_phases(mnt, procs, a.files)
        finally:
            subprocess.run(["fusermount3", "-u", mnt])
            for _ in range(100):  # the daemon's last flush, bounded
                if not daemon or subprocess.run(["kill", "-0", daemon[0]],
                                                capture_output=True).returncode != 0:
                    break
                time.sleep(0.1)
            subprocess.run(["umount", ssd])
            subprocess.run(["rm", "-rf", root])
    return 0


if __name__ == "__main__":
    sys.exit(main())
