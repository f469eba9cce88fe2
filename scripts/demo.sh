#!/usr/bin/env bash
# The tierfs demonstration: two demo volumes, a real tree of files, a real read
# workload over a small part of it, the paper's IOTEMP policy, `fsppadm enforce`,
# and proof with fsmap and checksums that hot files moved to ssd and nothing changed.
#
#   scripts/demo.sh [--keep] [--store]
#     --keep   leaves the file system mounted
#     --store  then also starts a throw-away single-node Ceph cluster (the tests'
#              tests/ceph/ceph_cluster.sh), adds a bucket of its RADOS Gateway as
#              the object class "cloud", moves a tree the workload never read
#              there (docs/examples/cold_tree_to_store.xml) and reads it back
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
keep=0
store=0
for arg in "$@"; do
  case $arg in
    --keep) keep=1 ;;
    --store) store=1 ;;
    *) echo "demo.sh: unknown option $arg (--keep, --store)" >&2; exit 2 ;;
  esac
done

bash scripts/install-deps.sh
bash scripts/build.sh
bin=$top/build/cli
demo=${DEMO_DIR:-$top/demo}
source_tree=${DEMO_SOURCE:-/usr/include}

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

# A previous run may have left its mount: only ours, found by its path.
if grep -q " $demo/mnt fuse.tierfs" /proc/mounts; then fusermount3 -u "$demo/mnt"; sleep 1; fi
# And its cluster (--store --keep).
[ ! -d "$demo/ceph" ] || bash tests/ceph/ceph_cluster.sh stop "$demo/ceph"
rm -rf "$demo"
mkdir -p "$demo/ssd" "$demo/hdd" "$demo/mnt"
cleanup() {
  [ $keep -eq 1 ] || ! grep -q " $demo/mnt fuse.tierfs" /proc/mounts || fusermount3 -u "$demo/mnt"
  # The cluster goes with the mount (--keep keeps both).
  [ $keep -eq 1 ] || [ ! -d "$demo/ceph" ] || bash tests/ceph/ceph_cluster.sh stop "$demo/ceph"
}
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
# The volumes' page cache too: heat counts the bytes that reach a volume, and
# with passthrough (the default where the kernel allows it) the kernel reads
# the objects themselves, so pages the copy left cached would earn none.
sync
python3 - "$demo/ssd" "$demo/hdd" <<'PY'
import os, sys
for top in sys.argv[1:]:
    for folder, _, names in os.walk(top):
        for name in names:
            try:
                fd = os.open(os.path.join(folder, name), os.O_RDONLY)
            except OSError:
                continue
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)
PY
"$bin/tierfs" "$demo/ssd" "$demo/mnt"

step "workload: grep reads the headers of the libraries tierfs uses, three times"
hot_dirs=()
for d in fuse3 libxml2 gflags; do [ -d "$demo/mnt/tree/$d" ] && hot_dirs+=("$demo/mnt/tree/$d"); done
[ ${#hot_dirs[@]} -gt 0 ] || hot_dirs=("$(find "$demo/mnt/tree" -mindepth 1 -maxdepth 1 -type d | sort | sed -n 1p)")
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
echo "a few of the hot files:"; grep -E "/($(IFS='|'; echo "${hot_dirs[*]##*/}"))/" "$demo/fsmap.txt" | sed -n 1,5p  # all read: no SIGPIPE under pipefail
on_ssd=$(awk '$2=="ssd"' "$demo/fsmap.txt" | wc -l)
hot_on_ssd=$(grep -E "/($(IFS='|'; echo "${hot_dirs[*]##*/}"))/" "$demo/fsmap.txt" | awk '$2=="ssd"' | wc -l)
echo "on ssd: $on_ssd files, of which $hot_on_ssd from the workload's $hot_files"

step "every file reads back identical to its source (sha256)"
(cd "$source_tree" && find . -type f -print0 | sort -z | xargs -0 sha256sum) > "$demo/source.sha256"
(cd "$demo/mnt/tree" && sha256sum --quiet -c "$demo/source.sha256") && echo "all $files files identical"
[ "$hot_on_ssd" -eq "$hot_files" ] && [ "$on_ssd" -eq "$hot_on_ssd" ] || { echo "demo FAILED: unexpected placement"; exit 1; }

if [ $store -eq 1 ]; then
  step "object store: a single-node Ceph cluster with a RADOS Gateway on 127.0.0.1:17490"
  bash tests/ceph/ceph_cluster.sh start "$demo/ceph" 17490 > "$demo/ceph.env"
  endpoint=$(sed -n 's/^endpoint=//p' "$demo/ceph.env")
  install -m 600 /dev/null "$demo/store.cred"
  printf 'access_key = %s\nsecret_key = %s\n' "$(sed -n 's/^access_key=//p' "$demo/ceph.env")" \
    "$(sed -n 's/^secret_key=//p' "$demo/ceph.env")" > "$demo/store.cred"
  # The bucket, made with rclone (a remote from the environment; rclone 1.60
  # refuses to start while AWS_CA_BUNDLE is set).
  env -u AWS_CA_BUNDLE RCLONE_CONFIG_DEMO_TYPE=s3 RCLONE_CONFIG_DEMO_PROVIDER=Ceph \
    RCLONE_CONFIG_DEMO_ENDPOINT="$endpoint" RCLONE_CONFIG_DEMO_FORCE_PATH_STYLE=true \
    RCLONE_CONFIG_DEMO_ACCESS_KEY_ID="$(sed -n 's/^access_key=//p' "$demo/ceph.env")" \
    RCLONE_CONFIG_DEMO_SECRET_ACCESS_KEY="$(sed -n 's/^secret_key=//p' "$demo/ceph.env")" \
    RCLONE_LOG_LEVEL=ERROR rclone mkdir demo:tierfs-demo
  "$bin/fsvoladm" add --endpoint "$endpoint" --credentials "$demo/store.cred" \
    "$demo/mnt" s3://tierfs-demo/demo:cloud

  step "fsppadm assign docs/examples/cold_tree_to_store.xml, enforce: tree/linux goes to the store"
  "$bin/fsppadm" assign "$demo/mnt" docs/examples/cold_tree_to_store.xml
  "$bin/fsppadm" enforce "$demo/mnt" | tail -n 6
  find "$demo/mnt/tree" -type f -print0 | xargs -0 "$bin/fsmap" > "$demo/fsmap-store.txt"
  # A file on the store shows its object's URL after its volume, so the class
  # is found by name rather than by column.
  echo "files per class:"
  awk '{ for (i = 2; i < NF; i++) if ($i == "ssd" || $i == "hdd" || $i == "cloud") { print $i; break } }' \
    "$demo/fsmap-store.txt" | sort | uniq -c
  "$bin/fsmap" "$demo/mnt/tree/linux/fs.h"
  cold=$(find "$demo/mnt/tree/linux" -type f | wc -l)
  cold_on_store=$(grep "/tree/linux/" "$demo/fsmap-store.txt" | awk '$(NF-2)=="cloud"' | wc -l)

  step "read it back from the store (sha256 of every file under tree/linux)"
  (cd "$demo/mnt/tree" && grep " ./linux/" "$demo/source.sha256" | sha256sum --quiet -c -) &&
    echo "all $cold files identical, read from the store"
  [ "$cold_on_store" -eq "$cold" ] || { echo "demo FAILED: $cold_on_store of $cold on the store"; exit 1; }
fi
echo; echo "demo OK"
