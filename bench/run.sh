#!/usr/bin/env bash
# tierfs benchmarks, run by hand (never by ctest). See docs/benchmarks.md.
#
#   sudo bench/run.sh            # the table of docs/benchmarks.md, 3 rounds (not timed yet: an hour or more)
#   sudo FULL=1 bench/run.sh     # also 200,000-file metadata and 1,000,000-file memory (hours)
#   sudo QUICK=1 bench/run.sh    # tiny sizes, one round: checks every section in ~3 minutes
#   sudo TIERFS_OPTS=io_uring bench/run.sh  # tierfs mounted with these -o options; io_uring
#                                # also turns the fuse module's enable_uring on for the run
#   sudo MERGERFS_TARBALL=mergerfs-2.42.0.tar.gz bench/run.sh  # also mergerfs-pt (built once
#                                # into BENCH_CACHE; or MERGERFS_PT=a mergerfs >= 2.40 binary)
#
# What it does, under one temporary directory on the disk that holds BENCH_DIR
# (default /var/tmp):
#   1. installs the peers and tools from Debian's packages when missing (fio,
#      mergerfs, bindfs, jq, faketime, strace, git, gcc, make, postgresql,
#      python3-matplotlib) and builds the tools and benchmarks (-j2); fetches
#      Debian's linux-source package (apt-get download, unpacked, not installed);
#      prepares once (cached in BENCH_CACHE) the real-work tree: Debian's Linux
#      sources (or, when linux-source cannot be installed, /usr/include), plus a
#      generated C project to build, committed to git natively;
#   2. mounts the configurations of CONFIGS side by side -- native (the directory
#      itself), tierfs (mkdstfs over two directories, ssd + hdd, with
#      --passthrough=off), tierfs-pt (the same with --passthrough=rw;
#      tierfs-ptro: =ro; mounted only for their own
#      turn, since their BPF heat counter may cost every system call of the
#      machine), mergerfs (Debian's, a union of two directories), mergerfs-pt
#      (mergerfs >= 2.40 with passthrough.io=rw: MERGERFS_PT or MERGERFS_TARBALL,
#      else skipped), bindfs (a plain FUSE passthrough) -- and runs ROUNDS
#      interleaved rounds; each round runs on each configuration in turn:
#        meta  metadata_bench at META_FILES files (and META_FILES_BIG with FULL=1)
#              with 1 and 4 threads (META_THREADS), daemon CPU per operation;
#        fio   sequential write (end fsync) and cold read, 1 MiB; random 4 KiB reads
#              cold (1 and 4 jobs, IOPS and p99 latency) and warm; random 4 KiB
#              writes (end fsync; 1 and 4 jobs);
#        real  untar the tree (+ sync), grep -r warm, git status, make -j, rm -rf;
#        pg    pgbench TPC-B-like (scale PG_SCALE, PG_CLIENTS clients) on a private
#              PostgreSQL cluster in the directory (PG_CONFIGS: native and tierfs;
#              PG_WAL_SYNC: its wal_sync_method, e.g. open_datasync);
#      and then, on each of FAST_CONFIGS in turn, with a tmpfs of its own as the
#      "device" (native: a directory on it; tierfs*: its ssd volume on it, a
#      policy creating every file there, checked with fsmap; mergerfs*: both
#      branches on it):
#              (FAST_FS=ext4: an ext4 on a loop device in a tmpfs instead);
#        fast  fio on the tmpfs: sequential write (end fsync) and cold read, 1 MiB;
#              cold random 4 KiB reads (1 and 4 jobs, FAST_RAND_IO); random 4 KiB
#              writes (end fsync, FAST_RANDW_IO);
#   3. dbw: on tierfs under strace, the SQLite pwrites (WAL and main file) per
#      file read by a cold and a warm grep -r, and per file created;
#   4. mem: resident memory of fresh tierfs / mergerfs / bindfs daemons after
#      creating MEM_FILES files and a find over them (FULL=1: 1,000,000);
#   5. policy_bench: the pure policy engine at POLICY_FILES synthetic files;
#   6. on a fresh tierfs: SCAN_FILES files created "two days ago" (libfaketime on
#      the daemon, so that they are not active), a skewed read workload (10% of
#      the files get 90% of the reads), fsppadm analyze / analyze -C / enforce -C
#      timed, the workload again, and the share of read bytes served by files
#      on the ssd class before and after (fsmap): the NetApp paper's measure;
#   7. prints the tables (bench/summarize.py: medians of the rounds, ratios to
#      native (in section fast: the tmpfs), mergerfs, mergerfs-pt and bindfs,
#      spreads), writes summary.csv and summary.json next to the raw results.tsv
#      in BENCH_OUT, and plots the ratios to PLOT.
# SECTIONS (default "meta fio real pg fast dbw mem policy scan") selects sections.
# Everything it mounted is unmounted on exit, whatever happens (trap), every
# process it started (daemons, postgres, strace) is stopped by its pid, and
# every step is bounded in time (STEP_TIMEOUT seconds).
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD

BUILD=${BUILD:-$top/build-bench}
FULL=${FULL:-0}
QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then
  : "${ROUNDS:=1}" "${META_FILES:=2000}" "${DATA_SIZE:=64M}" "${RAND_SECONDS:=1}" "${RAND_IO:=8M}"
  : "${RANDW_IO:=8M}" "${REAL_FILES:=1500}" "${BUILD_FILES:=16}" "${PG_SCALE:=1}" "${PG_SECONDS:=5}"
  : "${MEM_FILES:=3000}" "${POLICY_FILES:=20000}" "${SCAN_FILES:=2000}" "${SKEW_READS:=4000}"
  : "${FAST_RAND_IO:=8M}" "${FAST_RANDW_IO:=8M}"
fi
if [ "$FULL" = 1 ]; then
  : "${META_FILES_BIG:=200000}" "${MEM_FILES:=1000000}"
fi
ROUNDS=${ROUNDS:-3}                 # interleaved rounds of section 2 (median reported)
META_FILES=${META_FILES:-20000}     # metadata_bench files (1 KiB each, 100 directories)
META_FILES_BIG=${META_FILES_BIG:-}  # a second, larger metadata size (FULL=1: 200000)
META_THREADS=${META_THREADS:-1 4}   # metadata_bench thread counts
DATA_SIZE=${DATA_SIZE:-512M}        # fio file size
RAND_SECONDS=${RAND_SECONDS:-3}     # fio warm random-read run time
RAND_IO=${RAND_IO:-64M}             # fio cold random reads: this many bytes in 4 KiB reads (all jobs)
RANDW_IO=${RANDW_IO:-64M}           # fio random writes: this many bytes in 4 KiB writes (all jobs)
REAL_SRC=${REAL_SRC:-auto}          # real-work tree: auto (linux, else usr-include), linux, usr-include
REAL_FILES=${REAL_FILES:-0}         # keep only this many files of the tree (0: all)
BUILD_FILES=${BUILD_FILES:-300}     # C files of the generated project built in the tree
PG_CONFIGS=${PG_CONFIGS:-native tierfs}
PG_SCALE=${PG_SCALE:-10}
PG_CLIENTS=${PG_CLIENTS:-4}
PG_WAL_SYNC=${PG_WAL_SYNC:-}        # PostgreSQL's wal_sync_method (e.g. open_datasync); its default if empty
PG_SECONDS=${PG_SECONDS:-60}
PG_PORT=${PG_PORT:-55432}
DBW_FILES=${DBW_FILES:-$META_FILES} # files created under strace (section dbw)
MEM_FILES=${MEM_FILES:-0}           # section mem (0: skipped; FULL=1: 1000000)
POLICY_FILES=${POLICY_FILES:-1000000}
SCAN_FILES=${SCAN_FILES:-50000}     # files (4 KiB) in the scan / tiering file system
SKEW_READS=${SKEW_READS:-100000}    # 4 KiB reads per round of the skewed workload
# The default CONFIGS drops tierfs-pt where the kernel gives no passthrough and
# mergerfs-pt where no mergerfs >= 2.40 is at hand; a CONFIGS set by hand keeps
# tierfs-pt (its log says passthrough is off) and skips mergerfs-pt too.
configs_default=$([ -z "${CONFIGS:-}" ] && echo 1 || echo 0)
CONFIGS=${CONFIGS:-native tierfs tierfs-pt mergerfs mergerfs-pt bindfs}
SECTIONS=${SECTIONS:-meta fio real pg fast dbw mem policy scan}
# Section fast: configurations run on a tmpfs (default: those of CONFIGS but
# mergerfs and bindfs, which have no passthrough), the amounts of random I/O.
FAST_CONFIGS=${FAST_CONFIGS:-$(for c in $CONFIGS; do case $c in mergerfs|bindfs) ;; *) echo "$c" ;; esac; done | xargs)}
FAST_RAND_IO=${FAST_RAND_IO:-256M}  # cold 4 KiB random reads on the tmpfs: this many bytes (all jobs)
FAST_RANDW_IO=${FAST_RANDW_IO:-256M}  # 4 KiB random writes on the tmpfs: this many bytes
# The "device" of section fast: tmpfs, or ext4 (on a loop device whose image
# is in a tmpfs: memory's speed behind a disk file system, which the
# page-cache heat counter can see, where a tmpfs volume makes --passthrough=auto
# stay off and rw count with the every-syscall hook).
FAST_FS=${FAST_FS:-tmpfs}
MERGERFS_PT=${MERGERFS_PT:-}        # a mergerfs >= 2.40 binary for mergerfs-pt, or:
MERGERFS_TARBALL=${MERGERFS_TARBALL:-}  # its source release (mergerfs-2.42.0.tar.gz), built once
STEP_TIMEOUT=${STEP_TIMEOUT:-7200}  # seconds any one step may take
BENCH_CACHE=${BENCH_CACHE:-/var/tmp/tierfs-bench-cache}
TIERFS_OPTS=${TIERFS_OPTS:-}        # mount options of tierfs (mkdstfs -m, tierfs -o), e.g. io_uring

known_configs=" native tierfs tierfs-pt tierfs-ptro mergerfs mergerfs-pt bindfs "
for c in $CONFIGS $FAST_CONFIGS; do
  [[ $known_configs == *" $c "* ]] || { echo "unknown configuration $c (known:$known_configs)" >&2; exit 1; }
done

SECONDS=0
log() { printf '\n\033[1m== [%dm%02ds] %s\033[0m\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*" >&2; }
want() { [[ " $SECTIONS " == *" $1 "* ]]; }
# Any step: bounded in time. --foreground keeps the command in our process
# group, so that Ctrl-C reaches it (and the trap runs) at once.
bounded() { timeout --foreground -k 10 "$STEP_TIMEOUT" "$@"; }

# ---- 1. tools --------------------------------------------------------------
root=0
[ "$(id -u)" = 0 ] && root=1
[ $root = 1 ] || echo "warning: not root: page caches cannot be dropped, 'cold' phases are warm" >&2
pg_bindir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
missing=()
for pkg in fio mergerfs bindfs jq faketime strace git gcc make; do
  command -v "$pkg" >/dev/null || missing+=("$pkg")
done
py=/usr/bin/python3  # Debian's, whatever python3 comes first on PATH: it has python3-matplotlib
"$py" -c 'import matplotlib' 2>/dev/null || missing+=(python3-matplotlib)
if want pg && [ -z "$(pg_bindir)" ]; then missing+=(postgresql); fi
apt_install() {
  [ $root = 1 ] || { echo "not root: cannot install $*" >&2; return 1; }
  [ -n "${apt_updated:-}" ] || { bounded apt-get update -qq; apt_updated=1; }
  DEBIAN_FRONTEND=noninteractive bounded apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]} (Debian packages)"
  apt_install "${missing[@]}"
fi

log "build ($BUILD, Release, -j2)"
[ -f "$BUILD/build.ninja" ] || cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" -j2 --target tierfs mkdstfs fsppadm fsmap fcladm \
  metadata_bench policy_bench skew_bench >/dev/null
bin=$BUILD/cli

# ---- mergerfs-pt: a mergerfs with passthrough.io (2.40 and later) ------------
# Debian 12 ships 2.33, which has none: MERGERFS_PT names a binary, or
# MERGERFS_TARBALL a source release (github.com/trapexit/mergerfs/releases),
# built once into BENCH_CACHE; else a system mergerfs that is new enough.
without() { local x out=(); for x in $2; do [ "$x" = "$1" ] || out+=("$x"); done; echo "${out[*]}"; }
has_config() { [[ " $CONFIGS $FAST_CONFIGS " == *" $1 "* ]]; }
drop_config() {  # CONFIG WHY: leaves it out of this run, saying why in one line
  CONFIGS=$(without "$1" "$CONFIGS")
  FAST_CONFIGS=$(without "$1" "$FAST_CONFIGS")
  log "$1: skipped, $2"
}
version_of() { "$1" --version 2>/dev/null | grep -oE '[0-9]+\.[0-9]+(\.[0-9]+)?' | head -n 1 || true; }
version_ge() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n 1)" = "$2" ]; }  # A B: A >= B
build_mergerfs() {  # TARBALL: builds it once into BENCH_CACHE (release, -j2) -> mergerfs_pt
  local tarball=$1 dir top
  dir=$BENCH_CACHE/mergerfs-$(sha256sum "$tarball" | cut -c1-16)
  if [ ! -x "$dir/mergerfs" ]; then
    top=$(tar -tzf "$tarball" | awk -F/ 'NR == 1 { print $1 }')  # mergerfs-2.42.0
    log "building $top from $tarball into $dir (once, -j2; log: $dir.log)"
    rm -rf "$dir" "$dir.src"
    mkdir -p "$dir.src"
    bounded tar -xzf "$tarball" -C "$dir.src" --strip-components=1
    # A release has no git metadata: its version comes from VERSION, and
    # GIT_DIR keeps git from describing a repository around BENCH_CACHE.
    [ -s "$dir.src/VERSION" ] || printf '%s' "${top#mergerfs-}" > "$dir.src/VERSION"
    # NDEBUG=1: the release build (plain make is -O0 -g).
    if ! (cd "$dir.src" && GIT_DIR=/nonexistent ./buildtools/update-version &&
          bounded make -j2 NDEBUG=1) > "$dir.log" 2>&1; then
      tail -n 20 "$dir.log" >&2
      echo "building mergerfs from $tarball failed (log: $dir.log)" >&2
      exit 1
    fi
    mkdir -p "$dir"
    cp "$dir.src/build/mergerfs" "$dir/mergerfs"
    rm -rf "$dir.src"
  fi
  mergerfs_pt=$dir/mergerfs
}
# FUSE passthrough came in Linux 6.9: before it, the default CONFIGS runs no
# -pt configuration (one set by hand runs them, and their checks say "off").
kernel=$(uname -r | grep -oE '^[0-9]+\.[0-9]+' || true)
if [ "$configs_default" = 1 ] && ! version_ge "$kernel" 6.9; then
  for c in tierfs-pt mergerfs-pt; do
    if has_config $c; then drop_config $c "Linux $kernel has no FUSE passthrough (6.9 and later)"; fi
  done
fi
mergerfs_pt="" mergerfs_pt_version=""
if has_config mergerfs-pt; then
  if [ -n "$MERGERFS_PT" ]; then
    mergerfs_pt=$MERGERFS_PT
  elif [ -n "$MERGERFS_TARBALL" ]; then
    [ -f "$MERGERFS_TARBALL" ] || { echo "MERGERFS_TARBALL: no file $MERGERFS_TARBALL" >&2; exit 1; }
    build_mergerfs "$MERGERFS_TARBALL"
  elif version_ge "$(version_of mergerfs)" 2.40; then
    mergerfs_pt=$(command -v mergerfs)
  fi
  if [ -z "$mergerfs_pt" ]; then
    drop_config mergerfs-pt "no mergerfs >= 2.40 (Debian's is $(version_of mergerfs)): set MERGERFS_PT=BINARY or MERGERFS_TARBALL=mergerfs-2.42.0.tar.gz (docs/benchmarks.md)"
  else
    [ -x "$mergerfs_pt" ] || { echo "MERGERFS_PT: $mergerfs_pt is not an executable" >&2; exit 1; }
    mergerfs_pt_version=$(version_of "$mergerfs_pt")
    version_ge "$mergerfs_pt_version" 2.40 ||
      { echo "mergerfs-pt: $mergerfs_pt is mergerfs ${mergerfs_pt_version:-?}, passthrough.io needs 2.40 or later" >&2; exit 1; }
    log "mergerfs-pt: $mergerfs_pt (mergerfs $mergerfs_pt_version)"
  fi
fi
mb=$BUILD/bench/metadata_bench
pb=$BUILD/bench/policy_bench
sb=$BUILD/bench/skew_bench

work=$(mktemp -d "${BENCH_DIR:-/var/tmp}/tierfs-bench.XXXXXX")
chmod 755 "$work"  # the postgres user works in it
out=${BENCH_OUT:-$work.results}
mkdir -p "$out"
if [ "$QUICK" = 1 ]; then PLOT=${PLOT:-$out/ratios.png}; fi
PLOT=${PLOT:-$top/docs/benchmarks-ratios.png}
results=$out/results.tsv
: > "$results"

record() {  # CONFIG: prefixes "group<TAB>metric<TAB>value" lines from stdin
  sed "s/^/$1\t/" | tee -a "$results" >&2
}
# Other work on the machine skews every number: say how busy it was.
printf 'env\tloadavg_start\t%s\nenv\tnproc\t%s\nenv\tquick\t%s\nenv\tfull\t%s\nenv\trounds\t%s\n' \
  "$(cut -d' ' -f1 /proc/loadavg)" "$(nproc)" "$QUICK" "$FULL" "$ROUNDS" | record env
printf 'env\ttierfs_opts\t%s\n' "${TIERFS_OPTS:--}" | record env
printf 'env\tfast_fs\t%s\n' "$FAST_FS" | record env
printf 'env\tpg_wal_sync\t%s\n' "${PG_WAL_SYNC:--}" | record env
printf 'env\tmergerfs_pt\t%s\n' "$([ -n "$mergerfs_pt_version" ] && echo "mergerfs $mergerfs_pt_version" || echo -)" \
  | record env

# ---- the real-work tree (prepared once, natively, cached) -------------------
# src.tar: the tree (sources + a generated C project); git.tar: its .git,
# committed natively, extracted untimed before `git status`.
real_kind= real_tar= real_git= real_files=0
prepare_real() {
  local kind=$REAL_SRC tarball="" key cache stage
  # Debian's linux-source package is fetched (apt-get download) and unpacked into
  # BENCH_CACHE, never installed: installing it can upgrade linux-libc-dev,
  # whose newer <linux/ioprio.h> does not compile as C++.
  tarball=$(ls /usr/src/linux-source-*.tar.xz "$BENCH_CACHE"/linux-source/usr/src/linux-source-*.tar.xz \
    2>/dev/null | sort -V | tail -n 1 || true)
  if [ "$kind" != usr-include ] && [ -z "$tarball" ]; then
    local pkg
    pkg=$(apt-cache depends linux-source 2>/dev/null | awk '/Depends: linux-source-/ { print $2; exit }')
    log "fetching ${pkg:-linux-source} (Debian's kernel sources, for the real-work tree) into $BENCH_CACHE"
    mkdir -p "$BENCH_CACHE/linux-source"
    if [ -n "$pkg" ] && (cd "$BENCH_CACHE/linux-source" && bounded apt-get download -q "$pkg" >&2); then
      dpkg-deb -x "$BENCH_CACHE/linux-source/${pkg}_"*.deb "$BENCH_CACHE/linux-source"
      rm -f "$BENCH_CACHE/linux-source/"*.deb
    else
      echo "linux-source not available" >&2
    fi
    tarball=$(ls "$BENCH_CACHE"/linux-source/usr/src/linux-source-*.tar.xz 2>/dev/null | tail -n 1 || true)
  fi
  if [ "$kind" = auto ]; then kind=$([ -n "$tarball" ] && echo linux || echo usr-include); fi
  [ "$kind" = linux ] && [ -z "$tarball" ] && { echo "REAL_SRC=linux: no linux-source" >&2; exit 1; }
  key=$kind-$([ "$kind" = linux ] && basename "$tarball" .tar.xz || echo usr)-f$REAL_FILES-b$BUILD_FILES
  cache=$BENCH_CACHE/real-$key
  if [ ! -f "$cache/done" ]; then
    log "preparing the real-work tree $key in $cache (once)"
    rm -rf "$cache" "$cache.tmp"
    stage=$cache.tmp
    mkdir -p "$stage/tree"
    if [ "$kind" = linux ]; then
      bounded tar -xJf "$tarball" -C "$stage/tree" --strip-components=1
    else
      bounded tar -cf - -C /usr include | tar -xf - -C "$stage/tree"
    fi
    if [ "$REAL_FILES" -gt 0 ]; then  # keep the first REAL_FILES files (QUICK)
      (cd "$stage/tree" && find . -type f | LC_ALL=C sort | tail -n +"$((REAL_FILES + 1))" \
        | xargs -r -d '\n' rm -f && find . -depth -type d -empty -delete)
    fi
    gen_project "$stage/tree/tierfs-bench-build" "$BUILD_FILES"
    # -f: Debian's kernel tree ignores everything ("/*" in its .gitignore)
    # gc.auto 0: no detached `git gc --auto` rewriting the pack while tar reads it.
    (cd "$stage/tree" && git init -q && git config gc.auto 0 && git add -A -f &&
      git -c user.name=bench -c user.email=bench@localhost commit -q -m tree &&
      git repack -adq --window=0 && git prune-packed)
    tar -cf "$stage/src.tar" -C "$stage" --exclude=tree/.git tree
    tar -cf "$stage/git.tar" -C "$stage" tree/.git
    find "$stage/tree" -path "$stage/tree/.git" -prune -o -type f -print | wc -l > "$stage/files"
    case $kind in
      linux) echo "Debian's $(basename "$tarball") (linux-source)" ;;
      *) echo "a tar of /usr/include (linux-source not available)" ;;
    esac > "$stage/what"
    [ "$REAL_FILES" -gt 0 ] && echo "first $REAL_FILES files of $(cat "$stage/what")" > "$stage/what"
    rm -rf "$stage/tree"
    mv "$stage" "$cache"
    touch "$cache/done"
  fi
  real_kind=$(cat "$cache/what")
  real_tar=$cache/src.tar
  real_git=$cache/git.tar
  real_files=$(cat "$cache/files")
}

# DIR N: a small C project of N files with a Makefile (make -j builds it; the
# program prints the sum of its functions' results).
gen_project() {
  local dir=$1 n=$2 i
  mkdir -p "$dir/src" "$dir/include"
  cat > "$dir/include/bb.h" <<'H'
#pragma once
#include <stddef.h>
#include <stdint.h>
struct bb_state { uint64_t a, b, c, d; unsigned char buf[256]; };
static inline uint64_t bb_mix(uint64_t x) { x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; return x; }
H
  for ((i = 0; i < n; i++)); do
    cat > "$dir/src/f$i.c" <<C
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bb.h"
static int cmp$i(const void* x, const void* y) { return *(const int*)x - *(const int*)y; }
static uint64_t step$i(struct bb_state* s, uint64_t k) {
  for (int r = 0; r < 8; r++) {
    s->a = bb_mix(s->a + k + r); s->b ^= s->a << (r + 1); s->c += s->b * 31 + $i;
    s->d = (s->d << 7) | (s->c >> 57); s->buf[(s->a + r) & 255] ^= (unsigned char)s->d;
  }
  return s->a ^ s->b ^ s->c ^ s->d;
}
uint64_t f$i(uint64_t seed) {
  struct bb_state s; memset(&s, 0, sizeof s); s.a = seed + $i;
  int v[64]; char text[64];
  for (int j = 0; j < 64; j++) v[j] = (int)(step$i(&s, (uint64_t)j) % 1000);
  qsort(v, 64, sizeof v[0], cmp$i);
  snprintf(text, sizeof text, "%d-%d-%u", v[0], v[63], s.buf[$i % 256]);
  return step$i(&s, strlen(text)) + (uint64_t)v[32];
}
C
  done
  {
    echo '#include <stdio.h>'
    echo '#include <stdint.h>'
    for ((i = 0; i < n; i++)); do echo "uint64_t f$i(uint64_t);"; done
    echo 'int main(void) { uint64_t s = 0;'
    for ((i = 0; i < n; i++)); do echo "  s += f$i(s);"; done
    echo '  printf("%llu\n", (unsigned long long)s); return 0; }'
  } > "$dir/main.c"
  cat > "$dir/Makefile" <<'M'
CFLAGS ?= -O2 -Wall -Iinclude
OBJS := $(patsubst %.c,%.o,$(wildcard src/*.c)) main.o
prog: $(OBJS)
	$(CC) -o $@ $(OBJS)
%.o: %.c include/bb.h
	$(CC) $(CFLAGS) -c -o $@ $<
M
}
# ---- mounts and cleanup ----------------------------------------------------
mounted=()        # mount points, in mount order
peer_pids=()      # mergerfs / bindfs daemons, run in the foreground (-f) by us
tierfs_meta=()    # metadata directories of our tierfs mounts (daemon.lock)
tmpfs_mounted=()  # the tmpfs "devices" of section fast (unmounted after the FUSE mounts on them)
pg_datas=()       # PostgreSQL data directories of clusters we started
strace_pid=""     # the strace of section dbw while it runs
declare -A dir_of pid_of  # configuration -> directory to use, daemon pid ("" for native)
# tierfs mounts: NAME -> ssd volume, -o options, where this mount's lines start
# in its log; section fast: NAME -> its tmpfs, its ssd class; passthrough noted
declare -A tierfs_ssd_of tierfs_opts_of log_mark dev_of ssd_class_of pt_noted
wait_gone() {  # PID SECONDS: wait (bounded) for a process we started to exit
  local i
  for ((i = 0; i < $2 * 10; i++)); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
  return 1
}
pg_stop() {  # DATADIR: stop a cluster we started (fast, then immediate, then by its pid)
  local pid
  [ -f "$1/postmaster.pid" ] || return 0
  pid=$(head -n 1 "$1/postmaster.pid")
  (cd / && timeout 90 runuser -u postgres -- "$(pg_bindir)/pg_ctl" -D "$1" -m fast -w -t 60 stop \
    >/dev/null 2>&1) ||
    (cd / && timeout 40 runuser -u postgres -- "$(pg_bindir)/pg_ctl" -D "$1" -m immediate -w -t 30 \
      stop >/dev/null 2>&1) || true
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    wait_gone "$pid" 30 || kill -KILL "$pid" 2>/dev/null || true
  fi
}
cleanup() {
  local i
  set +e
  if [ -n "$strace_pid" ]; then kill -TERM "$strace_pid" 2>/dev/null; wait_gone "$strace_pid" 10 || kill -KILL "$strace_pid"; fi
  for d in "${pg_datas[@]}"; do pg_stop "$d"; done
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    if mountpoint -q "${mounted[i]}"; then
      timeout 60 fusermount3 -u "${mounted[i]}" 2>/dev/null || fusermount3 -uz "${mounted[i]}" || true
    fi
  done
  # mergerfs 2.42 sometimes stays alive, idle, after its unmount: SIGTERM then.
  for pid in "${peer_pids[@]}"; do
    wait_gone "$pid" 5 || { kill -TERM "$pid" 2>/dev/null; wait_gone "$pid" 10; } || kill -KILL "$pid" 2>/dev/null
  done
  for dir in "${tierfs_meta[@]}"; do flock -w 30 "$dir/.tierfs/daemon.lock" true 2>/dev/null || true; done
  # The daemons' logs outlive the run (whether passthrough was on, and why not).
  for name in "${!tierfs_ssd_of[@]}"; do
    cp "${tierfs_ssd_of[$name]}/.tierfs/tierfs.log" "$out/tierfs-$name.log" 2>/dev/null
  done
  # Last, once no daemon holds files on them; lazily if one still does.
  for ((i = ${#tmpfs_mounted[@]} - 1; i >= 0; i--)); do
    if mountpoint -q "${tmpfs_mounted[i]}"; then
      timeout 60 umount "${tmpfs_mounted[i]}" || umount -l "${tmpfs_mounted[i]}"
    fi
  done
  timeout 1800 rm -rf "$work"
  if [ -n "$uring_was" ]; then echo "$uring_was" > "$uring_param"; fi
}
trap cleanup EXIT
# tierfs -o io_uring serves over io_uring only where the fuse module offers
# it: turn the module's parameter on for the run and back as it was at exit.
uring_param=/sys/module/fuse/parameters/enable_uring uring_was=""
if [[ ",$TIERFS_OPTS," == *,io_uring,* ]]; then
  [ -w "$uring_param" ] || { echo "TIERFS_OPTS=io_uring: $uring_param is missing or not writable" >&2; exit 1; }
  uring_was=$(cat "$uring_param")
  echo 1 > "$uring_param"
fi
trap 'exit 130' INT TERM
if want real; then prepare_real; fi

wait_mounted() {  # MOUNTPOINT
  for _ in $(seq 100); do mountpoint -q "$1" && return 0; sleep 0.05; done
  echo "$1 did not mount" >&2
  return 1
}

# Section fast's "devices": NAME (fast-CONFIG) has a tmpfs of its own at
# NAME/dev, which holds its data (native: the directory itself; tierfs: the ssd
# volume, with the database; mergerfs: both branches; bindfs: the source); its
# mount point and tierfs's hdd volume stay on the disk.
base_of() { echo "${dev_of[$1]:-$work/$1}"; }  # NAME: where its data directories go
mount_tmpfs_dev() {  # NAME: 2 x DATA_SIZE, + 64 MiB for tierfs's database and its reserve
  local dev=$work/$1/dev mib=$(($(bytes "$DATA_SIZE") * 2 / 1048576 + 64))
  mkdir -p "$dev"
  if [ "$FAST_FS" = ext4 ]; then
    # The image in a tmpfs of its own (ext4's metadata and journal on top),
    # unmounted after the ext4 (tmpfs_mounted is unmounted last first).
    local ram=$work/$1/ram
    mkdir -p "$ram"
    tmpfs_mounted+=("$ram")
    mount -t tmpfs -o "size=$((mib * 11 / 10 + 64))m" "tierfs-bench-$1-ram" "$ram"
    truncate -s "$((mib * 11 / 10))M" "$ram/ext4.img"
    mkfs.ext4 -q -F "$ram/ext4.img"
    tmpfs_mounted+=("$dev")
    mount -o loop "$ram/ext4.img" "$dev"
    chmod 755 "$dev"
  else
    tmpfs_mounted+=("$dev")
    mount -t tmpfs -o "size=${mib}m,mode=755" "tierfs-bench-$1" "$dev"
  fi
  dev_of[$1]=$dev
}

mount_native() {  # NAME
  local dir
  dir=$(base_of "$1")
  mkdir -p "$dir"
  dir_of[$1]=$dir
  pid_of[$1]=""
}

# NAME [command prefix...]: mkdstfs NAME/ssd:ssd NAME/hdd:hdd on NAME/mnt, with
# the -o options tierfs_opts_of[NAME] (default TIERFS_OPTS)
mount_tierfs() {
  local name=$1 ssd hdd=$work/$1/hdd mnt=$work/$1/mnt opts=${tierfs_opts_of[$1]-$TIERFS_OPTS}
  shift
  ssd=$(base_of "$name")/ssd
  tierfs_ssd_of[$name]=$ssd
  tierfs_opts_of[$name]=$opts
  log_mark[$name]=0
  mkdir -p "$ssd" "$hdd" "$mnt"
  mounted+=("$mnt")
  tierfs_meta+=("$ssd")
  bounded "$@" "$bin/mkdstfs" ${opts:+-m "$opts"} "$mnt" "$name" "$ssd:ssd" "$hdd:hdd" \
    >/dev/null 2>"$out/mkdstfs-$name.log"
  dir_of[$name]=$mnt
  pid_of[$name]=$(tr -d '\n' < "$ssd/.tierfs/daemon.lock")
}

tierfs_down() {  # NAME: unmount, wait for the daemon's final flush (it holds daemon.lock to its exit)
  timeout 300 fusermount3 -u "$work/$1/mnt"
  flock -w 300 "${tierfs_ssd_of[$1]}/.tierfs/daemon.lock" true
}
tierfs_up() {  # NAME: mount NAME's tierfs again, with its options
  local name=$1 ssd=${tierfs_ssd_of[$1]} opts=${tierfs_opts_of[$1]}
  # Where this mount's lines start in the daemon's log (pt_state reads them).
  log_mark[$name]=$(stat -c %s "$ssd/.tierfs/tierfs.log" 2>/dev/null || echo 0)
  bounded "$bin/tierfs" ${opts:+-o "$opts"} "$ssd" "$work/$name/mnt"
  pid_of[$name]=$(tr -d '\n' < "$ssd/.tierfs/daemon.lock")
}
remount_tierfs() { tierfs_down "$1"; tierfs_up "$1"; }  # NAME

# NAME [BINARY OPTIONS]: Debian's mergerfs with its default options (create
# policy epmfs, cache.files=libfuse), or BINARY with -o OPTIONS
mount_mergerfs() {
  local name=$1 binary=${2:-mergerfs} opts=${3:-} base
  base=$(base_of "$name")
  mkdir -p "$base/a" "$base/b" "$work/$name/mnt"
  # allow_other (as tierfs and bindfs have when mounted by root): the postgres
  # user works in it; a permission option, no cost per request.
  [ $root = 0 ] || opts=${opts:+$opts,}allow_other
  # On a tmpfs (section fast): the default minfreespace, 4 GiB, is more than
  # the tmpfs has, and mergerfs would refuse every create (ENOSPC).
  [ -z "${dev_of[$name]:-}" ] || opts=${opts:+$opts,}minfreespace=1M
  mounted+=("$work/$name/mnt")
  "$binary" -f ${opts:+-o "$opts"} "$base/a:$base/b" "$work/$name/mnt" &
  peer_pids+=("$!")
  pid_of[$name]=$!
  wait_mounted "$work/$name/mnt"
  dir_of[$name]=$work/$name/mnt
}

mount_bindfs() {  # NAME: default options (single-threaded)
  local name=$1 base
  base=$(base_of "$name")
  mkdir -p "$base/src" "$work/$name/mnt"
  mounted+=("$work/$name/mnt")
  bindfs -f "$base/src" "$work/$name/mnt" &
  peer_pids+=("$!")
  pid_of[$name]=$!
  wait_mounted "$work/$name/mnt"
  dir_of[$name]=$work/$name/mnt
}

# NAME: mounts configuration ${NAME#fast-} as NAME; fast-*: over a tmpfs of its
# own, tierfs with a policy that creates every file on its ssd volume (the tmpfs).
mount_config() {
  local name=$1
  if [[ $name == fast-* ]]; then mount_tmpfs_dev "$name"; fi
  case ${name#fast-} in
    native) mount_native "$name" ;;
    # tierfs: the daemon serving every read and write, as the tables have
    # always measured it (the daemon's default, auto, would pass through).
    tierfs) tierfs_opts_of[$name]=${TIERFS_OPTS:+$TIERFS_OPTS,}passthrough=off; mount_tierfs "$name" ;;
    tierfs-pt) tierfs_opts_of[$name]=${TIERFS_OPTS:+$TIERFS_OPTS,}passthrough=rw; mount_tierfs "$name" ;;
    tierfs-ptro) tierfs_opts_of[$name]=${TIERFS_OPTS:+$TIERFS_OPTS,}passthrough=ro; mount_tierfs "$name" ;;
    mergerfs) mount_mergerfs "$name" ;;
    # passthrough.io needs cache.files on (not off or per-process: the kernel's
    # direct I/O wins over passthrough).
    mergerfs-pt) mount_mergerfs "$name" "$mergerfs_pt" cache.files=auto-full,passthrough.io=rw ;;
    bindfs) mount_bindfs "$name" ;;
  esac
  if [[ $name == fast-tierfs* ]]; then
    # vol1 is the ssd volume; its class is "ssd" or "ssdmetadata" by version.
    ssd_class_of[$name]=$("$bin/fsppadm" status "${dir_of[$name]}" | awk '$1 == "vol1" { print $2; exit }')
    cat > "$out/fast_on_ssd-$name.xml" <<XML
<?xml version="1.0"?>
<!-- bench/run.sh, section fast: every file is created on the ssd class (the
     tmpfs); no second class, so a full tmpfs fails the write, never moves it. -->
<PLACEMENT_POLICY Version="5.1" Name="bench_fast_on_ssd">
  <RULE Flags="data" Name="all_files">
    <SELECT><PATTERN> * </PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS> ${ssd_class_of[$name]} </CLASS></DESTINATION></ON></CREATE>
  </RULE>
</PLACEMENT_POLICY>
XML
    "$bin/fsppadm" assign "${dir_of[$name]}" "$out/fast_on_ssd-$name.xml" >/dev/null
  fi
}

# tierfs-pt and tierfs-ptro are mounted only for their own turn in a round:
# the BPF program that counts their passthrough I/O for heat may hook every
# system call of the machine (docs/design.md, "Passthrough I/O"), which would
# tax the other configurations' measurements too.
transient() { [[ ${1#fast-} == tierfs-pt* ]]; }  # NAME

# NAME: "on" when the kernel serves NAME's opens by passthrough, else why not.
# tierfs logs at each mount whether it asked for passthrough in INIT, and later
# if it had to turn it off; mergerfs shows its setting, which it turns off at
# INIT when the kernel lacks passthrough, as an xattr of its control file.
pt_state() {
  local name=$1 lines why v
  case ${name#fast-} in
    tierfs-pt*)
      stat "${dir_of[$name]}/." > /dev/null  # a request, answered after INIT
      lines=$(tail -c +"$((log_mark[$name] + 1))" "${tierfs_ssd_of[$name]}/.tierfs/tierfs.log" \
        | grep passthrough || true)
      why=$(grep -E 'passthrough(=[a-z]+)?: (off|not asked)|stacked file system' <<<"$lines" \
        | head -n 1 || true)
      if [ -n "$why" ]; then echo "tierfs.log: $why"
      elif grep -q 'asked for in INIT' <<<"$lines"; then echo on
      else echo "tierfs.log says nothing of passthrough"; fi ;;
    mergerfs-pt)
      v=$(getfattr --only-values -n user.mergerfs.passthrough.io "${dir_of[$name]}/.mergerfs" \
        2>/dev/null || true)
      if [ "$v" = rw ]; then echo on; else echo "user.mergerfs.passthrough.io is '${v:-unreadable}'"; fi ;;
    *) echo "no passthrough" ;;
  esac
}
# NAME: after its measurements, records check (fast_)passthrough_on 1 or 0 and
# says in the run's log when it is off: then its numbers are not passthrough's.
pt_check() {
  local name=$1 state hook metric=passthrough_on
  [[ ${name#fast-} == *-pt* ]] || return 0
  [[ $name != fast-* ]] || metric=fast_passthrough_on
  state=$(pt_state "$name")
  printf 'check\t%s\t%s\n' "$metric" "$([ "$state" = on ] && echo 1 || echo 0)" | record "${name#fast-}"
  if [ "$state" != on ]; then
    log "WARNING: $name: passthrough is OFF, these are not passthrough numbers ($state)"
  elif [ -z "${pt_noted[$name]:-}" ]; then
    pt_noted[$name]=1
    hook=""
    [[ ${name#fast-} != tierfs-pt* ]] || hook=$(grep -o 'counted for heat by BPF ([^)]*)' \
      "${tierfs_ssd_of[$name]}/.tierfs/tierfs.log" | tail -n 1 || true)
    log "$name: passthrough on${hook:+ (its I/O $hook)}"
  fi
}

drop_caches() { sync; [ $root = 0 ] || echo 3 > /proc/sys/vm/drop_caches; }

# ---- 2. per-configuration benchmarks, in interleaved rounds -------------------
clk_tck=$(getconf CLK_TCK)
daemon_ticks() {  # PID: CPU ticks (user + system) it has used; 0 without a daemon
  if [ -n "$1" ]; then awk '{ print $14 + $15 }' "/proc/$1/stat"; else echo 0; fi
}
# PID: waits (at most 60 s) until the daemon's CPU time stops moving for a
# second, so that work it defers (the reclaim of objects that a metadata run
# unlinked: thousands of unlink(2)s for seconds afterwards) does not fall into
# the next measurement and its daemon CPU per operation.
settle() {
  [ -n "$1" ] || return 0
  local before after i
  after=$(daemon_ticks "$1")
  for ((i = 0; i < 60; i++)); do
    before=$after
    sleep 1
    after=$(daemon_ticks "$1")
    [ "$after" = "$before" ] && return 0
  done
  log "daemon $1 still busy after 60 s; measuring anyway"
}
now() { date +%s.%N; }
elapsed() { awk -v s="$1" -v e="$(now)" 'BEGIN { printf "%.4f", e - s }'; }
bytes() { numfmt --from=iec "$1"; }
kilo() { [ $(($1 % 1000)) = 0 ] && echo "$(($1 / 1000))k" || echo "$1"; }  # 20000 -> 20k

# CONFIG TAG FILES THREADS: metadata_bench on a fresh directory; its groups
# (metadata, daemon_cpu, memory) get the suffix _TAG.
meta_run() {
  local cfg=$1 tag=$2 files=$3 threads=$4 dir=${dir_of[$1]} pid=${pid_of[$1]} args
  args=(--dir "$dir/meta" --files "$files" --threads "$threads")
  [ -n "$pid" ] && args+=(--pid "$pid")
  [ $root = 1 ] && args+=(--drop_caches)
  mkdir "$dir/meta"
  sync  # let earlier deletes (and the discards of this VM's disk) settle first
  settle "$pid"
  bounded "$mb" "${args[@]}" | sed -E "s/^(metadata|daemon_cpu|memory)\t/\1_$tag\t/" | record "$cfg"
  rmdir "$dir/meta"
  sync
}

# CONFIG NAME FIO-ARGS...: one fio job (all its jobs reported as a group) on
# the configuration's fio.dat. Records NAME_mb_s (seq*) or NAME_iops and
# NAME_p99_us (completion latency, rand*) and, for a FUSE daemon, the daemon's
# CPU time per I/O; in groups data and daemon_cpu, or for fast-CONFIG (section
# fast) fast and daemon_cpu_fast, under CONFIG.
fio_job() {
  local cfg=$1 name=$2 pid=${pid_of[$1]} t0 t1 json group=data cpu_group=daemon_cpu
  if [[ $cfg == fast-* ]]; then group=fast cpu_group=daemon_cpu_fast; fi
  shift 2
  json=$out/fio-$cfg-$name-r$round.json
  t0=$(daemon_ticks "$pid")
  bounded fio --name="$name" --filename="${dir_of[$cfg]}/fio.dat" --ioengine=psync --fallocate=none \
    --group_reporting --output-format=json "$@" > "$json"
  t1=$(daemon_ticks "$pid")
  jq -r --arg n "$name" --argjson cpu "$((t1 - t0))" --argjson hz "$clk_tck" \
    --arg g "$group" --arg cg "$cpu_group" \
    --argjson daemon "$([ -n "$pid" ] && echo true || echo false)" '
    .jobs[0] as $j | ($j | if .read.total_ios > 0 then .read else .write end) as $s |
    if ($n | startswith("seq")) then "\($g)\t\($n)_mb_s\t\($s.bw_bytes / 1e6)"
    else "\($g)\t\($n)_iops\t\($s.iops)", "\($g)\t\($n)_p99_us\t\($s.clat_ns.percentile["99.000000"] / 1e3)"
    end,
    if $daemon then "\($cg)\t\($n)_us_per_io\t\($cpu / $hz * 1e6 /
                     ([$j.read.total_ios + $j.write.total_ios, 1] | max))" else empty end' \
    "$json" | record "${cfg#fast-}"
}

fio_all() {  # CONFIG
  local cfg=$1 dir=${dir_of[$1]} rio rwio
  settle "${pid_of[$cfg]}"
  rio=$(bytes "$RAND_IO")
  rwio=$(bytes "$RANDW_IO")
  fio_job "$cfg" seqwrite --rw=write --bs=1M --size="$DATA_SIZE" --end_fsync=1
  drop_caches
  fio_job "$cfg" seqread --rw=read --bs=1M --size="$DATA_SIZE"
  # The file is in the page cache now (for tierfs kept across opens: keep_cache).
  fio_job "$cfg" randread_warm --rw=randread --bs=4k --size="$DATA_SIZE" --invalidate=0 \
    --runtime="$RAND_SECONDS" --time_based --norandommap --randrepeat=1
  # Cold: a fixed amount (RAND_IO over all jobs) of random reads, so that nearly
  # every read misses the cache (a time-based run ends up served from memory).
  drop_caches
  fio_job "$cfg" randread_cold --rw=randread --bs=4k --size="$DATA_SIZE" --io_size="$rio" \
    --norandommap --randrepeat=1
  drop_caches
  fio_job "$cfg" randread_cold_4j --rw=randread --bs=4k --size="$DATA_SIZE" \
    --io_size="$((rio / 4))" --numjobs=4 --norandommap --randrepeat=1
  # Random overwrites of the file, a fixed amount (RANDW_IO over all jobs),
  # each job fsyncs at its end (counted in its run time).
  fio_job "$cfg" randwrite --rw=randwrite --bs=4k --size="$DATA_SIZE" --io_size="$rwio" \
    --end_fsync=1 --norandommap --randrepeat=1
  fio_job "$cfg" randwrite_4j --rw=randwrite --bs=4k --size="$DATA_SIZE" \
    --io_size="$((rwio / 4))" --numjobs=4 --end_fsync=1 --norandommap --randrepeat=1
  rm -f "$dir/fio.dat"
}

# fast-CONFIG: section fast's fio jobs on the configuration over its tmpfs.
# Before each read job the page cache is dropped: a FUSE mount without
# passthrough serves from its own cached pages; the tmpfs keeps its pages (it
# is the device). The random I/O is a fixed amount, as in fio_all.
fast_all() {
  local name=$1 dir=${dir_of[$1]} rio rwio cls
  settle "${pid_of[$name]}"
  rio=$(bytes "$FAST_RAND_IO")
  rwio=$(bytes "$FAST_RANDW_IO")
  fio_job "$name" seqwrite --rw=write --bs=1M --size="$DATA_SIZE" --end_fsync=1
  drop_caches
  fio_job "$name" seqread --rw=read --bs=1M --size="$DATA_SIZE"
  drop_caches
  fio_job "$name" randread_cold --rw=randread --bs=4k --size="$DATA_SIZE" --io_size="$rio" \
    --norandommap --randrepeat=1
  drop_caches
  fio_job "$name" randread_cold_4j --rw=randread --bs=4k --size="$DATA_SIZE" \
    --io_size="$((rio / 4))" --numjobs=4 --norandommap --randrepeat=1
  fio_job "$name" randwrite --rw=randwrite --bs=4k --size="$DATA_SIZE" --io_size="$rwio" \
    --end_fsync=1 --norandommap --randrepeat=1
  if [[ $name == fast-tierfs* ]]; then
    # The file must have stayed on the ssd class (the tmpfs) all along: a
    # relocation never moves it back there unasked.
    cls=$("$bin/fsmap" "$dir/fio.dat" | awk 'NR > 1 { print $2 }')
    printf 'check\tfast_fio_on_ssd\t%s\n' "$([ "$cls" = "${ssd_class_of[$name]}" ] && echo 1 || echo 0)" \
      | record "${name#fast-}"
    [ "$cls" = "${ssd_class_of[$name]}" ] ||
      log "WARNING: $name: fio.dat is on class '$cls', not on the tmpfs (${ssd_class_of[$name]})"
  fi
  rm -f "$dir/fio.dat"
}

# CONFIG LABEL COMMAND...: run a step of the real work, bounded; records its
# wall time (real LABEL_s) and the daemon's CPU time (daemon_cpu_real LABEL_cpu_s).
timed() {
  local cfg=$1 label=$2 pid=${pid_of[$1]} t0 c0 c1
  shift 2
  c0=$(daemon_ticks "$pid")
  t0=$(now)
  bounded "$@"
  printf 'real\t%s_s\t%s\n' "$label" "$(elapsed "$t0")" | record "$cfg"
  c1=$(daemon_ticks "$pid")
  [ -z "$pid" ] || awk -v l="$label" -v c=$((c1 - c0)) -v hz="$clk_tck" \
    'BEGIN { printf "daemon_cpu_real\t%s_cpu_s\t%.3f\n", l, c / hz }' | record "$cfg"
}

real_all() {  # CONFIG: untar, warm grep -r, git status, make, rm -rf
  local cfg=$1 dir=${dir_of[$1]}/real tree dirty
  tree=$dir/tree
  mkdir "$dir"
  settle "${pid_of[$cfg]}"
  drop_caches
  timed "$cfg" untar sh -c 'tar -xf "$1" -C "$2" && sync' sh "$real_tar" "$dir"
  # Into a pipe, not /dev/null: GNU grep stops reading a file at its first
  # match when its output is /dev/null.
  timed "$cfg" grep_r_warm sh -c 'cd "$1" && grep -r define . | wc -l > "$2"' sh "$tree" \
    "$out/grep-lines-$cfg-r$round.txt"
  printf 'check\treal_grep_lines\t%s\n' "$(cat "$out/grep-lines-$cfg-r$round.txt")" | record "$cfg"
  # Untimed: the .git committed natively, and the index refreshed against this copy.
  bounded tar -xf "$real_git" -C "$dir"
  bounded git -C "$tree" update-index -q --refresh > /dev/null || true
  timed "$cfg" git_status sh -c 'git -C "$1" status --porcelain > "$2"' sh "$tree" \
    "$out/git-status-$cfg-r$round.txt"
  dirty=$(wc -l < "$out/git-status-$cfg-r$round.txt")
  [ "$dirty" = 0 ] || echo "warning: git status on $cfg lists $dirty changed files" >&2
  printf 'check\treal_git_dirty_files\t%s\n' "$dirty" | record "$cfg"
  timed "$cfg" build make -C "$tree/tierfs-bench-build" -s -j"$(nproc)"
  printf 'check\treal_build_output\t%s\n' "$("$tree/tierfs-bench-build/prog" | cut -c1-12)" \
    | record "$cfg"
  timed "$cfg" rm_rf sh -c 'rm -rf "$1" && sync' sh "$tree"
  rmdir "$dir"
}

# CONFIG: a private PostgreSQL cluster in the directory: initdb, pgbench -i
# (untimed), pgbench -T PG_SECONDS (TPC-B-like), stop, remove.
pg_all() {
  local cfg=$1 data=${dir_of[$1]}/pg/data pid=${pid_of[$1]} sock=$work/pgsock pgbin t0 t1 log
  pgbin=$(pg_bindir)
  log=$out/pgbench-$cfg-r$round.txt
  mkdir -p "${dir_of[$cfg]}/pg" "$sock" "$out/pglog"
  chown postgres: "${dir_of[$cfg]}/pg" "$sock" "$out/pglog"
  chmod 700 "${dir_of[$cfg]}/pg"
  pg_datas+=("$data")
  (cd / && bounded runuser -u postgres -- "$pgbin/initdb" -D "$data" -A trust -U postgres --no-sync \
    > "$out/pglog/initdb-$cfg-r$round.log")
  (cd / && bounded runuser -u postgres -- "$pgbin/pg_ctl" -D "$data" -w -t 120 \
    -l "$out/pglog/postgres-$cfg-r$round.log" \
    -o "-k $sock -p $PG_PORT -c listen_addresses='' -c shared_buffers=128MB -c max_wal_size=1GB${PG_WAL_SYNC:+ -c wal_sync_method=$PG_WAL_SYNC}" \
    start > /dev/null)
  bounded "$pgbin/pgbench" -h "$sock" -p "$PG_PORT" -U postgres -i -q -s "$PG_SCALE" postgres \
    > "$out/pglog/init-$cfg-r$round.log" 2>&1
  settle "$pid"
  t0=$(daemon_ticks "$pid")
  bounded "$pgbin/pgbench" -h "$sock" -p "$PG_PORT" -U postgres -c "$PG_CLIENTS" -j 2 \
    -T "$PG_SECONDS" postgres > "$log" 2>&1
  t1=$(daemon_ticks "$pid")
  awk -F' = ' -v cpu=$((t1 - t0)) -v hz="$clk_tck" -v daemon="$([ -n "$pid" ] && echo 1 || echo 0)" '
    /^number of transactions actually processed:/ { split($0, a, ": "); n = a[2] + 0 }
    /^tps = / { split($2, a, " "); tps = a[1] }
    /^latency average = / { split($2, a, " "); lat = a[1] }
    END {
      if (tps == "") exit 1
      printf "pgbench\ttps\t%s\npgbench\tlatency_avg_ms\t%s\n", tps, lat
      if (daemon) printf "daemon_cpu_pg\tus_per_txn\t%.1f\n", cpu / hz * 1e6 / (n > 0 ? n : 1)
    }' "$log" | record "$cfg"
  pg_stop "$data"
  rm -rf "${dir_of[$cfg]}/pg"
}

disk=0  # any of the sections on the disk
for section in meta fio real pg; do if want $section; then disk=1; fi; done
if [ $disk = 1 ]; then
  for cfg in $CONFIGS; do
    mount_config "$cfg"
    if transient "$cfg"; then tierfs_down "$cfg"; fi
  done
fi
if want fast; then
  for cfg in $FAST_CONFIGS; do
    mount_config "fast-$cfg"
    if transient "fast-$cfg"; then tierfs_down "fast-$cfg"; fi
  done
fi
for round in $(seq "$ROUNDS"); do
  for cfg in $([ $disk = 0 ] || echo "$CONFIGS"); do
    if transient "$cfg"; then tierfs_up "$cfg"; fi
    if want meta; then
      for files in $META_FILES $META_FILES_BIG; do
        for threads in $META_THREADS; do
          log "round $round/$ROUNDS, $cfg: metadata_bench ($files files, $threads threads)"
          meta_run "$cfg" "$(kilo "$files")_t$threads" "$files" "$threads"
        done
      done
    fi
    if want fio; then
      log "round $round/$ROUNDS, $cfg: fio ($DATA_SIZE file)"
      fio_all "$cfg"
    fi
    if want real; then
      log "round $round/$ROUNDS, $cfg: real work on $real_kind ($real_files files)"
      real_all "$cfg"
    fi
    if want pg && [[ " $PG_CONFIGS " == *" $cfg "* ]]; then
      log "round $round/$ROUNDS, $cfg: pgbench (scale $PG_SCALE, $PG_CLIENTS clients, $PG_SECONDS s)"
      pg_all "$cfg"
    fi
    pt_check "$cfg"
    if transient "$cfg"; then
      printf 'memory\tvmhwm_kib_end\t%s\n' "$(awk '/^VmHWM/ {print $2}' "/proc/${pid_of[$cfg]}/status")" \
        | record "$cfg"
      tierfs_down "$cfg"
    fi
  done
  for cfg in $(! want fast || echo "$FAST_CONFIGS"); do
    if transient "fast-$cfg"; then tierfs_up "fast-$cfg"; fi
    log "round $round/$ROUNDS, fast-$cfg: fio on a tmpfs ($DATA_SIZE file)"
    fast_all "fast-$cfg"
    pt_check "fast-$cfg"
    if transient "fast-$cfg"; then tierfs_down "fast-$cfg"; fi
  done
done
for cfg in $([ $disk = 0 ] || echo "$CONFIGS"); do
  if [ -z "${pid_of[$cfg]}" ] || transient "$cfg"; then continue; fi  # (transient: at each round)
  printf 'memory\tvmhwm_kib_end\t%s\n' "$(awk '/^VmHWM/ {print $2}' "/proc/${pid_of[$cfg]}/status")" \
    | record "$cfg"
done
[ -z "$real_kind" ] || printf 'real work tree: %s, %s files\n' "$real_kind" "$real_files" > "$out/real-tree.txt"

# ---- 3. database writes per operation (tierfs, under strace) -----------------
# strace counts the daemon's pwrite64/pwritev calls on meta.db-wal (the WAL:
# a frame header and a page per page written) and on meta.db (checkpoints).
# The daemon writes counters and dirty inodes back periodically (every 5 s:
# tierfs --writeback_seconds), so each window opens DBW_SETTLE seconds after
# the previous work (its deferred writes are not counted) and closes with a
# syncfs of the mount (which a batching daemon must honour) and DBW_SETTLE
# seconds after the workload (its deferred writes are counted).
DBW_SETTLE=${DBW_SETTLE:-6}
trace_start() {  # PID FILE
  sync
  sleep "$DBW_SETTLE"
  strace -f -qq -y -s 0 -e trace=pwrite64,pwritev,pwritev2 -o "$2" -p "$1" 2>/dev/null &
  strace_pid=$!
  local i
  for ((i = 0; i < 100; i++)); do  # attached once the daemon's tasks show a tracer
    if awk '/^TracerPid:/ && $2 != 0 { f = 1 } END { exit !f }' "/proc/$1/status" 2>/dev/null; then
      sleep 0.3; return 0
    fi
    sleep 0.1
  done
  echo "strace did not attach" >&2
  return 1
}
trace_stop() {  # MOUNTPOINT
  timeout 120 sync -f "$1" || true
  sleep "$DBW_SETTLE"
  kill -TERM "$strace_pid"  # (SIGINT is ignored by a script's background jobs)
  wait_gone "$strace_pid" 30 || kill -KILL "$strace_pid"
  wait "$strace_pid" 2>/dev/null || true
  strace_pid=""
}
trace_count() {  # FILE LABEL OPS: records LABEL_{wal_pwrites,wal_pages,db_pwrites}_per_op
  awk -v l="$2" -v ops="$3" '
    /meta\.db-wal>/ { w++; if (match($0, /= [0-9]+$/) && substr($0, RSTART + 2) + 0 >= 1024) p++; next }
    /meta\.db>/ { d++ }
    END { printf "dbwrites\t%s_wal_pwrites_per_op\t%.3f\ndbwrites\t%s_wal_pages_per_op\t%.3f\n", l, w / ops, l, p / ops
          printf "dbwrites\t%s_db_pwrites_per_op\t%.3f\n", l, d / ops }' "$1" | record tierfs
}
if want dbw && [[ " $CONFIGS " == *" tierfs "* ]]; then
  # A fresh file system: on the rounds' one, background work left by earlier
  # phases (reclaims of removed trees, counter flushes) lands in the windows.
  mount_tierfs dbw
  mnt=${dir_of[dbw]}
  pid=${pid_of[dbw]}
  if want real; then
    log "dbw: tierfs database writes during a cold and a warm grep -r ($real_files files)"
    mkdir "$mnt/dbw"
    bounded tar -xf "$real_tar" -C "$mnt/dbw"
    drop_caches
    trace_start "$pid" "$out/strace-grep-cold.txt"
    bounded grep -r define "$mnt/dbw" | wc -l > /dev/null
    trace_stop "$mnt"
    trace_count "$out/strace-grep-cold.txt" grep_cold "$real_files"
    trace_start "$pid" "$out/strace-grep-warm.txt"
    bounded grep -r define "$mnt/dbw" | wc -l > /dev/null
    trace_stop "$mnt"
    trace_count "$out/strace-grep-warm.txt" grep_warm "$real_files"
    bounded rm -rf "$mnt/dbw"
  fi
  log "dbw: tierfs database writes during $DBW_FILES creates (1 KiB)"
  mkdir "$mnt/dbw"
  trace_start "$pid" "$out/strace-create.txt"
  bounded "$mb" --dir "$mnt/dbw" --files "$DBW_FILES" --phases create > /dev/null
  trace_stop "$mnt"
  trace_count "$out/strace-create.txt" create "$DBW_FILES"
  trace_start "$pid" "$out/strace-stat-cold.txt"
  drop_caches
  bounded find "$mnt/dbw" -type f -exec stat --format=%s {} + > /dev/null
  trace_stop "$mnt"
  trace_count "$out/strace-stat-cold.txt" stat_cold "$DBW_FILES"
  bounded rm -rf "$mnt/dbw"
fi

# ---- 4. daemon memory at MEM_FILES files --------------------------------------
# Fresh daemons. tierfs: files created through the mount (metadata_bench, 4
# threads, 1000 directories), remounted, caches dropped, a find over all of
# them. mergerfs and bindfs: the files created natively in their backing
# directory (what they hold costs them nothing until looked up), then the same find.
if want mem && [ "$MEM_FILES" -gt 0 ]; then
  rss_of() { awk -v f="$2" '$1 == f ":" { print $2 }' "/proc/$1/status"; }
  mem_dirs=$((MEM_FILES >= 100000 ? 1000 : 100))
  for cfg in tierfs mergerfs bindfs; do
    [[ " $CONFIGS " == *" $cfg "* ]] || continue
    log "mem: $cfg daemon memory at $MEM_FILES files"
    "mount_$cfg" "mem_$cfg"
    mnt=${dir_of[mem_$cfg]}
    case $cfg in
      tierfs) bounded "$mb" --dir "$mnt" --files "$MEM_FILES" --dirs "$mem_dirs" --threads 4 \
                --size 0 --phases create > /dev/null
              printf 'memory\tmem_vmrss_kib_after_create\t%s\n' "$(rss_of "${pid_of[mem_$cfg]}" VmRSS)" \
                | record "$cfg"
              remount_tierfs "mem_$cfg" ;;
      mergerfs) bounded "$mb" --dir "$work/mem_$cfg/a" --files "$MEM_FILES" --dirs "$mem_dirs" \
                  --threads 4 --size 0 --phases create > /dev/null ;;
      bindfs) bounded "$mb" --dir "$work/mem_$cfg/src" --files "$MEM_FILES" --dirs "$mem_dirs" \
                --threads 4 --size 0 --phases create > /dev/null ;;
    esac
    drop_caches
    pid=${pid_of[mem_$cfg]}
    printf 'memory\tmem_vmrss_kib_mounted\t%s\n' "$(rss_of "$pid" VmRSS)" | record "$cfg"
    t0=$(now)
    found=$(bounded find "$mnt" -type f | wc -l)
    printf 'memory\tmem_find_s\t%s\nmemory\tmem_files_found\t%s\n' "$(elapsed "$t0")" "$found" \
      | record "$cfg"
    printf 'memory\tmem_vmrss_kib_after_find\t%s\nmemory\tmem_vmhwm_kib\t%s\n' \
      "$(rss_of "$pid" VmRSS)" "$(rss_of "$pid" VmHWM)" | record "$cfg"
    timeout 300 fusermount3 -u "$mnt" || true  # the trap removes the files with $work
  done
fi

# ---- 5. the policy engine alone ---------------------------------------------
if want policy; then
log "policy_bench: PlanScan over $POLICY_FILES synthetic files (read-intensive template)"
bounded "$pb" --policy "$top/tests/policy/data/ssd_read_intensive_template.xml" --files "$POLICY_FILES" \
  | record engine
fi

# ---- 6. real scans and the tiering effect -----------------------------------
if want scan; then
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
fi
printf 'env\tloadavg_end\t%s\n' "$(cut -d' ' -f1 /proc/loadavg)" | record env

# ---- 7. tables, CSV/JSON, plot ------------------------------------------------
log "results (median of $ROUNDS rounds; raw: $results)"
all_configs=$(for c in $known_configs; do if has_config "$c"; then echo "$c"; fi; done | xargs)
"$py" "$top/bench/summarize.py" --results "$results" --configs "$all_configs" --out "$out" \
  --plot "$PLOT" --note "$(cat "$out/real-tree.txt" 2>/dev/null || true)" \
  --title "tierfs bench/run.sh $(date +%F), $(nproc) cores, ROUNDS=$ROUNDS$([ -n "$TIERFS_OPTS" ] && echo ", tierfs -o $TIERFS_OPTS")$([ "$QUICK" = 1 ] && echo ', QUICK (plumbing only)')"
echo
echo "raw results: $out (results.tsv, summary.csv, summary.json); plot: $PLOT"
