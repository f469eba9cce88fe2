#!/usr/bin/python3
"""Replays placement_bench's workload on a real tierfs mount and compares the
share of read bytes the fast class served, period by period, with what the
simulation (the same planner on a simulated clock) says: the simulation is
checked against a real mount at small scale, and the two should agree. Run by hand, as root:

    bench/placement_mount.py [--build build] [--files 200] [--periods 8]
                             [--shift_every 2] [--reads 2000] [--period_seconds 6]
                             [--zipf 1.0] [--pace 0]
                             [--online off|on|both] [--online_budget 32]
                             [--online_hold HOURS] [--json FILE] [--csv FILE]
                             [--tierfs_args "--passthrough=rw"]
                             [--fast_fs tmpfs|ext4] [--cold_objects]

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

A tmpfs fast class is in memory, so the page-cache heat counter cannot see its
files (docs/design.md, "Passthrough I/O"), and the default mount's `auto`
serves them through the daemon. --fast_fs ext4 makes the fast class an ext4
file system on a loop device instead (no journal; the same capacity plus
room for ext4's own metadata), where passthrough is what `auto` takes. --cold_objects also
drops each object's cached pages before the read (the volume's own page
cache, which the FUSE cache drop does not reach under passthrough), so that
every read reaches the volume's device in every mode, as with a working set
larger than memory: the page-cache counter counts exactly such reads.

Prints one row per period (simulated share, real share, difference) and the
mean absolute difference over all periods and over the periods whose hot
set had been seen for one period. Everything it made is removed at the end.

Online promotion (docs/policies.md "Online promotion"): --online on marks the
policy's RELOCATE Online="yes" with OnlineBudget --online_budget MB/s (and
OnlineHold --online_hold hours of simulated time, scaled like the PERIOD);
--online both replays the same trace twice, on two fresh file systems, first
with the periodic enforce only and then with online promotion as well, and
compares them period by period with the oracle (which knows the period's
reads) and the previous-period oracle, as the simulation computes them. It
also reports the bytes relocated per byte of hot-set change (the bytes of the
files entering the oracle's placement at each period), the 99th percentile
of read latency over the first periods of new hot sets (when promotions
burst), and the online path's copy rate against its budget. --pace F spreads
each period's accesses evenly over the first F of the period (0: back to
back, the original replay); online promotion needs time to act, as a real
workload gives it. --zipf 0 makes the reads uniform over all files.
"""
import argparse
import csv
import glob
import json
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


def relocated_bytes(port):
    """Bytes moved by every relocation since the mount (enforce and online)."""
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    total = 0.0
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == "tierfs_relocated_bytes_total":
                total += s.value
    return total


def oracle_sets(files, accesses, capacity, periods):
    """Per period, the files the oracle puts on the fast class: ranked by bytes
    read per byte of file, greedily, passing over files that no longer fit
    (policy/oracle_placement.h)."""
    out = []
    for period in range(periods):
        read = {}
        for index, _, length, kind in accesses.get(period, []):
            if kind == "r":
                read[index] = read.get(index, 0) + length
        ranked = sorted(read, key=lambda i: (-read[i] / max(files[i][1], 1), i))
        chosen, used = set(), 0
        for i in ranked:
            if used + files[i][1] <= capacity:
                chosen.add(i)
                used += files[i][1]
        out.append(chosen)
    return out


def drop_object_pages(volumes, ino):
    """Drops the cached pages of tierfs inode `ino`'s object on any of the local
    `volumes` (<volume>/.tierfs/objects/<ino mod 256, hex>/<ino>.<generation>)."""
    for volume in volumes:
        for path in glob.glob(f"{volume}/.tierfs/objects/{ino % 256:02x}/{ino}.*"):
            try:
                fd = os.open(path, os.O_RDONLY)
            except OSError:
                continue  # moved away since the glob
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def percentile(values, q):
    if not values:
        return 0.0
    v = sorted(values)
    return v[min(len(v) - 1, int(math.ceil(q * len(v))) - 1)]


def scaled_policy(source, period_seconds, online=False, budget_mb=32.0, hold_hours=None):
    """shifting_hot_set.xml with class ssd renamed fast and every period scaled
    from hours (a simulated period is 6 hours) to period_seconds per 6 hours;
    with `online`, its RELOCATE runs online within `budget_mb` MB/s."""
    text = open(source).read()
    text = re.sub(r"<CLASS>\s*ssd\s*</CLASS>", "<CLASS> fast </CLASS>", text)
    scale = period_seconds / 6.0 / 3600.0  # hours of policy time per simulated hour

    def period(m):
        return f'<PERIOD Units="hours"> {float(m.group(1)) * scale:.9f} </PERIOD>'

    text = re.sub(r'<PERIOD Units="hours">\s*([0-9.]+)\s*</PERIOD>', period, text)
    average = 24 * scale  # the default AveragePeriod, 24 hours
    if online:
        hold = "" if hold_hours is None else f' OnlineHold="{hold_hours * scale:.9f}"'
        text = text.replace("<RELOCATE>", f'<RELOCATE Online="yes"{hold}>', 1)
        text = text.replace("<PLACEMENT_POLICY ", f'<PLACEMENT_POLICY OnlineBudget="{budget_mb}" ', 1)
    return text.replace("<PLACEMENT_POLICY ", f'<PLACEMENT_POLICY AveragePeriod="{average:.9f}" ', 1)


def replay(a, build, work, tag, files, accesses, capacity, policy_text):
    """One file system, one replay of the trace. Returns per period the share
    the fast class served, the bytes relocated (during the period and by its
    enforce), the read latencies (s), and the online counters at the end."""
    meta, fast, slow, mnt = (os.path.join(work, tag, d) for d in ("meta", "fast", "slow", "mnt"))
    for d in (meta, fast, slow, mnt):
        os.makedirs(d)
    mounted = fast_mounted = False
    try:
        # The file system: the fast class holds exactly the simulation's ssd capacity.
        if a.fast_fs == "ext4":
            # Without a journal or a reserve and with few inodes, ext4's own
            # metadata takes about 2% (the rest is the class's capacity).
            image = os.path.join(work, tag, "fast.img")
            with open(image, "wb") as f:
                f.truncate(capacity + capacity // 50 + (2 << 20))
            run(["mkfs.ext4", "-q", "-F", "-m", "0", "-O", "^has_journal", "-N", "4096", image])
            run(["mount", "-o", "loop", image, fast])
        else:
            run(["mount", "-t", "tmpfs", "-o", f"size={capacity}", "tmpfs", fast])
        fast_mounted = True
        run([f"{build}/cli/mkdstfs", "--no-mount", "--heat-bucket", "1", mnt, "placement",
             f"{meta}:ssd", f"{fast}:fast", f"{slow}:hdd"])
        port = free_port()
        run([f"{build}/cli/tierfs", "--metrics_listen", f"127.0.0.1:{port}",
             *a.tierfs_args.split(), meta, mnt])
        mounted = True
        policy = os.path.join(work, tag, "policy.xml")
        with open(policy, "w") as f:
            f.write(policy_text)
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
            moved_before = relocated_bytes(port)
            latencies = []
            todo = accesses.get(period, [])
            for n, (index, offset, length, kind) in enumerate(todo):
                if a.pace > 0:
                    delay = start + a.pace * a.period_seconds * n / len(todo) - time.time()
                    if delay > 0:
                        time.sleep(delay)
                path = mnt + files[index][0]
                fd = os.open(path, os.O_RDONLY if kind == "r" else os.O_RDWR)
                try:
                    # Drop the cached pages so the read reaches the daemon (and its count).
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                    if a.cold_objects:
                        drop_object_pages((fast, slow), os.fstat(fd).st_ino)
                    if kind == "r":
                        t0 = time.perf_counter()
                        os.pread(fd, length, offset)
                        latencies.append(time.perf_counter() - t0)
                    else:
                        os.pwrite(fd, os.urandom(length), offset)
                finally:
                    os.close(fd)
            # Passthrough reads reach the metrics at the kernel counter's next
            # drain (every second): wait for it, in every mode alike.
            time.sleep(max(1.2, a.period_seconds - 0.5 - (time.time() - start)))
            after = class_reads(port)
            read = {c: after.get(c, 0) - before.get(c, 0) for c in after}
            total = sum(read.values())
            real = read.get("fast", 0) / total if total else 0.0
            # The enforce at the end of the period, as in the simulation: in the
            # period's last second, so its window is exactly this period.
            time.sleep(max(0.0, a.period_seconds - 0.5 - (time.time() - start)))
            enforce = run([f"{build}/cli/fsppadm", "enforce", mnt])
            if os.environ.get("PLACEMENT_MOUNT_VERBOSE"):
                print(f"{tag} period {period}: enforce says\n{enforce.stdout}", file=sys.stderr)
            rows.append({"real": real, "moved": relocated_bytes(port) - moved_before,
                         "latencies": latencies})

        # Who served the reads: the daemon (READ requests) or, by passthrough,
        # the kernel (its counted bytes), so that a run says which it measured.
        print(f"{tag}: daemon READ requests: "
              f"{sample(port, 'tierfs_fuse_requests_total', op='read'):.0f}; "
              f"bytes read by passthrough, counted in the kernel: "
              f"{sample(port, 'tierfs_heat_kernel_counted_bytes_total', direction='read'):.0f}")
        online = {
            "promotions": sample(port, "tierfs_online_relocations_total", kind="promotion"),
            "demotions": sample(port, "tierfs_online_relocations_total", kind="demotion"),
            "bytes": sample(port, "tierfs_online_relocated_bytes_total"),
            "budget": sample(port, "tierfs_online_budget_bytes_per_second"),
        }
        return rows, online
    finally:
        if mounted:
            subprocess.run(["fusermount3", "-u", mnt])
            time.sleep(2)  # the daemon's final flush
        if fast_mounted:
            subprocess.run(["umount", fast])  # a loop device is freed with it


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default="build")
    p.add_argument("--files", type=int, default=200)
    p.add_argument("--periods", type=int, default=8)
    p.add_argument("--shift_every", type=int, default=2)
    p.add_argument("--reads", type=int, default=2000)
    p.add_argument("--period_seconds", type=float, default=6)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--zipf", type=float, default=1.0)
    p.add_argument("--pace", type=float, default=0.0,
                   help="spread each period's accesses over this share of it (0: back to back)")
    p.add_argument("--online", choices=("off", "on", "both"), default="off")
    p.add_argument("--online_budget", type=float, default=32.0, help="OnlineBudget, MB/s")
    p.add_argument("--online_hold", type=float, default=None,
                   help="OnlineHold in simulated hours (default: the policy's PERIOD)")
    p.add_argument("--json", default="", help="also write the results here")
    p.add_argument("--csv", default="",
                   help="also write one row per mode and period here (bench/plot_placement.py "
                        "draws it)")
    p.add_argument("--tierfs_args", default="",
                   help="more arguments for the tierfs mount, e.g. --passthrough=rw")
    p.add_argument("--fast_fs", choices=("tmpfs", "ext4"), default="tmpfs",
                   help="the fast class's file system (ext4: on a loop device)")
    p.add_argument("--cold_objects", action="store_true",
                   help="drop each object's cached pages before its read as well")
    a = p.parse_args()
    if os.geteuid() != 0:
        sys.exit("placement_mount.py: run as root (it mounts a tmpfs)")
    build = os.path.abspath(a.build)
    policy_source = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                 "..", "docs", "examples", "shifting_hot_set.xml")
    work = tempfile.mkdtemp(prefix="tierfs-placement-")
    try:
        # The simulation, and its workload as a trace.
        trace, sim_csv = os.path.join(work, "trace.tsv"), os.path.join(work, "sim.csv")
        run([f"{build}/bench/placement_bench", "--files", str(a.files), "--periods",
             str(a.periods), "--shift_every", str(a.shift_every), "--reads", str(a.reads),
             "--seed", str(a.seed), "--zipf", str(a.zipf), "--policy", policy_source,
             "--trace", trace, "--csv", sim_csv])
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
                    sim[int(row["period"])] = {
                        "served": float(row["served_read"]), "seen": int(row["seen"]),
                        "oracle": float(row["oracle_read"]),
                        "prev_oracle": float(row["prev_oracle_read"])}

        modes = {"off": ["periodic"], "on": ["online"], "both": ["periodic", "online"]}[a.online]
        results = {}
        for mode in modes:
            text = scaled_policy(policy_source, a.period_seconds, online=mode == "online",
                                 budget_mb=a.online_budget, hold_hours=a.online_hold)
            results[mode] = replay(a, build, work, mode, files, accesses, capacity, text)

        # The bytes of hot-set change: files entering the oracle's placement.
        sets = oracle_sets(files, accesses, capacity, a.periods)
        change = sum(files[i][1] for p_ in range(1, a.periods) for i in sets[p_] - sets[p_ - 1])

        header = "period\tseen\toracle\tprev_oracle\tsimulated"
        for mode in modes:
            header += f"\t{mode}\t{mode}_moved_MB"
        print(header)
        for period in range(a.periods):
            x = sim.get(period, {"served": 0, "seen": 0, "oracle": 0, "prev_oracle": 0})
            line = (f"{period}\t{x['seen']}\t{x['oracle']:.3f}\t{x['prev_oracle']:.3f}"
                    f"\t{x['served']:.3f}")
            for mode in modes:
                r = results[mode][0][period]
                line += f"\t{r['real']:.3f}\t{r['moved'] / 1e6:.1f}"
            print(line)

        def mean(values):
            values = list(values)
            return sum(values) / len(values) if values else 0.0

        new = [p_ for p_ in range(1, a.periods) if not sim.get(p_, {}).get("seen", 0)]
        seen = [p_ for p_ in range(a.periods) if sim.get(p_, {}).get("seen", 0)]
        summary = {"files": a.files, "reads": a.reads, "periods": a.periods,
                   "period_seconds": a.period_seconds, "zipf": a.zipf, "pace": a.pace,
                   "online_budget_mb": a.online_budget, "ssd_capacity": capacity,
                   "hot_set_change_bytes": change, "modes": {}}
        oracle_new = mean(sim[p_]["oracle"] for p_ in new)
        prev_all = mean(sim[p_]["prev_oracle"] for p_ in range(a.periods))
        print(f"oracle: new hot sets {oracle_new:.3f}, all periods "
              f"{mean(sim[p_]['oracle'] for p_ in range(a.periods)):.3f}; previous-period "
              f"oracle: all periods {prev_all:.3f}; simulated (periodic): all "
              f"{mean(sim[p_]['served'] for p_ in range(a.periods)):.3f}")
        for mode in modes:
            rows, online = results[mode]
            share_new = mean(rows[p_]["real"] for p_ in new)
            share_all = mean(r["real"] for r in rows)
            share_seen = mean(rows[p_]["real"] for p_ in seen)
            moved = sum(r["moved"] for r in rows[1:])
            burst = [t for p_ in new for t in rows[p_]["latencies"]]
            every = [t for r in rows for t in r["latencies"]]
            elapsed = a.periods * a.period_seconds
            m = {"share_new": share_new, "share_new_of_oracle": share_new / oracle_new
                 if oracle_new else 0, "share_all": share_all,
                 "share_all_of_prev_oracle": share_all / prev_all if prev_all else 0,
                 "share_seen": share_seen, "moved_bytes": moved,
                 "moved_per_change_byte": moved / change if change else 0,
                 "read_p99_new_ms": percentile(burst, 0.99) * 1e3,
                 "read_p99_all_ms": percentile(every, 0.99) * 1e3,
                 "online": online,
                 "online_bytes_per_s": online["bytes"] / elapsed,
                 "per_period": [r["real"] for r in rows]}
            summary["modes"][mode] = m
            print(f"{mode}: first periods of new hot sets {share_new:.3f} "
                  f"({m['share_new_of_oracle']:.2f} of the oracle); all periods {share_all:.3f} "
                  f"({m['share_all_of_prev_oracle']:.2f} of the previous-period oracle); seen "
                  f"periods {share_seen:.3f}; relocated {moved / 1e6:.1f} MB after period 0 = "
                  f"{m['moved_per_change_byte']:.2f} per byte of hot-set change "
                  f"({change / 1e6:.1f} MB); read p99 {m['read_p99_new_ms']:.2f} ms in the first "
                  f"periods of new hot sets, {m['read_p99_all_ms']:.2f} ms in all; online: "
                  f"{online['promotions']:.0f} promotions, {online['demotions']:.0f} demotions, "
                  f"{m['online_bytes_per_s'] / 1e6:.2f} MB/s on average against a budget of "
                  f"{online['budget'] / 1e6:.2f} MB/s")
        if "periodic" in results and len(modes) == 1:
            diffs = [abs(r["real"] - sim[p_]["served"]) for p_, r in enumerate(results["periodic"][0])]
            seen_d = [diffs[p_] for p_ in seen]
            print(f"mean |difference| to the simulation: all periods {mean(diffs):.3f}"
                  + (f", seen periods {mean(seen_d):.3f}" if seen_d else ""))
        if a.json:
            with open(a.json, "w") as f:
                json.dump(summary, f, indent=1)
        if a.csv:
            with open(a.csv, "w", newline="") as f:
                out = csv.writer(f)
                out.writerow(["mode", "period", "seen", "oracle_read", "prev_oracle_read",
                              "simulated_read", "served_read", "moved_bytes", "ssd_capacity"])
                for mode in modes:
                    for period, r in enumerate(results[mode][0]):
                        x = sim[period]
                        out.writerow([mode, period, x["seen"], f"{x['oracle']:.5f}",
                                      f"{x['prev_oracle']:.5f}", f"{x['served']:.5f}",
                                      f"{r['real']:.5f}", f"{r['moved']:.0f}", capacity])
    finally:
        subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
