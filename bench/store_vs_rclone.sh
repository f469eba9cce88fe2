#!/usr/bin/env bash
# Object volumes (issue 29) against rclone, the reference S3 client, on a
# throw-away single-node Ceph (tests/ceph/ceph_cluster.sh), run by hand:
#
#   bench/store_vs_rclone.sh [MIB]     # MIB: the tree's size (default 256)
#
# Under one temporary directory (removed at the end, the cluster stopped, the
# mount unmounted, whatever happens): a tierfs with a local ssd and hdd and an
# object volume "cloud" on the cluster's gateway; a tree of files of 1 to 32 MiB
# (MIB in all, random bytes) and one file of MIB MiB. Prints, in seconds and
# MiB/s, one line each:
#   up     `fsppadm enforce` moving the tree to the store  vs  `rclone copy` of it
#   down   `fsppadm enforce` bringing it back              vs  `rclone copy` from the bucket
#   read   `cat` of the big file on the store (remounted, nothing cached) vs `rclone cat`
# Needs root (mount), the built tree in ./build, rclone and the Ceph packages.
set -euo pipefail
cd "$(dirname "$0")/.."
mib=${1:-256}
bin=$PWD/build/cli
work=$(mktemp -d /var/tmp/tierfs-store-bench-XXXXXX)
port=$((40000 + RANDOM % 20000))
cleanup() {
  mountpoint -q "$work/mnt" && fusermount3 -u "$work/mnt" || true
  [ -d "$work/ceph" ] && tests/ceph/ceph_cluster.sh stop "$work/ceph" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
tests/ceph/ceph_cluster.sh start "$work/ceph" "$port" > "$work/ceph.env"
endpoint=$(sed -n 's/^endpoint=//p' "$work/ceph.env")
access=$(sed -n 's/^access_key=//p' "$work/ceph.env")
secret=$(sed -n 's/^secret_key=//p' "$work/ceph.env")
install -m 600 /dev/null "$work/cred"
printf 'access_key = %s\nsecret_key = %s\n' "$access" "$secret" > "$work/cred"
export RCLONE_CONFIG_B_TYPE=s3 RCLONE_CONFIG_B_PROVIDER=Ceph RCLONE_CONFIG_B_ENDPOINT="$endpoint" \
  RCLONE_CONFIG_B_ACCESS_KEY_ID="$access" RCLONE_CONFIG_B_SECRET_ACCESS_KEY="$secret" \
  RCLONE_CONFIG_B_FORCE_PATH_STYLE=true
unset AWS_CA_BUNDLE
rclone mkdir B:tierfs-bench && rclone mkdir B:rclone-bench
mkdir -p "$work/ssd" "$work/hdd" "$work/mnt" "$work/src/tree"
"$bin/mkdstfs" "$work/mnt" bench "$work/ssd:ssd" "$work/hdd:hdd" >/dev/null
"$bin/fsvoladm" add --endpoint "$endpoint" --credentials "$work/cred" "$work/mnt" \
  s3://tierfs-bench/t:cloud >/dev/null
# The tree: files of 1..32 MiB up to MIB, and the big file.
left=$mib; i=0
while [ "$left" -gt 0 ]; do
  size=$(( (RANDOM % 32) + 1 )); [ "$size" -gt "$left" ] && size=$left
  head -c "${size}M" /dev/urandom > "$work/src/tree/f$i"; left=$((left - size)); i=$((i + 1))
done
head -c "${mib}M" /dev/urandom > "$work/src/big"
cp -r "$work/src/tree" "$work/mnt/tree"; cp "$work/src/big" "$work/mnt/big"; sync
policy() {  # $1: the class every file goes to
  cat > "$work/policy.xml" <<EOF
<?xml version="1.0"?>
<PLACEMENT_POLICY Version="5.1" Name="to_$1">
  <RULE Flags="data" Name="all"><SELECT><PATTERN>*</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>hdd</CLASS></DESTINATION></ON></CREATE>
    <RELOCATE><TO><DESTINATION><CLASS>$1</CLASS></DESTINATION></TO></RELOCATE></RULE>
</PLACEMENT_POLICY>
EOF
  "$bin/fsppadm" assign "$work/mnt" "$work/policy.xml"
}
secs() { local s; s=$(date +%s.%N); "$@" >/dev/null; echo "$(date +%s.%N) - $s" | bc; }
rate() { echo "scale=1; $2 / $1" | bc; }
policy cloud
sync; echo 3 > /proc/sys/vm/drop_caches
t_up=$(secs "$bin/fsppadm" enforce "$work/mnt")
r_up=$(secs rclone copy --transfers 4 "$work/src" B:rclone-bench)
total=$((mib * 2))
echo "up    tierfs $t_up s ($(rate "$t_up" $total) MiB/s)   rclone $r_up s ($(rate "$r_up" $total) MiB/s)"
fusermount3 -u "$work/mnt"; "$bin/tierfs" "$work/ssd" "$work/mnt"
echo 3 > /proc/sys/vm/drop_caches
t_read=$(secs cat "$work/mnt/big")
r_read=$(secs rclone cat B:rclone-bench/big)
echo "read  tierfs $t_read s ($(rate "$t_read" "$mib") MiB/s)   rclone $r_read s ($(rate "$r_read" "$mib") MiB/s)"
policy hdd
t_down=$(secs "$bin/fsppadm" enforce "$work/mnt")
r_down=$(secs rclone copy --transfers 4 B:rclone-bench "$work/down")
echo "down  tierfs $t_down s ($(rate "$t_down" $total) MiB/s)   rclone $r_down s ($(rate "$r_down" $total) MiB/s)"
cmp "$work/mnt/big" "$work/src/big" && echo "read back: identical"
