#!/usr/bin/env bash
# Builds the Debian package tierfs_<version>_<arch>.deb with CPack (in
# ./build-pkg, a build installed under /usr; cmake/packaging.cmake says
# what goes in) and checks it with dpkg-deb: the programs in /usr/sbin, the mount
# helper, man pages, bash completion, and the Depends line.
#
#   scripts/package.sh            build and check; the .deb is left in ./build-pkg
#   scripts/package.sh --install-check
#                                 also, as root, dpkg -i it, run the installed
#                                 `tierfs --version`, mount a scratch file system
#                                 with `mount -t fuse.tierfs` (private mount
#                                 namespace), and dpkg -r it again (refused when
#                                 a tierfs package is installed already)
set -euo pipefail
cd "$(dirname "$0")/.."

install_check=0
case "${1:-}" in
  "") ;;
  --install-check) install_check=1 ;;
  *) echo "usage: scripts/package.sh [--install-check]" >&2; exit 2 ;;
esac

build=build-pkg
# RelWithDebInfo like scripts/build.sh, so that ccache (when installed) reuses
# its objects; CPack strips the programs.
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" \
  -DCMAKE_INSTALL_PREFIX=/usr -DTIERFS_BUILD_TESTS=OFF "${launcher[@]}" >/dev/null
cmake --build "$build" -j"${JOBS:-2}"
(cd "$build" && cpack -G DEB >/dev/null)

version=$(sed -n 's/^project(tierfs VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
deb="$build/tierfs_${version}_$(dpkg --print-architecture).deb"
[[ -f $deb ]] || { echo "package.sh: $deb was not made" >&2; exit 1; }

# The contents: every path an administrator relies on.
contents=$(dpkg-deb -c "$deb")
missing=0
for path in ./usr/sbin/tierfs ./usr/sbin/mkdstfs ./usr/sbin/fsppadm ./usr/sbin/fcladm \
            ./usr/sbin/fsvoladm ./usr/sbin/fsmap ./usr/sbin/mount.fuse.tierfs \
            ./usr/share/man/man8/tierfs.8 ./usr/share/man/man8/fsppadm.8 \
            ./usr/share/man/man8/mkdstfs.8 ./usr/share/man/man8/fcladm.8 \
            ./usr/share/man/man8/fsvoladm.8 \
            ./usr/share/man/man1/fsmap.1 \
            ./usr/share/bash-completion/completions/tierfs \
            ./usr/share/bash-completion/completions/fsppadm; do
  if ! grep -q " $path\$" <<<"$contents"; then
    echo "package.sh: $deb lacks $path" >&2
    missing=1
  fi
done
# Nothing outside /usr: Debian 12 has merged /usr, a file in /sbin would alias one in /usr/sbin.
if grep -v ' \./usr/\| \./$' <<<"$contents" | grep -q .; then
  echo "package.sh: $deb has files outside /usr:" >&2
  grep -v ' \./usr/\| \./$' <<<"$contents" >&2
  missing=1
fi
depends=$(dpkg-deb -f "$deb" Depends)
for dep in fuse3 libfuse3-3 libsqlite3-0 libxml2 libxxhash0 libgflags2.2; do
  if ! grep -qE "(^|, )$dep( |,|$)" <<<"$depends"; then
    echo "package.sh: Depends lacks $dep: $depends" >&2
    missing=1
  fi
done
[[ $missing -eq 0 ]] || exit 1
dpkg-deb -I "$deb" | sed -n 's/^ \(Package\|Version\|Architecture\|Depends\|Installed-Size\):/&/p'
echo "package.sh: $deb checked"

if [[ $install_check -eq 1 ]]; then
  [[ $(id -u) -eq 0 ]] || { echo "package.sh: --install-check needs root" >&2; exit 2; }
  if dpkg-query -W -f='${Status}' tierfs 2>/dev/null | grep -q 'install ok installed'; then
    echo "package.sh: a tierfs package is installed already; not replacing it" >&2
    exit 2
  fi
  # Remove the package again whatever happens. dpkg -i refuses (naming them)
  # when Depends are missing; `apt-get install ./$deb` would fetch them.
  trap 'dpkg -r tierfs >/dev/null 2>&1 || true' EXIT
  dpkg -i "$deb" >/dev/null
  installed=$(/usr/sbin/tierfs --version)
  [[ $installed == "tierfs (tierfs) $version" ]] || {
    echo "package.sh: installed tierfs --version says: $installed" >&2; exit 1; }
  # mount(8) runs /sbin/mount.fuse.TYPE: through the merged /usr, the packaged helper.
  [[ -x /sbin/mount.fuse.tierfs ]] || { echo "package.sh: no /sbin/mount.fuse.tierfs" >&2; exit 1; }
  # The whole chain mount(8) -> mount.fuse.tierfs -> mount.fuse3 -> tierfs, on a
  # scratch file system, in a private mount namespace (nothing outside sees the
  # mount) and with a PATH that has no sbin directory.
  tmp=$(mktemp -d /tmp/tierfs-package.XXXXXX)
  trap 'dpkg -r tierfs >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
  mkdir "$tmp/ssd" "$tmp/hdd" "$tmp/mnt"
  /usr/sbin/mkdstfs --no-mount "$tmp/mnt" pkgcheck "$tmp/ssd:ssd" "$tmp/hdd:hdd" >/dev/null 2>&1
  unshare -m --propagation private env -i PATH=/usr/bin:/bin sh -ec "
    mount -t fuse.tierfs '$tmp/ssd' '$tmp/mnt' -o default_permissions,nofail 2>/dev/null
    echo mounted >'$tmp/mnt/f'
    grep -q ' $tmp/mnt fuse.tierfs ' /proc/mounts
    umount '$tmp/mnt'" || { echo "package.sh: mount -t fuse.tierfs failed" >&2; exit 1; }
  dpkg -r tierfs >/dev/null
  trap 'rm -rf "$tmp"' EXIT
  [[ ! -e /usr/sbin/tierfs ]] || { echo "package.sh: dpkg -r left /usr/sbin/tierfs" >&2; exit 1; }
  echo "package.sh: installed, ran '$installed', mounted with mount -t fuse.tierfs, removed"
fi
