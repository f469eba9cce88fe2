#!/usr/bin/python3
"""Replays placement_bench's workload on a real tierfs mount and compares the
share of read bytes the fast class served, period by period, with what the
simulation (the same planner on a simulated clock) says: the simulation is
checked against a real mount at small scale, and the two should agree. Run by hand, as root:

    bench/placement_mount.py [--build build] [--files 200] [--periods 8]
                             [--shift_every 2] [--reads 2000] [--period_seconds 6]
                             [--tierfs_args "--passthrough=rw"]

Time is scaled: one simulated period (6 hours, hourly heat buckets) becomes
--period_seconds seconds with 1-second heat buckets (mkdstfs --heat-bucket 1),
and the policy's PERIOD and AveragePeriod are scaled the same way, so the
bucket-to-period ratio (1 to 6) is the simulation's. The fast class is a
tmpfs volume of the simulation's ssd capacity (class "fast"; the metadata
volume, class "ssd", is a separate directory the policy never names, so the
database takes none of the class's room). docs/examples/shifting_hot_set.xml
is used with its class renamed. Reads go to the daemon (the page cache is
dropped with posix_fadvise before each read); the share served comes from
the daemon's Prometheus metrics (tierfs_class_read_bytes_total). With
--tierfs_args "--passthrough=rw" the reads go from the kernel to the objects
instead, and the share comes from the kernel's counts of them, which the
daemon adds to the same metric every second: the measure of whether heat stays
honest under passthrough.

Prints one row per period (simulated share, real share, difference) and the
mean absolute difference over all periods and over the periods whose hot
set had been seen for one period. Everything it made is removed at the end.
"""
import argparse
import csv
import math
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from prometheus_client.parser import text_string_to_metric_families


def run(argv, **kw):
    return subprocess.run(argv, check=True, text=True, capture_output=True, **kw)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sample(port, name, **labels):
    """One sample of the daemon's metrics (0 when absent)."""
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                return s.value
    return 0


def class_reads(port):
    """Bytes read per class since the mount, from the daemon's metrics."""
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == "tierfs_class_read_bytes_total":
                out[s.labels["class"]] = s.value
    return out


def scaled_policy(source, period_seconds):
    """shifting_hot_set.xml with class ssd renamed fast and every period scaled
    from hours (a simulated period is 6 hours) to period_seconds per 6 hours."""
    text = open(source).read()
    text = re.sub(r"<CLASS>\s*ssd\s*</CLASS>", "<CLASS> fast </CLASS>", text)
    scale = period_seconds / 6.0 / 3600.0  # hours of policy time per simulated hour

    def period(m):
        return f'<PERIOD Units="hours"> {float(m.group(1)) * scale:.9f} </PERIOD>'

    text = re.sub(r'<PERIOD Units="hours">\s*([0-9.]+)\s*</PERIOD>', period, text)
    average = 24 * scale  # the default AveragePeriod, 24 hours
    return text.replace("<PLACEMENT_POLICY ", f'<PLACEMENT_POLICY AveragePeriod="{average:.9f}" ', 1)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default="build")
    p.add_argument("--files", type=int, default=200)
    p.add_argument("--periods", type=int, default=8)
    p.add_argument("--shift_every", type=int, default=2)
    p.add_argument("--reads", type=int, default=2000)
    p.add_argument("--period_seconds", type=float, default=6)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--tierfs_args", default="",
                   help="more arguments for the tierfs mount, e.g. --passthrough=rw")
    a = p.parse_args()
    if os.geteuid() != 0:
        sys.exit("placement_mount.py: run as root (it mounts a tmpfs)")
    build = os.path.abspath(a.build)
    policy_source = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                 "..", "docs", "examples", "shifting_hot_set.xml")
    work = tempfile.mkdtemp(prefix="tierfs-placement-")
    meta, fast, slow, mnt = (os.path.join(work, d) for d in ("meta", "fast", "slow", "mnt"))
    for d in (meta, fast, slow, mnt):
        os.mkdir(d)
    mounted = tmpfs = False
    try:
        # The simulation, and its workload as a trace.
        trace, sim_csv = os.path.join(work, "trace.tsv"), os.path.join(work, "sim.csv")
        run([f"{build}/bench/placement_bench", "--files", str(a.files), "--periods",
             str(a.periods), "--shift_every", str(a.shift_every), "--reads", str(a.reads),
             "--seed", str(a.seed), "--policy", policy_source, "--trace", trace,
             "--csv", sim_csv])
        files, accesses, capacity = {}, {}, 0
        with open(trace) as f:
            for line in f:
                cols = line.rstrip("\n").split("\t")
                if cols[0] == "files":
                    capacity = int(cols[3])
                elif cols[0] == "file":
                    files[int(cols[1])] = (cols[2], int(cols[3]))
                else:
                    accesses.setdefault(int(cols[0]), []).append(
                        (int(cols[1]), int(cols[2]), int(cols[3]), cols[4]))
        sim = {}
        with open(sim_csv) as f:
            for row in csv.DictReader(f):
                if row["swap"] == "on":
                    sim[int(row["period"])] = (float(row["served_read"]), int(row["seen"]))

        # The file system: the fast class holds exactly the simulation's ssd capacity.
        run(["mount", "-t", "tmpfs", "-o", f"size={capacity}", "tmpfs", fast])
        tmpfs = True
        run([f"{build}/cli/mkdstfs", "--no-mount", "--heat-bucket", "1", mnt, "placement",
             f"{meta}:ssd", f"{fast}:fast", f"{slow}:hdd"])
        port = free_port()
        run([f"{build}/cli/tierfs", "--metrics_listen", f"127.0.0.1:{port}",
             *a.tierfs_args.split(), meta, mnt])
        mounted = True
        policy = os.path.join(work, "policy.xml")
        with open(policy, "w") as f:
            f.write(scaled_policy(policy_source, a.period_seconds))
        run([f"{build}/cli/fsppadm", "assign", mnt, policy])
        for path, size in files.values():
            full = mnt + path
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "wb") as f:
                f.write(os.urandom(size))
                f.flush()
                os.fsync(f.fileno())

        rows = []
        for period in range(a.periods):
            # A period starts on a whole second, as the simulation's periods start
            # on bucket boundaries: the enforce at its end must see the window
            # [start, start + period_seconds), and a window ends at the end of
            # the second the scan starts in (fs/tiering/scan_records.h).
            time.sleep(math.ceil(time.time()) - time.time() + 0.01)
            start = time.time()
            before = class_reads(port)
            for index, offset, length, kind in accesses.get(period, []):
                path = mnt + files[index][0]
                fd = os.open(path, os.O_RDONLY if kind == "r" else os.O_RDWR)
                try:
                    # Drop the cached pages so the read reaches the daemon (and its count).
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                    if kind == "r":
                        os.pread(fd, length, offset)
                    else:
                        os.pwrite(fd, os.urandom(length), offset)
                finally:
                    os.close(fd)
            # Passthrough reads reach the metrics at the kernel counter's next
            # drain (every second): wait for it, in every mode alike.
            time.sleep(1.2)
            after = class_reads(port)
            read = {c: after.get(c, 0) - before.get(c, 0) for c in after}
            total = sum(read.values())
            real = read.get("fast", 0) / total if total else 0.0
            rows.append((period, sim.get(period, (0.0, 0))[0], real, sim.get(period, (0, 0))[1]))
            # The enforce at the end of the period, as in the simulation: in the
            # period's last second, so its window is exactly this period.
            time.sleep(max(0.0, a.period_seconds - 0.5 - (time.time() - start)))
            enforce = run([f"{build}/cli/fsppadm", "enforce", mnt])
            if os.environ.get("PLACEMENT_MOUNT_VERBOSE"):
                print(f"period {period}: enforce says\n{enforce.stdout}", file=sys.stderr)

        # Who served the reads: the daemon (READ requests) or, by passthrough,
        # the kernel (its counted bytes), so that a run says which it measured.
        print(f"daemon READ requests: {sample(port, 'tierfs_fuse_requests_total', op='read'):.0f}; "
              f"bytes read by passthrough, counted in the kernel: "
              f"{sample(port, 'tierfs_heat_kernel_counted_bytes_total', direction='read'):.0f}")
        print("period\tsimulated\treal\tdifference\tseen")
        for period, s, r, seen in rows:
            print(f"{period}\t{s:.3f}\t{r:.3f}\t{r - s:+.3f}\t{seen}")
        diffs = [abs(r - s) for _, s, r, _ in rows]
        seen = [abs(r - s) for _, s, r, n in rows if n]
        print(f"mean |difference|: all periods {sum(diffs) / len(diffs):.3f}"
              + (f", seen periods {sum(seen) / len(seen):.3f}" if seen else ""))
    finally:
        if mounted:
            subprocess.run(["fusermount3", "-u", mnt])
            time.sleep(2)  # the daemon's final flush
        if tmpfs:
            subprocess.run(["umount", fast])
        subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
