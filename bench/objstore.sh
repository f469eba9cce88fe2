#!/usr/bin/env bash
# The object class against rclone, on one throw-away Ceph cluster (run by hand,
# never by ctest; docs/benchmarks.md "Object class").
#
#   sudo bench/objstore.sh                 # 1 GiB in files of 1-100 MiB, 3 rounds
#   sudo QUICK=1 bench/objstore.sh         # 64 MiB, 1 round, 500 small files: plumbing
#   sudo MEMORY_ONLY=1 TOTAL_MIB=10240 bench/objstore.sh
#                                          # the 10 GiB relocation up, tierfs alone:
#                                          # the daemon's memory (needs ~14 GiB of
#                                          # RAM: the OSD keeps its data in memory)
#
# What it measures, each tierfs line beside rclone (Debian's, default options)
# against the same bucket of a single-node Ceph cluster started here
# (tests/ceph/ceph_cluster.sh: one monitor, one memstore OSD, one RADOS Gateway):
#   up      a tree of TOTAL_MIB MiB in files of 1-100 MiB: `fsppadm enforce` of a
#           policy that relocates every file to the object class (daemon memory:
#           its VmHWM before and after), against `rclone copy DIR ceph:BUCKET/P`;
#   read    a 256 MiB file on the store read through tierfs (`cat`, page cache
#           dropped), against `rclone cat`;
#   down    the same tree back to the hdd class (recall), against
#           `rclone copy ceph:BUCKET/P DIR`;
#   meta    `ls -l` and `stat` of META_FILES small files on a local class, then
#           on the store (caches dropped before each): no request may reach the
#           store, so both should take the same time;
# ROUNDS alternating rounds; prints the medians and ratios (tierfs/rclone, as
# throughput: above 1 is faster) and keeps the raw lines in OUT/results.tsv.
# Everything it starts (the cluster, the daemon) is stopped on exit, by pid;
# every step is bounded in time (STEP_TIMEOUT seconds).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
QUICK=${QUICK:-0}
MEMORY_ONLY=${MEMORY_ONLY:-0}
if [ "$QUICK" = 1 ]; then
  TOTAL_MIB=${TOTAL_MIB:-64}; ROUNDS=${ROUNDS:-1}; META_FILES=${META_FILES:-500}
  READ_MIB=${READ_MIB:-32}
else
  TOTAL_MIB=${TOTAL_MIB:-1024}; ROUNDS=${ROUNDS:-3}; META_FILES=${META_FILES:-10000}
  READ_MIB=${READ_MIB:-256}
fi
STEP_TIMEOUT=${STEP_TIMEOUT:-1800}
PORT=${PORT:-17480}
BENCH_DIR=${BENCH_DIR:-/var/tmp}
OUT=${OUT:-$BENCH_DIR/tierfs-objstore-$(date +%Y%m%d-%H%M%S)}

[ "$(id -u)" = 0 ] || { echo "objstore.sh: run as root (drop_caches, the mount)" >&2; exit 2; }
for tool in rclone ceph-mon ceph-osd radosgw; do
  command -v "$tool" >/dev/null ||
    { echo "objstore.sh: $tool missing (scripts/install-deps.sh installs it)" >&2; exit 2; }
done
for b in tierfs mkdstfs fsppadm fsvoladm; do
  [ -x "$BUILD/cli/$b" ] || { echo "objstore.sh: no $BUILD/cli/$b (build first)" >&2; exit 2; }
done
export PATH=$BUILD/cli:$PATH

work=$(mktemp -d "$BENCH_DIR/tierfs-objstore.XXXXXX")
mkdir -p "$OUT"
results=$OUT/results.tsv
: > "$results"
mnt=$work/mnt
daemon_pid=""
cluster_up=0
cleanup() {
  set +e
  if mountpoint -q "$mnt"; then
    timeout 120 fusermount3 -u "$mnt" || timeout 30 fusermount3 -uz "$mnt"
  fi
  [ -z "$daemon_pid" ] || timeout 60 tail --pid="$daemon_pid" -f /dev/null
  cp "$work/ssd/.tierfs/tierfs.log" "$OUT/tierfs.log" 2>/dev/null
  [ "$cluster_up" = 0 ] || timeout 120 "$ROOT/tests/ceph/ceph_cluster.sh" stop "$work/ceph"
  rm -rf "$work"
}
trap cleanup EXIT
log() { printf '\n\033[1m== [%ds] %s\033[0m\n' "$SECONDS" "$*" >&2; }
bounded() { timeout --foreground -k 10 "$STEP_TIMEOUT" "$@"; }
now() { date +%s.%N; }
drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }
record() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" | tee -a "$results" >&2; }  # LINE WHO ROUND VALUE
vm() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$daemon_pid/status"; }  # VmRSS/VmHWM, KiB

# ---- the cluster and the credentials -----------------------------------------
log "ceph: one monitor, one memstore OSD, one gateway on 127.0.0.1:$PORT"
# The OSD keeps the bucket in memory: room for two copies of the tree (rclone's
# and tierfs's), two of the read file, and slack, over Ceph's full ratio (a
# full OSD does not refuse writes, it holds them: uploads then stall).
if [ "$MEMORY_ONLY" = 1 ]; then  # tierfs's copy of the tree alone
  ROUNDS=1; READ_MIB=1
  export CEPH_MEMSTORE_BYTES=$(( (TOTAL_MIB + 1024) * 1048576 / 4 * 5 ))
else
  export CEPH_MEMSTORE_BYTES=$(( (2 * TOTAL_MIB + 2 * READ_MIB + 1024) * 1048576 / 4 * 5 ))
fi
bounded "$ROOT/tests/ceph/ceph_cluster.sh" start "$work/ceph" "$PORT" --owner $$ > "$work/ceph.env"
cluster_up=1
endpoint=$(sed -n 's/^endpoint=//p' "$work/ceph.env")
access=$(sed -n 's/^access_key=//p' "$work/ceph.env")
secret=$(sed -n 's/^secret_key=//p' "$work/ceph.env")
install -m 600 /dev/null "$work/store.cred"
printf 'access_key = %s\nsecret_key = %s\n' "$access" "$secret" > "$work/store.cred"
# rclone's remote "ceph", from the environment (no config file). rclone 1.60
# fails with LoadCustomCABundleError while AWS_CA_BUNDLE is set (the endpoint
# is plain HTTP anyway).
unset AWS_CA_BUNDLE
export RCLONE_LOG_LEVEL=ERROR  # not the NOTICE that no config file exists
export RCLONE_CONFIG_CEPH_TYPE=s3 RCLONE_CONFIG_CEPH_PROVIDER=Ceph
export RCLONE_CONFIG_CEPH_ENDPOINT=$endpoint RCLONE_CONFIG_CEPH_ACCESS_KEY_ID=$access
export RCLONE_CONFIG_CEPH_SECRET_ACCESS_KEY=$secret RCLONE_CONFIG_CEPH_FORCE_PATH_STYLE=true
bounded rclone mkdir ceph:bench
bounded rclone mkdir ceph:tierfs

# ---- the tree: files of 1-100 MiB, TOTAL_MIB in all ---------------------------
log "data: $TOTAL_MIB MiB in files of 1-100 MiB, and one of $READ_MIB MiB"
mkdir -p "$work/data" "$work/big"
left=$TOTAL_MIB
i=0
RANDOM=42  # the same sizes every run
while [ "$left" -gt 0 ]; do
  size=$(( RANDOM % 100 + 1 ))
  [ "$size" -le "$left" ] || size=$left
  head -c "$((size * 1048576))" /dev/urandom > "$work/data/f$i.dat"
  left=$((left - size)); i=$((i + 1))
done
files=$i
head -c "$((READ_MIB * 1048576))" /dev/urandom > "$work/big/big.dat"
log "data: $files files"

# ---- tierfs: ssd + hdd local, the store's class "cloud" -------------------------
mkdir -p "$work/ssd" "$work/hdd" "$mnt"
bounded mkdstfs "$mnt" bench "$work/ssd:ssd" "$work/hdd:hdd" > "$work/mkdstfs.log" 2>&1
daemon_pid=$(tr -d '\n' < "$work/ssd/.tierfs/daemon.lock")
bounded fsvoladm add --endpoint "$endpoint" --credentials "$work/store.cred" \
  "$mnt" "s3://tierfs/bench:cloud" >&2
policy() {  # CLASS [PATTERN]: files named PATTERN (default all) created on hdd, moved to CLASS
  cat > "$work/policy.xml" <<EOF
<?xml version="1.0"?>
<PLACEMENT_POLICY Version="5.1" Name="to_$1">
  <RULE Flags="data" Name="all"><SELECT><PATTERN>${2:-*}</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>hdd</CLASS></DESTINATION></ON></CREATE>
    <RELOCATE><TO><DESTINATION><CLASS>$1</CLASS></DESTINATION></TO></RELOCATE></RULE>
</PLACEMENT_POLICY>
EOF
  bounded fsppadm assign "$mnt" "$work/policy.xml" >/dev/null
}
policy hdd
mkdir -p "$mnt/tree" "$mnt/one"
cp "$work"/data/*.dat "$mnt/tree/"
cp "$work/big/big.dat" "$mnt/one/"
sync
# The file read in every round goes to the store once, untimed; rclone's too.
policy cloud 'big*'
bounded fsppadm enforce "$mnt" > "$OUT/enforce-big.txt"
bounded rclone copyto "$work/big/big.dat" ceph:bench/big.dat

mib_s() { awk -v mib="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.1f", mib / (b - a) }'; }

for round in $(seq 1 "$ROUNDS"); do
  log "round $round: up"
  if [ "$MEMORY_ONLY" = 0 ]; then
    drop_caches
    t0=$(now); bounded rclone copy "$work/data" "ceph:bench/r$round" ; t1=$(now)
    record up_mib_s rclone "$round" "$(mib_s "$TOTAL_MIB" "$t0" "$t1")"
  fi
  hwm_before=$(vm VmHWM)
  policy cloud 'f*'
  drop_caches
  t0=$(now); bounded fsppadm enforce "$mnt" > "$OUT/enforce-up-$round.txt"; t1=$(now)
  record up_mib_s tierfs "$round" "$(mib_s "$TOTAL_MIB" "$t0" "$t1")"
  record daemon_hwm_kib_before_up tierfs "$round" "$hwm_before"
  record daemon_hwm_kib_after_up tierfs "$round" "$(vm VmHWM)"
  on_store=$(fsmap "$mnt/tree/f0.dat" 2>/dev/null | grep -c 's3://' || true)
  [ "$on_store" -ge 1 ] || { echo "objstore.sh: f0.dat is not on the store after enforce:" >&2;
                             fsmap "$mnt/tree/f0.dat" >&2; exit 1; }
  if [ "$MEMORY_ONLY" = 1 ]; then
    record files_moved tierfs "$round" "$(grep -c ' moved' "$OUT/enforce-up-$round.txt" || true)"
    break
  fi

  log "round $round: read $READ_MIB MiB"
  drop_caches
  t0=$(now); bounded rclone cat ceph:bench/big.dat > /dev/null; t1=$(now)
  record read_mib_s rclone "$round" "$(mib_s "$READ_MIB" "$t0" "$t1")"
  drop_caches
  t0=$(now); bounded cat "$mnt/one/big.dat" > /dev/null; t1=$(now)
  record read_mib_s tierfs "$round" "$(mib_s "$READ_MIB" "$t0" "$t1")"

  log "round $round: down"
  rm -rf "$work/back"; mkdir -p "$work/back"
  drop_caches
  t0=$(now); bounded rclone copy "ceph:bench/r$round" "$work/back"; t1=$(now)
  record down_mib_s rclone "$round" "$(mib_s "$TOTAL_MIB" "$t0" "$t1")"
  cmp -s "$work/back/f0.dat" "$work/data/f0.dat" || { echo "objstore.sh: rclone's copy differs" >&2; exit 1; }
  policy hdd 'f*'
  drop_caches
  t0=$(now); bounded fsppadm enforce "$mnt" > "$OUT/enforce-down-$round.txt"; t1=$(now)
  record down_mib_s tierfs "$round" "$(mib_s "$TOTAL_MIB" "$t0" "$t1")"
  cmp -s "$mnt/tree/f0.dat" "$work/data/f0.dat" || { echo "objstore.sh: tierfs's recall differs" >&2; exit 1; }
  bounded rclone purge "ceph:bench/r$round"
done

# ---- ls -l and stat: local class, then the store ------------------------------
[ "$MEMORY_ONLY" = 1 ] && META_FILES=0
if [ "$META_FILES" -gt 0 ]; then
  log "meta: $META_FILES files"
  mkdir -p "$mnt/many"
  for d in $(seq 0 99); do mkdir -p "$mnt/many/d$d"; done
  for ((i = 0; i < META_FILES; i++)); do echo 0123456789abcde > "$mnt/many/d$((i % 100))/m$i"; done
  sync
  meta_round() {  # WHERE ROUND
    drop_caches
    t0=$(now); bounded ls -lR "$mnt/many" > /dev/null; t1=$(now)
    record "ls_l_files_s_$1" tierfs "$2" "$(awk -v n="$META_FILES" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", n / (b - a) }')"
    drop_caches
    t0=$(now); bounded find "$mnt/many" -type f -exec stat --format=%s {} + > /dev/null; t1=$(now)
    record "stat_files_s_$1" tierfs "$2" "$(awk -v n="$META_FILES" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", n / (b - a) }')"
  }
  # Requests the gateway has served so far (its admin socket's perf counters).
  rgw_requests() {
    ceph --admin-daemon "$work"/ceph/run/client.rgw*.asok perf dump 2>/dev/null |
      python3 -c 'import json, sys; print(json.load(sys.stdin)["rgw"]["req"])'
  }
  for round in $(seq 1 "$ROUNDS"); do meta_round local "$round"; done
  policy cloud 'm*'
  bounded fsppadm enforce "$mnt" > "$OUT/enforce-many.txt"
  before=$(rgw_requests)
  m0=$SECONDS
  for round in $(seq 1 "$ROUNDS"); do meta_round store "$round"; done
  after=$(rgw_requests)
  # The probe that tells the volume online asks once a second: anything beyond
  # that reached the store for ls -l or stat.
  record gateway_requests_during_meta tierfs all "$((after - before))"
  record store_meta_seconds tierfs all "$((SECONDS - m0))"
fi

# ---- summary -------------------------------------------------------------------
log "summary (medians of $ROUNDS rounds; $OUT/results.tsv)"
python3 - "$results" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, who, _, value = line.rstrip("\n").split("\t")
    rows.setdefault((name, who), []).append(float(value))
med = {k: statistics.median(v) for k, v in rows.items()}
for name in ("up_mib_s", "read_mib_s", "down_mib_s"):
    t, r = med.get((name, "tierfs")), med.get((name, "rclone"))
    if t and r:
        print(f"{name:12} tierfs {t:8.1f}  rclone {r:8.1f}  tierfs/rclone {t / r:.2f}")
for what in ("ls_l", "stat"):
    l, s = med.get((f"{what}_files_s_local", "tierfs")), med.get((f"{what}_files_s_store", "tierfs"))
    if l and s:
        print(f"{what:12} local {l:8.0f}/s  store {s:8.0f}/s  store/local {s / l:.2f}")
if ("gateway_requests_during_meta", "tierfs") in med:
    print(f"gateway requests during the ls -l/stat rounds on the store: "
          f"{med[('gateway_requests_during_meta', 'tierfs')]:.0f} in "
          f"{med.get(('store_meta_seconds', 'tierfs'), 0):.0f} s (the health probe asks once a second)")
for k in ("daemon_hwm_kib_before_up", "daemon_hwm_kib_after_up"):
    if (k, "tierfs") in med:
        print(f"{k:26} {max(rows[(k, 'tierfs')]):.0f} KiB (highest)")
EOF
