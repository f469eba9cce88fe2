#!/usr/bin/env python3
"""Tables, CSV/JSON and a plot of the ratios from bench/run.sh's results.tsv.

results.tsv holds one line per measurement, "config<TAB>group<TAB>metric<TAB>value",
one per round. For every (group, metric) this prints the median of the rounds
per configuration, the ratios of tierfs (and of tierfs-pt, tierfs-ptro: with
passthrough) to native, to mergerfs, to mergerfs-pt and to bindfs (and the
peers' ratios to native), the max/min spread over the rounds, and, where
docs/benchmarks.md sets one, the target and whether it is met. Section fast (group "fast") ran
on a tmpfs: there native is a directory on the tmpfs.
Ratios are always value / value; the column "better" says whether a higher
("hi", rates) or a lower ("lo": seconds, latency, CPU, memory, writes) value
is better.

Writes OUT/summary.csv and OUT/summary.json, and with --plot a PNG of every
configuration's speed relative to native (x/native for rates, native/x for
times; above 1 is faster than native) on a log scale. Standard library only,
except the plot (matplotlib; skipped with a warning when missing).
"""
import argparse
import csv
import json
import re
import statistics
import sys
from collections import OrderedDict

PEERS = ("native", "tierfs", "tierfs-pt", "tierfs-ptro", "mergerfs", "mergerfs-pt", "bindfs")
SHORT = {"native": "nat", "tierfs": "t", "tierfs-pt": "tp", "tierfs-ptro": "tr",
         "mergerfs": "mrg", "mergerfs-pt": "mpt", "bindfs": "bfs"}
# (numerator, denominator) of the ratio columns, in print order; the table
# shows those whose two configurations ran, the CSV and JSON always all of them.
RATIOS = [("tierfs", "native"), ("tierfs", "mergerfs"), ("tierfs", "bindfs"),
          ("tierfs", "mergerfs-pt"), ("tierfs-pt", "native"), ("tierfs-pt", "mergerfs-pt"),
          ("tierfs-ptro", "native"), ("tierfs-ptro", "mergerfs-pt"),
          ("mergerfs", "native"), ("mergerfs-pt", "native"), ("bindfs", "native")]
SPREADS = ("tierfs", "tierfs-pt", "mergerfs-pt", "native")  # spread columns of the table

SECTIONS = [  # (title, group regexp), in print order
    ("metadata: ops/s (readdir, ls_l: entries/s); [files, threads]", r"metadata_.*"),
    ("fio, psync (MB/s, IOPS; p99 completion latency in us)", r"data"),
    ("fast class: fio, psync, on a tmpfs (native: a directory on it; tierfs: its ssd volume)",
     r"fast"),
    ("real work: wall seconds", r"real"),
    ("pgbench, TPC-B-like", r"pgbench"),
    ("database writes per operation (tierfs, strace: pwrites into meta.db-wal / meta.db)",
     r"dbwrites"),
    ("daemon CPU time (us per operation; real work: CPU seconds per step)", r"daemon_cpu.*"),
    ("daemon memory, KiB", r"memory.*"),
    ("checks (real work: git status lines, program output)", r"check"),
]

LABELS = {
    "seqwrite_mb_s": "seq write 1M +fsync",
    "seqread_mb_s": "seq read 1M cold",
    "randread_warm_iops": "rand read 4k warm",
    "randread_warm_p99_us": "rand read 4k warm p99",
    "randread_cold_iops": "rand read 4k cold 1 job",
    "randread_cold_p99_us": "rand read 4k cold 1 job p99",
    "randread_cold_4j_iops": "rand read 4k cold 4 jobs",
    "randread_cold_4j_p99_us": "rand read 4k cold 4 jobs p99",
    "randwrite_iops": "rand write 4k +fsync 1 job",
    "randwrite_p99_us": "rand write 4k 1 job p99",
    "randwrite_4j_iops": "rand write 4k +fsync 4 jobs",
    "randwrite_4j_p99_us": "rand write 4k 4 jobs p99",
    "untar_s": "untar + sync",
    "grep_r_warm_s": "grep -r, warm",
    "git_status_s": "git status",
    "build_s": "make -j (C project)",
    "rm_rf_s": "rm -rf + sync",
    "tps": "tps",
    "latency_avg_ms": "latency avg ms",
}


def higher_is_better(metric):
    return metric.endswith(("_ops_s", "_mb_s", "_iops")) or metric == "tps"


def label_of(group, metric):
    m = re.fullmatch(r"(metadata|daemon_cpu|memory)_(\d+k?)_t(\d+)", group)
    tag = f" [{m.group(2)}, {m.group(3)}t]" if m else ""
    base = LABELS.get(metric)
    d = re.fullmatch(r"(grep_cold|grep_warm|create|stat_cold)_(wal_pwrites|wal_pages|db_pwrites)_per_op",
                     metric)
    if group == "dbwrites" and d:
        op = {"grep_cold": "grep -r cold", "grep_warm": "grep -r warm", "create": "create",
              "stat_cold": "stat cold"}[d.group(1)]
        what = {"wal_pwrites": "WAL pwrites", "wal_pages": "WAL pages",
                "db_pwrites": "db-file pwrites"}[d.group(2)]
        base = f"{op}: {what} per file"
    if group == "fast":
        base = "tmpfs " + base
    if base is None:
        base = re.sub(r"_(ops_s|us_per_op|us_per_io|cpu_s)$", "", metric).replace("_kib", "")
        base = base.replace("_", " ")
        if group == "daemon_cpu":
            base += " (fio, per I/O)"
        elif group == "daemon_cpu_fast":
            base += " (fio tmpfs, per I/O)"
        elif group == "daemon_cpu_real":
            base += " (real, s)"
        elif group == "daemon_cpu_pg":
            base = "pgbench, per transaction"
    return base + tag


def target_of(group, metric):
    """The target for a line: a list of (peer, op, bound) on tierfs/peer."""
    ahead = [("mergerfs", ">", 1.0)]
    if group == "data":
        if metric in ("seqwrite_mb_s", "seqread_mb_s", "randread_warm_iops",
                      "randread_cold_iops", "randread_cold_4j_iops"):
            return [("native", ">=", 0.9)] + ahead
        if metric in ("randread_cold_p99_us", "randread_cold_4j_p99_us"):
            return [("native", "<=", 1.5)]
        if metric in ("randwrite_iops", "randwrite_4j_iops"):
            return [("native", ">=", 0.7)] + ahead
    if group.startswith("metadata_"):
        phase = metric.replace("_ops_s", "")
        if phase == "readdir":
            return [("native", ">=", 0.8)] + ahead
        if phase in ("create", "stat_cold", "ls_l", "rename", "unlink"):
            return [("bindfs", ">=", 1.0)] + ahead
    if re.fullmatch(r"daemon_cpu_\d+k?_t\d+", group):
        if metric.replace("_us_per_op", "") in ("create", "stat_cold", "ls_l", "rename", "unlink"):
            return [("mergerfs", "<=", 1.0)]
    if group == "real":
        bound = {"untar_s": 2.0, "rm_rf_s": 2.0, "grep_r_warm_s": 1.5, "git_status_s": 1.5,
                 "build_s": 1.3}.get(metric)
        if bound:
            return [("native", "<=", bound), ("mergerfs", "<=", 1 / 3)]
    if group == "pgbench" and metric == "tps":
        return [("native", ">=", 0.9)] + ahead
    if group == "dbwrites" and metric.startswith("grep_") and "_wal_pages_" in metric:
        return [("abs", "<=", 0.01)]
    if group == "memory" and metric == "mem_vmrss_kib_after_find":
        return [("abs", "<", 200 * 1024)]
    return None


def fmt(v):
    if v is None:
        return "-"
    a = abs(v)
    if a >= 100:
        return f"{v:.0f}"
    if a >= 1 or a == 0:
        return f"{v:.2f}"
    return f"{v:.3g}"


def fmt_ratio(v):
    if v is None:
        return "-"
    return f"{v:.2f}" if abs(v) >= 0.01 else f"{v:.1g}"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True)
    ap.add_argument("--configs", default="native tierfs mergerfs bindfs")  # run.sh: those that ran
    ap.add_argument("--out", required=True)
    ap.add_argument("--plot", default="")
    ap.add_argument("--title", default="tierfs benchmarks")
    ap.add_argument("--note", default="")
    args = ap.parse_args()
    configs = args.configs.split()

    values = OrderedDict()  # (group, metric) -> {config: [values in round order]}
    other = OrderedDict()  # (config, group, metric) -> last value, for env/engine/scan
    with open(args.results) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 4:
                continue
            cfg, group, metric, value = parts
            try:
                x = float(value)
            except ValueError:
                x = None
            if cfg not in configs or x is None:
                other[(cfg, group, metric)] = value
                continue
            values.setdefault((group, metric), {}).setdefault(cfg, []).append(x)

    rows = []
    for title, pattern in SECTIONS:
        for (group, metric), per in values.items():
            if not re.fullmatch(pattern, group):
                continue
            if metric == "drop_caches" or metric.startswith("rss_kib_"):
                continue  # in results.tsv; not a line of the table
            row = {"section": title, "group": group, "metric": metric,
                   "label": label_of(group, metric),
                   "better": "" if group == "check" else
                   "hi" if higher_is_better(metric) else "lo"}
            for c in configs:
                xs = per.get(c, [])
                row[c] = statistics.median(xs) if xs else None
                row[c + "_n"] = len(xs)
                row[c + "_spread"] = (max(xs) / min(xs)) if len(xs) > 1 and min(xs) > 0 else None
            t = row.get("tierfs")
            for a, b in RATIOS:
                row[a + "/" + b] = ratio(row.get(a), row.get(b))
            target = target_of(group, metric)
            row["target"] = ""
            row["met"] = ""
            if target and t is not None:
                texts, met = [], True
                for peer, op, bound in target:
                    x = t if peer == "abs" else row.get("tierfs/" + peer)
                    texts.append(("" if peer == "abs" else peer[0]) + f"{op}{bound:.3g}" if peer != "abs" else f"{op}{bound:g}")
                    if x is None:
                        met = None if met is not False else False
                        continue
                    ok = {">": x > bound, ">=": x >= bound, "<": x < bound, "<=": x <= bound}[op]
                    if not ok:
                        met = False
                row["target"] = ",".join(texts)
                row["met"] = {True: "yes", False: "NO", None: "?"}[met]
            rows.append(row)

    # ---- the table
    cols = [c for c in PEERS if c in configs] + [c for c in configs if c not in PEERS]
    rcols = [(a, b) for a, b in RATIOS if a in configs and b in configs]
    scols = [c for c in SPREADS if c in configs]
    rname = {(a, b): SHORT[a] + "/" + SHORT[b] for a, b in RATIOS}
    width = {c: max(9, len(c)) for c in cols}
    rwidth = {k: max(6, len(rname[k])) for k in rcols}
    head = f"{'benchmark':<40} {'better':>6}" + "".join(f" {c:>{width[c]}}" for c in cols)
    head += "".join(f" {rname[k]:>{rwidth[k]}}" for k in rcols)
    head += "".join(f" {SHORT[c] + ' spr':>6}" for c in scols)
    head += f"  {'target (t/...)':<16} met"
    print(args.title)
    if args.note:
        print(args.note)
    print("medians of the rounds; t/nat = tierfs / native etc. (values, not speeds: see 'better');"
          " spr = max/min over the rounds; target: docs/benchmarks.md (n native, m mergerfs, b bindfs)")
    print("t tierfs, tp tierfs-pt (--passthrough=rw), tr tierfs-ptro (=ro), mrg mergerfs, "
          "mpt mergerfs-pt (passthrough.io=rw), bfs bindfs, nat native (fast: the tmpfs)")
    section = None
    for r in rows:
        if r["section"] != section:
            section = r["section"]
            print()
            print(section)
            print(head)
        line = f"{r['label'][:40]:<40} {r['better']:>6}"
        line += "".join(f" {fmt(r.get(c)):>{width[c]}}" for c in cols)
        for a, b in rcols:
            line += f" {fmt_ratio(r.get(a + '/' + b)):>{rwidth[(a, b)]}}"
        for c in scols:
            line += f" {fmt_ratio(r.get(c + '_spread')):>6}"
        line += f"  {r['target']:<16} {r['met']}"
        print(line)
    if any(r["met"] for r in rows):
        met = sum(r["met"] == "yes" for r in rows)
        total = sum(bool(r["met"]) for r in rows)
        print(f"\ntargets met: {met} of {total} lines")
    dropped = values.get(next((k for k in values if k[1] == "drop_caches"), None), {})
    if any(v == 0 for xs in dropped.values() for v in xs):
        print("note: caches could not be dropped (not root): the 'cold' lines are warm")
    if other:
        print()
        for (cfg, group, metric), value in other.items():
            print(f"{cfg:<7} {group:<9} {metric:<40} {value}")

    # ---- CSV and JSON
    fields = ["section", "group", "metric", "label", "better"]
    for c in configs:
        fields += [c, c + "_n", c + "_spread"]
    fields += [a + "/" + b for a, b in RATIOS] + ["target", "met"]
    with open(f"{args.out}/summary.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    with open(f"{args.out}/summary.json", "w") as f:
        json.dump({"title": args.title, "note": args.note, "configs": configs, "rows": rows,
                   "other": [{"config": k[0], "group": k[1], "metric": k[2], "value": v}
                             for k, v in other.items()]}, f, indent=1)

    if args.plot:
        plot(rows, configs, args.plot, args.title, args.note)
    return 0


def plot(rows, configs, path, title, note):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("warning: no matplotlib (python3-matplotlib): no plot", file=sys.stderr)
        return
    peers = [c for c in PEERS if c != "native" and c in configs]
    lines = []
    for r in rows:
        n = r.get("native")
        if not n or r["group"].startswith("check"):
            continue
        speeds = {}
        for c in peers:
            v = r.get(c)
            if v:
                speeds[c] = v / n if r["better"] == "hi" else n / v
        if speeds:
            lines.append((r["label"] + ("" if r["better"] == "hi" else " (1/x)"), speeds))
    if not lines:
        print("warning: nothing to plot", file=sys.stderr)
        return
    colors = {"tierfs": "#1f77b4", "tierfs-pt": "#17becf", "tierfs-ptro": "#9467bd",
              "mergerfs": "#ff7f0e", "mergerfs-pt": "#d62728", "bindfs": "#7f7f7f"}
    height = 0.8 / len(peers)
    fig, ax = plt.subplots(figsize=(10, 1.2 + 0.32 * len(lines) * max(1, len(peers) / 2)))
    for i, (label, speeds) in enumerate(lines):
        for j, c in enumerate(peers):
            if c in speeds:
                ax.barh(i + (j - (len(peers) - 1) / 2) * height, speeds[c], height=height,
                        color=colors[c], label=c if i == 0 else None, left=0)
    ax.set_yticks(range(len(lines)))
    ax.set_yticklabels([l for l, _ in lines], fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xlabel("speed relative to native (x/native for rates, native/x for times; "
                  "> 1 is faster), log scale")
    ax.set_title(title + ("\n" + note if note else ""), fontsize=9)
    ax.grid(axis="x", which="both", linewidth=0.3)
    handles, labels = ax.get_legend_handles_labels()
    ax.legend(handles, labels, loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"plot: {path}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
