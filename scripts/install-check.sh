#!/usr/bin/env bash
# The Debian package on a clean Debian 12, where no build package is installed
# (docs/admin.md, "Installing, upgrading, removing"). In a minimal root made by
# debootstrap (--variant=minbase bookworm, cached as a tarball and unpacked
# afresh for every run), inside a private mount namespace with the host's /dev:
#
#  1. installs the package built from an earlier commit (UPGRADE_FROM, default
#     e6af149) with `apt-get install ./tierfs_*.deb`, makes a file system over
#     two directories, writes files, assigns a policy, reads some files (heat),
#     enforces, and records the files' checksums, the policy, the heat and the
#     File Change Log;
#  2. upgrades to this tree's package the same way, checks that --version names
#     the new version and its commit, that every installed command answers
#     --version and --help and has its man page, mounts with
#     `mount -t fuse.tierfs` and finds the files, policy, heat and FCL intact,
#     writes, enforces, reads back and unmounts;
#  3. `apt-get remove`, then `apt-get purge`: the volumes and the database stay
#     byte for byte; installs once more and mounts the same file system.
#
#   scripts/install-check.sh          as root; builds both packages (ccache helps)
#
# Environment: UPGRADE_FROM (a commit of this repository), TIERFS_CI_CACHE (where
# the root tarball and the earlier package are kept; /var/cache/tierfs-ci),
# DEBIAN_MIRROR (http://deb.debian.org/debian).
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $(id -u) -eq 0 ]] || { echo "install-check: needs root (chroot, mounts)" >&2; exit 2; }
upgrade_from=${UPGRADE_FROM:-e6af149}
cache=${TIERFS_CI_CACHE:-/var/cache/tierfs-ci}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
mkdir -p "$cache"
say() { echo "install-check: $*"; }
fail() { echo "install-check: FAILED: $*" >&2; exit 1; }

# The package of this tree.
scripts/package.sh >/dev/null
version=$(sed -n 's/^project(tierfs VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
new_deb="$PWD/build-pkg/tierfs_${version}_$(dpkg --print-architecture).deb"
[[ -f $new_deb ]] || fail "$new_deb was not made"

# The package of the earlier commit, built once per commit: from `git archive`
# into build-old/ (inside the tree, so ccache's base directory covers both).
old_commit=$(git rev-parse --verify "$upgrade_from^{commit}")
old_deb="$cache/tierfs-${old_commit:0:12}.deb"
if [[ ! -f $old_deb ]]; then
  say "building the package of $upgrade_from"
  rm -rf build-old && mkdir build-old
  git archive "$old_commit" | tar -x -C build-old
  (cd build-old && scripts/package.sh >/dev/null)
  cp build-old/build-pkg/tierfs_*.deb "$old_deb.tmp" && mv "$old_deb.tmp" "$old_deb"
  rm -rf build-old
fi
old_version=$(dpkg-deb -f "$old_deb" Version)
[[ $old_version != "$version" ]] || fail "$upgrade_from has version $version too: nothing to upgrade"

# The clean root, unpacked afresh from its cached tarball.
root_tar="$cache/bookworm-minbase.tar"
if [[ ! -f $root_tar ]]; then
  command -v debootstrap >/dev/null || fail "debootstrap is not installed (scripts/install-deps.sh)"
  say "making a minimal Debian 12 root (debootstrap, cached in $root_tar)"
  made=$(mktemp -d /tmp/tierfs-root.XXXXXX)
  debootstrap --variant=minbase bookworm "$made" "$mirror" >/dev/null
  tar -C "$made" -cf "$root_tar.tmp" . && mv "$root_tar.tmp" "$root_tar"
  rm -rf "$made"
fi
root=$(mktemp -d /tmp/tierfs-cleanroot.XXXXXX)
trap 'rm -rf --one-file-system "$root"' EXIT
tar -C "$root" -xf "$root_tar"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/check"
cp "$old_deb" "$root/check/old.deb"
cp "$new_deb" "$root/check/new.deb"
cp docs/examples/hot_reads.xml "$root/check/policy.xml"
cp scripts/install-check-root.sh "$root/check/run.sh"

# Everything inside a private mount namespace: the mounts (proc, /dev, the
# FUSE mount) vanish with it, whatever happens.
say "installing $old_version, upgrading to $version, removing, in a clean root"
unshare -m --propagation private sh -ec '
  mount -t proc proc "$1/proc"
  mount --rbind /dev "$1/dev"
  chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    DEBIAN_FRONTEND=noninteractive OLD_VERSION="$2" NEW_VERSION="$3" /bin/bash /check/run.sh
' sh "$root" "$old_version" "$version" || fail "see the lines above"

# The records of the two phases must agree (compared here: the root has no python).
out="$root/check/out"
for what in sums policy fcl; do
  cmp -s "$out/old.$what" "$out/new.$what" || {
    diff "$out/old.$what" "$out/new.$what" | head -20 >&2
    fail "$what changed across the upgrade"
  }
done
python3 - "$out/old.heat" "$out/new.heat" <<'EOF'
import json, sys
def heat(path):
    report = json.load(open(path))
    return {row["path"]: row["rbytes"] for row in report["directories"]}
old, new = heat(sys.argv[1]), heat(sys.argv[2])
if not old.get("/hot"):
    sys.exit("install-check: FAILED: the earlier release counted no reads in /hot")
for path, read in old.items():
    if new.get(path) != read:
        sys.exit(f"install-check: FAILED: heat of {path} went from {read} to {new.get(path)}")
print(f"install-check: heat kept across the upgrade: /hot read {old['/hot']} -> {new['/hot']} bytes")
EOF
say "passed: $old_version -> $version installed, upgraded, removed and purged in a clean Debian 12 root; nothing on the volumes changed"
