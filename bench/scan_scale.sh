#!/usr/bin/env bash
# Times real policy scans of a tierfs holding FILES files (default 1,000,000):
# the daemon gathers every file's record and I/O windows from its database and
# plans, with swapping, what `fsppadm enforce` would move: an enforce with
# swaps over 1,000,000 files. Run by hand, as root (it mounts a tmpfs):
#
#   FILES=1000000 bench/scan_scale.sh        # BUILD=build, ROUNDS=3, SSD_SIZE=1g
#   HISTORY=744 FILES=100000 bench/scan_scale.sh  # a month of hourly buckets per active file
#
# The ssd volume is a tmpfs of SSD_SIZE holding the database, so the class is
# small next to the hot files (bench/scan_scale_bench.cc makes the files and
# their history) and the planner must swap. Prints one line per round:
# "scan<TAB>analyze_seconds<TAB>S" (the daemon's own time for the scan),
# "scan<TAB>analyze_wall_seconds<TAB>S", the plan's size, and the daemon's
# peak resident memory.
set -euo pipefail
cd "$(dirname "$0")/.."
FILES=${FILES:-1000000}
BUILD=${BUILD:-build}
ROUNDS=${ROUNDS:-3}
SSD_SIZE=${SSD_SIZE:-1g}
work=$(mktemp -d /tmp/tierfs-scale.XXXXXX)
mkdir "$work/ssd" "$work/hdd" "$work/mnt"
pid=""
cleanup() {
  fusermount3 -u "$work/mnt" 2>/dev/null || true
  # The daemon's final flush still holds the database on the tmpfs.
  for _ in $(seq 300); do
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  umount "$work/ssd" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
mount -t tmpfs -o "size=$SSD_SIZE" tmpfs "$work/ssd"
"$BUILD/cli/mkdstfs" --no-mount "$work/mnt" scale "$work/ssd:ssd" "$work/hdd:hdd" >/dev/null
"$BUILD/bench/scan_scale_bench" --db "$work/ssd/.tierfs/meta.db" --files "$FILES" \
  --history "${HISTORY:-24}"
"$BUILD/cli/tierfs" "$work/ssd" "$work/mnt"
"$BUILD/cli/fsppadm" assign "$work/mnt" docs/examples/shifting_hot_set.xml
pid=$(pgrep -f -- "tierfs $work/ssd" | head -1)
for round in $(seq "$ROUNDS"); do
  start=$(date +%s.%N)
  "$BUILD/cli/fsppadm" analyze --json "$work/mnt" > "$work/analyze.json"
  end=$(date +%s.%N)
  python3 - "$work/analyze.json" "$start" "$end" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = r["summary"]
swaps = sum(1 for row in r["rows"] if "swap" in row.get("statement", ""))
print(f"scan\tanalyze_seconds\t{r['seconds']:.3f}")
print(f"scan\tanalyze_wall_seconds\t{float(sys.argv[3]) - float(sys.argv[2]):.3f}")
print(f"scan\tfiles_scanned\t{s['files_scanned']}")
print(f"scan\tfiles_planned\t{s['files_planned']}")
print(f"scan\tswap_moves\t{swaps}")
PY
done
printf 'scan\tdaemon_peak_rss_kib\t%s\n' "$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")"
