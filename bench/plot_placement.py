#!/usr/bin/python3
"""Draws placement over time from placement_bench's --csv output.

    build-place/bench/placement_bench --csv /tmp/placement.csv [...]
    bench/plot_placement.py /tmp/placement.csv docs/placement-over-time.png [--share all]

Top panel: per period, the share of the period's I/O bytes (read, write or
all, --share; default read) that the ssd class served under the policy with
swapping, without swapping, and the same share for the oracle (knows the
period's accesses) and the previous-period oracle (knows the period before).
Periods that start a new hot set are shaded. Bottom panel: bytes moved by the
enforce at the end of each period, as a share of the ssd class (swap on).
A CSV from bench/placement_mount.py --csv (a "mode" column: periodic,
online) draws instead the share each mode served on the mount, with the
oracles, and the bytes each moved per period (docs/benchmarks.md, "Online
promotion").
Needs Debian's python3-matplotlib (`apt-get install python3-matplotlib`; bench/run.sh installs it). Exits 1 with a
message on a missing or malformed CSV.
"""
import argparse
import csv
import sys

import matplotlib

matplotlib.use("Agg")  # no display: write the file only
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    """Rows of the CSV grouped by the swap column ("on"/"off"), in period order."""
    runs = {}
    try:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                runs.setdefault(row["swap"], []).append(row)
    except (OSError, KeyError) as e:
        sys.exit(f"plot_placement: cannot read {path}: {e}")
    if "on" not in runs:
        sys.exit(f"plot_placement: {path} has no swap=on rows")
    return runs


def plot_mount(path, png, title):
    """placement_mount.py --csv: periodic and online against the oracles."""
    modes = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            modes.setdefault(row["mode"], []).append(row)
    first = next(iter(modes.values()))
    periods = [int(r["period"]) for r in first]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 5.5), sharex=True,
                                      gridspec_kw={"height_ratios": [3, 1.3]})
    for r in first:
        if r["seen"] == "0":
            p = int(r["period"])
            top.axvspan(p - 0.5, p + 0.5, color="0.92", lw=0)
    top.plot(periods, [100 * float(r["oracle_read"]) for r in first], "k--", lw=1.2,
             label="oracle (knows the period)")
    top.plot(periods, [100 * float(r["prev_oracle_read"]) for r in first], ":",
             color="tab:orange", lw=1.8, label="previous-period oracle")
    colours = {"periodic": "tab:red", "online": "tab:blue"}
    width = 0.8 / max(1, len(modes))
    for i, (mode, rows) in enumerate(modes.items()):
        top.plot(periods, [100 * float(r["served_read"]) for r in rows], "-", marker=".",
                 color=colours.get(mode, None), lw=1.8, label=f"{mode} (mount)")
        bottom.bar([p - 0.4 + width * (i + 0.5) for p in periods],
                   [float(r["moved_bytes"]) / 1e6 for r in rows], width=width,
                   color=colours.get(mode, None), label=mode)
    top.set_ylabel("read bytes served by the fast class (%)")
    top.set_ylim(0, 100)
    top.legend(loc="lower right", fontsize=8, ncol=2)
    top.grid(alpha=0.3)
    if title:
        top.set_title(title, fontsize=10)
    bottom.set_ylabel("moved (MB)")
    bottom.set_xlabel("period (shaded: a new hot set)")
    bottom.legend(fontsize=8)
    bottom.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=80)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("png")
    ap.add_argument("--share", choices=["read", "write", "all"], default="read")
    ap.add_argument("--title", default="")
    args = ap.parse_args()
    try:
        with open(args.csv, newline="") as f:
            header = next(csv.reader(f), [])
    except OSError as e:
        sys.exit(f"plot_placement: cannot read {args.csv}: {e}")
    if "mode" in header:
        plot_mount(args.csv, args.png, args.title)
        return
    runs = load(args.csv)
    on = runs["on"]
    periods = [int(r["period"]) for r in on]
    col = lambda rows, name: [100 * float(r[f"{name}_{args.share}"]) for r in rows]

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 5.5), sharex=True,
                                      gridspec_kw={"height_ratios": [3, 1.3]})
    for r in on:
        if r["seen"] == "0":  # a new hot set: no history-based rule can know it
            p = int(r["period"])
            top.axvspan(p - 0.5, p + 0.5, color="0.92", lw=0)
    top.plot(periods, col(on, "oracle"), "k--", lw=1.2, label="oracle (knows the period)")
    top.plot(periods, col(on, "prev_oracle"), ":", color="tab:orange", lw=1.8,
             label="previous-period oracle")
    top.plot(periods, col(on, "served"), "-", color="tab:blue", lw=1.8, marker=".",
             label="policy, swapping")
    if "off" in runs:
        off = runs["off"]
        top.plot([int(r["period"]) for r in off], col(off, "served"), "-", color="tab:red",
                 lw=1, alpha=0.7, label="policy, no swapping")
    top.set_ylabel(f"{args.share} bytes served by ssd (%)")
    top.set_ylim(0, 100)
    top.legend(loc="lower right", fontsize=8, ncol=2)
    top.grid(alpha=0.3)
    if args.title:
        top.set_title(args.title, fontsize=10)

    bottom.bar(periods, [100 * float(r["moved_of_ssd"]) for r in on], color="tab:blue",
               width=0.7)
    bottom.axhline(5, color="k", lw=0.8, ls="--")  # the churn target while stable
    bottom.set_ylabel("moved (% of ssd)")
    bottom.set_xlabel("period (shaded: a new hot set)")
    bottom.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.png, dpi=80)


if __name__ == "__main__":
    main()
