#!/bin/bash
# The part of scripts/install-check.sh that runs inside the clean root (as root,
# in a private mount namespace with /proc and the host's /dev). Writes what the
# host compares into /check/out: old.* before the upgrade, new.* after it.
set -euo pipefail
say() { echo "install-check (clean root): $*"; }
fail() { echo "install-check (clean root): FAILED: $*" >&2; exit 1; }
out=/check/out
mkdir -p "$out"
ssd=/srv/ssd hdd=/srv/hdd mnt=/mnt/tiered
commands=(tierfs mkdstfs fsppadm fcladm fsvoladm fsmap)

# Local .deb files are read as root: no "unsandboxed download" warning.
echo 'APT::Sandbox::User "root";' >/etc/apt/apt.conf.d/99install-check
apt-get update -qq >/dev/null

# Waits (at most 30 s) until the daemon has let go of the file system.
wait_daemon_gone() {
  local i
  for i in $(seq 300); do
    flock -n "$ssd/.tierfs/daemon.lock" true 2>/dev/null && return 0
    sleep 0.1
  done
  fail "the daemon outlived its unmount by 30 s"
}

unmount() {
  umount "$mnt"
  wait_daemon_gone
}

# What must survive an upgrade, as text: checksums, policy, FCL, heat. The heat
# is taken last before the unmount of the earlier release and first after the
# upgrade's mount (the checksums read every file, which is heat too), so the
# two must be equal.
heat() {
  fcladm sync "$mnt" >/dev/null
  fsppadm report --json --depth 1 "$mnt" >"$out/$1.heat"
}
record() {
  local phase=$1 fcl_args=()
  [[ $phase == old ]] || heat "$phase"
  (cd "$mnt" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$out/$phase.sums"
  fsppadm print "$mnt" >"$out/$phase.policy"
  # After the upgrade: the records the earlier release wrote (more may follow).
  [[ $phase == old ]] || fcl_args=(-n "$(grep -c '^ *[0-9]' "$out/old.fcl")")
  fcladm print "${fcl_args[@]}" "$mnt" >"$out/$phase.fcl"
  [[ $phase != old ]] || heat "$phase"
}

# ---- 1. the earlier release --------------------------------------------------------
say "apt-get install ./old.deb ($OLD_VERSION)"
# liburing2 by hand: the earlier package's Depends lacked it (the defect this
# check exists for); without it that tierfs cannot start here.
apt-get install -y -qq /check/old.deb liburing2 >/dev/null
mkdir -p "$ssd" "$hdd" "$mnt"
mkdstfs "$mnt" demo "$ssd:ssd" "$hdd:hdd" >/dev/null
mkdir "$mnt/hot" "$mnt/cold"
for i in $(seq 10); do
  head -c $((i * 40000)) /dev/urandom >"$mnt/hot/h$i"
  head -c $((i * 30000)) /dev/urandom >"$mnt/cold/c$i"
done
fsppadm assign "$mnt" /check/policy.xml >/dev/null
# Remounted, so that the reads below reach the daemon (not the page cache).
unmount
mount -t fuse.tierfs "$ssd" "$mnt"
for round in 1 2 3; do cat "$mnt"/hot/* >/dev/null; done
fsppadm enforce "$mnt" >/dev/null
record old
grep -q '^ *[0-9]' "$out/old.fcl" || fail "the earlier release logged no FCL record"
[[ $(fsmap "$mnt/hot/h10") == *ssd* ]] || fail "enforce did not promote the hot files"
unmount

# ---- 2. the upgrade ---------------------------------------------------------------
say "apt-get install ./new.deb ($NEW_VERSION)"
apt-get install -y -qq /check/new.deb >/dev/null
[[ $(dpkg-query -W -f='${Version}' tierfs) == "$NEW_VERSION" ]] || fail "not upgraded"
for c in "${commands[@]}"; do
  v=$("$c" --version) || fail "$c --version exits non-zero"
  [[ $(head -n 1 <<<"$v") == "$c (tierfs) $NEW_VERSION" ]] || fail "$c --version says: $v"
  grep -Eq '^built from commit [0-9a-f]{40}' <<<"$v" || fail "$c --version names no commit: $v"
  "$c" --help >/dev/null || fail "$c --help exits non-zero"
  [[ -n $(find /usr/share/man -name "$c.[18]*" -print -quit) ]] || fail "no man page for $c"
done
[[ -x /sbin/mount.fuse.tierfs ]] || fail "no /sbin/mount.fuse.tierfs"
mount -t fuse.tierfs "$ssd" "$mnt"
grep -q " $mnt fuse.tierfs " /proc/mounts || fail "mount -t fuse.tierfs did not mount"
record new
# The new release serves, writes and moves as well.
head -c 500000 /dev/urandom >/check/fresh
cp /check/fresh "$mnt/cold/fresh"
fsppadm enforce "$mnt" >/dev/null
cmp /check/fresh "$mnt/cold/fresh" || fail "a file written after the upgrade reads back wrong"
(cd "$mnt" && sha256sum -c --quiet "$out/new.sums") || fail "files changed after the upgrade"
unmount

# ---- 3. removal and purge keep every volume ------------------------------------------
state() { (cd /srv && find . -type f ! -name '*.lock' -print0 | sort -z | xargs -0 sha256sum); }
state >"$out/volumes.before"
say "apt-get remove tierfs"
apt-get remove -y -qq tierfs >/dev/null
[[ ! -e /usr/sbin/tierfs ]] || fail "apt-get remove left /usr/sbin/tierfs"
state | cmp -s - "$out/volumes.before" || fail "apt-get remove changed a volume"
say "apt-get purge tierfs"
apt-get install -y -qq /check/new.deb >/dev/null
apt-get purge -y -qq tierfs >/dev/null
dpkg-query -W tierfs >/dev/null 2>&1 && fail "apt-get purge left the package known to dpkg"
state | cmp -s - "$out/volumes.before" || fail "apt-get purge changed a volume"
apt-get install -y -qq /check/new.deb >/dev/null
mount -t fuse.tierfs "$ssd" "$mnt"
(cd "$mnt" && sha256sum -c --quiet "$out/new.sums") || fail "files differ after a purge and reinstall"
unmount
say "ok"
