#!/usr/bin/env bash
# tierfs benchmarks, run by hand (never by ctest). See docs/benchmarks.md.
#
#   sudo bench/run.sh            # full run: 6-8 minutes on 2 cores (longer on a busy machine)
#   sudo QUICK=1 bench/run.sh    # small sizes, one round: checks the plumbing in ~1 minute
#
# What it does, under one temporary directory on the disk that holds BENCH_DIR
# (default /var/tmp):
#   1. installs the peers and tools from Debian's packages when missing (fio,
#      mergerfs, bindfs, jq, faketime) and builds the tools and benchmarks (-j2);
#   2. mounts four configurations side by side -- native (the directory itself),
#      tierfs (mkdstfs over two directories, ssd + hdd), mergerfs (a union of two
#      directories), bindfs (a plain FUSE passthrough) -- and runs ROUNDS
#      interleaved rounds of metadata_bench and four fio jobs (sequential write
#      and read, warm and cold random 4 KiB reads) on each, sampling each
#      daemon's CPU time and memory; the tables show the median of the rounds;
#   3. policy_bench: the pure policy engine at POLICY_FILES synthetic files;
#   4. on a fresh tierfs: SCAN_FILES files created "two days ago" (libfaketime on
#      the daemon, so that they are not active), a skewed read workload (10% of
#      the files get 90% of the reads), fsppadm analyze / analyze -C / enforce -C
#      timed, the workload again, and the share of read bytes served by files
#      on the ssd class before and after (fsmap): the NetApp paper's measure;
#   5. prints the tables; raw numbers stay in $BENCH_OUT (printed at the end).
# Everything it mounted is unmounted on exit, whatever happens (trap).
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD

BUILD=${BUILD:-$top/build-bench}
if [ "${QUICK:-0}" = 1 ]; then
  : "${ROUNDS:=1}" "${META_FILES:=2000}" "${DATA_SIZE:=128M}" "${RAND_SECONDS:=2}" "${RAND_IO:=16M}"
  : "${POLICY_FILES:=100000}" "${SCAN_FILES:=5000}" "${SKEW_READS:=10000}"
fi
ROUNDS=${ROUNDS:-3}                 # interleaved rounds of sections 2 (median reported)
META_FILES=${META_FILES:-20000}     # metadata_bench files (1 KiB each, 100 directories)
DATA_SIZE=${DATA_SIZE:-512M}        # fio file size
RAND_SECONDS=${RAND_SECONDS:-3}     # fio warm random-read run time
RAND_IO=${RAND_IO:-64M}             # fio cold random reads: this many bytes in 4 KiB reads
POLICY_FILES=${POLICY_FILES:-1000000}
SCAN_FILES=${SCAN_FILES:-50000}     # files (4 KiB) in the scan / tiering file system
SKEW_READS=${SKEW_READS:-100000}    # 4 KiB reads per round of the skewed workload
CONFIGS=${CONFIGS:-native tierfs mergerfs bindfs}

log() { printf '\n\033[1m== %s\033[0m\n' "$*" >&2; }

# ---- 1. tools --------------------------------------------------------------
missing=()
for pkg in fio mergerfs bindfs jq faketime; do
  command -v "$pkg" >/dev/null || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]} (Debian packages)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
root=0
[ "$(id -u)" = 0 ] && root=1
[ $root = 1 ] || echo "warning: not root: page caches cannot be dropped, 'cold' phases are warm" >&2

log "build ($BUILD, Release, -j2)"
[ -f "$BUILD/build.ninja" ] || cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" -j2 --target tierfs mkdstfs fsppadm fsmap fcladm \
  metadata_bench policy_bench skew_bench >/dev/null
bin=$BUILD/cli
mb=$BUILD/bench/metadata_bench
pb=$BUILD/bench/policy_bench
sb=$BUILD/bench/skew_bench

work=$(mktemp -d "${BENCH_DIR:-/var/tmp}/tierfs-bench.XXXXXX")
out=${BENCH_OUT:-$work.results}
mkdir -p "$out"
results=$out/results.tsv
: > "$results"

record() {  # CONFIG: prefixes "group<TAB>metric<TAB>value" lines from stdin
  sed "s/^/$1\t/" | tee -a "$results" >&2
}
# Other work on the machine skews every number: say how busy it was.
printf 'env\tloadavg_start\t%s\nenv\tnproc\t%s\n' "$(cut -d' ' -f1 /proc/loadavg)" "$(nproc)" | record env

# ---- mounts and cleanup ----------------------------------------------------
mounted=()        # mount points, in mount order
peer_pids=()      # mergerfs / bindfs daemons, run in the foreground (-f) by us
tierfs_meta=()    # metadata directories of our tierfs mounts (daemon.lock)
declare -A dir_of pid_of  # configuration -> directory to use, daemon pid ("" for native)
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    if mountpoint -q "${mounted[i]}"; then
      fusermount3 -u "${mounted[i]}" 2>/dev/null || fusermount3 -uz "${mounted[i]}" || true
    fi
  done
  for pid in "${peer_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  for dir in "${tierfs_meta[@]}"; do flock -w 30 "$dir/.tierfs/daemon.lock" true 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

wait_mounted() {  # MOUNTPOINT
  for _ in $(seq 100); do mountpoint -q "$1" && return 0; sleep 0.05; done
  echo "$1 did not mount" >&2
  return 1
}

mount_native() {  # NAME
  mkdir -p "$work/$1"
  dir_of[$1]=$work/$1
  pid_of[$1]=""
}

mount_tierfs() {  # NAME [command prefix...]: mkdstfs NAME/ssd:ssd NAME/hdd:hdd on NAME/mnt
  local name=$1
  shift
  mkdir -p "$work/$name/ssd" "$work/$name/hdd" "$work/$name/mnt"
  "$@" "$bin/mkdstfs" "$work/$name/mnt" "$name" "$work/$name/ssd:ssd" "$work/$name/hdd:hdd" \
    >/dev/null 2>"$out/mkdstfs-$name.log"
  mounted+=("$work/$name/mnt")
  tierfs_meta+=("$work/$name/ssd")
  dir_of[$name]=$work/$name/mnt
  pid_of[$name]=$(tr -d '\n' < "$work/$name/ssd/.tierfs/daemon.lock")
}

remount_tierfs() {  # NAME: unmount, wait for the daemon's final flush, mount again
  local name=$1
  fusermount3 -u "$work/$name/mnt"
  flock -w 30 "$work/$name/ssd/.tierfs/daemon.lock" true
  "$bin/tierfs" "$work/$name/ssd" "$work/$name/mnt"
  pid_of[$name]=$(tr -d '\n' < "$work/$name/ssd/.tierfs/daemon.lock")
}

mount_mergerfs() {  # NAME: default options (create policy epmfs, cache.files=libfuse)
  local name=$1
  mkdir -p "$work/$name/a" "$work/$name/b" "$work/$name/mnt"
  mergerfs -f "$work/$name/a:$work/$name/b" "$work/$name/mnt" &
  peer_pids+=("$!")
  pid_of[$name]=$!
  mounted+=("$work/$name/mnt")
  wait_mounted "$work/$name/mnt"
  dir_of[$name]=$work/$name/mnt
}

mount_bindfs() {  # NAME: default options (single-threaded)
  local name=$1
  mkdir -p "$work/$name/src" "$work/$name/mnt"
  bindfs -f "$work/$name/src" "$work/$name/mnt" &
  peer_pids+=("$!")
  pid_of[$name]=$!
  mounted+=("$work/$name/mnt")
  wait_mounted "$work/$name/mnt"
  dir_of[$name]=$work/$name/mnt
}

drop_caches() { sync; [ $root = 0 ] || echo 3 > /proc/sys/vm/drop_caches; }

# ---- 2. per-configuration benchmarks, in interleaved rounds -------------------
clk_tck=$(getconf CLK_TCK)
daemon_ticks() {  # PID: CPU ticks (user + system) it has used; 0 without a daemon
  if [ -n "$1" ]; then awk '{ print $14 + $15 }' "/proc/$1/stat"; else echo 0; fi
}

# CONFIG NAME METRIC JQ-VALUE FIO-ARGS...: one fio job on the configuration's
# fio.dat. Records METRIC (JQ-VALUE over the job's JSON) and, for a FUSE daemon,
# the daemon's CPU time per I/O.
fio_job() {
  local cfg=$1 name=$2 metric=$3 value=$4 pid=${pid_of[$1]} t0 t1
  shift 4
  t0=$(daemon_ticks "$pid")
  fio --name="$name" --filename="${dir_of[$cfg]}/fio.dat" --ioengine=psync --fallocate=none \
    --output-format=json "$@" > "$out/fio-$cfg-$name-r$round.json"
  t1=$(daemon_ticks "$pid")
  jq -r --arg m "$metric" --argjson cpu "$((t1 - t0))" --argjson hz "$clk_tck" \
    --argjson daemon "$([ -n "$pid" ] && echo true || echo false)" '
    .jobs[0] as $j | "data\t\($m)\t\($j | '"$value"')",
    if $daemon then "daemon_cpu\t\($j.jobname)_us_per_io\t\($cpu / $hz * 1e6 /
                     ([$j.read.total_ios + $j.write.total_ios, 1] | max))" else empty end' \
    "$out/fio-$cfg-$name-r$round.json" | record "$cfg"
}

for cfg in $CONFIGS; do "mount_$cfg" "$cfg"; done
for round in $(seq "$ROUNDS"); do
  for cfg in $CONFIGS; do
    log "round $round/$ROUNDS, $cfg: metadata_bench ($META_FILES files), fio ($DATA_SIZE)"
    dir=${dir_of[$cfg]}
    pid=${pid_of[$cfg]}
    args=(--dir "$dir/meta" --files "$META_FILES")
    [ -n "$pid" ] && args+=(--pid "$pid")
    [ $root = 1 ] && args+=(--drop_caches)
    mkdir "$dir/meta"
    sync  # let earlier deletes (and the discards of this VM's disk) settle first
    "$mb" "${args[@]}" | record "$cfg"
    rmdir "$dir/meta"
    sync

    fio_job "$cfg" seqwrite seqwrite_mb_s '.write.bw_bytes / 1e6' \
      --rw=write --bs=1M --size="$DATA_SIZE" --end_fsync=1
    drop_caches
    fio_job "$cfg" seqread seqread_mb_s '.read.bw_bytes / 1e6' --rw=read --bs=1M --size="$DATA_SIZE"
    # The file is in the page cache now (for tierfs kept across opens: keep_cache).
    fio_job "$cfg" randread_warm randread_warm_iops '.read.iops' --rw=randread --bs=4k \
      --size="$DATA_SIZE" --invalidate=0 --runtime="$RAND_SECONDS" --time_based --norandommap \
      --randrepeat=1
    # Cold: a fixed amount (RAND_IO) of random reads, so that nearly every read misses
    # the cache (a time-based run ends up served from memory within seconds).
    drop_caches
    fio_job "$cfg" randread_cold randread_cold_iops '.read.iops' --rw=randread --bs=4k \
      --size="$DATA_SIZE" --io_size="$RAND_IO" --norandommap --randrepeat=1
    rm -f "$dir/fio.dat"
  done
done
for cfg in $CONFIGS; do
  [ -z "${pid_of[$cfg]}" ] && continue
  printf 'memory\tvmhwm_kib_end\t%s\n' "$(awk '/^VmHWM/ {print $2}' "/proc/${pid_of[$cfg]}/status")" \
    | record "$cfg"
done

# ---- 3. the policy engine alone ---------------------------------------------
log "policy_bench: PlanScan over $POLICY_FILES synthetic files (read-intensive template)"
"$pb" --policy "$top/tests/policy/data/ssd_read_intensive_template.xml" --files "$POLICY_FILES" \
  | record engine

# ---- 4. real scans and the tiering effect -----------------------------------
log "scan: $SCAN_FILES files created two days ago (libfaketime), then a skewed read workload"
libfaketime=/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1
faked=(env FAKETIME=-2d FAKETIME_DONT_FAKE_MONOTONIC=1 LD_PRELOAD=$libfaketime)
[ -e "$libfaketime" ] || { echo "libfaketime missing: every file will look active" >&2; faked=(); }
mount_tierfs scan "${faked[@]}"
scan=${dir_of[scan]}
# docs/examples/hot_reads.xml (promote at >= 1.5x the average 6-hour read IOTEMP,
# hottest first; demote under 0.5x), with "ssd" replaced by the class mkdstfs gave
# the SSD volume (vol1: "ssd" or "ssdmetadata", depending on the version).
ssd_class=$("$bin/fsppadm" status "$scan" | awk '$1 == "vol1" { print $2; exit }')
sed "s#<CLASS> *ssd *</CLASS>#<CLASS> $ssd_class </CLASS>#g" "$top/docs/examples/hot_reads.xml" \
  > "$out/hot_reads.xml"
"$bin/fsppadm" assign "$scan" "$out/hot_reads.xml" >/dev/null
"$sb" --mode create --dir "$scan" --files "$SCAN_FILES" | record scan
remount_tierfs scan  # the real clock from here on: the creates are two days old

rss() {  # LABEL: the scan daemon's resident memory now
  printf 'memory\tvmrss_kib_%s\t%s\n' "$1" "$(awk '/^VmRSS/ {print $2}' "/proc/${pid_of[scan]}/status")" \
    | record scan
}
skew() {  # ROUND SEED
  "$sb" --mode read --dir "$scan" --files "$SCAN_FILES" --reads "$SKEW_READS" --seed "$2" \
    --out "$out/skew-$1.tsv" | sed "s/^skew\t/skew\t$1_/" | record scan
}
share() {  # ROUND: share of the round's read bytes and reads served by files now on ssd
  cut -f1 "$out/skew-$1.tsv" | xargs "$bin/fsmap" > "$out/fsmap-$1.txt"
  awk -F'\t' -v round="$1" -v ssd="$ssd_class" '
    FNR == NR { split($0, f, " +"); if (FNR > 1) cls[f[4]] = f[2]; next }
    { total += $3; ops += $4; if (cls[$1] == ssd) { sbytes += $3; sops += $4 } }
    END { printf "tiering\t%s_ssd_share_bytes\t%.4f\ntiering\t%s_ssd_share_reads\t%.4f\n",
                 round, sbytes / total, round, sops / ops }' \
    <(sed 's/^ *//' "$out/fsmap-$1.txt") "$out/skew-$1.tsv" | record scan
}
timed_scan() {  # LABEL FSPPADM-ARGS...: seconds and files as the daemon reports them
  local label=$1 start wall
  shift
  start=$(date +%s.%N)
  "$bin/fsppadm" "$@" --json "$scan" > "$out/fsppadm-$label.json"
  wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.3f", e - s }')
  jq -r --arg l "$label" --argjson wall "$wall" '
    "scan\t\($l)_wall_s\t\($wall)",
    "scan\t\($l)_daemon_s\t\(.seconds)",
    "scan\t\($l)_files_scanned\t\(.summary.files_scanned)",
    "scan\t\($l)_files_moved\t\(.summary.files_moved)",
    "scan\t\($l)_us_per_file\t\(.seconds * 1e6 / ([.summary.files_scanned, 1] | max))",
    if .summary.files_moved > 0 then
      "scan\t\($l)_ms_per_move\t\(.seconds * 1e3 / .summary.files_moved)" else empty end' \
    "$out/fsppadm-$label.json" | record scan
}

rss 1_mounted
skew round1 1
share round1
rss 2_after_round1
timed_scan analyze analyze
rss 3_after_analyze
timed_scan analyze_C analyze -C
timed_scan enforce_C enforce -C
rss 4_after_enforce
skew round2 2
share round2
rss 5_after_round2
jq -r '[.rows[] | select(.outcome == "moved")] |
       "tiering\tmoved_files\t\(length)",
       "tiering\tmoved_hot_files\t\([.[] | select((.path | capture("h(?<n>[0-9]+)$").n | tonumber) % 10 == 0)] | length)"' \
  "$out/fsppadm-enforce_C.json" | record scan
du -sb "$work/scan/ssd/.tierfs/objects" "$work/scan/hdd/.tierfs/objects" 2>/dev/null \
  | awk '{ b[NR] = $1 } END { printf "tiering\tssd_share_of_stored_bytes\t%.4f\n", b[1] / (b[1] + b[2]) }' \
  | record scan
printf 'memory\tvmhwm_kib_scan_daemon\t%s\n' \
  "$(awk '/^VmHWM/ {print $2}' "/proc/${pid_of[scan]}/status")" | record scan
printf 'env\tloadavg_end\t%s\n' "$(cut -d' ' -f1 /proc/loadavg)" | record env

# ---- 5. tables ---------------------------------------------------------------
log "results (median of $ROUNDS rounds; raw: $results)"
awk -F'\t' -v configs="$CONFIGS" '
  { k = $1 "|" $2 "|" $3; n[k]++; x[k, n[k]] = $4 }
  function median(k,    i, j, t, a, m) {
    m = n[k]
    if (m == 0) return ""
    for (i = 1; i <= m; i++) a[i] = x[k, i] + 0
    for (i = 2; i <= m; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
  }
  function spread(k,    i, lo, hi) {  # max / min over the rounds
    if (n[k] < 2) return "-"
    lo = hi = x[k, 1] + 0
    for (i = 2; i <= n[k]; i++) { if (x[k, i] + 0 < lo) lo = x[k, i] + 0; if (x[k, i] + 0 > hi) hi = x[k, i] + 0 }
    return lo > 0 ? sprintf("%.2f", hi / lo) : "-"
  }
  function fmt(s) { return s == "" ? "-" : (s >= 100 ? sprintf("%.0f", s) : sprintf("%.2f", s)) }
  function ratio(a, b) { return (a == "" || b == "" || b == 0) ? "-" : sprintf("%.2f", a / b) }
  function row(group, metric, label,    c, line, m) {
    line = sprintf("%-24s", label)
    for (c = 1; c <= nc; c++) { m[c] = median(cfg[c] "|" group "|" metric); line = line sprintf(" %10s", fmt(m[c])) }
    t = median("tierfs|" group "|" metric)
    line = line sprintf(" %8s %8s %8s %8s", ratio(t, median("native|" group "|" metric)),
                        ratio(t, median("mergerfs|" group "|" metric)),
                        ratio(t, median("bindfs|" group "|" metric)), spread("tierfs|" group "|" metric))
    print line
  }
  END {
    nc = split(configs, cfg, " ")
    head = sprintf("%-24s", "benchmark")
    for (c = 1; c <= nc; c++) head = head sprintf(" %10s", cfg[c])
    print head sprintf(" %8s %8s %8s %8s", "t/native", "t/merger", "t/bindfs", "t spread")
    np = split("create stat stat_cached stat_cold readdir ls_l read_cold rename unlink", ph, " ")
    for (i = 1; i <= np; i++) row("metadata", ph[i] "_ops_s", ph[i] " ops/s")
    row("data", "seqwrite_mb_s", "seq write MB/s")
    row("data", "seqread_mb_s", "seq read MB/s")
    row("data", "randread_warm_iops", "rand 4k warm IOPS")
    row("data", "randread_cold_iops", "rand 4k cold IOPS")
    print "daemon CPU time, microseconds per operation (lower is better)"
    for (i = 1; i <= np; i++) row("daemon_cpu", ph[i] "_us_per_op", "  " ph[i])
    row("daemon_cpu", "seqwrite_us_per_io", "  seq write, per MiB")
    row("daemon_cpu", "seqread_us_per_io", "  seq read, per MiB")
    row("daemon_cpu", "randread_warm_us_per_io", "  rand warm, per 4k")
    row("daemon_cpu", "randread_cold_us_per_io", "  rand cold, per 4k")
    print "daemon memory, KiB"
    row("memory", "vmhwm_kib", "  VmHWM after metadata")
    row("memory", "vmhwm_kib_end", "  VmHWM at the end")
    print ""
    for (k in n) {
      split(k, p, "|")
      if (p[1] == "engine" || p[1] == "scan" || p[1] == "env") printf "%-7s %-34s %s\n", p[1], p[3], x[k, n[k]] | "sort"
    }
    close("sort")
  }' "$results"
echo
echo "raw results: $out"
