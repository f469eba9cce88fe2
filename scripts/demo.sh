#!/usr/bin/env bash
# The tierfs demonstration: two demo volumes, a real tree of files, a real read
# workload over a small part of it, the paper's IOTEMP policy, `fsppadm enforce`,
# and proof with fsmap and checksums that hot files moved to ssd and nothing changed.
#
#   scripts/demo.sh [--keep]     (--keep leaves the file system mounted)
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
keep=0
[ "${1:-}" = "--keep" ] && keep=1

bash scripts/install-deps.sh
bash scripts/build.sh
bin=$top/build/cli
demo=${DEMO_DIR:-$top/demo}
source_tree=${DEMO_SOURCE:-/usr/include}

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

# A previous run may have left its mount: only ours, found by its path.
if grep -q " $demo/mnt fuse.tierfs" /proc/mounts; then fusermount3 -u "$demo/mnt"; sleep 1; fi
rm -rf "$demo"
mkdir -p "$demo/ssd" "$demo/hdd" "$demo/mnt"
cleanup() { [ $keep -eq 1 ] || ! grep -q " $demo/mnt fuse.tierfs" /proc/mounts || fusermount3 -u "$demo/mnt"; }
trap cleanup EXIT

step "mkdstfs: two volumes (classes given: on one disk both look alike to discovery)"
"$bin/mkdstfs" -v "$demo/mnt" demo "$demo/ssd:ssd" "$demo/hdd:hdd"

step "copy a real tree into the mount: $source_tree ($(du -sh "$source_tree" | cut -f1))"
time cp -a "$source_tree" "$demo/mnt/tree"
files=$(find "$demo/mnt/tree" -type f | wc -l)
echo "$files files copied; the default policy (IOTEMP_Policy) placed them on hdd"

step "remount (a fresh page cache, as on the next working day)"
fusermount3 -u "$demo/mnt"
for _ in $(seq 100); do flock -n "$demo/ssd/.tierfs/daemon.lock" true && break; sleep 0.1; done
"$bin/tierfs" "$demo/ssd" "$demo/mnt"

step "workload: grep reads the headers of the libraries tierfs uses, three times"
hot_dirs=()
for d in fuse3 libxml2 gflags; do [ -d "$demo/mnt/tree/$d" ] && hot_dirs+=("$demo/mnt/tree/$d"); done
[ ${#hot_dirs[@]} -gt 0 ] || hot_dirs=("$(find "$demo/mnt/tree" -mindepth 1 -maxdepth 1 -type d | sort | head -1)")
for _ in 1 2 3; do grep -r -c -i "struct" "${hot_dirs[@]}" >/dev/null || true; done
hot_files=$(find "${hot_dirs[@]}" -type f | wc -l)
echo "read $hot_files files under: ${hot_dirs[*]#$demo/mnt/}"

step "fsppadm assign: docs/examples/hot_reads.xml"
"$bin/fsppadm" assign "$demo/mnt" docs/examples/hot_reads.xml

step "fsppadm analyze (what enforce would do; moves nothing)"
"$bin/fsppadm" analyze "$demo/mnt" > "$demo/analyze.txt"
head -n 4 "$demo/analyze.txt"; echo "   ..."; tail -n 12 "$demo/analyze.txt"

step "fsppadm enforce"
"$bin/fsppadm" enforce "$demo/mnt" | tail -n 12

step "fsmap: where the files are now"
find "$demo/mnt/tree" -type f -print0 | xargs -0 "$bin/fsmap" > "$demo/fsmap.txt"
echo "files per class:"; awk '$2 != "CLASS" {print $2}' "$demo/fsmap.txt" | sort | uniq -c
echo "a few of the hot files:"; grep -E "/($(IFS='|'; echo "${hot_dirs[*]##*/}"))/" "$demo/fsmap.txt" | head -5
on_ssd=$(awk '$2=="ssd"' "$demo/fsmap.txt" | wc -l)
hot_on_ssd=$(grep -E "/($(IFS='|'; echo "${hot_dirs[*]##*/}"))/" "$demo/fsmap.txt" | awk '$2=="ssd"' | wc -l)
echo "on ssd: $on_ssd files, of which $hot_on_ssd from the workload's $hot_files"

step "every file reads back identical to its source (sha256)"
(cd "$source_tree" && find . -type f -print0 | sort -z | xargs -0 sha256sum) > "$demo/source.sha256"
(cd "$demo/mnt/tree" && sha256sum --quiet -c "$demo/source.sha256") && echo "all $files files identical"
[ "$hot_on_ssd" -eq "$hot_files" ] && [ "$on_ssd" -eq "$hot_on_ssd" ] || { echo "demo FAILED: unexpected placement"; exit 1; }
echo; echo "demo OK"
