#!/usr/bin/env bash
# Builds the Debian package tierfs_<version>_<arch>.deb with CPack (in
# ./build-pkg, a build installed under /usr; cmake/packaging.cmake says
# what goes in) and checks it with dpkg-deb: the programs in /usr/sbin, the mount
# helper, man pages, bash completion, and the Depends line.
#
#   scripts/package.sh            build and check; the .deb is left in ./build-pkg
#   scripts/package.sh --install-check
#                                 also, as root, scripts/install-check.sh: install,
#                                 upgrade, run and remove it in a clean Debian 12
#                                 root (nothing on this machine is installed)
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
  -DCMAKE_INSTALL_PREFIX=/usr -DTIERFS_BUILD_TESTS=OFF -DTIERFS_TEST_HOOKS=OFF "${launcher[@]}" >/dev/null
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
# Depends: computed by dpkg-shlibdeps (cmake/packaging.cmake). Checked here
# against what the programs really load: the package of every library a program
# links directly (its ELF NEEDED entries, resolved by ldd) must be in Depends, by
# its name or a name it Provides; and fuse3 (fusermount3) must be there.
depends=$(dpkg-deb -f "$deb" Depends)
names_in_depends=" $(sed 's/([^)]*)//g; s/[|,]/ /g' <<<"$depends" | tr -s ' ') "
staged=$(mktemp -d)
dpkg-deb -x "$deb" "$staged"
[[ $names_in_depends == *" fuse3 "* ]] || { echo "package.sh: Depends lacks fuse3" >&2; missing=1; }
for program in "$staged"/usr/sbin/{tierfs,mkdstfs,fsppadm,fcladm,fsvoladm,fsmap}; do
  resolved=$(ldd "$program")
  for soname in $(objdump -p "$program" | awk '$1 == "NEEDED" {print $2}'); do
    lib=$(awk -v so="$soname" '$1 == so && $2 == "=>" {print $3}' <<<"$resolved")
    owner=$(dpkg -S "$lib" 2>/dev/null || dpkg -S "$(readlink -f "$lib")" 2>/dev/null || true)
    owner=${owner%%:*}
    [[ -n $owner ]] || { echo "package.sh: no package owns $soname ($lib)" >&2; missing=1; continue; }
    provides=$(dpkg-query -W -f='${Provides}' "$owner" 2>/dev/null | sed 's/([^)]*)//g; s/,/ /g')
    named=0
    for name in $owner $provides; do
      [[ $names_in_depends == *" $name "* ]] && named=1
    done
    if [[ $named -eq 0 ]]; then
      echo "package.sh: Depends lacks $owner, whose $soname ${program##*/} loads: $depends" >&2
      missing=1
    fi
  done
done
rm -rf "$staged"
[[ $missing -eq 0 ]] || exit 1
dpkg-deb -I "$deb" | sed -n 's/^ \(Package\|Version\|Architecture\|Depends\|Installed-Size\):/&/p'
echo "package.sh: $deb checked"

if [[ $install_check -eq 1 ]]; then
  exec scripts/install-check.sh
fi
